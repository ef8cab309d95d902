/**
 * z-scores over a population (SPEC "z-scores"): for metric j, `z = (x − μ_j) / σ_j` with μ and σ over every
 * scorable sample of the population being ranked (a leaderboard pools all models' artifacts).
 *
 * Interpretations:
 * - σ is the population standard deviation (divide by n, simple-statistics `standardDeviation`): the pool is the
 *   whole population being ranked, not a sample of a larger one. With n = 1 it is 0.
 * - A metric scorable for nobody, or with σ = 0 (every sample equal, or a single sample), cannot separate
 *   anyone: all its z are 0, so it contributes 0, and it is reported (`degenerate` reason).
 * - The noise guard (noise.ts) may set `effectiveSd` (σ raised to k × the metric's test–retest sd); z then divides
 *   by it. Without the guard (`--no-noise-guard`, or no retest estimate) z is exactly the study's.
 */
import { mean, standardDeviation } from 'simple-statistics';

export interface MetricNorm {
  /** μ over the scorable samples; null when there are none. */
  mean: number | null;
  /** Population σ; null when there are no samples. */
  sd: number | null;
  /** Scorable samples. */
  n: number;
  /** Samples that were unscorable (or not run). */
  unscorable: number;
  /** Why this metric contributes 0 (no scorable sample, or σ = 0); absent when it is usable. */
  degenerate?: string;
  /**
   * Test–retest sd: the pooled within-artifact sd over repeats (noise.ts `retestOf`). Stored in norms files built
   * from results with repeats; absent when there were none.
   */
  retestSd?: number;
  /** Degrees of freedom behind `retestSd`: Σ over artifacts of (scorable repeats − 1), the repeat pairs when each artifact has two. */
  retestPairs?: number;
  /** The σ that z divides by when the noise guard raised it (max(σ, k × retest sd)); absent otherwise. Never stored in norms files. */
  effectiveSd?: number;
}

export function normOf(values: readonly number[], unscorable = 0): MetricNorm {
  if (values.length === 0) return { mean: null, sd: null, n: 0, unscorable, degenerate: 'scorable for no sample' };
  const mu = mean(values as number[]);
  const sd = values.length > 1 ? standardDeviation(values as number[]) : 0;
  const out: MetricNorm = { mean: mu, sd, n: values.length, unscorable };
  if (!(sd > SD_EPSILON)) out.degenerate = values.length === 1 ? 'only one scorable sample (σ = 0)' : 'every sample has the same score (σ = 0)';
  return out;
}

/** z of a raw score under a norm; 0 when the norm cannot separate (see module comment). */
export function zOf(x: number, norm: MetricNorm): number {
  if (norm.degenerate || norm.mean === null || norm.sd === null) return 0;
  return (x - norm.mean) / (norm.effectiveSd ?? norm.sd);
}

/** σ at or below this counts as 0 (scores are 0–100 with two decimals). */
export const SD_EPSILON = 1e-9;

/**
 * Population μ, σ from running sums of `x − shift` (used by the bootstrap; shifting by a value near the mean
 * keeps `Σx² − n·μ²` free of cancellation, so equal samples give σ exactly 0). Null when n = 0 or σ = 0.
 */
export function normFromSums(sum: number, sumSq: number, n: number, shift = 0): { mean: number; sd: number } | null {
  if (n === 0) return null;
  const mu = sum / n;
  const sd = Math.sqrt(Math.max(0, sumSq / n - mu * mu));
  if (!(sd > SD_EPSILON)) return null;
  return { mean: mu + shift, sd };
}
