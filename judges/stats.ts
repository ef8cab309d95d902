/**
 * Mann–Whitney U test (normal approximation with tie correction and continuity correction), for the judge
 * stability check. No maintained npm package offers it with tie correction and p-values on Node 20 (the
 * `mann-whitney-utest` package is unmaintained and returns no p-value), so it is written here and tested against
 * SciPy's `mannwhitneyu(..., method="asymptotic")` values.
 */
import { errorFunction } from 'simple-statistics';

export type Alternative = 'two-sided' | 'less' | 'greater';

export interface MannWhitneyResult {
  /** U of the first sample: Σ ranks of x − nx(nx+1)/2. */
  u: number;
  z: number;
  p: number;
  nx: number;
  ny: number;
}

export function normalCdf(z: number): number {
  return 0.5 * (1 + errorFunction(z / Math.SQRT2));
}

/** Average ranks (1-based) of `values`, ties sharing the mean of their ranks. Also returns the tie groups' sizes. */
export function rank(values: readonly number[]): { ranks: number[]; ties: number[] } {
  const idx = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  const ties: number[] = [];
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[idx[k]![1]] = r;
    if (j > i) ties.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, ties };
}

/**
 * Test whether x tends to be smaller ('less'), larger ('greater') or different ('two-sided') than y.
 * z uses the tie-corrected variance n_x·n_y/12 · ((n+1) − Σ(t³−t)/(n(n−1))) and a continuity correction of 0.5.
 */
export function mannWhitneyU(x: readonly number[], y: readonly number[], alternative: Alternative = 'two-sided'): MannWhitneyResult {
  const nx = x.length;
  const ny = y.length;
  if (nx === 0 || ny === 0) throw new Error('mannWhitneyU: both samples must be non-empty');
  const n = nx + ny;
  const { ranks, ties } = rank([...x, ...y]);
  const rx = ranks.slice(0, nx).reduce((a, b) => a + b, 0);
  const u = rx - (nx * (nx + 1)) / 2;
  const mu = (nx * ny) / 2;
  const tieTerm = ties.reduce((s, t) => s + (t ** 3 - t), 0) / (n * (n - 1));
  const sigma = Math.sqrt(((nx * ny) / 12) * (n + 1 - tieTerm));
  if (sigma === 0) return { u, z: 0, p: 1, nx, ny };
  let z: number;
  let p: number;
  if (alternative === 'less') {
    z = (u - mu + 0.5) / sigma;
    p = normalCdf(z);
  } else if (alternative === 'greater') {
    z = (u - mu - 0.5) / sigma;
    p = 1 - normalCdf(z);
  } else {
    const d = Math.abs(u - mu);
    z = Math.max(0, d - 0.5) / sigma;
    p = Math.min(1, 2 * (1 - normalCdf(z)));
    z = Math.sign(u - mu) * z;
  }
  return { u, z, p: Math.min(1, Math.max(0, p)), nx, ny };
}

/** Sample variance (n − 1); undefined for fewer than 2 values. */
export function sampleVariance(xs: readonly number[]): number | undefined {
  if (xs.length < 2) return undefined;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
}
