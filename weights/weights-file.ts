/**
 * The weights file: what `webgrade survey weights --json/--out` writes and `webgrade leaderboard --weights`
 * reads. SPEC's survey output:
 *
 *   {"personas": {"<persona>": {"respondents": n, "suite": "study" | "extended",
 *                               "perspectives": {"<perspective id>": w},
 *                               "metrics": {"<metric id>": final weight},
 *                               "shares": {"<metric id>": share inside its perspective}}},
 *    "dropped": {"too_fast": n, "invalid": n}}
 *
 * `perspectives` weights sum to 1 over the perspectives ranked (the nine study ones, plus the added ones of the
 * extended suite when the survey served it); `metrics` holds each metric's final weight (perspective weight ×
 * share; all sum to 1, SPEC "weights"); `shares` the shares inside a perspective (one perspective's shares sum to
 * 1; a perspective with one metric gives it 1). Missing shares for a perspective mean equal shares, and tools that
 * use the file say so. Interpretation for files without `shares` (written before it existed, when `metrics` held
 * the shares): the shares are read off `metrics` normalised inside each perspective, which gives the shares
 * whichever of the two meanings `metrics` had.
 *
 * Fitted weights (`webgrade weights fit`, fit.ts) use the same format, metric-level weights expressed exactly as
 * perspective sums and shares, plus `"fit": {...}` (`FitProvenance`: where they came from); `respondents` is 0
 * there (nobody was surveyed). Files without `fit` read as before.
 */
import { readFileSync } from 'node:fs';
import { PERSPECTIVES, STUDY_PERSPECTIVES, isSuiteId, type PerspectiveId, type SuiteId } from '../core/metric.js';
import { InputError } from '../core/errors.js';
import { findMetric, metricsOf } from '../metrics/registry.js';

export interface PersonaWeights {
  respondents: number;
  /** The suite the respondents were asked about (absent in older files: study). */
  suite?: SuiteId;
  perspectives: Record<string, number>;
  /** Final metric weights (perspective weight × share). */
  metrics: Record<string, number>;
  /** Shares inside each perspective. */
  shares?: Record<string, number>;
  /** Present when the weights were learned from people's judgements (`webgrade weights fit`): where they came from. */
  fit?: FitProvenance;
}

/** An agreement estimate with its 95% bootstrap interval (judgements.ts `Estimate`, without counts). */
export interface FitAgreement {
  value: number | null;
  ci: [number, number] | null;
}

/**
 * Where fitted weights came from (fit.ts `provenanceOf`): the judgements file and its SHA-256, the results the z
 * came from, the cross-validation folds and seed, the held-out agreement of the fitted and the survey weights
 * (`measure`: spearman-within-requirement or pairwise-accuracy), whether the fit beat the survey, and the date.
 */
export interface FitProvenance {
  method: string;
  data: { kind: 'ratings' | 'pairs'; file: string; sha256: string; rows: number; requirements: number; comparisons: number };
  results: string;
  folds: number;
  seed: number;
  bootstrap: number;
  measure: string;
  agreement: { fitted: FitAgreement; survey: Record<string, FitAgreement> };
  beatsSurvey: boolean;
  date: string;
  /** Whether the z the fit learned on had the noise guard (absent in files that do not say: on, the default). */
  noiseGuard?: boolean;
}

export interface WeightsFile {
  personas: Record<string, PersonaWeights>;
  dropped?: { too_fast: number; invalid: number };
}

const TOLERANCE = 1e-3;

/** Validate a parsed weights document; throws InputError naming `name` and the problem. */
export function validateWeightsFile(value: unknown, name: string): WeightsFile {
  const bad = (msg: string): never => {
    throw new InputError(`${name}: ${msg}`);
  };
  if (!value || typeof value !== 'object') bad('not a weights document');
  const personas = (value as { personas?: unknown }).personas;
  if (!personas || typeof personas !== 'object' || Array.isArray(personas)) bad('missing "personas" object');
  const out: WeightsFile = { personas: {} };
  const weightMap = (persona: string, what: string, raw: unknown, known: (id: string) => boolean, kind: string): Record<string, number> => {
    if (raw === undefined) return {};
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) bad(`persona ${persona}: "${what}" must be an object`);
    const m: Record<string, number> = {};
    for (const [id, w] of Object.entries(raw as Record<string, unknown>)) {
      if (!known(id)) bad(`persona ${persona}: unknown ${kind} ${id}`);
      if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) bad(`persona ${persona}: ${kind} ${id} needs a non-negative number`);
      m[id] = w as number;
    }
    return m;
  };
  for (const [persona, raw] of Object.entries(personas as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object') bad(`persona ${persona}: not an object`);
    const p = raw as Record<string, unknown>;
    if (!p.perspectives || typeof p.perspectives !== 'object') bad(`persona ${persona}: missing "perspectives"`);
    const perspectives = weightMap(persona, 'perspectives', p.perspectives, (id) => (PERSPECTIVES as readonly string[]).includes(id), 'perspective');
    for (const id of STUDY_PERSPECTIVES) if (!(id in perspectives)) bad(`persona ${persona}: perspective ${id} needs a non-negative number`);
    const sum = Object.values(perspectives).reduce((a, b) => a + b, 0);
    if (Math.abs(sum - 1) > TOLERANCE) bad(`persona ${persona}: perspective weights sum to ${sum.toFixed(4)}, not 1`);
    const metricKnown = (id: string) => !!findMetric(id);
    const metrics = weightMap(persona, 'metrics', p.metrics, metricKnown, 'metric');
    const shares = p.shares !== undefined ? weightMap(persona, 'shares', p.shares, metricKnown, 'metric') : sharesFrom(metrics);
    for (const pid of Object.keys(perspectives) as PerspectiveId[]) {
      const ids = metricsOf(pid, 'extended').map((m) => m.id);
      const given = ids.filter((id) => id in shares);
      const study = metricsOf(pid, 'study').map((m) => m.id);
      // A study-suite survey ranks only the study metrics of a perspective; an extended one ranks them all.
      const complete = given.length === ids.length || (given.length === study.length && study.every((id) => id in shares));
      if (given.length > 0 && !complete) bad(`persona ${persona}: perspective ${pid} gives shares for some metrics but not all`);
      if (given.length > 0) {
        const s = given.reduce((a, id) => a + shares[id]!, 0);
        if (Math.abs(s - 1) > TOLERANCE) bad(`persona ${persona}: metric shares of ${pid} sum to ${s.toFixed(4)}, not 1`);
      }
    }
    const respondents = typeof p.respondents === 'number' ? p.respondents : 0;
    const pw: PersonaWeights = { respondents, perspectives, metrics, shares };
    if (p.fit !== undefined) pw.fit = validateFit(p.fit, (msg) => bad(`persona ${persona}: "fit": ${msg}`));
    if (typeof p.suite === 'string') {
      if (!isSuiteId(p.suite)) bad(`persona ${persona}: unknown suite ${p.suite}`);
      pw.suite = p.suite as SuiteId;
    }
    out.personas[persona] = pw;
  }
  if (Object.keys(out.personas).length === 0) bad('no personas');
  const dropped = (value as { dropped?: { too_fast?: unknown; invalid?: unknown } }).dropped;
  if (dropped) out.dropped = { too_fast: Number(dropped.too_fast ?? 0), invalid: Number(dropped.invalid ?? 0) };
  return out;
}

/** Check the fields of a fit provenance that outputs print (the rest is kept as written). */
function validateFit(raw: unknown, bad: (msg: string) => never): FitProvenance {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) bad('must be an object');
  const f = raw as Record<string, unknown>;
  const data = f.data as Record<string, unknown> | undefined;
  if (!data || typeof data !== 'object' || typeof data.file !== 'string' || (data.kind !== 'ratings' && data.kind !== 'pairs'))
    bad('"data" needs "kind" (ratings or pairs) and "file"');
  if (typeof f.date !== 'string') bad('needs a "date"');
  if (typeof f.measure !== 'string') bad('needs a "measure"');
  const ag = f.agreement as { fitted?: { value?: unknown } } | undefined;
  if (!ag || typeof ag !== 'object' || !ag.fitted || typeof ag.fitted !== 'object') bad('needs "agreement": {"fitted": {"value", "ci"}, ...}');
  return f as unknown as FitProvenance;
}

/** One line saying where fitted weights came from and how well they agree with people held out. */
export function provenanceLine(fit: FitProvenance): string {
  const est = (e: FitAgreement | undefined) =>
    !e || e.value === null ? 'n/a' : e.ci ? `${e.value.toFixed(2)} [${e.ci[0].toFixed(2)}, ${e.ci[1].toFixed(2)}]` : e.value.toFixed(2);
  const measure =
    fit.measure === 'pairwise-accuracy' ? 'pairwise accuracy' : fit.measure === 'spearman-within-requirement' ? 'Spearman within requirement' : fit.measure;
  const survey = Object.entries(fit.agreement.survey ?? {})
    .map(([p, e]) => `survey ${p} ${est(e)}`)
    .join(', ');
  const sha = typeof fit.data.sha256 === 'string' ? ` (sha256 ${fit.data.sha256.slice(0, 12)})` : '';
  return `weights fitted to ${fit.data.kind} ${fit.data.file}${sha} on ${fit.date.slice(0, 10)}: held-out ${measure} ${est(fit.agreement.fitted)} (${fit.folds}-fold by requirement, seed ${fit.seed})${survey ? ` vs ${survey}` : ''}${fit.beatsSurvey ? '' : '; not shown to beat the survey weights'}`;
}

/** Shares inside each perspective read off per-metric weights (final weights or shares alike). */
export function sharesFrom(metrics: Record<string, number>): Record<string, number> {
  const byPerspective = new Map<string, number>();
  for (const [id, w] of Object.entries(metrics)) {
    const p = findMetric(id)!.perspective;
    byPerspective.set(p, (byPerspective.get(p) ?? 0) + w);
  }
  const out: Record<string, number> = {};
  for (const [id, w] of Object.entries(metrics)) {
    const total = byPerspective.get(findMetric(id)!.perspective)!;
    if (total > 0) out[id] = w / total;
  }
  return out;
}

export function loadWeightsFile(path: string): WeightsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new InputError(`${path}: cannot read weights file`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`${path}: not valid JSON`);
  }
  return validateWeightsFile(value, path);
}

/**
 * Final per-metric weights (summing to 1 over the suite's metrics) from perspective weights and within-perspective
 * shares; metrics without shares split their perspective equally. Also reports which perspectives used equal
 * shares. Interpretation: when a perspective's shares cover only the study metrics (a study-suite survey) and the
 * suite has more (`dead-code` in maintainability), the perspective is split equally and says so.
 */
export function metricWeights(
  perspectives: Partial<Record<PerspectiveId, number>>,
  shares: Record<string, number> = {},
  suite: SuiteId = 'study',
): {
  weights: Record<string, number>;
  equalShareIn: PerspectiveId[];
} {
  const weights: Record<string, number> = {};
  const equalShareIn: PerspectiveId[] = [];
  const ps = Object.keys(perspectives) as PerspectiveId[];
  const total = ps.reduce((s, p) => s + (perspectives[p] ?? 0), 0);
  for (const p of ps) {
    const ids = metricsOf(p, suite).map((m) => m.id);
    const pw = (perspectives[p] ?? 0) / (total || 1);
    const haveShares = ids.every((id) => typeof shares[id] === 'number');
    if (!haveShares && ids.length > 1) equalShareIn.push(p);
    const shareSum = haveShares ? ids.reduce((s, id) => s + shares[id]!, 0) : ids.length;
    for (const id of ids) weights[id] = pw * ((haveShares ? shares[id]! : 1) / (shareSum || 1));
  }
  return { weights, equalShareIn };
}
