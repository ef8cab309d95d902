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
 * - Metric shares inside a perspective (`shares`): Borda over the rankings of that perspective's metrics given
 *   by the persona's respondents; a one-metric perspective gives its metric 1; a perspective nobody ranked the
 *   metrics of gets no shares in the file, which readers treat as equal shares (and say so).
 * - Final metric weights (`metrics`, SPEC): perspective weight × share, equal shares where none were given; they
 *   sum to 1 over the suite's metrics.
 * - Suite: every kept response must be of one suite (the page records which it served); a file mixing suites is
 *   bad input, named by line.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_SUITE, type PerspectiveId, type SuiteId } from '../core/metric.js';
import { InputError, errorMessage } from '../core/errors.js';
import { bordaWeights } from '../weights/borda.js';
import type { PersonaWeights, WeightsFile } from '../weights/weights-file.js';
import { checkResponse, type SurveyResponse } from './response.js';
import { metricsOf, surveyPerspectives } from './catalogue.js';

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

/** Weights of one pool of respondents of one suite. */
export function personaWeights(responses: readonly SurveyResponse[], suite: SuiteId = DEFAULT_SUITE): PersonaWeights {
  const ps = surveyPerspectives(suite);
  const perspectives = bordaWeights(
    ps,
    responses.map((r) => r.perspectives),
  );
  if (!perspectives) throw new Error('no perspective rankings to weigh');
  const shares: Record<string, number> = {};
  const metrics: Record<string, number> = {};
  for (const p of ps) {
    const ids = metricsOf(p, suite).map((m) => m.id);
    let given: Record<string, number> | null = null;
    if (ids.length === 1) given = { [ids[0]!]: 1 };
    else {
      const rankings = responses.map((r) => r.metrics[p as PerspectiveId]).filter((r): r is string[] => Array.isArray(r));
      given = rankings.length ? bordaWeights(ids, rankings) : null;
    }
    if (given) Object.assign(shares, given);
    for (const id of ids) metrics[id] = perspectives[p]! * (given ? given[id]! : 1 / ids.length);
  }
  const out: PersonaWeights = { respondents: responses.length, perspectives, metrics, shares };
  if (suite !== DEFAULT_SUITE) out.suite = suite;
  return out;
}

export interface WeightsReport extends WeightsFile {
  dropped: { too_fast: number; invalid: number };
  /** Invalid lines, for the report (not part of SPEC's JSON document). */
  invalidLines: Array<{ line: number; error: string }>;
}

/** Apply the Borda rule per persona and for `all` (see the module comment). */
export function surveyWeights(read: ReadResponses, minSeconds = DEFAULT_MIN_SECONDS): WeightsReport {
  const suites = [...new Set(read.responses.map((r) => r.suite ?? DEFAULT_SUITE))];
  if (suites.length > 1) throw new InputError(`the responses mix suites (${suites.join(', ')}): weigh each suite's responses in a file of its own`);
  const suite = suites[0] ?? DEFAULT_SUITE;
  const kept = read.responses.filter((r) => r.seconds >= minSeconds);
  const tooFast = read.responses.length - kept.length;
  const personas: Record<string, PersonaWeights> = {};
  const roles = [...new Set(kept.map((r) => r.persona))];
  for (const role of roles)
    personas[role] = personaWeights(
      kept.filter((r) => r.persona === role),
      suite,
    );
  if (kept.length) personas.all = personaWeights(kept, suite);
  return { personas, dropped: { too_fast: tooFast, invalid: read.invalid.length }, invalidLines: read.invalid };
}
