/**
 * `webgrade compare <base> <head>`: per model and metric, the change of the mean score between two results files
 * of the same requirements (a model's new version, a prompt change, a rerun), with a paired bootstrap interval
 * over requirements; "regressed" and "improved" are named only when the interval excludes 0 and the change is
 * larger than a rerun's noise.
 *
 * Interpretations:
 * - Pairs: for one model and metric, the requirements where both files have a scorable sample (repeats merged as
 *   in the leaderboard, weights/aggregate.ts); the change is the mean of head − base over those pairs. Models in
 *   one file only are listed, not compared; metrics are those both files scored.
 * - Interval: percentile bootstrap (2000 resamples of the pairs, seeded mulberry32, lib/random.ts), 95%.
 *   Fewer than 2 pairs: no interval, never named.
 * - Noise: a rerun of the same pages moves scores by the metric's test–retest sd s (weights/noise.ts: from the
 *   files' own repeats when either has any, else the shipped norms' `retestSd`). The mean of n paired differences
 *   of pure noise has sd s·√(2/n), so a change is named only when |Δ| ≥ max(0.5, 2·s·√(2/n)) as well: two runs of
 *   the same pages then trip the gate about once in forty per noisy metric, not once in twenty per metric, and
 *   never on rounding-sized shifts. Identical files give Δ = 0 everywhere and name nothing.
 * - Ranked by |Δ|, largest first. Scores are 0–100 with higher better for every metric, so Δ < 0 is a regression.
 */
import { quantileSorted } from 'simple-statistics';
import { InputError } from '../core/errors.js';
import type { ResultRow } from '../core/results.js';
import { findMetric, metricOrder } from '../metrics/registry.js';
import { artifactKey, populationFromRows, type Population } from '../weights/aggregate.js';
import { mulberry32 } from '../lib/random.js';
import { retestFromNorms, retestFromPopulation, type RetestEstimate } from '../weights/noise.js';
import { dict } from '../lib/dict.js';
import type { MetricNorm } from '../weights/zscore.js';
import { dedupeRows, rowsWithValidScores } from '../store/results-file.js';

export const COMPARE_ITERATIONS = 2000;
export const COMPARE_SEED = 1;
/** The least change ever named, in score points. */
export const MIN_CHANGE = 0.5;

export type Verdict = 'regressed' | 'improved' | 'unchanged';

export interface MetricChange {
  model: string;
  metric: string;
  title: string;
  /** Paired requirements. */
  n: number;
  baseMean: number;
  headMean: number;
  delta: number;
  ci: [number, number] | null;
  /** The least |Δ| named for this metric and n (see the module comment). */
  margin: number;
  /** The test–retest sd behind the margin, and where it came from. */
  noise: { sd: number; source: 'repeats' | 'norms' } | null;
  verdict: Verdict;
  /** Per requirement: base and head scores (the report's side-by-side view). */
  pairs: Array<{ requirement: string; base: number; head: number }>;
}

export interface Comparison {
  base: string;
  head: string;
  models: string[];
  onlyBase: string[];
  onlyHead: string[];
  requirements: number;
  iterations: number;
  seed: number;
  changes: MetricChange[];
  regressions: MetricChange[];
  improvements: MetricChange[];
  notes: string[];
}

/** Valid, deduplicated rows of a results file as a population (the leaderboard's reading). */
export function populationOf(rows: readonly ResultRow[], label: string): Population {
  const valid = rowsWithValidScores(rows);
  const { rows: deduped } = dedupeRows(valid.rows);
  if (deduped.length === 0) throw new InputError(`${label}: no result rows`);
  return populationFromRows(deduped);
}

/** 95% percentile interval of the mean of `d`, by resampling its entries. */
export function pairedInterval(d: readonly number[], iterations = COMPARE_ITERATIONS, seed = COMPARE_SEED): [number, number] | null {
  const n = d.length;
  if (n < 2) return null;
  const rnd = mulberry32(seed);
  const means = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += d[Math.floor(rnd() * n)]!;
    means[i] = s / n;
  }
  means.sort();
  const sorted = [...means];
  return [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
}

function noiseOf(
  base: Population,
  head: Population,
  normsMetrics: Record<string, MetricNorm> | null,
): Record<string, { sd: number; source: 'repeats' | 'norms' }> {
  const out = dict<{ sd: number; source: 'repeats' | 'norms' }>();
  const fromNorms = normsMetrics ? retestFromNorms(normsMetrics) : dict<RetestEstimate>();
  const b = retestFromPopulation(base);
  const h = retestFromPopulation(head);
  for (const id of new Set([...base.metrics, ...head.metrics])) {
    const own = [b[id], h[id]].filter((x) => x !== undefined);
    if (own.length) out[id] = { sd: Math.max(...own.map((x) => x.sd)), source: 'repeats' };
    else if (fromNorms[id]) out[id] = { sd: fromNorms[id].sd, source: 'norms' };
  }
  return out;
}

function verdictOf(delta: number, ci: [number, number] | null, margin: number): Verdict {
  if (!ci || Math.abs(delta) < margin) return 'unchanged';
  if (ci[1] < 0) return 'regressed';
  if (ci[0] > 0) return 'improved';
  return 'unchanged';
}

export interface CompareOptions {
  iterations?: number;
  seed?: number;
  /** Norms whose `retestSd` gives the noise of metrics without repeats in the files. */
  normsMetrics?: Record<string, MetricNorm> | null;
}

/** Compare two populations (see the module comment). */
export function compareRuns(base: Population, head: Population, labels: { base: string; head: string }, opts: CompareOptions = {}): Comparison {
  const iterations = opts.iterations ?? COMPARE_ITERATIONS;
  const seed = opts.seed ?? COMPARE_SEED;
  const models = base.models.filter((m) => head.models.includes(m));
  const baseReqs = new Set(base.samples.map((s) => s.requirement));
  const shared = [...new Set(head.samples.map((s) => s.requirement))].filter((r) => baseReqs.has(r)).sort();
  if (shared.length === 0) throw new InputError(`${labels.base} and ${labels.head} share no requirement: nothing to compare`);
  if (models.length === 0) throw new InputError(`${labels.base} and ${labels.head} share no model: nothing to compare`);
  const metrics = base.metrics.filter((id) => head.metrics.includes(id)).sort((a, b) => metricOrder(a) - metricOrder(b));
  const noise = noiseOf(base, head, opts.normsMetrics ?? null);
  const bIndex = new Map(base.samples.map((s) => [artifactKey(s.model, s.requirement), s]));
  const hIndex = new Map(head.samples.map((s) => [artifactKey(s.model, s.requirement), s]));
  const changes: MetricChange[] = [];
  for (const model of models) {
    for (const metric of metrics) {
      const pairs: MetricChange['pairs'] = [];
      for (const requirement of shared) {
        const b = bIndex.get(artifactKey(model, requirement))?.scores[metric];
        const h = hIndex.get(artifactKey(model, requirement))?.scores[metric];
        if (typeof b === 'number' && typeof h === 'number') pairs.push({ requirement, base: b, head: h });
      }
      if (pairs.length === 0) continue;
      const n = pairs.length;
      const d = pairs.map((p) => p.head - p.base);
      const delta = d.reduce((a, x) => a + x, 0) / n;
      const ci = d.every((x) => x === 0) ? ([0, 0] as [number, number]) : pairedInterval(d, iterations, seed);
      const nz = noise[metric] ?? null;
      const margin = Math.max(MIN_CHANGE, nz ? 2 * nz.sd * Math.sqrt(2 / n) : 0);
      changes.push({
        model,
        metric,
        title: findMetric(metric)?.title ?? metric,
        n,
        baseMean: pairs.reduce((a, p) => a + p.base, 0) / n,
        headMean: pairs.reduce((a, p) => a + p.head, 0) / n,
        delta,
        ci,
        margin,
        noise: nz,
        verdict: verdictOf(delta, ci, margin),
        pairs,
      });
    }
  }
  const bySize = (a: MetricChange, b: MetricChange) =>
    Math.abs(b.delta) - Math.abs(a.delta) || a.model.localeCompare(b.model) || metricOrder(a.metric) - metricOrder(b.metric);
  const notes: string[] = [];
  const unpaired = [...baseReqs].filter((r) => !shared.includes(r)).length + new Set(head.samples.map((s) => s.requirement)).size - shared.length;
  if (unpaired) notes.push(`${unpaired} requirement(s) in one file only: left out`);
  return {
    base: labels.base,
    head: labels.head,
    models,
    onlyBase: base.models.filter((m) => !head.models.includes(m)),
    onlyHead: head.models.filter((m) => !base.models.includes(m)),
    requirements: shared.length,
    iterations,
    seed,
    changes,
    regressions: changes.filter((c) => c.verdict === 'regressed').sort(bySize),
    improvements: changes.filter((c) => c.verdict === 'improved').sort(bySize),
    notes,
  };
}
