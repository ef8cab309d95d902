/**
 * Norms for single pages (SPEC "z-scores": a single `score` run has no population, so it uses shipped norms).
 *
 * A norms file holds μ and σ per metric over a corpus, plus what it was built from:
 *   {"kind": "webgrade-norms", "version": 1, "builtAt": ISO, "source": "<dir or results file>", "artifacts": n,
 *    "failed": n, "maxRepeats"?: n, "metricsIncluded": [ids], "command": "webgrade norms build ...",
 *    "metrics": {"<id>": {"mean", "sd", "n", "unscorable", "degenerate"?, "retestSd"?, "retestPairs"?}}}
 * Built from results with repeats (`batch --repeats`, `norms build --repeats`), each artifact counts once with
 * its mean over its repeats (μ, σ between artifacts, `artifacts` counts artifacts, not rows), and each metric
 * with two scorable repeats somewhere gets `retestSd` (the pooled within-artifact sd, noise.ts) and
 * `retestPairs` (its degrees of freedom); `maxRepeats` says how often artifacts were scored at most. Older
 * readers ignore the extra fields; files without them have no test–retest estimate.
 *
 * `applyNorms` fills a ScoreDocument's `overall` and a `z` per metric for one persona's weights:
 * z_j = (x_j − μ_j) / σ_j; per perspective Σ_{j∈p} w_j · z_j; overall = the sum. Interpretation: a metric that is
 * unscorable for this page, not run, absent from the norms, or degenerate in them (σ = 0) contributes 0 (the corpus
 * mean) and is listed under `overall.notCounted`, so the overall of a page scored with `--only` is comparable in
 * units but covers fewer metrics, and says so. The noise guard (noise.ts) applies with the norms' `retestSd`:
 * σ_eff = max(σ, k × retestSd); `overall.noiseGuard` says what it changed (`--no-noise-guard`: the study's σ).
 */
import { readFileSync } from 'node:fs';
import type { PerspectiveId, SuiteId } from '../core/metric.js';
import { InputError, readInputText } from '../core/errors.js';
import type { ResultRow } from '../core/results.js';
import type { MetricResult, ScoreDocument } from '../core/results.js';
import { populationFromRows, populationNorms, weightedPerspectiveIds } from './aggregate.js';
import { guardNorms, guardSummary, NOISE_GUARD_DEFAULT, retestFromNorms, retestOf, type NoiseGuardReport, type NoiseGuardSettings } from './noise.js';
import { describeWeights, resolveWeights, type ResolvedWeights } from './personas.js';
import { zOf, type MetricNorm } from './zscore.js';

export interface NormsFile {
  kind: 'webgrade-norms';
  version: 1;
  builtAt: string;
  source: string;
  artifacts: number;
  failed: number;
  /** Most repeats of one artifact, when the results had repeats. */
  maxRepeats?: number;
  metricsIncluded: string[];
  command?: string;
  metrics: Record<string, MetricNorm>;
}

/**
 * Norms from results rows (deduplicated): artifacts with at least one ok repeat; every scorable sample (artifact
 * mean over its repeats) of each metric; the test–retest sd where there are repeats (module comment).
 */
export function buildNorms(rows: readonly ResultRow[], source: string, command?: string): NormsFile {
  const all = populationFromRows(rows);
  const pop = { ...all, samples: all.samples.filter((s) => !s.failed) };
  const ids = pop.metrics;
  const metrics = populationNorms(pop);
  for (const id of ids) {
    const e = retestOf(pop, id);
    if (e) {
      metrics[id]!.retestSd = e.sd;
      metrics[id]!.retestPairs = e.pairs;
    }
  }
  const out: NormsFile = {
    kind: 'webgrade-norms',
    version: 1,
    builtAt: new Date().toISOString(),
    source,
    artifacts: pop.samples.length,
    failed: all.samples.length - pop.samples.length,
    metricsIncluded: ids,
    metrics,
  };
  if (all.maxRepeats > 1) out.maxRepeats = all.maxRepeats;
  if (command) out.command = command;
  return out;
}

export function validateNorms(value: unknown, name: string): NormsFile {
  const o = value as Partial<NormsFile> | null;
  if (!o || typeof o !== 'object' || o.kind !== 'webgrade-norms' || !o.metrics || typeof o.metrics !== 'object') {
    throw new InputError(`${name}: not a webgrade norms file`);
  }
  for (const [id, n] of Object.entries(o.metrics)) {
    if (!n || typeof n !== 'object' || (n.mean !== null && typeof n.mean !== 'number') || (n.sd !== null && typeof n.sd !== 'number')) {
      throw new InputError(`${name}: metric ${id} needs numeric "mean" and "sd"`);
    }
    if (n.retestSd !== undefined && !(typeof n.retestSd === 'number' && Number.isFinite(n.retestSd) && n.retestSd >= 0)) {
      throw new InputError(`${name}: metric ${id}: "retestSd" must be a number ≥ 0`);
    }
    if ((n as MetricNorm).effectiveSd !== undefined) delete (n as MetricNorm).effectiveSd; // never read from a file
  }
  return o as NormsFile;
}

export function loadNorms(path: string): NormsFile {
  const text = readInputText(path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`${path}: not valid JSON`);
  }
  return validateNorms(value, path);
}

/** Where the shipped norms live (weights/default-norms.json in the package, beside dist/). */
export const DEFAULT_NORMS_URL = new URL('../../weights/default-norms.json', import.meta.url);

export function loadDefaultNorms(): NormsFile | null {
  try {
    return validateNorms(JSON.parse(readFileSync(DEFAULT_NORMS_URL, 'utf8')), 'default norms');
  } catch {
    return null;
  }
}

export interface NormOverall {
  persona: string;
  weights: string;
  equalShareIn: PerspectiveId[];
  norms: { source: string; builtAt: string; artifacts: number; file: string };
  /** Σ w_j z_j in units of one standard deviation. */
  overall: number;
  perspectives: Partial<Record<PerspectiveId, number>>;
  /** Metrics that contribute 0, with why. */
  notCounted: Record<string, string>;
  /** What the noise guard did with the norms' test–retest sds (noise.ts). */
  noiseGuard: NoiseGuardReport;
}

export type MetricWithZ = MetricResult & { z?: number | null };

/** Fill `doc.overall` and each metric's `z` from norms and weights (see the module comment). */
export function applyNorms(
  doc: ScoreDocument,
  norms: NormsFile,
  normsFile: string,
  weights: ResolvedWeights,
  guard: NoiseGuardSettings = NOISE_GUARD_DEFAULT,
): NormOverall {
  const guarded = guardNorms(norms.metrics, retestFromNorms(norms.metrics), { ...guard, normsLabel: normsFile });
  const perspectives: Partial<Record<PerspectiveId, number>> = Object.fromEntries(weightedPerspectiveIds(weights.metrics).map((p) => [p, 0]));
  const notCounted: Record<string, string> = {};
  let overall = 0;
  const ran = new Set(doc.metrics.map((m) => m.id));
  for (const m of doc.metrics as MetricWithZ[]) {
    const norm = guarded.norms[m.id];
    if (!norm) {
      m.z = null;
      notCounted[m.id] = 'not in the norms';
      continue;
    }
    if (norm.degenerate) {
      m.z = null;
      notCounted[m.id] = `norms: ${norm.degenerate}`;
      continue;
    }
    if (m.score === null) {
      m.z = null;
      notCounted[m.id] = 'unscorable';
      continue;
    }
    const z = zOf(m.score, norm);
    m.z = Math.round(z * 10_000) / 10_000;
    const c = (weights.metrics[m.id] ?? 0) * z;
    overall += c;
    if (perspectives[m.perspective] !== undefined) perspectives[m.perspective]! += c;
  }
  for (const id of Object.keys(weights.metrics)) if (!ran.has(id)) notCounted[id] = 'not run';
  const out: NormOverall = {
    persona: weights.persona,
    weights: describeWeights(weights),
    equalShareIn: weights.equalShareIn,
    norms: { source: norms.source, builtAt: norms.builtAt, artifacts: norms.artifacts, file: normsFile },
    overall,
    perspectives,
    notCounted,
    noiseGuard: guarded.report,
  };
  doc.overall = out as unknown as Record<string, unknown>;
  return out;
}

export function pct(x: number, digits = 2): string {
  return `${(x * 100).toFixed(digits)}%`;
}

/** Terminal lines for a norm-based overall (printed under the score table). */
export function normOverallText(doc: ScoreDocument): string {
  const o = doc.overall as unknown as NormOverall | null;
  if (!o) return '';
  const lines: string[] = [];
  const zs = (doc.metrics as MetricWithZ[]).filter((m) => typeof m.z === 'number').map((m) => `${m.id} ${m.z! >= 0 ? '+' : ''}${m.z!.toFixed(2)}`);
  if (zs.length) lines.push(`z vs norms: ${zs.join(', ')}`);
  const counted = Object.keys(o.notCounted).length;
  lines.push(
    `overall (persona ${o.persona}): ${pct(o.overall)} of one SD vs norms from ${o.norms.artifacts} pages (${o.norms.source}, built ${o.norms.builtAt.slice(0, 10)}; ${o.norms.file})`,
  );
  if (counted)
    lines.push(
      `${counted} of ${doc.metrics.length + Object.values(o.notCounted).filter((v) => v === 'not run').length} metrics count as 0 (unscorable, not run, or not in the norms)`,
    );
  const g = o.noiseGuard;
  if (g && (g.changed.length || (!g.enabled && Object.keys(g.retest).length))) lines.push(guardSummary(g));
  lines.push(o.weights);
  return lines.join('\n');
}

/** `webgrade score --persona/--norms`: the norms and weights to use, or null when no norms exist. */
export function resolveScoreNorms(flags: {
  persona?: string;
  norms?: string;
  suite?: SuiteId;
  reference?: boolean;
}): { norms: NormsFile; file: string; weights: ResolvedWeights } | null {
  const opts: Parameters<typeof resolveWeights>[0] = {};
  if (flags.persona) opts.persona = flags.persona;
  if (flags.suite) opts.suite = flags.suite;
  if (flags.reference) opts.reference = true;
  const weights = resolveWeights(opts);
  if (flags.norms) return { norms: loadNorms(flags.norms), file: flags.norms, weights };
  const shipped = loadDefaultNorms();
  if (!shipped) {
    if (flags.persona) throw new InputError('no shipped norms found (weights/default-norms.json); pass --norms <file>');
    return null;
  }
  return { norms: shipped, file: 'shipped default norms (weights/default-norms.json)', weights };
}
