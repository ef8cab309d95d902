/**
 * From survey responses to a weights file (SPEC "Borda count", "survey responses", and the `survey weights`
 * output format). Pure apart from reading the file.
 *
 * - Each line of the responses JSONL is checked with `checkResponse` (survey/response.ts). Lines that are not
 *   JSON or fail the check are **invalid**: dropped, counted, and named by line number. Blank lines are ignored.
 * - Responses with `seconds` below the minimum (default 120) are **too fast**: dropped and counted.
 * - Personas: every role that has at least one kept response (SPEC's seven, plus `other` when someone chose it),
 *   and `all`, which pools every kept response. Personas nobody answered for are absent from the file, so a
 *   leaderboard asked for them says so instead of using empty weights.
 * - Perspective weights: Borda over the persona's perspective rankings.
 * - Metric shares inside a perspective: Borda over the rankings of that perspective's metrics given by the
 *   persona's respondents; a one-metric perspective gives its metric 1; a perspective nobody ranked the metrics
 *   of gets no shares in the file, which readers treat as equal shares (and say so).
 */
import { readFileSync } from 'node:fs';
import { METRIC_CATALOG } from '../metrics/catalog.js';
import { PERSPECTIVES, type PerspectiveId } from '../metrics/types.js';
import { InputError, errorMessage } from '../runner/errors.js';
import { bordaWeights } from '../weights/borda.js';
import type { PersonaWeights, WeightsFile } from '../weights/weights-file.js';
import { checkResponse, type SurveyResponse } from './response.js';
import { metricsOf } from './catalogue.js';

export const DEFAULT_MIN_SECONDS = 120;

export interface ReadResponses {
  responses: SurveyResponse[];
  invalid: Array<{ line: number; error: string }>;
}

/** Parse a responses JSONL text: valid responses and the invalid lines with their problem. */
export function parseResponses(text: string): ReadResponses {
  const out: ReadResponses = { responses: [], invalid: [] };
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      out.invalid.push({ line: i + 1, error: 'not valid JSON' });
      return;
    }
    const checked = checkResponse(value);
    if (checked.ok) out.responses.push(checked.value);
    else out.invalid.push({ line: i + 1, error: checked.error });
  });
  return out;
}

export function readResponsesFile(path: string): ReadResponses {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(`${path}: cannot read responses (${errorMessage(err)})`);
  }
  return parseResponses(text);
}

/** Weights of one pool of respondents. */
export function personaWeights(responses: readonly SurveyResponse[]): PersonaWeights {
  const perspectives = bordaWeights(PERSPECTIVES, responses.map((r) => r.perspectives));
  if (!perspectives) throw new Error('no perspective rankings to weigh');
  const metrics: Record<string, number> = {};
  for (const p of PERSPECTIVES) {
    const ids = metricsOf(p).map((m) => m.id);
    if (ids.length === 1) {
      metrics[ids[0]!] = 1;
      continue;
    }
    const rankings = responses.map((r) => r.metrics[p as PerspectiveId]).filter((r): r is string[] => Array.isArray(r));
    const shares = rankings.length ? bordaWeights(ids, rankings) : null;
    if (shares) Object.assign(metrics, shares);
  }
  return { respondents: responses.length, perspectives, metrics };
}

export interface WeightsReport extends WeightsFile {
  dropped: { too_fast: number; invalid: number };
  /** Invalid lines, for the report (not part of SPEC's JSON document). */
  invalidLines: Array<{ line: number; error: string }>;
}

/** Apply the Borda rule per persona and for `all` (see the module comment). */
export function surveyWeights(read: ReadResponses, minSeconds = DEFAULT_MIN_SECONDS): WeightsReport {
  const kept = read.responses.filter((r) => r.seconds >= minSeconds);
  const tooFast = read.responses.length - kept.length;
  const personas: Record<string, PersonaWeights> = {};
  const roles = [...new Set(kept.map((r) => r.persona))];
  for (const role of roles) personas[role] = personaWeights(kept.filter((r) => r.persona === role));
  if (kept.length) personas.all = personaWeights(kept);
  return { personas, dropped: { too_fast: tooFast, invalid: read.invalid.length }, invalidLines: read.invalid };
}

/** Metric ids in catalogue order, for tables. */
export const METRIC_ORDER = METRIC_CATALOG.map((m) => m.id);
