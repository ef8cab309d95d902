/**
 * People's judgements grouped by requirement, and how well a score agrees with them: shared by
 * `analyse --pairs` (per-metric pairwise accuracy) and `weights fit` (held-out agreement).
 *
 * Judgements compare pages of one requirement only (the pages answering the same request), so everything here is
 * within requirement:
 * - ratings: per requirement, the rated pages and their mean rating (ratings.ts averages several raters). A
 *   score's agreement on one requirement is Spearman's ρ between the scores and the ratings of its rated pages
 *   with a score, defined for requirements with at least MIN_GROUP such pages, not all tied; over several
 *   requirements it is the mean of their ρ (equal weight per requirement, as `analyse --ratings` averages).
 * - pairs: per requirement, the judgements (pairs.ts). A score's pairwise accuracy counts, over the decisive
 *   judgements (winner a or b; ties carry no direction and are left out) whose two pages both have a score, 1
 *   when the winner scores higher, ½ when the two score the same (a coin toss), 0 otherwise; over several
 *   requirements it is the sum of those counts over the sum of decisive judgements (each judgement weighs the
 *   same, the arena's own reading).
 * Intervals: percentile bootstrap (seeded mulberry32, as the leaderboard's), resampling requirements with
 * replacement (a requirement drawn twice counts twice), every score on the same resamples; a resample where the
 * measure is undefined is left out, and with fewer than half of them defined there is no interval.
 */
import { quantileSorted } from 'simple-statistics';
import { mulberry32 } from '../lib/random.js';
import type { MatchedPair, Winner } from './pairs.js';
import { spearman } from './rank-correlation.js';

/** Fewest rated pages with a score a requirement needs to count in within-requirement correlations. */
export const MIN_GROUP = 3;

export type JudgementKind = 'ratings' | 'pairs';

export interface Group {
  requirement: string;
  /** Ratings: the rated pages (indices into the population's samples) and their mean rating. */
  rated: Array<{ page: number; rating: number }>;
  /** Pairs: the judgements, pages as sample indices. */
  pairs: Array<{ a: number; b: number; winner: Winner }>;
}

export interface Judgements {
  kind: JudgementKind;
  /** One per requirement with a judgement, sorted by requirement id. */
  groups: Group[];
}

function grouped(kind: JudgementKind, entries: Array<{ requirement: string; fill: (g: Group) => void }>): Judgements {
  const byReq = new Map<string, Group>();
  for (const e of entries) {
    let g = byReq.get(e.requirement);
    if (!g) byReq.set(e.requirement, (g = { requirement: e.requirement, rated: [], pairs: [] }));
    e.fill(g);
  }
  return { kind, groups: [...byReq.values()].sort((a, b) => (a.requirement < b.requirement ? -1 : a.requirement > b.requirement ? 1 : 0)) };
}

/** Ratings matched to pages (ratings.ts `matchRatings().byPage`) grouped by requirement. */
export function judgementsFromRatings(byPage: ReadonlyMap<number, { rating: number }>, samples: ReadonlyArray<{ requirement: string }>): Judgements {
  return grouped(
    'ratings',
    [...byPage]
      .sort((a, b) => a[0] - b[0])
      .map(([page, r]) => ({ requirement: samples[page]!.requirement, fill: (g) => g.rated.push({ page, rating: r.rating }) })),
  );
}

/** Judgements matched to pages (pairs.ts `matchPairs().pairs`) grouped by requirement. */
export function judgementsFromPairs(pairs: readonly MatchedPair[], samples: ReadonlyArray<{ requirement: string }>): Judgements {
  return grouped(
    'pairs',
    pairs.map((p) => ({ requirement: samples[p.a]!.requirement, fill: (g) => g.pairs.push({ a: p.a, b: p.b, winner: p.winner }) })),
  );
}

/** One requirement's agreement with a score: ρ (ratings; null when undefined) or accuracy counts (pairs). */
export interface GroupAgreement {
  value: number | null;
  /** Pairs: correct judgements (ties in the score count ½) and decisive judgements with both pages scored. */
  correct: number;
  decisive: number;
  /** Pages (ratings) or judgements (pairs) that took part. */
  n: number;
}

/** A score's agreement on one requirement (module comment); `scores[page]` null = the page has no score. */
export function groupAgreement(kind: JudgementKind, g: Group, scores: ArrayLike<number | null>): GroupAgreement {
  if (kind === 'ratings') {
    const x: number[] = [];
    const y: number[] = [];
    for (const r of g.rated) {
      const s = scores[r.page];
      if (typeof s !== 'number') continue;
      x.push(s);
      y.push(r.rating);
    }
    return { value: x.length >= MIN_GROUP ? spearman(x, y) : null, correct: 0, decisive: 0, n: x.length };
  }
  let correct = 0;
  let decisive = 0;
  for (const p of g.pairs) {
    if (p.winner === 'tie') continue;
    const sa = scores[p.a];
    const sb = scores[p.b];
    if (typeof sa !== 'number' || typeof sb !== 'number') continue;
    const [w, l] = p.winner === 'a' ? [sa, sb] : [sb, sa];
    correct += w > l ? 1 : w === l ? 0.5 : 0;
    decisive++;
  }
  return { value: decisive ? correct / decisive : null, correct, decisive, n: decisive };
}

/** The measure over a multiset of requirements (indices into `per`); null when no requirement defines it. */
export function combine(kind: JudgementKind, per: readonly GroupAgreement[], pick: Iterable<number>): { value: number | null; groups: number; n: number } {
  let sum = 0;
  let groups = 0;
  let n = 0;
  let correct = 0;
  let decisive = 0;
  for (const i of pick) {
    const a = per[i]!;
    if (kind === 'ratings') {
      if (a.value === null) continue;
      sum += a.value;
      groups++;
      n += a.n;
    } else if (a.decisive > 0) {
      correct += a.correct;
      decisive += a.decisive;
      groups++;
      n += a.decisive;
    }
  }
  if (kind === 'ratings') return { value: groups ? sum / groups : null, groups, n };
  return { value: decisive ? correct / decisive : null, groups, n };
}

export interface Estimate {
  value: number | null;
  /** 95% percentile bootstrap interval over requirements; null without a bootstrap or with too few defined resamples. */
  ci: [number, number] | null;
  /** Requirements that define the measure, and the pages (ratings) or decisive judgements (pairs) behind it. */
  groups: number;
  n: number;
  /** Why `value` or `ci` is missing. */
  note?: string;
}

/** Bootstrap resamples of `groups` requirements (indices, with replacement), seeded. */
export function resamples(groups: number, iterations: number, seed: number): number[][] {
  const out: number[][] = [];
  if (groups === 0) return out;
  const rand = mulberry32(seed);
  for (let it = 0; it < iterations; it++) out.push(Array.from({ length: groups }, () => Math.floor(rand() * groups)));
  return out;
}

/** An estimate from its point value and its defined bootstrap values (`iterations` attempted). */
export function estimateOf(kind: JudgementKind, point: { value: number | null; groups: number; n: number }, samples: number[], iterations: number): Estimate {
  const out: Estimate = { value: point.value, ci: null, groups: point.groups, n: point.n };
  if (point.value === null)
    out.note =
      kind === 'ratings' ? `n/a: no requirement with ≥ ${MIN_GROUP} rated pages that are not all tied` : 'n/a: no decisive judgement (every one a tie)';
  else if (iterations === 0) out.note = 'no bootstrap (--bootstrap 0)';
  else if (samples.length < iterations / 2) out.note = `defined in only ${samples.length} of ${iterations} resamples`;
  else {
    const sorted = [...samples].sort((a, b) => a - b);
    out.ci = [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
  }
  return out;
}

/** Point estimate and bootstrap interval of several scores' agreements, every score on the same resamples. */
export function estimates(
  kind: JudgementKind,
  perScore: ReadonlyArray<readonly GroupAgreement[]>,
  iterations: number,
  seed: number,
  picks?: readonly number[][],
): Estimate[] {
  const groups = perScore[0]?.length ?? 0;
  const draws = picks ?? resamples(groups, iterations, seed);
  return perScore.map((per) => {
    const samples: number[] = [];
    for (const pick of draws) {
      const c = combine(kind, per, pick);
      if (c.value !== null) samples.push(c.value);
    }
    return estimateOf(kind, combine(kind, per, per.keys()), samples, draws.length);
  });
}

/** "0.41 [0.20, 0.60]", or "n/a". */
export function estimateText(e: Pick<Estimate, 'value' | 'ci'>, digits = 2): string {
  if (e.value === null) return 'n/a';
  return e.ci ? `${e.value.toFixed(digits)} [${e.ci[0].toFixed(digits)}, ${e.ci[1].toFixed(digits)}]` : e.value.toFixed(digits);
}
