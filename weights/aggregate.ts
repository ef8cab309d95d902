/**
 * From result rows to model scores (SPEC "From scores to rankings"), for whatever metrics the rows hold.
 *
 * - The population: every artifact of the results file (all models pooled). The metric set is the union of
 *   metric ids in the rows, in catalogue order (ids the catalogue does not know come last and weigh 0), so new
 *   metrics are picked up without changes here.
 * - Repeats (`batch --repeats`, rows with `repeat`; a row without it is repeat 1): an artifact is one
 *   (model, requirement) and counts once however often it was scored. Its score for a metric is the mean over
 *   its repeats that scored it (null when none did); its other repeats are kept on the sample (`repeats`) for the
 *   test–retest estimate (noise.ts). So a model's mean uses each artifact's mean over its repeats, and μ and σ are
 *   between-artifact (over artifact means). Interpretation: a failed repeat is left out like an unscorable one;
 *   the artifact is failed only when every repeat failed.
 * - z: per metric, μ and σ over all scorable samples of the population (zscore.ts); a metric scorable for nobody
 *   or with σ = 0 contributes 0 and is reported.
 * - A model's mean z for metric j is the mean of z_ij over the model's scorable samples; unscorable samples are
 *   left out and counted. Interpretation: when a model has no scorable sample at all for a metric, its mean z is
 *   taken as 0 (the population mean: no evidence either way) and shown as n/a in the per-metric tables.
 * - Interpretation: a `failed` row (the tool could not score the artifact) and a metric missing from a row (it was
 *   not run for that artifact) count as unscorable for every such metric; failed rows are also counted apart.
 * - Model score: per perspective `Σ_{j∈p} w_j · meanZ_j`, overall = the sum over all metrics, in units of one
 *   standard deviation (shown ×100 as %). Ranks: by overall, highest first; ties share nothing (broken by name).
 * - Breakdown by label: the same overall computed on the artifacts whose requirement carries that label value,
 *   with μ and σ still from the whole population (so the values of different labels are on one scale).
 * - Records keyed by model names, metric ids or labels from the rows have no prototype (lib/dict.ts), so a
 *   model or metric named `__proto__`, `constructor` or `toString` is one like any other.
 */
import { findMetric, metricOrder } from '../metrics/registry.js';
import { PERSPECTIVES, type PerspectiveId } from '../core/metric.js';
import type { ResultRow } from '../core/results.js';
import { dict, own } from '../lib/dict.js';
import { normOf, zOf, type MetricNorm } from './zscore.js';

export interface Sample {
  model: string;
  requirement: string;
  labels: Record<string, string>;
  /** Every repeat of the artifact failed. */
  failed: boolean;
  /** Raw score per metric id (the mean over the artifact's repeats that scored it); null = unscorable; absent = not run. */
  scores: Record<string, number | null>;
  /** Stance of each scored alignment result (`details.stance`: study, strict, or unknown for older rows), by metric id. */
  alignmentStances?: Record<string, string>;
  /** The artifact path of its (first) row. */
  artifact?: string;
  /** Each repeat's scores, in repeat order; present only when the artifact has more than one row. */
  repeats?: RepeatScores[];
}

export interface RepeatScores {
  repeat: number;
  failed: boolean;
  scores: Record<string, number | null>;
}

export interface Population {
  /** Metric ids, catalogue order first. */
  metrics: string[];
  /** Model names, sorted. */
  models: string[];
  /** One per artifact (model, requirement), repeats merged. */
  samples: Sample[];
  /** Result rows behind the samples (more than the samples when artifacts were scored several times). */
  rows: number;
  /** Most repeats of any artifact (1 without repeats). */
  maxRepeats: number;
  /** Failed repeats of artifacts that have another, successful repeat (left out of the artifact's mean). */
  failedRepeats: number;
}

export function orderMetricIds(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort((a, b) => metricOrder(a) - metricOrder(b) || a.localeCompare(b));
}

/** The repeat index of a row (rows without one are repeat 1). */
export function repeatOf(r: Pick<ResultRow, 'repeat'>): number {
  return typeof r.repeat === 'number' && Number.isInteger(r.repeat) && r.repeat >= 1 ? r.repeat : 1;
}

/** The artifact key of a row: model and requirement (its repeats share it). */
export function artifactKey(model: string, requirement: string): string {
  return `${model}\u0000${requirement}`;
}

function rowScores(r: ResultRow, keep?: ReadonlySet<string>): { scores: Record<string, number | null>; stances: Record<string, string> } {
  const scores = dict<number | null>();
  const stances = dict<string>();
  if (r.status === 'ok') {
    for (const m of r.metrics) {
      if (keep && !keep.has(m.id) && findMetric(m.id)) continue;
      scores[m.id] = typeof m.score === 'number' && Number.isFinite(m.score) ? m.score : null;
      const judge = findMetric(m.id)?.judge;
      if (judge?.prompt === 'alignment' && scores[m.id] !== null) {
        const st = (m.details as Record<string, unknown> | undefined)?.stance;
        stances[m.id] = typeof st === 'string' ? st : 'unknown';
      }
    }
  }
  return { scores, stances };
}

/**
 * The population of the rows (one sample per artifact, repeats merged: see the module comment). `keep`, when
 * given, limits the metrics to those ids (a suite's metrics: results scored with the extended suite ranked under
 * the study suite keep only the study's 24). Rows should be deduplicated first (results-file.ts `dedupeRows`).
 */
export function populationFromRows(rows: readonly ResultRow[], keep?: ReadonlySet<string>): Population {
  const groups = new Map<string, ResultRow[]>();
  for (const r of rows) {
    const k = artifactKey(r.model, r.requirement);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  let maxRepeats = 1;
  let failedRepeats = 0;
  const samples: Sample[] = [...groups.values()].map((group) => {
    const sorted = [...group].sort((a, b) => repeatOf(a) - repeatOf(b));
    const last = sorted[sorted.length - 1]!;
    const per = sorted.map((r) => ({ r, ...rowScores(r, keep) }));
    const failed = sorted.every((r) => r.status !== 'ok');
    let scores: Record<string, number | null>;
    if (per.length === 1) scores = per[0]!.scores;
    else {
      scores = dict();
      const ids = new Set(per.flatMap((p) => Object.keys(p.scores)));
      for (const id of ids) {
        const vs = per.map((p) => p.scores[id]).filter((v): v is number => typeof v === 'number');
        scores[id] = vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : null;
      }
      if (!failed) failedRepeats += sorted.filter((r) => r.status !== 'ok').length;
    }
    maxRepeats = Math.max(maxRepeats, per.length);
    const stances: Record<string, string> = Object.assign(dict<string>(), ...per.map((p) => p.stances));
    const labelled = [...sorted].reverse().find((r) => r.labels);
    const s: Sample = {
      model: last.model,
      requirement: last.requirement,
      labels: dict(Object.entries(labelled?.labels ?? {})),
      failed,
      scores,
      artifact: sorted[0]!.artifact,
    };
    if (Object.keys(stances).length) s.alignmentStances = stances;
    if (per.length > 1) s.repeats = per.map((p) => ({ repeat: repeatOf(p.r), failed: p.r.status !== 'ok', scores: p.scores }));
    return s;
  });
  const metrics = orderMetricIds(samples.flatMap((s) => Object.keys(s.scores)));
  const models = [...new Set(samples.map((s) => s.model))].sort((a, b) => a.localeCompare(b));
  return { metrics, models, samples, rows: rows.length, maxRepeats, failedRepeats };
}

/** Metrics that have at least one scorable sample (the "metrics with results" of the outputs). */
export function metricsWithResults(pop: Population): string[] {
  return pop.metrics.filter((id) => pop.samples.some((s) => typeof s.scores[id] === 'number'));
}

export interface MetricInfo {
  id: string;
  perspective: PerspectiveId | null;
  title: string;
  norm: MetricNorm;
}

export interface Cell {
  /** Mean raw score (0–100) of the model's scorable samples; null when none. */
  rawMean: number | null;
  /** Mean z of the model's scorable samples; null when none (counted as 0 in weighted sums). */
  meanZ: number | null;
  scored: number;
  unscorable: number;
}

export interface ModelCells {
  model: string;
  artifacts: number;
  failed: number;
  cells: Record<string, Cell>;
}

export interface Aggregate {
  metrics: MetricInfo[];
  models: ModelCells[];
}

/** μ, σ per metric over the (whole) population. */
export function populationNorms(pop: Population): Record<string, MetricNorm> {
  const out = dict<MetricNorm>();
  for (const id of pop.metrics) {
    const values: number[] = [];
    let unscorable = 0;
    for (const s of pop.samples) {
      const v = s.scores[id];
      if (typeof v === 'number') values.push(v);
      else unscorable++;
    }
    out[id] = normOf(values, unscorable);
  }
  return out;
}

/** Per model and metric: raw mean, mean z, counts. `filter` limits the samples (breakdowns), `norms` default to the population's. */
export function aggregate(pop: Population, opts: { filter?: (s: Sample) => boolean; norms?: Record<string, MetricNorm> } = {}): Aggregate {
  const norms = opts.norms ?? populationNorms(pop);
  const metrics: MetricInfo[] = pop.metrics.map((id) => {
    const c = findMetric(id);
    return { id, perspective: c?.perspective ?? null, title: c?.title ?? id, norm: own(norms, id) ?? normOf([], pop.samples.length) };
  });
  const models: ModelCells[] = [];
  for (const model of pop.models) {
    const samples = pop.samples.filter((s) => s.model === model && (!opts.filter || opts.filter(s)));
    if (samples.length === 0) continue;
    const cells = dict<Cell>();
    for (const m of metrics) {
      let sum = 0;
      let zsum = 0;
      let n = 0;
      for (const s of samples) {
        const v = s.scores[m.id];
        if (typeof v !== 'number') continue;
        sum += v;
        zsum += zOf(v, m.norm);
        n++;
      }
      cells[m.id] = { rawMean: n ? sum / n : null, meanZ: n ? zsum / n : null, scored: n, unscorable: samples.length - n };
    }
    models.push({ model, artifacts: samples.length, failed: samples.filter((s) => s.failed).length, cells });
  }
  return { metrics, models };
}

export interface ModelScore {
  model: string;
  rank: number;
  /** Σ_j w_j · meanZ_j, in units of one standard deviation. */
  overall: number;
  /** Weighted z sum of every perspective the weights cover (the suite's). */
  perspectives: Partial<Record<PerspectiveId, number>>;
  unscorable: Record<string, number>;
  artifacts: number;
  failed: number;
}

/** The perspectives that final metric weights cover (those of the suite they were made for), in SPEC order. */
export function weightedPerspectiveIds(weights: Record<string, number>): PerspectiveId[] {
  const ps = new Set(Object.keys(weights).map((id) => findMetric(id)?.perspective));
  return PERSPECTIVES.filter((p) => ps.has(p));
}

/** Weighted sums and ranks. `weights` are final metric weights (personas.ts `ResolvedWeights.metrics`). */
export function scoreModels(agg: Aggregate, weights: Record<string, number>): ModelScore[] {
  const ids = weightedPerspectiveIds(weights);
  const out: ModelScore[] = agg.models.map((mc) => {
    const perspectives: Partial<Record<PerspectiveId, number>> = Object.fromEntries(ids.map((p) => [p, 0]));
    const unscorable = dict<number>();
    let overall = 0;
    for (const m of agg.metrics) {
      const cell = mc.cells[m.id]!;
      unscorable[m.id] = cell.unscorable;
      const w = own(weights, m.id) ?? 0;
      const contribution = w * (cell.meanZ ?? 0);
      overall += contribution;
      if (m.perspective && perspectives[m.perspective] !== undefined) perspectives[m.perspective]! += contribution;
    }
    return { model: mc.model, rank: 0, overall, perspectives, unscorable, artifacts: mc.artifacts, failed: mc.failed };
  });
  out.sort((a, b) => b.overall - a.overall || a.model.localeCompare(b.model));
  out.forEach((m, i) => (m.rank = i + 1));
  return out;
}

/**
 * The study's Table 5: the overall per value of one requirement label. `average` is what the study reports, the
 * overall averaged over the models (the unweighted mean of the per-model overalls of the models that have
 * artifacts with that value; `modelsAveraged` says how many); `models` are the per-model overalls behind it.
 */
export interface LabelBreakdown {
  label: string;
  values: Array<{
    value: string;
    artifacts: number;
    /** Mean over models of their overall on this label value (SD units); null when no model has such an artifact. */
    average: number | null;
    modelsAveraged: number;
    models: Array<{ model: string; overall: number; artifacts: number }>;
  }>;
}

/** Label keys that the samples carry (in SPEC order first). */
export function labelKeys(pop: Population): string[] {
  const spec = ['clarity', 'style', 'complexity', 'modality', 'category'];
  const keys = new Set(pop.samples.flatMap((s) => Object.keys(s.labels)));
  return [...spec.filter((k) => keys.has(k)), ...[...keys].filter((k) => !spec.includes(k)).sort()];
}

/** One label's values, each with the aggregate of the artifacts that carry it (the population's μ and σ). */
export interface LabelAggregates {
  label: string;
  values: Array<{ value: string; artifacts: number; agg: Aggregate }>;
}

/** Per value of one label: the aggregate of its artifacts under `norms` (computed once, scored per weight set). */
export function labelAggregates(pop: Population, label: string, norms: Record<string, MetricNorm>): LabelAggregates {
  const values = [...new Set(pop.samples.map((s) => s.labels[label]).filter((v): v is string => typeof v === 'string'))].sort();
  return {
    label,
    values: values.map((value) => {
      const filter = (s: Sample) => s.labels[label] === value;
      return { value, artifacts: pop.samples.filter(filter).length, agg: aggregate(pop, { filter, norms }) };
    }),
  };
}

/** A label's breakdown under one weight set, from its aggregates. */
export function scoreBreakdown(la: LabelAggregates, weights: Record<string, number>): LabelBreakdown {
  return {
    label: la.label,
    values: la.values.map(({ value, artifacts, agg }) => {
      const scores = scoreModels(agg, weights);
      return {
        value,
        artifacts,
        average: scores.length ? scores.reduce((a, s) => a + s.overall, 0) / scores.length : null,
        modelsAveraged: scores.length,
        models: scores.map((s) => ({ model: s.model, overall: s.overall, artifacts: s.artifacts })),
      };
    }),
  };
}

/** Overall per model for each value of one label, with the population's μ and σ. */
export function breakdownByLabel(pop: Population, label: string, weights: Record<string, number>, norms = populationNorms(pop)): LabelBreakdown {
  return scoreBreakdown(labelAggregates(pop, label, norms), weights);
}

/**
 * One page's overall: Σ_j w_j · z_j over the metrics it has a score for, z under `norms` (a metric that is
 * unscorable, not run or degenerate contributes 0, as in a model's mean). Used for per-page overalls (`analyse`,
 * bench/noise-guard.ts); a model's overall is the same sum over its mean z.
 */
export function pageOverall(scores: Record<string, number | null>, norms: Record<string, MetricNorm>, weights: Record<string, number>): number {
  let o = 0;
  for (const [id, v] of Object.entries(scores)) {
    const n = own(norms, id);
    if (typeof v !== 'number' || !n) continue;
    o += (own(weights, id) ?? 0) * zOf(v, n);
  }
  return o;
}
