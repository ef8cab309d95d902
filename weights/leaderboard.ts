/**
 * The leaderboard document: everything `webgrade leaderboard` prints, in one JSON-serialisable object whose head
 * is SPEC's `{"persona", "weights", "models": [{"model", "rank", "overall", "perspectives", "unscorable"}]}`
 * (overall and perspective values in units of one standard deviation), extended with the per-metric z and raw
 * means, the label breakdowns, the bootstrap intervals and notes. The HTML report embeds the same data plus the
 * other personas' weights, so that it can re-rank in the page.
 *
 * Repeats count once (aggregate.ts: an artifact's score is its mean over its repeats; σ is between-artifact). The
 * noise guard (noise.ts) bounds each metric's σ below by k × its test–retest sd, estimated from the results'
 * repeats or taken from the norms (`normsMetrics`); `noiseGuard` in the document says what it changed.
 * `population.metrics` counts the metrics with at least one scorable sample.
 */
import { PERSPECTIVES, type PerspectiveId, type SuiteId } from '../core/metric.js';
import type { ResultRow } from '../core/results.js';
import { InputError } from '../core/errors.js';
import { dict, own } from '../lib/dict.js';
import {
  aggregate,
  labelAggregates,
  labelKeys,
  metricsWithResults,
  populationFromRows,
  populationNorms,
  scoreBreakdown,
  scoreModels,
  weightedPerspectiveIds,
  type Aggregate,
  type LabelAggregates,
  type LabelBreakdown,
  type ModelScore,
  type Population,
} from './aggregate.js';
import { bootstrap, ONE_REQUIREMENT, type BootstrapResult } from './bootstrap.js';
import type { PeopleBeside } from './people.js';
import { guardNorms, NOISE_GUARD_DEFAULT, retestSources, sdFloors, type NoiseGuardReport, type NoiseGuardSettings } from './noise.js';
import { describeWeights, type ResolvedWeights } from './personas.js';
import type { MetricNorm } from './zscore.js';
import { provenanceLine, type FitProvenance } from './weights-file.js';

export interface LeaderboardModel extends ModelScore {
  /** 95% bootstrap interval of the overall (resampling requirements); null when it would say nothing (`ciReason`). */
  ci?: [number, number] | null;
  /** Why `ci` is null: "one requirement" (the model has artifacts for one requirement only). */
  ciReason?: string;
  /** Fraction of bootstrap resamples in which the model holds this rank (null with `ci`). */
  rankHolds?: number | null;
  rankFrequency?: number[];
  /** Share of the model's artifacts that ran (render-validity, UI2App's executability); absent without render-validity results. */
  executable?: Executable;
}

/**
 * UI2App's "share of executable artifacts", from render-validity (100 or 0 per artifact): `rendered` artifacts of
 * the `of` with a render-validity score (an artifact scored several times counts its mean over its repeats, so
 * `rendered` may be fractional); artifacts where render-validity was unscorable (the probe failed) or not run are
 * left out of `of`, and counted in `unscorable`. Not weighted: it is shown beside the overall, as the study does.
 */
export interface Executable {
  share: number;
  rendered: number;
  of: number;
  unscorable: number;
}

export const EXECUTABLE_METRIC = 'render-validity';

/** Each model's executable share, from the population's render-validity scores; empty when nobody has one. */
export function executableShares(pop: Population): Map<string, Executable> {
  const out = new Map<string, Executable>();
  if (!pop.samples.some((s) => typeof s.scores[EXECUTABLE_METRIC] === 'number')) return out;
  for (const model of pop.models) {
    let rendered = 0;
    let of = 0;
    let unscorable = 0;
    for (const s of pop.samples) {
      if (s.model !== model || !(EXECUTABLE_METRIC in s.scores)) continue;
      const v = s.scores[EXECUTABLE_METRIC];
      if (typeof v === 'number') {
        rendered += v / 100;
        of++;
      } else unscorable++;
    }
    if (of + unscorable > 0) out.set(model, { share: of ? rendered / of : 0, rendered, of, unscorable });
  }
  return out;
}

export interface LeaderboardMetric {
  id: string;
  perspective: PerspectiveId | null;
  title: string;
  weight: number;
  mean: number | null;
  sd: number | null;
  scorable: number;
  unscorable: number;
  /** Why it contributes 0, when it does. */
  degenerate?: string;
  /** Test–retest sd (from the results' repeats, else the norms), when known. */
  retestSd?: number;
  retestSource?: 'repeats' | 'norms';
  /** The σ z divides by when the noise guard raised it (k × retestSd); absent when σ is the study's. */
  effectiveSd?: number;
}

export interface LeaderboardDoc {
  persona: string;
  /** The suite ranked (its metrics and perspectives). */
  suite: SuiteId;
  /** The perspectives of the suite, in SPEC order (the columns of the model table). */
  perspectives: PerspectiveId[];
  weights: {
    source: string;
    description: string;
    perspectives: Partial<Record<PerspectiveId, number>>;
    metrics: Record<string, number>;
    equalShareIn: PerspectiveId[];
    /** Fitted weights (`webgrade weights fit`): where they came from, and that as one line. */
    provenance?: FitProvenance;
    provenanceLine?: string;
  };
  /**
   * artifacts: (model, requirement) pairs, each counted once; rows: result rows behind them (more with repeats);
   * maxRepeats: most repeats of one artifact; metrics: metrics with at least one scorable sample.
   */
  population: { artifacts: number; failed: number; requirements: number; models: number; metrics: number; rows: number; maxRepeats: number };
  models: LeaderboardModel[];
  metrics: LeaderboardMetric[];
  /** perMetric[model][metric] = unweighted mean z (null: no scorable sample), raw mean, counts. */
  perMetric: Record<string, Record<string, { z: number | null; raw: number | null; scored: number; unscorable: number }>>;
  breakdowns: LabelBreakdown[];
  /**
   * How many scored alignment results were judged under each stance (`--alignment`: study, strict; unknown for
   * rows scored before the stance was recorded). More than one stance in one ranking gets a note.
   */
  alignmentStances: Record<string, number>;
  bootstrap?: Omit<BootstrapResult, 'models' | 'pAhead'> & { pAhead: BootstrapResult['pAhead'] };
  /** What the noise guard did (noise.ts). */
  noiseGuard: NoiseGuardReport;
  /** The people's Bradley–Terry ranking beside this one (`--pairs`; people.ts). */
  people?: PeopleBeside;
  notes: string[];
}

export interface LeaderboardOptions {
  /** Only this label's breakdown (`--by`); all labels the rows carry when absent. */
  by?: string;
  iterations?: number;
  seed?: number;
  /** The noise guard (default on, k = DEFAULT_NOISE_GUARD_K). */
  noiseGuard?: NoiseGuardSettings;
  /** Norms whose `retestSd` the guard falls back on for metrics without repeats in the results. */
  normsMetrics?: Record<string, MetricNorm> | null;
}

/** The population's norms under the noise guard, its report, and the σ floors for the bootstrap. */
export function guardedPopulationNorms(
  pop: Population,
  opts: Pick<LeaderboardOptions, 'noiseGuard' | 'normsMetrics'> = {},
): { norms: Record<string, MetricNorm>; report: NoiseGuardReport; floors: Record<string, number> } {
  const { norms, report } = guardNorms(populationNorms(pop), retestSources(pop, opts.normsMetrics), opts.noiseGuard ?? NOISE_GUARD_DEFAULT);
  return { norms, report, floors: sdFloors(report) };
}

/**
 * The statistics of one population, each computed once per run: the guarded norms and what the guard did, the
 * aggregate (per model and metric: raw mean, mean z), the aggregates per label value (the breakdowns), and the
 * bootstrap of every weight set asked for, on the same resamples. The leaderboard document, the HTML leaderboard
 * and the report are read from it; none of them recomputes a statistic.
 */
export interface Standings {
  pop: Population;
  norms: Record<string, MetricNorm>;
  noiseGuard: NoiseGuardReport;
  agg: Aggregate;
  /** The labels broken down (`by`, else every label the samples carry), each value with its aggregate. */
  labels: LabelAggregates[];
  /** Bootstrap per weight-set name (empty with 0 iterations or no model). */
  boot: Record<string, BootstrapResult>;
  /** The bootstrap's settings as run (iterations 0: not run). */
  iterations: number;
  seed: number | undefined;
  requirements: number;
}

/**
 * Compute a population's standings (see `Standings`). `weightSets` names the final metric weights to bootstrap
 * (the leaderboard's persona; the HTML report adds every persona): a weight set's intervals do not depend on the
 * others evaluated beside it, since all share the resamples.
 */
export function computeStandings(pop: Population, weightSets: Record<string, Record<string, number>>, opts: LeaderboardOptions = {}): Standings {
  if (pop.samples.length === 0) throw new InputError('the results file has no rows');
  const { norms, report: noiseGuard, floors } = guardedPopulationNorms(pop, opts);
  const agg = aggregate(pop, { norms });
  const keys = labelKeys(pop);
  if (opts.by && !keys.includes(opts.by)) {
    throw new InputError(
      `--by ${opts.by}: no result row carries that label (${keys.length ? `labels: ${keys.join(', ')}` : 'no labels; pass --requirements to batch'})`,
    );
  }
  const labels = (opts.by ? [opts.by] : keys).map((k) => labelAggregates(pop, k, norms));
  const requirements = new Set(pop.samples.map((s) => s.requirement)).size;
  const iterations = opts.iterations ?? 1000;
  const boot =
    iterations > 0 && pop.models.length > 0
      ? bootstrap(pop, weightSets, { iterations: opts.iterations, seed: opts.seed, sdFloor: floors })
      : dict<BootstrapResult>();
  return { pop, norms, noiseGuard, agg, labels, boot, iterations, seed: opts.seed, requirements };
}

export function leaderboardFromPopulation(pop: Population, weights: ResolvedWeights, opts: LeaderboardOptions = {}): LeaderboardDoc {
  return leaderboardStandings(pop, weights, opts).doc;
}

/** One persona's standings and its leaderboard document (what else reads the run, the people's ranking, takes the standings' norms). */
export function leaderboardStandings(pop: Population, weights: ResolvedWeights, opts: LeaderboardOptions = {}): { standings: Standings; doc: LeaderboardDoc } {
  const standings = computeStandings(pop, { [weights.persona]: weights.metrics }, opts);
  return { standings, doc: leaderboardDoc(standings, weights) };
}

/**
 * The leaderboard document of `weights` from computed standings; `bootKey` names its bootstrap in
 * `standings.boot` (default: the persona's name).
 */
export function leaderboardDoc(st: Standings, weights: ResolvedWeights, bootKey: string = weights.persona): LeaderboardDoc {
  const { pop, agg, noiseGuard, requirements } = st;
  const scores = scoreModels(agg, weights.metrics);
  const notes: string[] = [];
  const breakdowns = st.labels.map((la) => scoreBreakdown(la, weights.metrics));

  const boot: BootstrapResult | undefined = own(st.boot, bootKey);
  if (boot) {
    if (requirements < 2) notes.push('only one requirement: the bootstrap cannot estimate uncertainty');
    else {
      const one = boot.models.filter((m) => m.ci === null).map((m) => m.model);
      if (one.length)
        notes.push(
          `${one.join(', ')} ${one.length === 1 ? 'has' : 'have'} artifacts for ${ONE_REQUIREMENT} only: no confidence interval or rank stability (n/a), not compared in "not clearly apart"`,
        );
    }
    for (const na of boot.notApart) {
      notes.push(
        `${na.upper} and ${na.lower} are not clearly apart: ${na.upper} is ahead in ${(na.pAhead * 100).toFixed(0)}% of ${boot.iterations} resamples (< 95%)`,
      );
    }
  }
  if (weights.fit && (weights.fit.noiseGuard ?? true) !== noiseGuard.enabled) {
    notes.push(
      `the weights were fitted on z ${(weights.fit.noiseGuard ?? true) ? 'with' : 'without'} the noise guard and this ranking is ${noiseGuard.enabled ? 'with' : 'without'} it: ${noiseGuard.enabled ? 'add' : 'drop'} --no-noise-guard for the z they were fitted on`,
    );
  }
  const executable = executableShares(pop);
  const models: LeaderboardModel[] = scores.map((s) => {
    const m: LeaderboardModel = { ...s };
    const ex = executable.get(s.model);
    if (ex) m.executable = ex;
    const b = boot?.models.find((x) => x.model === s.model);
    if (b) {
      m.ci = b.ci;
      if (b.ciReason) m.ciReason = b.ciReason;
      m.rankHolds = b.rankHolds;
      m.rankFrequency = b.rankFrequency;
    }
    return m;
  });
  const metrics: LeaderboardMetric[] = agg.metrics.map((m) => {
    const out: LeaderboardMetric = {
      id: m.id,
      perspective: m.perspective,
      title: m.title,
      weight: own(weights.metrics, m.id) ?? 0,
      mean: m.norm.mean,
      sd: m.norm.sd,
      scorable: m.norm.n,
      unscorable: m.norm.unscorable,
    };
    const rt = own(noiseGuard.retest, m.id);
    if (rt) {
      out.retestSd = rt.sd;
      out.retestSource = rt.source;
    }
    if (m.norm.effectiveSd !== undefined) out.effectiveSd = m.norm.effectiveSd;
    if (m.norm.degenerate) {
      out.degenerate = m.norm.degenerate;
      notes.push(`${m.id} contributes 0: ${m.norm.degenerate}`);
    }
    if (!m.perspective) notes.push(`${m.id} is not in the metric catalogue: shown, weighted 0`);
    return out;
  });
  const present = new Set(agg.metrics.map((m) => m.id));
  const absent = Object.keys(weights.metrics).filter((id) => !present.has(id));
  if (absent.length) {
    const w = absent.reduce((s, id) => s + (weights.metrics[id] ?? 0), 0);
    notes.push(
      `${absent.length} of ${Object.keys(weights.metrics).length} metrics of the ${weights.suite} suite have no results (${(w * 100).toFixed(1)}% of the weight contributes 0): ${absent.join(', ')}`,
    );
  }
  if (pop.maxRepeats > 1) {
    const repeated = pop.samples.filter((s) => s.repeats).length;
    notes.push(
      `${repeated} of ${pop.samples.length} artifacts were scored more than once (up to ${pop.maxRepeats} times, ${pop.rows} rows): each counts once, with its mean over its repeats${pop.failedRepeats ? `; ${pop.failedRepeats} failed repeats left out` : ''}`,
    );
  }
  const alignmentStances = dict<number>();
  for (const s of pop.samples) for (const st of Object.values(s.alignmentStances ?? {})) alignmentStances[st] = (alignmentStances[st] ?? 0) + 1;
  const stanceNames = Object.keys(alignmentStances).sort();
  if (stanceNames.length > 1) {
    notes.push(
      `alignment results were judged under more than one stance (${stanceNames.map((x) => `${x} ${alignmentStances[x]}`).join(', ')}): the alignment perspectives mix two readings of "implemented"; rescore with one --alignment`,
    );
  } else if (stanceNames.length === 1) notes.push(`alignment judged under the ${stanceNames[0]} stance (${alignmentStances[stanceNames[0]!]} results)`);
  const perMetric: LeaderboardDoc['perMetric'] = dict();
  for (const mc of agg.models) {
    perMetric[mc.model] = dict();
    for (const m of agg.metrics) {
      const c = mc.cells[m.id]!;
      perMetric[mc.model]![m.id] = { z: m.norm.degenerate ? null : c.meanZ, raw: c.rawMean, scored: c.scored, unscorable: c.unscorable };
    }
  }
  const doc: LeaderboardDoc = {
    persona: weights.persona,
    suite: weights.suite,
    perspectives: weightedPerspectiveIds(weights.metrics),
    weights: {
      source: weights.source,
      description: describeWeights(weights),
      perspectives: weights.perspectives,
      metrics: weights.metrics,
      equalShareIn: weights.equalShareIn,
      ...(weights.fit ? { provenance: weights.fit, provenanceLine: provenanceLine(weights.fit) } : {}),
    },
    population: {
      artifacts: pop.samples.length,
      failed: pop.samples.filter((s) => s.failed).length,
      requirements,
      models: pop.models.length,
      metrics: metricsWithResults(pop).length,
      rows: pop.rows,
      maxRepeats: pop.maxRepeats,
    },
    models,
    metrics,
    perMetric,
    breakdowns,
    alignmentStances,
    noiseGuard,
    notes,
  };
  if (boot) doc.bootstrap = { iterations: boot.iterations, seed: boot.seed, requirements: boot.requirements, notApart: boot.notApart, pAhead: boot.pAhead };
  return doc;
}

export function leaderboard(rows: readonly ResultRow[], weights: ResolvedWeights, opts: LeaderboardOptions = {}): LeaderboardDoc {
  return leaderboardFromPopulation(populationFromRows(rows, new Set(Object.keys(weights.metrics))), weights, opts);
}

export const PERSPECTIVE_SHORT: Record<PerspectiveId, string> = {
  code: 'code',
  visual: 'visual',
  content: 'content',
  performance: 'perf',
  accessibility: 'a11y',
  maintainability: 'maint',
  'functional-alignment': 'func-al',
  'visual-alignment': 'vis-al',
  'content-alignment': 'cont-al',
  interaction: 'interact',
  fidelity: 'fidelity',
};

export { PERSPECTIVES };
