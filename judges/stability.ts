/**
 * Judge stability (the study's check): run-to-run variance of a judge must be significantly lower than the
 * variance across models, by a one-sided Mann–Whitney U test.
 *
 * Input: a results JSONL file, one JSON object per scored artifact (the batch output; blank lines skipped):
 *   {"model": "<name>", "requirement": "<id>", "status"?: "ok" | "failed",
 *    "metrics": [{"id": "<metric id>", "score": <number> | null, "details": {"repeats": [<number>, ...]}}, ...]}
 * Read exactly: `model` and `requirement` (strings; a row without them is bad input), `status` (rows whose status is
 * "failed" are skipped), and per metric `id`, `score` and `details.repeats` (the per-repeat scores written by the
 * judge metrics under `--judge-repeats N`). Every other field is ignored. Metrics with no `details.repeats` in any
 * row are not tested; by default only the five judge metrics are considered (`metrics` option to choose).
 *
 * For each metric:
 * - run-to-run variances: for every (model, requirement) with ≥ 2 repeats, the sample variance of its repeats;
 * - across-model variances: for every requirement scored (score not null) by ≥ 2 models, the sample variance of the
 *   models' scores (each model's score being its mean over repeats);
 * - test: Mann–Whitney U, alternative "run-to-run < across-model"; verdict "stable" when p < alpha (default 0.05),
 *   "not stable" otherwise, "not enough data" when either side has fewer than `minSamples` (default 3) values.
 * Overall verdict: "stable" when every tested metric is stable, "not stable" when any is not, else "not enough data".
 */
import { InputError, readInputText } from '../core/errors.js';
import { mannWhitneyU, sampleVariance } from './stats.js';

export interface StabilityRow {
  model: string;
  requirement: string;
  metrics: Array<{ id: string; score: number | null; repeats?: number[] }>;
}

export type StabilityVerdict = 'stable' | 'not stable' | 'not enough data';

export interface MetricStability {
  id: string;
  runToRun: { n: number; median: number | null };
  acrossModel: { n: number; median: number | null };
  u: number | null;
  z: number | null;
  p: number | null;
  verdict: StabilityVerdict;
}

export interface StabilityReport {
  rows: number;
  skippedFailed: number;
  models: string[];
  alpha: number;
  metrics: MetricStability[];
  verdict: StabilityVerdict;
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function parseResultsJsonl(text: string, name: string): { rows: StabilityRow[]; skippedFailed: number } {
  const rows: StabilityRow[] = [];
  let skippedFailed = 0;
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${name}:${i + 1}`;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new InputError(`${where}: not valid JSON`);
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) throw new InputError(`${where}: expected a JSON object`);
    if (o.status === 'failed') {
      skippedFailed++;
      return;
    }
    if (typeof o.model !== 'string' || !o.model) throw new InputError(`${where}: missing "model"`);
    if (typeof o.requirement !== 'string' && typeof o.requirement !== 'number') throw new InputError(`${where}: missing "requirement"`);
    if (!Array.isArray(o.metrics)) throw new InputError(`${where}: missing "metrics" list`);
    const metrics = (o.metrics as unknown[]).map((m, j) => {
      const mo = m as Record<string, unknown> | null;
      if (!mo || typeof mo.id !== 'string') throw new InputError(`${where}: metrics[${j}] has no "id"`);
      const score = typeof mo.score === 'number' && Number.isFinite(mo.score) ? mo.score : null;
      const rep = (mo.details as Record<string, unknown> | undefined)?.repeats;
      const out: StabilityRow['metrics'][number] = { id: mo.id, score };
      if (rep !== undefined) {
        if (!Array.isArray(rep) || rep.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
          throw new InputError(`${where}: metrics[${j}] (${mo.id}): details.repeats must be a list of numbers`);
        }
        out.repeats = rep as number[];
      }
      return out;
    });
    rows.push({ model: o.model, requirement: String(o.requirement), metrics });
  });
  return { rows, skippedFailed };
}

export function loadResults(path: string): { rows: StabilityRow[]; skippedFailed: number } {
  const text = readInputText(path);
  return parseResultsJsonl(text, path);
}

export function judgeStability(
  rows: readonly StabilityRow[],
  opts: { alpha?: number; minSamples?: number; /** The judge metric ids to test. */ metrics: readonly string[]; skippedFailed?: number },
): StabilityReport {
  const alpha = opts.alpha ?? 0.05;
  const minSamples = opts.minSamples ?? 3;
  const ids = opts.metrics;
  const metrics: MetricStability[] = [];
  for (const id of ids) {
    const runToRun: number[] = [];
    const byReq = new Map<string, Map<string, number>>();
    let seen = false;
    for (const row of rows) {
      const m = row.metrics.find((x) => x.id === id);
      if (!m) continue;
      seen = true;
      if (m.repeats && m.repeats.length >= 2) runToRun.push(sampleVariance(m.repeats)!);
      if (m.score !== null) {
        if (!byReq.has(row.requirement)) byReq.set(row.requirement, new Map());
        byReq.get(row.requirement)!.set(row.model, m.score);
      }
    }
    if (!seen) continue;
    const across: number[] = [];
    for (const models of byReq.values()) {
      if (models.size >= 2) across.push(sampleVariance([...models.values()])!);
    }
    const base = { id, runToRun: { n: runToRun.length, median: median(runToRun) }, acrossModel: { n: across.length, median: median(across) } };
    if (runToRun.length < minSamples || across.length < minSamples) {
      metrics.push({ ...base, u: null, z: null, p: null, verdict: 'not enough data' });
      continue;
    }
    const t = mannWhitneyU(runToRun, across, 'less');
    metrics.push({ ...base, u: t.u, z: t.z, p: t.p, verdict: t.p < alpha ? 'stable' : 'not stable' });
  }
  const tested = metrics.filter((m) => m.verdict !== 'not enough data');
  const verdict: StabilityVerdict = tested.length === 0 ? 'not enough data' : tested.every((m) => m.verdict === 'stable') ? 'stable' : 'not stable';
  return {
    rows: rows.length,
    skippedFailed: opts.skippedFailed ?? 0,
    models: [...new Set(rows.map((r) => r.model))].sort(),
    alpha,
    metrics,
    verdict,
  };
}
