/**
 * What a results row must be to be read. A results file is hostile data (edited by hand, written by another tool,
 * or forged through a queue's Redis), so every row is checked once, where rows enter: the results reader
 * (results-file.ts `parseResults`, shared by report, compare, leaderboard, merge, analyse and weights fit) and
 * `queue collect` before it appends a row a worker returned (queue-collect.ts). Each field a reader touches is
 * checked against its type in core/results.ts, so no reader guards it again, and one bad row is skipped with its
 * line and the first bad field instead of stopping a whole report.
 *
 * Interpretations:
 * - Unknown fields are kept: a newer webgrade may write more, and no reader looks at them.
 * - A score is a number or null here; whether the number is within 0–100 is the readers' policy
 *   (results-file.ts `rowsWithValidScores` counts such rows apart, as "rejected", with an example).
 * - Model and requirement are non-empty strings of at most `JOB_LIMITS.nameChars` characters (what a queue job
 *   may carry); control characters are allowed (a folder name may hold one; outputs escape them).
 */
import { SUITES } from '../core/metric.js';
import type { ResultRow } from '../core/results.js';
import { isObj } from '../lib/dict.js';
import { JOB_LIMITS } from '../lib/limits.js';

/** A value that is not a results row; the message names the first bad field. */
export class BadRow extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadRow';
  }
}

type Obj = Record<string, unknown>;

const PICTURE_KINDS = ['desktop', 'phone', 'full-page', 'metric', 'crop'] as const;

function fail(where: string, what: string): never {
  throw new BadRow(`${where}: ${what}`);
}

function obj(v: unknown, where: string): Obj {
  return isObj(v) ? v : fail(where, 'expected an object');
}

function name(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.length === 0) fail(where, 'expected a non-empty string');
  if (v.length > JOB_LIMITS.nameChars) fail(where, `longer than ${JOB_LIMITS.nameChars} characters`);
  return v;
}

function finite(v: unknown, where: string): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fail(where, 'expected a finite number');
}

function strings(v: unknown, where: string): void {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(where, 'expected a list of strings');
}

/** Each named field of `o`, when present, passes `check`. */
function optional(o: Obj, keys: readonly string[], where: string, check: (v: unknown, where: string) => unknown): void {
  for (const k of keys) if (o[k] !== undefined) check(o[k], `${where}${k}`);
}

const text = (v: unknown, where: string) => (typeof v === 'string' ? v : fail(where, 'expected a string'));

function checkMetric(v: unknown, where: string): void {
  const m = obj(v, where);
  if (typeof m.id !== 'string' || m.id.length === 0) fail(`${where}.id`, 'expected a non-empty string');
  if (m.score !== null && typeof m.score !== 'number') fail(`${where}.score`, 'expected a number or null');
  optional(m, ['title', 'perspective', 'kind', 'reason', 'summary'], `${where}.`, text);
  optional(m, ['details'], `${where}.`, obj);
  optional(m, ['ms'], `${where}.`, finite);
}

function checkPicture(v: unknown, where: string): void {
  const p = obj(v, where);
  if (typeof p.file !== 'string' || p.file.length === 0) fail(`${where}.file`, 'expected a non-empty string');
  if (!(PICTURE_KINDS as readonly unknown[]).includes(p.kind)) fail(`${where}.kind`, `expected one of ${PICTURE_KINDS.join(', ')}`);
  text(p.caption, `${where}.caption`);
  for (const k of ['width', 'height'] as const) if (!(finite(p[k], `${where}.${k}`) > 0)) fail(`${where}.${k}`, 'expected a number above 0');
  optional(p, ['metric', 'data'], `${where}.`, text);
  optional(p, ['bytes'], `${where}.`, finite);
}

function checkEvidence(v: unknown, where: string): void {
  const e = obj(v, where);
  text(e.folder, `${where}.folder`);
  if (!Array.isArray(e.pictures)) fail(`${where}.pictures`, 'expected a list');
  e.pictures.forEach((p, i) => checkPicture(p, `${where}.pictures[${i}]`));
  optional(e, ['bytes', 'cap'], `${where}.`, finite);
  optional(e, ['dropped'], `${where}.`, strings);
}

function checkNetwork(v: unknown, where: string): void {
  const n = obj(v, where);
  text(n.mode, `${where}.mode`);
  optional(n, ['libraries'], `${where}.`, strings);
  optional(n, ['blocked', 'withheld', 'browserOwn'], `${where}.`, finite);
}

/** Check a parsed JSON value as a results row; returns it typed, or throws BadRow naming the first bad field. */
export function checkRow(value: unknown): ResultRow {
  const o = obj(value, 'row');
  name(o.model, 'model');
  name(o.requirement, 'requirement');
  if (o.status !== 'ok' && o.status !== 'failed') fail('status', 'expected "ok" or "failed"');
  if (o.repeat !== undefined && !(Number.isInteger(o.repeat) && (o.repeat as number) >= 1)) fail('repeat', 'expected a whole number from 1');
  text(o.artifact, 'artifact');
  if (!Array.isArray(o.metrics)) fail('metrics', 'expected a list');
  o.metrics.forEach((m, i) => checkMetric(m, `metrics[${i}]`));
  if (o.suite !== undefined && !(SUITES as readonly unknown[]).includes(o.suite)) fail('suite', `expected one of ${SUITES.join(', ')}`);
  optional(o, ['error', 'entry', 'finishedAt', 'browser'], '', text);
  optional(o, ['settings', 'reference', 'timings', 'judgeCost'], '', obj);
  optional(o, ['ms'], '', finite);
  if (o.labels !== undefined) for (const [k, v] of Object.entries(obj(o.labels, 'labels'))) text(v, `labels.${k.slice(0, 64)}`);
  if (o.perspectives !== undefined) {
    for (const [k, v] of Object.entries(obj(o.perspectives, 'perspectives'))) {
      const where = `perspectives.${k.slice(0, 64)}`;
      const p = obj(v, where);
      if (p.meanScore !== undefined && p.meanScore !== null && typeof p.meanScore !== 'number') fail(`${where}.meanScore`, 'expected a number or null');
    }
  }
  if (o.overall !== undefined && o.overall !== null) obj(o.overall, 'overall');
  optional(o, ['network'], '', checkNetwork);
  optional(o, ['evidence'], '', checkEvidence);
  return o as unknown as ResultRow;
}

/** The reason a value is not a results row, or null when it is one. */
export function rowProblem(value: unknown): string | null {
  try {
    checkRow(value);
    return null;
  } catch (err) {
    if (err instanceof BadRow) return err.message;
    throw err;
  }
}
