/** The two score shapes SPEC.md uses again and again, written once. */

/**
 * SPEC's logarithmic penalty: `(1 − log2(1 + bad/(total+1))) × 100`, clamped to [0, 100].
 * With bad ≤ total the result stays above 0 (bad = total = 1 gives 41.5); the clamp only matters when a
 * caller counts more problems than items (for example several misalignments per element).
 */
export function logPenalty(bad: number, total: number): number {
  if (bad < 0 || total < 0) throw new Error('logPenalty: counts must be non-negative');
  const s = (1 - Math.log2(1 + bad / (total + 1))) * 100;
  return Math.min(100, Math.max(0, s));
}

/**
 * SPEC's density penalty for error counts: `max(0, 100 − 20 × 1000 × E / L)`, i.e. 20 points per error per
 * thousand physical lines. L = 0 (no source at all) with E > 0 scores 0; with E = 0 scores 100.
 */
export function densityPenalty(errors: number, lines: number): number {
  if (errors <= 0) return 100;
  if (lines <= 0) return 0;
  return Math.max(0, 100 - (20 * 1000 * errors) / lines);
}

/** Round for display and stable JSON (scores are reported to two decimals). */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
