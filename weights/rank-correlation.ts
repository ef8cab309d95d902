/**
 * Rank correlations for `webgrade analyse` (agreement of a metric with human ratings) and bench/noise-guard.ts
 * (agreement of two rankings).
 *
 * - Spearman's ρ: simple-statistics `sampleRankCorrelation` (Pearson's r of the midranks, so ties share the mean
 *   of the ranks they span).
 * - Kendall's τ-b (simple-statistics has no Kendall): τ_b = (C − D) / √((n0 − n1)(n0 − n2)) with n0 = n(n−1)/2,
 *   n1 = pairs tied in x, n2 = pairs tied in y, C and D the concordant and discordant pairs. Counted in
 *   O(n log n) (Knight 1966, as scipy's `kendalltau` does): sort by (x, y) (as one integer code of the two dense
 *   ranks, in a typed array); pairs tied in x never count as discordant; D is the number of inversions of y in that
 *   order, counted with a Fenwick tree over y's dense ranks; then C − D = n0 − n1 − n2 + n3 − 2D, with n3 the
 *   pairs tied in both.
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

/** Dense ranks 0..distinct−1 of the values (equal values share one), and the values sorted. */
function denseRanks(v: readonly number[]): { ranks: Int32Array; distinct: number; sorted: Float64Array } {
  const n = v.length;
  const sorted = Float64Array.from(v).sort();
  const uniq = new Float64Array(n);
  let u = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) uniq[u++] = sorted[i]!;
  const ranks = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let lo = 0;
    let hi = u - 1;
    const x = v[i]!;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (uniq[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    ranks[i] = lo;
  }
  return { ranks, distinct: u, sorted };
}

export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  checkPaired(x, y);
  const n = x.length;
  if (n < 2) return null;
  const rx = denseRanks(x);
  const ry = denseRanks(y);
  // Sort the pairs by (x, y) as one integer code per pair: rank_x · (distinct y) + rank_y (exact below 2^53).
  const base = ry.distinct;
  const codes = new Float64Array(n);
  for (let i = 0; i < n; i++) codes[i] = rx.ranks[i]! * base + ry.ranks[i]!;
  codes.sort();
  // n1: pairs tied in x; n3: pairs tied in x and y (equal codes); both are runs in this order.
  let n1 = 0;
  let n3 = 0;
  let runX = 1;
  let runXY = 1;
  for (let i = 1; i <= n; i++) {
    const sameX = i < n && Math.floor(codes[i]! / base) === Math.floor(codes[i - 1]! / base);
    if (sameX) runX++;
    else {
      n1 += (runX * (runX - 1)) / 2;
      runX = 1;
    }
    if (i < n && codes[i] === codes[i - 1]) runXY++;
    else {
      n3 += (runXY * (runXY - 1)) / 2;
      runXY = 1;
    }
  }
  const n2 = tiedPairs(ry.sorted);
  // D: pairs i before j in this order with y_i > y_j (pairs tied in x are sorted by y, so they add nothing),
  // counted with a Fenwick tree over y's dense ranks.
  const tree = new Float64Array(base + 1);
  let d = 0;
  for (let seen = 0; seen < n; seen++) {
    const r = (codes[seen]! % base) + 1;
    let atMost = 0; // earlier values with rank ≤ r
    for (let k = r; k > 0; k -= k & -k) atMost += tree[k]!;
    d += seen - atMost;
    for (let k = r; k <= base; k += k & -k) tree[k]! += 1;
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
