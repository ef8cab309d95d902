/**
 * Test–retest noise and the noise guard (SPEC "Behaviour users expect": a metric whose spread is not well above
 * its own run-to-run noise cannot dominate an overall).
 *
 * Test–retest sd of a metric (`retestOf`): the pooled within-artifact sd over repeats,
 *   s_r = √( Σ_i Σ_r (x_ir − x̄_i)² / Σ_i (n_i − 1) ),
 * over the artifacts with n_i ≥ 2 scorable repeats (`batch --repeats`). Its degrees of freedom Σ (n_i − 1) are
 * reported as `pairs` (the number of repeat pairs when every artifact was scored twice). Interpretation: the
 * sample (n − 1) variance inside each artifact, so two repeats that differ by d give s_r = d / √2.
 *
 * The guard: the study's z divides by σ_j, the between-artifact sd. A metric whose σ_j is about its own
 * test–retest sd s_j (Lighthouse `performance`: σ 0.92 over the shipped norms, most pages at 100) turns
 * measurement noise into z: one point of noise moves a page's overall by w_j / σ_j. The guard keeps the z-score
 * and only bounds its divisor from below:
 *   σ_eff,j = max(σ_j, k × s_j),
 * so one run's noise can move metric j's z by about 1/k at most (a difference of d between two runs moves it by
 * d / σ_eff ≤ d / (k·s_j)), and a metric whose spread is well above its noise (σ_j ≥ k·s_j) is untouched. μ is
 * unchanged; a degenerate metric (σ = 0) stays degenerate.
 *
 * Where s_j comes from, per metric: the results' own repeats when at least one artifact has two scorable repeats
 * of that metric (leaderboard, analyse); else the norms file (`retestSd`, written by `norms build` from results
 * with repeats: `--norms`, or the shipped norms); else there is no estimate and σ is the study's. `--no-noise-guard`
 * turns the guard off everywhere: the arithmetic is then exactly the study's.
 *
 * k (DEFAULT_NOISE_GUARD_K) comes from measurements: bench/noise-guard.ts computes, for k = 0, 1, 2, 3, 5 on
 * real repeated results, how far a page's overall moves between runs and how much the model ranking changes. On
 * 60 corpus pages scored twice at concurrency 1 (bench/stability.ts, 2026-11-23, default network mode) k = 3 and
 * k = 5 gave the same ranking agreement (Kendall τ between the runs 0.87, against 0.73 for k ≤ 2) and k = 3 cut
 * the largest page move from 11.7% to 9.5% of one SD, while raising σ of one metric only (console-errors, whose
 * retest sd was 0.62 of its spread); k = 3 keeps every metric that spreads at least three times its noise in
 * full. performance (retest / spread 0.13 on those pages) is not raised at k = 3.
 */
import { dict, own } from '../lib/dict.js';
import type { Population } from './aggregate.js';
import type { MetricNorm } from './zscore.js';

/** k of σ_eff = max(σ, k × retest sd), chosen from bench/noise-guard.ts on real repeats (see above). */
export const DEFAULT_NOISE_GUARD_K = 3;

export interface RetestEstimate {
  /** Pooled within-artifact sd. */
  sd: number;
  /** Degrees of freedom: Σ (scorable repeats − 1). */
  pairs: number;
  /** Artifacts with at least two scorable repeats (absent when read from a norms file that does not say). */
  artifacts?: number;
  /** Where it comes from: the results' repeats or a norms file. */
  source: 'repeats' | 'norms';
}

/** Pooled within-group sd √(Σ_i Σ_r (x_ir − x̄_i)² / Σ_i (n_i − 1)) over groups of ≥ 2 values; null when there are none. */
export function pooledWithinSd(groups: ReadonlyArray<readonly number[]>): { sd: number; pairs: number; groups: number } | null {
  let ss = 0;
  let df = 0;
  let used = 0;
  for (const vs of groups) {
    if (vs.length < 2) continue;
    const m = vs.reduce((a, b) => a + b, 0) / vs.length;
    for (const v of vs) ss += (v - m) ** 2;
    df += vs.length - 1;
    used++;
  }
  return df === 0 ? null : { sd: Math.sqrt(ss / df), pairs: df, groups: used };
}

/** Pooled within-artifact sd of one metric over the samples' repeats; null without two scorable repeats anywhere. */
export function retestOf(pop: Pick<Population, 'samples'>, id: string): RetestEstimate | null {
  const groups = pop.samples.filter((s) => s.repeats).map((s) => s.repeats!.map((r) => r.scores[id]).filter((v): v is number => typeof v === 'number'));
  const p = pooledWithinSd(groups);
  return p ? { sd: p.sd, pairs: p.pairs, artifacts: p.groups, source: 'repeats' } : null;
}

/** Test–retest estimates from the population's repeats, one per metric that has any. */
export function retestFromPopulation(pop: Pick<Population, 'samples' | 'metrics'>): Record<string, RetestEstimate> {
  const out = dict<RetestEstimate>();
  for (const id of pop.metrics) {
    const e = retestOf(pop, id);
    if (e) out[id] = e;
  }
  return out;
}

/** The test–retest estimates a norms file carries (`retestSd`, `retestPairs`). */
export function retestFromNorms(normsMetrics: Record<string, MetricNorm>): Record<string, RetestEstimate> {
  const out = dict<RetestEstimate>();
  for (const [id, n] of Object.entries(normsMetrics)) {
    if (typeof n.retestSd === 'number' && Number.isFinite(n.retestSd)) out[id] = { sd: n.retestSd, pairs: n.retestPairs ?? 0, source: 'norms' };
  }
  return out;
}

/** Per metric: the results' estimate when there is one, else the norms file's `retestSd` (module comment). */
export function retestSources(pop: Pick<Population, 'samples' | 'metrics'>, normsMetrics?: Record<string, MetricNorm> | null): Record<string, RetestEstimate> {
  const out = retestFromPopulation(pop);
  const fromNorms = normsMetrics ? retestFromNorms(normsMetrics) : dict<RetestEstimate>();
  for (const id of pop.metrics) if (!out[id] && fromNorms[id]) out[id] = fromNorms[id];
  return out;
}

export interface NoiseGuardSettings {
  /** False: `--no-noise-guard`, the study's arithmetic. */
  enabled: boolean;
  k: number;
  /** The norms file the fallback estimates come from (named in outputs). */
  normsLabel?: string;
}

export interface NoiseGuardChange {
  metric: string;
  /** Between-artifact σ (the study's). */
  sd: number;
  retestSd: number;
  k: number;
  /** max(σ, k × retest sd): what z divides by. */
  effectiveSd: number;
  source: 'repeats' | 'norms';
  pairs: number;
}

export interface NoiseGuardReport {
  enabled: boolean;
  k: number;
  /** Metrics whose σ the guard raised. */
  changed: NoiseGuardChange[];
  /** Every test–retest estimate known, by metric. */
  retest: Record<string, RetestEstimate>;
  /** Usable metrics (σ > 0) with no test–retest estimate: the guard cannot act on them. */
  noEstimate: string[];
  normsLabel?: string;
}

export const NOISE_GUARD_OFF: NoiseGuardSettings = { enabled: false, k: DEFAULT_NOISE_GUARD_K };
export const NOISE_GUARD_DEFAULT: NoiseGuardSettings = { enabled: true, k: DEFAULT_NOISE_GUARD_K };

/**
 * Apply the guard to norms (a population's or a norms file's): returns new norms (with `effectiveSd` where σ
 * was raised) and the report. With the guard off the norms are returned unchanged (copies) and `changed` is empty.
 */
export function guardNorms(
  norms: Record<string, MetricNorm>,
  retest: Record<string, RetestEstimate>,
  settings: NoiseGuardSettings,
): { norms: Record<string, MetricNorm>; report: NoiseGuardReport } {
  const out = dict<MetricNorm>();
  const changed: NoiseGuardChange[] = [];
  const noEstimate: string[] = [];
  for (const [id, n] of Object.entries(norms)) {
    const copy: MetricNorm = { ...n };
    delete copy.effectiveSd;
    out[id] = copy;
    if (n.degenerate || n.sd === null) continue;
    const e = own(retest, id);
    if (!e) {
      noEstimate.push(id);
      continue;
    }
    if (!settings.enabled) continue;
    const floor = settings.k * e.sd;
    if (floor > n.sd) {
      copy.effectiveSd = floor;
      changed.push({ metric: id, sd: n.sd, retestSd: e.sd, k: settings.k, effectiveSd: floor, source: e.source, pairs: e.pairs });
    }
  }
  const report: NoiseGuardReport = { enabled: settings.enabled, k: settings.k, changed, retest, noEstimate };
  if (settings.normsLabel) report.normsLabel = settings.normsLabel;
  return { norms: out, report };
}

/** The σ floors k × retest sd per metric (for the bootstrap, which recomputes σ per resample); empty when off. */
export function sdFloors(report: NoiseGuardReport): Record<string, number> {
  if (!report.enabled) return dict();
  return dict(Object.entries(report.retest).map(([id, e]) => [id, report.k * e.sd]));
}

const f2 = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2));

/** One change as text: "performance: σ 0.92 → 3.60 (k 3 × retest sd 1.20, from repeats, 40 pairs)". */
export function describeChange(c: NoiseGuardChange): string {
  return `${c.metric}: σ ${f2(c.sd)} → ${f2(c.effectiveSd)} (k ${c.k} × retest sd ${f2(c.retestSd)}, from ${c.source === 'repeats' ? "the results' repeats" : 'the norms'}, ${c.pairs} pair${c.pairs === 1 ? '' : 's'})`;
}

/** The guard in one line for text outputs (what it changed, or why it changed nothing). */
export function guardSummary(report: NoiseGuardReport): string {
  if (!report.enabled) return `noise guard off (--no-noise-guard): every σ is the study's between-artifact σ`;
  const head = `noise guard (σ ≥ k × test–retest sd, k = ${report.k})`;
  const known = Object.keys(report.retest).length;
  if (report.changed.length)
    return `${head} raised σ of ${report.changed.length} metric${report.changed.length === 1 ? '' : 's'}: ${report.changed.map(describeChange).join('; ')}`;
  if (known === 0)
    return `${head}: no test–retest estimate (no repeats in the results${report.normsLabel ? `, none in ${report.normsLabel}` : ''}): σ is the study's`;
  return `${head} changed nothing: no usable metric's σ is below k × its retest sd (${known} estimate${known === 1 ? '' : 's'})`;
}
