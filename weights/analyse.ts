/**
 * `webgrade analyse <results.jsonl>`: what each metric measures on a population of pages, how noisy it is, and
 * (with human ratings) how well it agrees with people. One JSON-serialisable document; analyse-format.ts renders
 * it as a table or CSV.
 *
 * Per metric, over the artifacts of the results (one per (model, requirement); repeats merged into the
 * artifact's mean, as in the leaderboard, aggregate.ts):
 * - scorable share: artifacts with a score ÷ all artifacts (failed ones included);
 * - mean, sd: over the scorable artifacts; sd is the population (between-artifact) σ the leaderboard uses;
 * - mode: the single most common score (to 6 decimals; on a tie the higher score) and the share of scorable
 *   artifacts at it (a metric where 84% of pages score 100 separates only the other 16%);
 * - retest: the within-page (test–retest) sd pooled over the artifacts with two scorable repeats (noise.ts) and
 *   its ratio to the between-page sd (≥ 1: the metric's spread is all noise); "n/a: no repeats" without repeats;
 * - the noise guard's σ when it raised it (as the leaderboard; same norms, same settings).
 * The overall gets the same row: a page's overall is Σ_j w_j · z_j (persona weights; population z as in the
 * leaderboard, noise guard included; unscorable metrics count 0), its retest sd from each repeat's overall.
 *
 * With ratings (ratings.ts): Spearman's ρ and Kendall's τ-b (rank-correlation.ts) of every metric and of the
 * overall against the ratings,
 * - across pages: every rated page with a score, all requirements pooled;
 * - within requirements: the same per requirement (pages answering the same request compared among themselves),
 *   over requirements with at least MIN_GROUP rated pages with a score and not all tied, averaged with equal
 *   weight per requirement; `groups` says how many requirements that average covers.
 * 95% CIs: percentile bootstrap, seeded (mulberry32, like the leaderboard's), resampling requirements with
 * replacement (pages of one requirement are not independent; with one page per requirement this resamples
 * pages). Interpretations: a page's scores and overall are fixed (the z of the whole population; only which
 * pages are drawn varies); within requirements a resample averages the drawn requirements' correlations (one
 * drawn twice counts twice); a resample where a correlation is undefined is left out, and with fewer than half
 * of the resamples defined there is no interval.
 */
import type { TimingKey } from './timings.js';
import { quantileSorted } from 'simple-statistics';
import type { PerspectiveId, SuiteId } from '../core/metric.js';
import { findMetric } from '../metrics/registry.js';
import { metricsWithResults, pageOverall, type Population, type Sample } from './aggregate.js';
import { DEFAULT_ITERATIONS, DEFAULT_SEED } from './bootstrap.js';
import { mulberry32 } from '../lib/random.js';
import { guardedPopulationNorms } from './leaderboard.js';
import { pooledWithinSd, type NoiseGuardReport, type NoiseGuardSettings } from './noise.js';
import { describeWeights, type ResolvedWeights } from './personas.js';
import { kendallTauB, spearman } from './rank-correlation.js';
import { matchRatings, type RatingsFile } from './ratings.js';
import { estimates, groupAgreement, judgementsFromPairs, MIN_GROUP, type Estimate } from './judgements.js';
import { matchPairs, type PairsFile } from './pairs.js';
import type { MetricNorm } from './zscore.js';

export { MIN_GROUP };
/** The id of the overall's row. */
export const OVERALL_ID = 'overall';

export interface Correlation {
  value: number | null;
  /** 95% percentile bootstrap interval; null without a bootstrap or with too few defined resamples. */
  ci: [number, number] | null;
  /** Why `value` or `ci` is missing. */
  note?: string;
}

export interface Agreement {
  across: { pages: number; spearman: Correlation; kendall: Correlation };
  within: { groups: number; pages: number; spearman: Correlation; kendall: Correlation };
}

export interface MetricAnalysis {
  id: string;
  perspective: PerspectiveId | null;
  title: string;
  /** Final weight under the persona (the overall: 1). */
  weight: number;
  artifacts: number;
  scorable: number;
  scorableShare: number;
  mean: number | null;
  /** Between-artifact (population) sd. */
  sd: number | null;
  mode: { score: number; share: number; pages: number } | null;
  /** Within-page sd from repeats, and its ratio to `sd`; null with `retestNote`. */
  retest: { sd: number; pairs: number; artifacts: number; ratio: number | null } | null;
  retestNote?: string;
  /** The σ z divides by when the noise guard raised it. */
  effectiveSd?: number;
  /** Agreement with the ratings (only with --ratings). */
  ratings?: Agreement;
  /** Pairwise accuracy against the judgements (only with --pairs; judgements.ts). */
  pairs?: { accuracy: Estimate };
}

export interface AnalysisDoc {
  kind: 'webgrade-analysis';
  results: string;
  suite: SuiteId;
  persona: string;
  weights: string;
  population: {
    artifacts: number;
    rows: number;
    failed: number;
    models: number;
    requirements: number;
    maxRepeats: number;
    artifactsWithRepeats: number;
    metrics: number;
  };
  noiseGuard: NoiseGuardReport;
  metrics: MetricAnalysis[];
  overall: MetricAnalysis;
  ratings: null | {
    file: string;
    /** Rated rows read, rows without a rating, rows that matched a page, matched none, matched several. */
    rows: number;
    unrated: number;
    matched: number;
    unmatched: number;
    ambiguous: number;
    /** Pages with at least one rating (several ratings of a page are averaged). */
    pages: number;
    /** Requirements with a rated page, and those with at least MIN_GROUP. */
    requirements: number;
    requirementsWithMinPages: number;
    minGroup: number;
    bootstrap: { iterations: number; seed: number; unit: 'requirement' } | null;
  };
  pairs: null | {
    file: string;
    /** Judgements read, matched to two pages, matched none; ties among the matched; distinct raters named. */
    rows: number;
    matched: number;
    unmatched: number;
    ties: number;
    raters: number;
    /** Requirements with a matched judgement. */
    requirements: number;
    bootstrap: { iterations: number; seed: number; unit: 'requirement' } | null;
  };
  /** Where the time goes: every timing of the rows (weights/timings.ts), slowest median first. */
  timings?: TimingKey[];
  notes: string[];
}

export interface AnalyseOptions {
  results: string;
  ratings?: RatingsFile;
  pairs?: PairsFile;
  iterations?: number;
  seed?: number;
  noiseGuard?: NoiseGuardSettings;
  normsMetrics?: Record<string, MetricNorm> | null;
}

type Values = { value: number | null; repeats: Array<number | null> | null };

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function describe(id: string, values: readonly Values[], pop: Population, weight: number, title: string, perspective: PerspectiveId | null): MetricAnalysis {
  const scored = values.map((v) => v.value).filter((v): v is number => typeof v === 'number');
  const n = scored.length;
  const mu = n ? mean(scored) : null;
  const sd = n ? Math.sqrt(scored.reduce((a, b) => a + (b - mu!) ** 2, 0) / n) : null;
  let mode: MetricAnalysis['mode'] = null;
  if (n) {
    const counts = new Map<number, number>();
    for (const v of scored) {
      const k = Math.round(v * 1e6) / 1e6;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    const [score, pages] = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]!;
    mode = { score, share: pages / n, pages };
  }
  const out: MetricAnalysis = {
    id,
    perspective,
    title,
    weight,
    artifacts: values.length,
    scorable: n,
    scorableShare: values.length ? n / values.length : 0,
    mean: mu,
    sd,
    mode,
    retest: null,
  };
  const pooled = pooledWithinSd(values.filter((v) => v.repeats).map((v) => v.repeats!.filter((x): x is number => typeof x === 'number')));
  if (pooled) out.retest = { sd: pooled.sd, pairs: pooled.pairs, artifacts: pooled.groups, ratio: sd !== null && sd > 0 ? pooled.sd / sd : null };
  else out.retestNote = pop.maxRepeats > 1 ? 'n/a: no page has two scorable repeats' : 'n/a: no repeats';
  return out;
}

interface RatedPage {
  group: number;
  rating: number;
}

/** Point estimates and bootstrap CIs of the agreement of several score vectors with the ratings. */
function agreements(
  scoreSets: ReadonlyArray<ReadonlyArray<number | null>>,
  rated: ReadonlyMap<number, RatedPage>,
  groups: number,
  iterations: number,
  seed: number,
): Agreement[] {
  // Per score set and group: the pages with a score, as parallel arrays.
  const perSet = scoreSets.map((scores) => {
    const xs: number[][] = Array.from({ length: groups }, () => []);
    const ys: number[][] = Array.from({ length: groups }, () => []);
    for (const [page, r] of rated) {
      const v = scores[page];
      if (typeof v !== 'number') continue;
      xs[r.group]!.push(v);
      ys[r.group]!.push(r.rating);
    }
    const within = xs.map((x, g) => (x.length >= MIN_GROUP ? { rho: spearman(x, ys[g]!), tau: kendallTauB(x, ys[g]!), pages: x.length } : null));
    return { xs, ys, within };
  });
  const withinMean = (w: ReadonlyArray<{ rho: number | null; tau: number | null; pages: number } | null>, pick: readonly number[]) => {
    let rho = 0;
    let tau = 0;
    let n = 0;
    let pages = 0;
    for (const g of pick) {
      const e = w[g];
      if (!e || e.rho === null || e.tau === null) continue;
      rho += e.rho;
      tau += e.tau;
      n++;
      pages += e.pages;
    }
    return n ? { rho: rho / n, tau: tau / n, n, pages } : null;
  };
  const all = [...Array(groups).keys()];
  const boots = scoreSets.map(() => ({ ar: [] as number[], at: [] as number[], wr: [] as number[], wt: [] as number[] }));
  if (iterations > 0 && groups > 0) {
    const rand = mulberry32(seed);
    const pick = new Array<number>(groups);
    for (let it = 0; it < iterations; it++) {
      for (let d = 0; d < groups; d++) pick[d] = Math.floor(rand() * groups);
      perSet.forEach((set, i) => {
        const x: number[] = [];
        const y: number[] = [];
        for (const g of pick) {
          const gx = set.xs[g]!;
          for (let k = 0; k < gx.length; k++) {
            x.push(gx[k]!);
            y.push(set.ys[g]![k]!);
          }
        }
        const rho = spearman(x, y);
        const tau = kendallTauB(x, y);
        if (rho !== null) boots[i]!.ar.push(rho);
        if (tau !== null) boots[i]!.at.push(tau);
        const w = withinMean(set.within, pick);
        if (w) {
          boots[i]!.wr.push(w.rho);
          boots[i]!.wt.push(w.tau);
        }
      });
    }
  }
  const corr = (value: number | null, samples: number[], noValue: string): Correlation => {
    if (value === null) return { value: null, ci: null, note: noValue };
    if (iterations === 0) return { value, ci: null, note: 'no bootstrap (--bootstrap 0)' };
    if (samples.length < iterations / 2) return { value, ci: null, note: `defined in only ${samples.length} of ${iterations} resamples` };
    const sorted = [...samples].sort((a, b) => a - b);
    return { value, ci: [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)] };
  };
  return perSet.map((set, i) => {
    const x = set.xs.flat();
    const y = set.ys.flat();
    const w = withinMean(set.within, all);
    const b = boots[i]!;
    const noAcross = x.length < 2 ? 'n/a: fewer than 2 rated pages with a score' : 'n/a: the scores or the ratings are all tied';
    const noWithin = `n/a: no requirement with ≥ ${MIN_GROUP} rated pages with a score that are not all tied`;
    return {
      across: { pages: x.length, spearman: corr(spearman(x, y), b.ar, noAcross), kendall: corr(kendallTauB(x, y), b.at, noAcross) },
      within: { groups: w?.n ?? 0, pages: w?.pages ?? 0, spearman: corr(w?.rho ?? null, b.wr, noWithin), kendall: corr(w?.tau ?? null, b.wt, noWithin) },
    };
  });
}

export function analyse(pop: Population, weights: ResolvedWeights, opts: AnalyseOptions): AnalysisDoc {
  const { norms, report } = guardedPopulationNorms(pop, { noiseGuard: opts.noiseGuard, normsMetrics: opts.normsMetrics ?? null });
  const w = weights.metrics;
  const samples: Sample[] = pop.samples;
  const metrics = pop.metrics.map((id) => {
    const c = findMetric(id);
    const values: Values[] = samples.map((s) => ({ value: s.scores[id] ?? null, repeats: s.repeats ? s.repeats.map((r) => r.scores[id] ?? null) : null }));
    const m = describe(id, values, pop, w[id] ?? 0, c?.title ?? id, c?.perspective ?? null);
    if (norms[id]?.effectiveSd !== undefined) m.effectiveSd = norms[id]!.effectiveSd;
    return m;
  });
  const overallValues: Values[] = samples.map((s) => ({
    value: s.failed ? null : pageOverall(s.scores, norms, w),
    repeats: s.repeats ? s.repeats.map((r) => (r.failed ? null : pageOverall(r.scores, norms, w))) : null,
  }));
  const overall = describe(OVERALL_ID, overallValues, pop, 1, `overall (persona ${weights.persona}), SD units`, null);

  const notes: string[] = [];
  let ratings: AnalysisDoc['ratings'] = null;
  if (opts.ratings) {
    const match = matchRatings(
      opts.ratings.ratings,
      samples.map((s) => ({ model: s.model, requirement: s.requirement, ...(s.artifact ? { artifact: s.artifact } : {}) })),
    );
    const reqIds = [...new Set([...match.byPage.keys()].map((i) => samples[i]!.requirement))].sort();
    const gIndex = new Map(reqIds.map((r, i) => [r, i]));
    const rated = new Map<number, RatedPage>([...match.byPage].map(([i, r]) => [i, { group: gIndex.get(samples[i]!.requirement)!, rating: r.rating }]));
    const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
    const seed = opts.seed ?? DEFAULT_SEED;
    const sets = [...metrics.map((m) => samples.map((s) => s.scores[m.id] ?? null)), overallValues.map((v) => v.value)];
    const ag = agreements(sets, rated, reqIds.length, iterations, seed);
    metrics.forEach((m, i) => (m.ratings = ag[i]!));
    overall.ratings = ag[ag.length - 1]!;
    const perReq = new Map<number, number>();
    for (const r of rated.values()) perReq.set(r.group, (perReq.get(r.group) ?? 0) + 1);
    ratings = {
      file: opts.ratings.path,
      rows: opts.ratings.ratings.length,
      unrated: opts.ratings.unrated,
      matched: match.matched,
      unmatched: match.unmatched.length,
      ambiguous: match.ambiguous.length,
      pages: match.byPage.size,
      requirements: reqIds.length,
      requirementsWithMinPages: [...perReq.values()].filter((n) => n >= MIN_GROUP).length,
      minGroup: MIN_GROUP,
      bootstrap: iterations > 0 ? { iterations, seed, unit: 'requirement' } : null,
    };
    const lines = (rs: typeof match.unmatched) =>
      rs
        .slice(0, 5)
        .map((r) => r.line)
        .join(', ') + (rs.length > 5 ? ', …' : '');
    if (match.unmatched.length) notes.push(`${match.unmatched.length} ratings match no page of the results (lines ${lines(match.unmatched)})`);
    if (match.ambiguous.length)
      notes.push(
        `${match.ambiguous.length} ratings match more than one page by their path's end (lines ${lines(match.ambiguous)}): give the full path, or model and requirement`,
      );
    const multi = [...match.byPage.values()].filter((r) => r.raters > 1).length;
    if (multi) notes.push(`${multi} pages have several ratings: their mean is used`);
  }
  let pairs: AnalysisDoc['pairs'] = null;
  if (opts.pairs) {
    const match = matchPairs(opts.pairs.pairs, samples);
    const j = judgementsFromPairs(match.pairs, samples);
    const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
    const seed = opts.seed ?? DEFAULT_SEED;
    // Raw scores order pages as their z does; an unscorable page leaves the judgements it is in out, as --ratings does.
    const sets = [...metrics.map((m) => samples.map((s) => s.scores[m.id] ?? null)), overallValues.map((v) => v.value)];
    const ests = estimates(
      'pairs',
      sets.map((scores) => j.groups.map((g) => groupAgreement('pairs', g, scores))),
      iterations,
      seed,
    );
    metrics.forEach((m, i) => (m.pairs = { accuracy: ests[i]! }));
    overall.pairs = { accuracy: ests[ests.length - 1]! };
    pairs = {
      file: opts.pairs.path,
      rows: opts.pairs.pairs.length,
      matched: match.pairs.length,
      unmatched: match.unmatched.length,
      ties: match.pairs.filter((p) => p.winner === 'tie').length,
      raters: opts.pairs.raters,
      requirements: j.groups.length,
      bootstrap: iterations > 0 ? { iterations, seed, unit: 'requirement' } : null,
    };
    if (match.unmatched.length)
      notes.push(
        `${match.unmatched.length} judgements name a page the results do not have (lines ${match.unmatched
          .slice(0, 5)
          .map((p) => p.line)
          .join(', ')}${match.unmatched.length > 5 ? ', …' : ''})`,
      );
  }
  if (pop.maxRepeats < 2) notes.push('no repeats in the results: the within-page (test–retest) sd needs `webgrade batch --repeats 2` or more');
  if (pop.failedRepeats) notes.push(`${pop.failedRepeats} failed repeats left out of their artifacts' means`);
  return {
    kind: 'webgrade-analysis',
    results: opts.results,
    suite: weights.suite,
    persona: weights.persona,
    weights: describeWeights(weights),
    population: {
      artifacts: samples.length,
      rows: pop.rows,
      failed: samples.filter((s) => s.failed).length,
      models: pop.models.length,
      requirements: new Set(samples.map((s) => s.requirement)).size,
      maxRepeats: pop.maxRepeats,
      artifactsWithRepeats: samples.filter((s) => s.repeats).length,
      metrics: metricsWithResults(pop).length,
    },
    noiseGuard: report,
    metrics,
    overall,
    ratings,
    pairs,
    notes,
  };
}
