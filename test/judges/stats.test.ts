import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mannWhitneyU, rank, sampleVariance } from '../../judges/stats.js';

// Reference values: scipy.stats.mannwhitneyu(x, y, alternative=..., method="asymptotic") (SciPy 1.17, with its
// default continuity correction and tie correction).
const CASES: Array<{ x: number[]; y: number[]; u: number; p: Record<'two-sided' | 'less' | 'greater', number> }> = [
  { x: [1, 2, 3, 4, 5], y: [6, 7, 8, 9, 10], u: 0, p: { 'two-sided': 0.012185780355344813, less: 0.006092890177672406, greater: 0.9966923245172357 } },
  { x: [0, 0, 1, 1, 2], y: [1, 2, 2, 3, 3, 4], u: 3, p: { 'two-sided': 0.031633423039876964, less: 0.015816711519938482, greater: 0.9902513288728416 } },
  {
    x: [5, 1, 4, 4, 2, 8],
    y: [3, 3, 9, 7, 6, 6, 10, 12],
    u: 11,
    p: { 'two-sided': 0.10542799771636518, less: 0.05271399885818259, greater: 0.9598213520443315 },
  },
  {
    x: [0, 0, 0, 0.5, 1, 4],
    y: [0, 2, 6.25, 9, 16, 25, 4, 1],
    u: 7.5,
    p: { 'two-sided': 0.036315193852838656, less: 0.018157596926419328, greater: 0.9869330718901157 },
  },
];

describe('Mann–Whitney U (normal approximation, tie-corrected)', () => {
  for (const c of CASES) {
    for (const alt of ['two-sided', 'less', 'greater'] as const) {
      it(`matches SciPy for x=[${c.x}] y=[${c.y}] (${alt})`, () => {
        const r = mannWhitneyU(c.x, c.y, alt);
        assert.equal(r.u, c.u);
        assert.ok(Math.abs(r.p - c.p[alt]) < 1e-6, `p ${r.p} vs ${c.p[alt]}`);
      });
    }
  }
  it('gives average ranks to ties', () => {
    assert.deepEqual(rank([3, 1, 3, 2]), { ranks: [3.5, 1, 3.5, 2], ties: [2] });
  });
  it('returns p = 1 when every value is tied', () => {
    assert.equal(mannWhitneyU([1, 1], [1, 1, 1], 'less').p, 1);
  });
  it('computes the sample variance and refuses one value', () => {
    assert.equal(sampleVariance([1, 2, 3, 4]), 5 / 3);
    assert.equal(sampleVariance([1]), undefined);
  });
});
