import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mulberry32 } from '../../lib/random.js';
import { kendallTauB, spearman } from '../../weights/rank-correlation.js';

const close = (a: number | null, b: number, eps = 1e-12) => assert.ok(a !== null && Math.abs(a - b) < eps, `${a} ≠ ${b}`);

/** τ-b by its definition, pair by pair (O(n²)). */
function bruteTauB(x: number[], y: number[]): number | null {
  let c = 0;
  let d = 0;
  let tx = 0;
  let ty = 0;
  const n = x.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = Math.sign(x[i]! - x[j]!);
      const b = Math.sign(y[i]! - y[j]!);
      if (a === 0 && b === 0) continue;
      if (a === 0) tx++;
      else if (b === 0) ty++;
      else if (a === b) c++;
      else d++;
    }
  }
  const den = Math.sqrt((c + d + tx) * (c + d + ty));
  return den > 0 ? (c - d) / den : null;
}

describe('rank correlations', () => {
  // Hand-computed. x = 1..5, y = 3 1 2 5 4: 7 concordant, 3 discordant pairs → τ = 4/10; Σd² = 8 → ρ = 1 − 48/120.
  // With ties, x = 1 1 2 3, y = 1 2 2 3: C = 4, D = 0, one pair tied in each → τ_b = 4 / √(5·5); ρ on midranks
  // (1.5 1.5 3 4 vs 1 2.5 2.5 4) = 3.75 / 4.5.
  const cases: Array<[string, number[], number[], number, number]> = [
    ['no ties', [1, 2, 3, 4, 5], [3, 1, 2, 5, 4], 0.6, 0.4],
    ['ties on both sides', [1, 1, 2, 3], [1, 2, 2, 3], 3.75 / 4.5, 0.8],
    ['perfect agreement', [10, 20, 30], [1, 5, 9], 1, 1],
    ['perfect disagreement', [10, 20, 30], [9, 5, 1], -1, -1],
  ];
  for (const [name, x, y, rho, tau] of cases) {
    it(`${name}: ρ ${rho.toFixed(3)}, τ-b ${tau.toFixed(3)}`, () => {
      close(spearman(x, y), rho);
      close(kendallTauB(x, y), tau);
      close(kendallTauB(y, x), tau);
    });
  }

  it('is undefined (null) for fewer than two pairs or a constant side', () => {
    assert.equal(kendallTauB([1], [2]), null);
    assert.equal(spearman([1], [2]), null);
    assert.equal(kendallTauB([5, 5, 5], [1, 2, 3]), null);
    assert.equal(spearman([5, 5, 5], [1, 2, 3]), null);
    assert.throws(() => kendallTauB([1, 2], [1]), /2 x values but 1 y values/);
  });

  it('matches τ-b counted pair by pair on random data with many ties', () => {
    const rand = mulberry32(7);
    for (let t = 0; t < 200; t++) {
      const n = 2 + Math.floor(rand() * 40);
      const x = Array.from({ length: n }, () => Math.floor(rand() * 5));
      const y = Array.from({ length: n }, (_, i) => (rand() < 0.5 ? x[i]! : Math.floor(rand() * 4)));
      const want = bruteTauB(x, y);
      const got = kendallTauB(x, y);
      if (want === null) assert.equal(got, null);
      else close(got, want, 1e-12);
    }
  });
});
