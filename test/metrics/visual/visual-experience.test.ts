import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import metric, { visualRatingToScore } from '../../../metrics/visual/visual-experience.js';
import { testMetric } from '../../metric-tester.js';
import { judgeEvidence, judgeMissing } from '../../judges/metric-cases.js';

const rating = (score: number) => ({ score, aspects: { aesthetics: score, hierarchy: score, consistency: score, fit: score }, reason: 'ok' });

describe('visual-experience mapping min(√(16·s)·10 + 20, 100)', () => {
  it('maps 0..4 to 20, 60, 76.57, 89.28, 100', () => {
    const got = [0, 1, 2, 3, 4].map((s) => Math.round(visualRatingToScore(s) * 100) / 100);
    assert.deepEqual(got, [20, 60, 76.57, 89.28, 100]);
  });
  it('does not saturate in the top half: 2, 3 and 4 (and 3.5) all score differently, rising', () => {
    const top = [2, 2.5, 3, 3.5, 4].map(visualRatingToScore);
    for (let i = 1; i < top.length; i++) assert.ok(top[i]! > top[i - 1]!, `${top}`);
    assert.ok(visualRatingToScore(3.9) < 100);
  });
  it("keeps the study's upper bands apart: acceptable 2–2.5, good 2.5–3, outstanding 3–4 map to disjoint, rising ranges", () => {
    const [a, g, o, top] = [2, 2.5, 3, 4].map(visualRatingToScore);
    assert.ok(g! - a! > 5 && o! - g! > 5 && top! - o! > 10, `${[a, g, o, top]}`);
    // the slope never falls below 10 points per rating unit (no saturation in the top half)
    for (let i = 200; i < 400; i++) assert.ok(visualRatingToScore((i + 1) / 100) - visualRatingToScore(i / 100) >= 0.1 - 1e-9, `at ${i / 100}`);
  });
  it('refuses ratings outside 0–4 instead of clamping them', () => {
    assert.throws(() => visualRatingToScore(5));
    assert.throws(() => visualRatingToScore(-1));
  });
});

testMetric(metric, [
  { name: 'a rating of 4 scores 100', html: '<p>x</p>', evidence: judgeEvidence(metric.id, [rating(4)]), score: 100 },
  { name: 'a rating of 1 scores 60', html: '<p>x</p>', evidence: judgeEvidence(metric.id, [rating(1)]), score: 60 },
  {
    name: 'a rating of 3.25 is used with its decimals: 40·√3.25 + 20 = 92.11',
    html: '<p>x</p>',
    evidence: judgeEvidence(metric.id, [rating(3.25)]),
    score: 40 * Math.sqrt(3.25) + 20,
    details: (d) => {
      assert.deepEqual(d.ratings, [3.25]);
      assert.equal(d.rounded, undefined);
    },
  },
  {
    name: 'a rating the validator rounded is reported in the details and the summary',
    html: '<p>x</p>',
    evidence: judgeEvidence(metric.id, [{ ...rating(3.14), rounded: [{ field: 'score', given: 3.14159, kept: 3.14 }] }]),
    score: 40 * Math.sqrt(3.14) + 20,
    details: (d, o) => {
      assert.deepEqual(d.rounded, [{ repeat: 1, field: 'score', given: 3.14159, kept: 3.14 }]);
      assert.match((o as { summary: string }).summary, /1 rating given with more than two decimals, rounded to two/);
    },
  },
  {
    name: 'repeats are mapped one by one and averaged',
    html: '<p>x</p>',
    evidence: judgeEvidence(metric.id, [rating(4), rating(1)]),
    score: 80,
    details: (d) => assert.deepEqual(d.ratings, [4, 1]),
  },
  {
    name: 'no screenshot: unscorable with the reason',
    html: '<p>x</p>',
    evidence: judgeMissing(metric.id, 'no screenshot: the browser did not run'),
    unscorable: 'no screenshot',
  },
]);
