/**
 * Survey responses (SPEC "Inputs": one JSON object per line of a JSONL file):
 *
 *   {"respondent", "persona", "seconds", "perspectives": [ids in order], "metrics": {"<perspective>": [ids in order]},
 *    "suite"?: "study" | "extended"}
 *
 * `suite` (absent: study) says which suite's perspectives and metrics the respondent ranked: the study's 9
 * perspectives, or the extended suite's (the study's plus the ones it adds, and `dead-code` in maintainability).
 *
 * Two checks share one core:
 * - `checkSubmission`: what the page POSTs (no `respondent`: the server makes a random UUID). Strict: a known
 *   role, every perspective exactly once, the metrics of every perspective with more than one metric exactly
 *   once, `seconds` a finite number ≥ 0, and no other fields.
 * - `checkResponse`: one line of a responses file, for `survey weights`. The same rules except:
 *   a `respondent` string is required; extra top-level fields are ignored (forward compatibility); and a
 *   missing metric ranking for a perspective is allowed: that respondent contributes no points to that
 *   perspective's metric shares (their perspective ranking still counts). A metric ranking that is present must
 *   be complete and exact (every metric of that perspective once, nothing else), else the whole response is
 *   invalid. A ranking for a one-metric perspective is allowed only as exactly that one metric and carries no
 *   points.
 * - `persona` must be one of the 8 roles (SPEC's 7 plus `other`); `all` is a pool, not a role, so a response
 *   claiming it is invalid.
 */
import { DEFAULT_SUITE, isSuiteId, type PerspectiveId, type SuiteId } from '../core/metric.js';
import { isRoleId, metricsOf, rankedMetricPerspectives, ROLE_IDS, surveyPerspectives, type RoleId } from './catalogue.js';

export interface Submission {
  suite?: SuiteId;
  persona: RoleId;
  seconds: number;
  perspectives: PerspectiveId[];
  metrics: Partial<Record<PerspectiveId, string[]>>;
}

export interface SurveyResponse extends Submission {
  respondent: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const SUBMISSION_KEYS = new Set(['suite', 'persona', 'seconds', 'perspectives', 'metrics']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** null when `ranking` lists exactly `items` once each; else what is wrong. */
function permutationProblem(what: string, ranking: unknown, items: readonly string[]): string | null {
  if (!Array.isArray(ranking)) return `${what} must be an array of ids`;
  const seen = new Set<string>();
  for (const id of ranking) {
    if (typeof id !== 'string') return `${what} must contain only id strings`;
    if (!items.includes(id)) return `${what}: unknown id ${JSON.stringify(id)}`;
    if (seen.has(id)) return `${what}: ${JSON.stringify(id)} listed twice`;
    seen.add(id);
  }
  const missing = items.filter((id) => !seen.has(id));
  if (missing.length) return `${what}: missing ${missing.map((m) => JSON.stringify(m)).join(', ')}`;
  return null;
}

function checkCore(v: Record<string, unknown>, strict: boolean): Checked<Submission> {
  const bad = (error: string): Checked<Submission> => ({ ok: false, error });
  const persona = v.persona;
  if (!isRoleId(persona)) return bad(`"persona" must be one of ${ROLE_IDS.join(', ')}`);
  const seconds = v.seconds;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return bad('"seconds" must be a number ≥ 0');
  if (v.suite !== undefined && (typeof v.suite !== 'string' || !isSuiteId(v.suite))) return bad('"suite" must be study or extended');
  const suite: SuiteId = (v.suite as SuiteId | undefined) ?? DEFAULT_SUITE;
  const perspectives = surveyPerspectives(suite);
  const pp = permutationProblem('"perspectives"', v.perspectives, perspectives);
  if (pp) return bad(pp);
  if (v.metrics === undefined && !strict) v = { ...v, metrics: {} };
  if (!isPlainObject(v.metrics)) return bad('"metrics" must be an object of rankings per perspective');
  const metrics: Partial<Record<PerspectiveId, string[]>> = {};
  for (const [key, ranking] of Object.entries(v.metrics)) {
    if (!(perspectives as readonly string[]).includes(key)) return bad(`"metrics": unknown perspective ${JSON.stringify(key)}`);
    const p = key as PerspectiveId;
    const mp = permutationProblem(
      `"metrics.${p}"`,
      ranking,
      metricsOf(p, suite).map((m) => m.id),
    );
    if (mp) return bad(mp);
    metrics[p] = [...(ranking as string[])];
  }
  if (strict) {
    const missing = rankedMetricPerspectives(suite).filter((p) => !metrics[p]);
    if (missing.length) return bad(`"metrics": no ranking for ${missing.join(', ')}`);
  }
  return {
    ok: true,
    value: { ...(v.suite !== undefined ? { suite } : {}), persona, seconds, perspectives: [...(v.perspectives as PerspectiveId[])], metrics },
  };
}

/** A POSTed submission (strict; see the module comment). */
export function checkSubmission(value: unknown): Checked<Submission> {
  if (!isPlainObject(value)) return { ok: false, error: 'expected a JSON object' };
  const extra = Object.keys(value).filter((k) => !SUBMISSION_KEYS.has(k));
  if (extra.length) return { ok: false, error: `unexpected field ${JSON.stringify(extra[0])}` };
  return checkCore(value, true);
}

/** One parsed line of a responses file (lenient on missing metric rankings; see the module comment). */
export function checkResponse(value: unknown): Checked<SurveyResponse> {
  if (!isPlainObject(value)) return { ok: false, error: 'not a JSON object' };
  if (typeof value.respondent !== 'string' || value.respondent.trim() === '') return { ok: false, error: '"respondent" must be a non-empty string' };
  const core = checkCore(value, false);
  if (!core.ok) return core;
  return { ok: true, value: { respondent: value.respondent, ...core.value } };
}
