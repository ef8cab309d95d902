/**
 * Shared arithmetic of the runtime performance metrics (frame-smoothness, responsiveness, memory-stability): a
 * quantile, a logarithmic scale between a "good" and a "bad" value, and the refresh budget.
 */

/** One display refresh at 60 Hz (ms): a frame whose main-thread work exceeds it misses the next refresh. */
export const FRAME_BUDGET_MS = 1000 / 60;

/** The q-quantile (0–1) of `xs` by the nearest-rank method; NaN for none. */
export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/**
 * 100 at or below `good`, 0 at or above `bad`, logarithmic in between (each doubling of the value costs the same
 * points): the scale of the runtime metrics, whose values span orders of magnitude.
 */
export function logScale(value: number, good: number, bad: number): number {
  if (value <= good) return 100;
  if (value >= bad) return 0;
  return 100 * (1 - Math.log(value / good) / Math.log(bad / good));
}

/** `x` rounded to one decimal. */
export const round1 = (x: number): number => Math.round(x * 10) / 10;
