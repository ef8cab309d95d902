/**
 * Borda count (SPEC "From scores to rankings"): how survey rankings become weights. Pure functions, no I/O.
 *
 * - In a ranking of n items, the item in place p (1 = most important) earns n − p points: the first earns
 *   n − 1, the last 0.
 * - An item's weight = its points summed over all rankings ÷ all points given in those rankings. Weights of the
 *   items therefore sum to 1 whenever at least one ranking of two or more items was given.
 *
 * Interpretations (written down because SPEC is silent):
 * - A ranking must be a permutation of the item set it ranks (`bordaWeights` checks; callers validate input
 *   first and treat anything else as an invalid response).
 * - Rankings that give no points at all (one item, or none) add nothing. When no points were given at all
 *   (no rankings, or only one-item rankings) there is no Borda information: `bordaWeights` returns null and
 *   the caller decides (the survey leaves such a perspective's metric shares out of the weights file, which
 *   means equal shares to every reader of that file; a one-metric perspective always gives its metric 1).
 */

/** Points of each item of one ranking: place p of n earns n − p (first n − 1, last 0). */
export function bordaPoints(ranking: readonly string[]): Map<string, number> {
  const n = ranking.length;
  const points = new Map<string, number>();
  ranking.forEach((id, i) => {
    if (points.has(id)) throw new Error(`ranking lists ${JSON.stringify(id)} twice`);
    points.set(id, n - (i + 1));
  });
  return points;
}

/** Summed points per item over all rankings, for the given item set (items nobody ranked high get 0). */
export function bordaTotals(items: readonly string[], rankings: readonly (readonly string[])[]): Record<string, number> {
  const totals: Record<string, number> = Object.fromEntries(items.map((id) => [id, 0]));
  const itemSet = new Set(items);
  for (const ranking of rankings) {
    if (ranking.length !== items.length || !ranking.every((id) => itemSet.has(id))) {
      throw new Error(`ranking [${ranking.join(', ')}] is not a permutation of [${items.join(', ')}]`);
    }
    for (const [id, pts] of bordaPoints(ranking)) totals[id]! += pts;
  }
  return totals;
}

/**
 * Borda weights of `items` from `rankings` (each a permutation of `items`): points ÷ all points given. Sums
 * to 1; null when no points were given (no rankings, or fewer than two items).
 */
export function bordaWeights(items: readonly string[], rankings: readonly (readonly string[])[]): Record<string, number> | null {
  const totals = bordaTotals(items, rankings);
  const all = Object.values(totals).reduce((a, b) => a + b, 0);
  if (all === 0) return null;
  const out: Record<string, number> = {};
  for (const id of items) out[id] = totals[id]! / all;
  return out;
}

/** Round a weight to SPEC's table precision: percent with one decimal (0.05556 → 5.6). */
export function toPercent1(weight: number): number {
  return Math.round(weight * 1000 + 1e-9) / 10;
}
