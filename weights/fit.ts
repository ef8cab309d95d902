/**
 * `webgrade weights fit`: metric weights learned from people's judgements of pages (issue 35), as an
 * alternative to the survey's stated preferences, with how well they agree with people on requirements the fit
 * did not see.
 *
 * Features: the z the leaderboard uses (aggregate.ts, zscore.ts): per metric, over every artifact of the results
 * (repeats merged), σ raised by the noise guard as the leaderboard raises it (`guardedPopulationNorms`, same
 * settings). A page's unscorable (or not run) metric has z 0, as it counts 0 in the overall (`pageOverall`). A
 * metric that cannot separate (degenerate norm) or has no results is not fitted and weighs 0.
 *
 * Model: a page's score is w · z with w ≥ 0 (a weight is what a metric adds to the overall; a negative one would
 * reward a worse score). Learned from within-requirement comparisons only (pages answering the same request), as
 * pairwise logistic regression without intercept on z differences, d = z_winner − z_loser:
 *   - ratings: every two rated pages of one requirement whose mean ratings differ give one comparison (the higher
 *     rated wins); equal ratings say nothing about order and are left out (RankNet's pairwise loss);
 *   - pairs (Bradley–Terry with a logistic link): each judgement is one comparison; a tie (`--ties half`, the
 *     default) is half a win for each side (target ½ on d = z_a − z_b), `--ties drop` leaves ties out.
 * Loss: mean logistic loss over the comparisons + (λ/2)·‖w‖², λ = `--l2` (default DEFAULT_L2: small beside the
 * loss's curvature once there are hundreds of comparisons, enough to keep w finite when the training comparisons
 * are separable and to spread weight over metrics that carry the same information). Each comparison weighs the
 * same, so a requirement with more judged pages carries more comparisons.
 * Solver: no bound-constrained optimiser is among the dependencies (ml-matrix, simple-statistics have none), so
 * the convex problem is solved here by accelerated projected gradient (FISTA, Beck & Teboulle 2009) with
 * backtracking on the step and adaptive restart (O'Donoghue & Candès 2015); non-negativity by projection
 * (max(0, ·)). It stops when the gradient mapping's largest entry is below 1e-7 (a stationary point of the convex
 * problem: the optimum) or after MAX_STEPS steps (reported).
 * Reported weights are normalised to sum 1 (the overall's units do not matter to a ranking); their 95% intervals
 * come from refitting on bootstrap resamples of the requirements (seeded).
 *
 * Held-out agreement: k-fold cross-validation grouped by requirement (requirements shuffled with the seed, dealt
 * round-robin into k folds): each fold's pages are scored by weights fitted on the other folds; the agreement of
 * those held-out scores with people (judgements.ts: within-requirement Spearman for ratings, pairs' pairwise
 * accuracy). Its 95% interval reruns the whole cross-validation on each bootstrap resample of the requirements
 * (copies of a drawn requirement share a fold): with the held-out scores held fixed, the interval ignored the
 * fit's own variability and missed 0 on 2 of 8 simulated pure-noise data sets. Beside it, on the same requirements and resamples: the
 * survey persona weights' overall (persona `all` and the chosen one) and each single metric's z (no fitting, so
 * held-out by construction). The fitted weights beat the survey's only when their interval lies wholly above the
 * survey weights' (a deliberately cautious reading: overlapping intervals mean the data are too few to tell).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PERSPECTIVES, type PerspectiveId, type SuiteId } from '../core/metric.js';
import { findMetric, metricsOf } from '../metrics/registry.js';
import type { Population } from './aggregate.js';
import { DEFAULT_SEED } from './bootstrap.js';
import { mulberry32 } from '../lib/random.js';
import { combine, estimateOf, estimates, groupAgreement, MIN_GROUP, resamples, type Estimate, type GroupAgreement, type Judgements } from './judgements.js';
import { guardedPopulationNorms } from './leaderboard.js';
import type { NoiseGuardReport, NoiseGuardSettings } from './noise.js';
import type { ResolvedWeights } from './personas.js';
import type { FitProvenance, PersonaWeights } from './weights-file.js';
import { zOf, type MetricNorm } from './zscore.js';
import { quantileSorted } from 'simple-statistics';

export const DEFAULT_FOLDS = 5;
export const DEFAULT_L2 = 0.01;
/** Bootstrap refits for the weight intervals and agreement intervals (each resample refits: fewer than the leaderboard's 1000). */
export const DEFAULT_FIT_ITERATIONS = 200;
export const MAX_STEPS = 5000;
export const FITTED_PERSONA = 'fitted';
export type TieRule = 'half' | 'drop';
export const TIE_RULES: readonly TieRule[] = ['half', 'drop'];

export interface LogisticFit {
  w: Float64Array;
  steps: number;
  converged: boolean;
  loss: number;
}

/**
 * Mean logistic loss of margins X·w against soft targets y, plus (l2/2)‖w‖²; fills `grad` when given. Per row,
 * y·softplus(−t) + (1 − y)·softplus(t) = softplus(t) − y·t, and softplus and the sigmoid share one exp(−|t|)
 * (this loop is where a fit spends its time).
 */
function objective(X: Float64Array, y: Float64Array, n: number, m: number, l2: number, w: Float64Array, grad?: Float64Array): number {
  let loss = 0;
  if (grad) grad.fill(0);
  for (let i = 0; i < n; i++) {
    const off = i * m;
    let t = 0;
    for (let j = 0; j < m; j++) t += X[off + j]! * w[j]!;
    const yi = y[i]!;
    const e = Math.exp(-Math.abs(t));
    loss += (t > 0 ? t : 0) + Math.log1p(e) - yi * t;
    if (grad) {
      const r = (t >= 0 ? 1 / (1 + e) : e / (1 + e)) - yi;
      if (r !== 0) for (let j = 0; j < m; j++) grad[j]! += r * X[off + j]!;
    }
  }
  let reg = 0;
  for (let j = 0; j < m; j++) reg += w[j]! * w[j]!;
  if (grad) for (let j = 0; j < m; j++) grad[j] = (n ? grad[j]! / n : 0) + l2 * w[j]!;
  return (n ? loss / n : 0) + (l2 / 2) * reg;
}

/**
 * Non-negative, L2-regularised logistic regression without intercept: rows of X (n × m, row-major) are
 * comparison differences, y their targets in [0, 1] (module comment: projected FISTA with restart).
 */
export function fitNonNegativeLogistic(X: Float64Array, y: Float64Array, n: number, m: number, l2: number, start?: Float64Array): LogisticFit {
  const x = new Float64Array(m);
  if (start) for (let j = 0; j < m; j++) x[j] = Math.max(0, start[j]!);
  if (n === 0 || m === 0) return { w: x, steps: 0, converged: true, loss: 0 };
  let fx = objective(X, y, n, m, l2, x);
  const v = Float64Array.from(x);
  const g = new Float64Array(m);
  const xn = new Float64Array(m);
  let t = 1;
  // First step size from the average curvature (¼·tr(XᵀX)/(n·m) + λ): backtracking then needs few doublings.
  let trace = 0;
  for (let i = 0; i < n * m; i++) trace += X[i]! * X[i]!;
  let L = Math.max(1e-6, (0.25 * trace) / (n * m) + l2);
  let steps = 0;
  let converged = false;
  while (steps < MAX_STEPS) {
    steps++;
    const fv = objective(X, y, n, m, l2, v, g);
    let fn = fv;
    let gap = 0;
    for (;;) {
      let q = 0;
      gap = 0;
      for (let j = 0; j < m; j++) {
        xn[j] = Math.max(0, v[j]! - g[j]! / L);
        const d = xn[j]! - v[j]!;
        q += g[j]! * d + (L / 2) * d * d;
        gap = Math.max(gap, Math.abs(d));
      }
      fn = objective(X, y, n, m, l2, xn);
      // Sufficient decrease of the quadratic upper bound (tiny slack for rounding near the optimum).
      if (fn <= fv + q + 1e-12 * Math.abs(fv) || L > 1e12) break;
      L *= 2;
    }
    if (L * gap < 1e-7) {
      if (fn <= fx) {
        x.set(xn);
        fx = fn;
      }
      converged = true;
      break;
    }
    if (fn > fx) {
      // Momentum overshot: restart from the last accepted point (the next step is a plain, monotone one).
      t = 1;
      v.set(x);
      continue;
    }
    const tn = (1 + Math.sqrt(1 + 4 * t * t)) / 2;
    const beta = (t - 1) / tn;
    for (let j = 0; j < m; j++) v[j] = xn[j]! + beta * (xn[j]! - x[j]!);
    x.set(xn);
    fx = fn;
    t = tn;
  }
  return { w: x, steps, converged, loss: fx };
}

/** Comparisons (rows d = z_winner − z_loser, targets) of the picked requirements (a pick repeated counts twice). */
export function comparisons(
  j: Judgements,
  z: readonly Float64Array[],
  m: number,
  pick: Iterable<number>,
  ties: TieRule,
): { X: Float64Array; y: Float64Array; n: number } {
  const rows: Array<[number, number, number]> = [];
  for (const gi of pick) {
    const g = j.groups[gi]!;
    if (j.kind === 'ratings') {
      for (let p = 0; p < g.rated.length; p++) {
        for (let q = p + 1; q < g.rated.length; q++) {
          const a = g.rated[p]!;
          const b = g.rated[q]!;
          if (a.rating > b.rating) rows.push([a.page, b.page, 1]);
          else if (b.rating > a.rating) rows.push([b.page, a.page, 1]);
        }
      }
    } else {
      for (const p of g.pairs) {
        if (p.winner === 'a') rows.push([p.a, p.b, 1]);
        else if (p.winner === 'b') rows.push([p.b, p.a, 1]);
        else if (ties === 'half') rows.push([p.a, p.b, 0.5]);
      }
    }
  }
  const X = new Float64Array(rows.length * m);
  const y = new Float64Array(rows.length);
  rows.forEach(([a, b, target], i) => {
    const za = z[a]!;
    const zb = z[b]!;
    for (let k = 0; k < m; k++) X[i * m + k] = za[k]! - zb[k]!;
    y[i] = target;
  });
  return { X, y, n: rows.length };
}

function normalised(w: Float64Array): Float64Array | null {
  let s = 0;
  for (const v of w) s += v;
  return s > 0 ? w.map((v) => v / s) : null;
}

/** Requirement folds: indices shuffled with the seed (Fisher–Yates on mulberry32), dealt round-robin. */
export function groupFolds(groups: number, folds: number, seed: number): number[] {
  const order = [...Array(groups).keys()];
  const rand = mulberry32(seed ^ 0x5f0d);
  for (let i = order.length - 1; i > 0; i--) {
    const k = Math.floor(rand() * (i + 1));
    [order[i], order[k]] = [order[k]!, order[i]!];
  }
  const fold = new Array<number>(groups).fill(0);
  order.forEach((g, pos) => (fold[g] = pos % folds));
  return fold;
}

export interface FitOptions {
  /** The survey weights to compare with (persona `all`, and the chosen one when it differs). */
  survey: ResolvedWeights[];
  suite: SuiteId;
  folds?: number;
  seed?: number;
  iterations?: number;
  l2?: number;
  ties?: TieRule;
  noiseGuard?: NoiseGuardSettings;
  normsMetrics?: Record<string, MetricNorm> | null;
}

export interface FittedWeight {
  id: string;
  perspective: PerspectiveId | null;
  /** Normalised weight (all sum to 1); 0 for metrics not fitted. */
  weight: number;
  /** 95% percentile interval over bootstrap refits; null when not fitted or without a bootstrap. */
  ci: [number, number] | null;
  /** Share of bootstrap refits that gave the metric a positive weight. */
  positive: number | null;
  /** Why it was not fitted. */
  note?: string;
}

export interface FitDoc {
  kind: 'webgrade-weights-fit';
  results: string;
  suite: SuiteId;
  data: {
    kind: Judgements['kind'];
    file: string;
    sha256: string;
    /** Rows read, rows that matched pages, rows that matched none (ratings also: several pages, unrated). */
    rows: number;
    matched: number;
    unmatched: number;
    ambiguous?: number;
    unrated?: number;
    /** Ratings: rated pages; pairs: judgements, ties among them, raters named. */
    pages?: number;
    judgements?: number;
    ties?: number;
    raters?: number;
    /** Requirements with a judgement, and those that define the agreement measure. */
    requirements: number;
    comparisons: number;
  };
  method: { loss: string; ties: TieRule | null; l2: number; folds: number; seed: number; bootstrap: number; solver: string; steps: number; converged: boolean };
  measure: { id: 'spearman-within-requirement' | 'pairwise-accuracy'; description: string; chance: number };
  weights: FittedWeight[];
  agreement: {
    fitted: Estimate;
    survey: Array<{ persona: string; source: string; estimate: Estimate }>;
    metrics: Array<{ id: string; estimate: Estimate }>;
  };
  verdict: { beatsSurvey: boolean; text: string };
  noiseGuard: NoiseGuardReport;
  notes: string[];
}

export interface FitResult {
  doc: FitDoc;
  /** Normalised weight per metric of the suite (null when no metric got a positive weight). */
  weights: Record<string, number> | null;
}

export interface DataSummary {
  file: string;
  rows: number;
  matched: number;
  unmatched: number;
  ambiguous?: number;
  unrated?: number;
  raters?: number;
}

/** SHA-256 of a file's bytes (hex), for the provenance. */
export function fileSha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** z of every page for the fitted metrics (the leaderboard's norms; an unscorable score counts 0, as in an overall). */
function features(pop: Population, norms: Record<string, MetricNorm>, ids: readonly string[]): Float64Array[] {
  return pop.samples.map((s) => {
    const row = new Float64Array(ids.length);
    ids.forEach((id, k) => {
      const v = s.scores[id];
      row[k] = typeof v === 'number' ? zOf(v, norms[id]!) : 0;
    });
    return row;
  });
}

/** Fits on chosen requirements of one data set, and the cross-validation built from them. */
class Fitter {
  /** The full-data fit's weights: every other fit starts from them (fewer steps, same optimum: the problem is convex). */
  start: Float64Array | undefined;

  constructor(
    private readonly j: Judgements,
    private readonly z: readonly Float64Array[],
    private readonly m: number,
    private readonly l2: number,
    private readonly ties: TieRule,
  ) {}

  fit(pick: readonly number[]): LogisticFit & { comparisons: number } {
    const c = comparisons(this.j, this.z, this.m, pick, this.ties);
    return { ...fitNonNegativeLogistic(c.X, c.y, c.n, this.m, this.l2, this.start), comparisons: c.n };
  }

  /** Every page's score w · z. */
  score(w: ArrayLike<number>): number[] {
    return this.z.map((row) => {
      let s = 0;
      for (let k = 0; k < this.m; k++) s += w[k]! * row[k]!;
      return s;
    });
  }

  /**
   * Held-out scores: the pages of each requirement in `foldOf` scored by weights fitted on the picks of the other
   * folds. `pick` may repeat a requirement (a bootstrap resample): its copies share a fold, so none is scored by
   * a fit that saw it. Also counts the folds left with no comparison to train on.
   */
  crossValidate(pick: readonly number[], foldOf: ReadonlyMap<number, number>, folds: number): { heldOut: number[]; emptyFolds: number } {
    const heldOut = new Array<number>(this.z.length).fill(0);
    let emptyFolds = 0;
    for (let f = 0; f < folds; f++) {
      const fit = this.fit(pick.filter((g) => foldOf.get(g) !== f));
      if (fit.comparisons === 0) emptyFolds++;
      const s = this.score(fit.w);
      for (const [g, fg] of foldOf) {
        if (fg !== f) continue;
        const grp = this.j.groups[g]!;
        for (const r of grp.rated) heldOut[r.page] = s[r.page]!;
        for (const p of grp.pairs) {
          heldOut[p.a] = s[p.a]!;
          heldOut[p.b] = s[p.b]!;
        }
      }
    }
    return { heldOut, emptyFolds };
  }

  /** The held-out agreement of a bootstrap resample: its distinct requirements shuffled into folds, then the measure over `pick`. */
  resampledAgreement(pick: readonly number[], folds: number, rand: () => number): number | null {
    const distinct = [...new Set(pick)];
    for (let i = distinct.length - 1; i > 0; i--) {
      const r = Math.floor(rand() * (i + 1));
      [distinct[i], distinct[r]] = [distinct[r]!, distinct[i]!];
    }
    const k = Math.max(1, Math.min(folds, distinct.length));
    const { heldOut } = this.crossValidate(pick, new Map(distinct.map((g, pos) => [g, pos % k])), k);
    const drawn = new Set(distinct);
    const per = this.j.groups.map((g, gi) => (drawn.has(gi) ? groupAgreement(this.j.kind, g, heldOut) : { value: null, correct: 0, decisive: 0, n: 0 }));
    return combine(this.j.kind, per, pick).value;
  }
}

function estimateLine(e: Estimate): string {
  return e.value === null ? 'n/a' : e.ci ? `${e.value.toFixed(2)} [${e.ci[0].toFixed(2)}, ${e.ci[1].toFixed(2)}]` : `${e.value.toFixed(2)} (no interval)`;
}

/** Beats only with an interval wholly above every survey interval (module comment). */
function verdictOf(fitted: Estimate, survey: ReadonlyArray<{ persona: string; estimate: Estimate }>): FitDoc['verdict'] {
  const beats = !!fitted.ci && survey.every((s) => !!s.estimate.ci && fitted.ci![0] > s.estimate.ci[1]);
  const surveyText = survey.map((s) => `persona ${s.persona} ${estimateLine(s.estimate)}`).join(', ');
  const text = beats
    ? `the fitted weights agree with people better than the survey weights on held-out requirements: ${estimateLine(fitted)} vs ${surveyText} (intervals apart)`
    : fitted.ci === null
      ? `too few data to tell whether the fitted weights beat the survey weights: held-out agreement ${estimateLine(fitted)} has no interval; keep the survey weights`
      : `too few data to beat the survey weights: the fitted weights' held-out agreement ${estimateLine(fitted)} overlaps ${surveyText}; keep the survey weights, or collect more judgements`;
  return { beatsSurvey: beats, text };
}

/** One row per metric of the suite: normalised weight, bootstrap interval and share of refits giving it weight. */
function weightRows(
  suiteIds: readonly string[],
  fitted: readonly string[],
  wNorm: Float64Array | null,
  boot: number[][],
  why: (id: string) => string,
): FittedWeight[] {
  const defined = boot[0]?.length ?? 0;
  const rows = suiteIds.map((id) => {
    const idx = fitted.indexOf(id);
    const out: FittedWeight = { id, perspective: findMetric(id)?.perspective ?? null, weight: idx >= 0 && wNorm ? wNorm[idx]! : 0, ci: null, positive: null };
    if (idx < 0) out.note = why(id);
    else if (defined > 0) {
      const sorted = [...boot[idx]!].sort((a, b) => a - b);
      out.ci = [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
      out.positive = sorted.filter((v) => v > 0).length / defined;
    }
    return out;
  });
  const order = (p: PerspectiveId | null) => (p ? PERSPECTIVES.indexOf(p) : PERSPECTIVES.length);
  return rows.sort((a, b) => b.weight - a.weight || order(a.perspective) - order(b.perspective));
}

export function fitWeights(pop: Population, j: Judgements, data: DataSummary & { sha256: string }, results: string, opts: FitOptions): FitResult {
  const folds = opts.folds ?? DEFAULT_FOLDS;
  const seed = opts.seed ?? DEFAULT_SEED;
  const iterations = opts.iterations ?? DEFAULT_FIT_ITERATIONS;
  const l2 = opts.l2 ?? DEFAULT_L2;
  const ties: TieRule = opts.ties ?? 'half';
  const { norms, report } = guardedPopulationNorms(pop, { noiseGuard: opts.noiseGuard, normsMetrics: opts.normsMetrics ?? null });
  const suiteIds = Object.keys(opts.survey[0]!.metrics);
  const fitted = pop.metrics.filter((id) => norms[id] && !norms[id]!.degenerate && findMetric(id) && suiteIds.includes(id));
  const z = features(pop, norms, fitted);
  const fitter = new Fitter(j, z, fitted.length, l2, ties);
  const G = j.groups.length;
  const all = [...Array(G).keys()];
  const main = fitter.fit(all);
  fitter.start = main.w;
  const wNorm = normalised(main.w);

  const k = Math.max(1, Math.min(folds, G));
  const mainFolds = groupFolds(G, k, seed);
  const cv = fitter.crossValidate(all, new Map(all.map((g) => [g, mainFolds[g]!])), k);
  const per = (scores: ArrayLike<number | null>): GroupAgreement[] => j.groups.map((g) => groupAgreement(j.kind, g, scores));
  const heldOutPer = per(cv.heldOut);

  // Bootstrap: each resample of the requirements refits the weights (their intervals) and reruns the whole
  // cross-validation (the held-out agreement's interval then carries the fit's own variability, not only which
  // requirements were drawn); the survey and single-metric scores need no fit and use the same resamples.
  const picks = G > 1 ? resamples(G, iterations, seed) : [];
  const boot: number[][] = fitted.map(() => []);
  const fittedSamples: number[] = [];
  const rand = mulberry32(seed + 1);
  for (const pick of picks) {
    const w = normalised(fitter.fit(pick).w);
    if (w) w.forEach((v, idx) => boot[idx]!.push(v));
    const v = fitter.resampledAgreement(pick, k, rand);
    if (v !== null) fittedSamples.push(v);
  }
  if ((boot[0]?.length ?? 0) < picks.length / 2) boot.forEach((b) => (b.length = 0));
  const fittedEst = estimateOf(j.kind, combine(j.kind, heldOutPer, all), fittedSamples, picks.length);
  const surveyScores = opts.survey.map((w) => fitter.score(fitted.map((id) => w.metrics[id] ?? 0)));
  const metricScores = fitted.map((_, idx) => z.map((row) => row[idx]!));
  const ests = estimates(j.kind, [...surveyScores.map(per), ...metricScores.map(per)], iterations, seed, picks);
  const survey = opts.survey.map((w, i) => ({ persona: w.persona, source: w.source, estimate: ests[i]! }));
  const hasResults = (id: string) => pop.samples.some((s) => typeof s.scores[id] === 'number');
  const weights = weightRows(suiteIds, fitted, wNorm, boot, (id) =>
    hasResults(id) ? `not fitted: ${norms[id]?.degenerate ?? 'cannot separate pages'}` : 'no results',
  );

  const notes: string[] = [];
  if (!wNorm) notes.push('the fit gives no metric a positive weight: no page order the metrics explain (nothing to write)');
  if (!main.converged)
    notes.push(`the solver stopped after ${main.steps} steps before converging (tolerance 1e-7): the weights are close to, not at, the optimum`);
  if (cv.emptyFolds)
    notes.push(`${cv.emptyFolds} of ${k} cross-validation folds had no comparisons left to train on: their requirements were scored with all weights 0 (ties)`);
  if (k < folds) notes.push(`only ${G} requirements with judgements: ${k} folds instead of ${folds}`);
  const groupsDefined = combine(j.kind, heldOutPer, all).groups;
  if (j.kind === 'ratings' && groupsDefined < G)
    notes.push(
      `${G - groupsDefined} of ${G} requirements have fewer than ${MIN_GROUP} rated pages (or all tied): they train the fit but do not count in the agreement`,
    );
  const degenerate = weights.filter((w) => w.note && w.note !== 'no results').map((w) => `${w.id} (${w.note})`);
  if (degenerate.length) notes.push(`weighted 0, cannot separate pages: ${degenerate.join(', ')}`);
  const absent = weights.filter((w) => w.note === 'no results').map((w) => w.id);
  if (absent.length) notes.push(`${absent.length} metrics of the ${opts.suite} suite have no results and weigh 0: ${absent.join(', ')}`);
  if (j.kind === 'pairs' && ties === 'drop') notes.push('ties left out of the fit (--ties drop)');

  const judged =
    j.kind === 'ratings'
      ? { pages: j.groups.reduce((a, g) => a + g.rated.length, 0) }
      : {
          judgements: j.groups.reduce((a, g) => a + g.pairs.length, 0),
          ties: j.groups.reduce((a, g) => a + g.pairs.filter((p) => p.winner === 'tie').length, 0),
          raters: data.raters ?? 0,
        };
  const doc: FitDoc = {
    kind: 'webgrade-weights-fit',
    results,
    suite: opts.suite,
    data: {
      kind: j.kind,
      file: data.file,
      sha256: data.sha256,
      rows: data.rows,
      matched: data.matched,
      unmatched: data.unmatched,
      ...(data.ambiguous !== undefined ? { ambiguous: data.ambiguous } : {}),
      ...(data.unrated !== undefined ? { unrated: data.unrated } : {}),
      ...judged,
      requirements: G,
      comparisons: main.comparisons,
    },
    method: {
      loss:
        j.kind === 'ratings'
          ? 'pairwise logistic (RankNet) on within-requirement pairs of pages with different ratings'
          : 'Bradley–Terry (logistic) on the judgements',
      ties: j.kind === 'pairs' ? ties : null,
      l2,
      folds: k,
      seed,
      bootstrap: iterations,
      solver: 'projected FISTA with backtracking and restart (non-negative weights)',
      steps: main.steps,
      converged: main.converged,
    },
    measure: {
      id: j.kind === 'ratings' ? 'spearman-within-requirement' : 'pairwise-accuracy',
      description:
        j.kind === 'ratings'
          ? `Spearman ρ within requirement (≥ ${MIN_GROUP} rated pages), averaged over requirements`
          : 'pairwise accuracy on decisive judgements (a score tie counts ½)',
      chance: j.kind === 'ratings' ? 0 : 0.5,
    },
    weights,
    agreement: {
      fitted: fittedEst,
      survey,
      metrics: fitted
        .map((id, i) => ({ id, estimate: ests[survey.length + i]! }))
        .sort((a, b) => (b.estimate.value ?? -Infinity) - (a.estimate.value ?? -Infinity)),
    },
    verdict: verdictOf(fittedEst, survey),
    noiseGuard: report,
    notes,
  };
  return { doc, weights: wNorm ? Object.fromEntries(suiteIds.map((id) => [id, weights.find((w) => w.id === id)!.weight])) : null };
}

/**
 * The persona of a weights file (weights-file.ts) holding fitted metric weights: each perspective's weight is
 * the sum of its metrics' weights, each metric's share its part of that sum (a perspective the fit gave nothing
 * splits equally, weighing 0), so the leaderboard rebuilds exactly the fitted metric weights.
 */
export function fittedPersona(weights: Record<string, number>, perspectives: readonly PerspectiveId[], suite: SuiteId, fit: FitProvenance): PersonaWeights {
  const pw: Record<string, number> = {};
  const shares: Record<string, number> = {};
  const metrics: Record<string, number> = {};
  for (const p of perspectives) {
    const ids = metricsOf(p, suite).map((d) => d.id);
    const sum = ids.reduce((a, id) => a + (weights[id] ?? 0), 0);
    pw[p] = sum;
    for (const id of ids) {
      shares[id] = sum > 0 ? (weights[id] ?? 0) / sum : 1 / ids.length;
      metrics[id] = weights[id] ?? 0;
    }
  }
  const total = Object.values(pw).reduce((a, b) => a + b, 0) || 1;
  for (const p of Object.keys(pw)) pw[p] = pw[p]! / total;
  return { respondents: 0, suite, perspectives: pw, metrics, shares, fit };
}

/** The provenance a fitted weights file carries (weights-file.ts `FitProvenance`). */
export function provenanceOf(doc: FitDoc, date: Date = new Date()): FitProvenance {
  const est = (e: Estimate) => ({ value: e.value, ci: e.ci });
  return {
    method: `${doc.method.loss}; non-negative, L2 ${doc.method.l2}${doc.method.ties ? `; ties ${doc.method.ties}` : ''}`,
    data: {
      kind: doc.data.kind,
      file: doc.data.file,
      sha256: doc.data.sha256,
      rows: doc.data.rows,
      requirements: doc.data.requirements,
      comparisons: doc.data.comparisons,
    },
    results: doc.results,
    folds: doc.method.folds,
    seed: doc.method.seed,
    bootstrap: doc.method.bootstrap,
    measure: doc.measure.id,
    agreement: { fitted: est(doc.agreement.fitted), survey: Object.fromEntries(doc.agreement.survey.map((s) => [s.persona, est(s.estimate)])) },
    beatsSurvey: doc.verdict.beatsSurvey,
    date: date.toISOString(),
    noiseGuard: doc.noiseGuard.enabled,
  };
}
