/**
 * Rank correlations for `webgrade analyse` (agreement of a metric with human ratings) and bench/noise-guard.ts
 * (agreement of two rankings).
 *
 * - Spearman's ρ: simple-statistics `sampleRankCorrelation` (Pearson's r of the midranks, so ties share the mean
 *   of the ranks they span).
 * - Kendall's τ-b (simple-statistics has no Kendall): τ_b = (C − D) / √((n0 − n1)(n0 − n2)) with n0 = n(n−1)/2,
 *   n1 = pairs tied in x, n2 = pairs tied in y, C and D the concordant and discordant pairs. Counted in
 *   O(n log n) (Knight 1966, as scipy's `kendalltau` does): sort by (x, y); pairs tied in x never count as
 *   discordant; D is the number of inversions of y in that order, counted with a Fenwick tree over y's dense ranks;
 *   then C − D = n0 − n1 − n2 + n3 − 2D, with n3 the pairs tied in both.
 *
 * Both return null when undefined: fewer than 2 pairs, or one side constant (every value tied).
 */
import { sampleRankCorrelation } from 'simple-statistics';

export function spearman(x: readonly number[], y: readonly number[]): number | null {
  checkPaired(x, y);
  if (x.length < 2) return null;
  const r = sampleRankCorrelation(x as number[], y as number[]);
  return Number.isFinite(r) ? Math.max(-1, Math.min(1, r)) : null;
}

/** Pairs of equal values in a sorted array: Σ t(t−1)/2 over runs of length t. */
function tiedPairs(sorted: ArrayLike<number>): number {
  let pairs = 0;
  let run = 1;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1]) run++;
    else {
      pairs += (run * (run - 1)) / 2;
      run = 1;
    }
  }
  return pairs;
}

export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  checkPaired(x, y);
  const n = x.length;
  if (n < 2) return null;
  // Dense ranks of y (1-based) for the Fenwick tree.
  const ySorted = Float64Array.from(y).sort();
  const yRank = new Map<number, number>();
  for (const v of ySorted) if (!yRank.has(v)) yRank.set(v, yRank.size + 1);
  const order = [...x.keys()].sort((a, b) => x[a]! - x[b]! || y[a]! - y[b]!);

  // n3: pairs tied in x and in y (adjacent equal (x, y) runs in this order).
  let n3 = 0;
  let run = 1;
  for (let i = 1; i <= n; i++) {
    if (i < n && x[order[i]!] === x[order[i - 1]!] && y[order[i]!] === y[order[i - 1]!]) run++;
    else {
      n3 += (run * (run - 1)) / 2;
      run = 1;
    }
  }
  const n1 = tiedPairs(order.map((i) => x[i]!));
  const n2 = tiedPairs(ySorted);
  // D: pairs i before j in this order with y_i > y_j (x tied pairs are sorted by y, so they add nothing).
  const size = yRank.size;
  const tree = new Float64Array(size + 1);
  let d = 0;
  for (let seen = 0; seen < n; seen++) {
    const r = yRank.get(y[order[seen]!]!)!;
    let atMost = 0; // earlier values with rank ≤ r
    for (let k = r; k > 0; k -= k & -k) atMost += tree[k]!;
    d += seen - atMost;
    for (let k = r; k <= size; k += k & -k) tree[k]! += 1;
  }
  const n0 = (n * (n - 1)) / 2;
  const denom = Math.sqrt((n0 - n1) * (n0 - n2));
  if (!(denom > 0)) return null;
  const tau = (n0 - n1 - n2 + n3 - 2 * d) / denom;
  return Math.max(-1, Math.min(1, tau));
}

function checkPaired(x: readonly number[], y: readonly number[]): void {
  if (x.length !== y.length) throw new Error(`rank correlation: ${x.length} x values but ${y.length} y values`);
}
