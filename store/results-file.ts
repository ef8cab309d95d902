/**
 * The results file of `webgrade batch` (JSONL, one row per artifact, appended as each finishes), read by
 * `webgrade leaderboard` and `webgrade norms build`.
 *
 * A row is the artifact's ScoreDocument (runner/score.ts: `artifact`, `entry`, `metrics`, `perspectives`,
 * `overall`, `timings`) plus:
 *   - `model`: the folder name under the runs dir (`runs/<model>/...`);
 *   - `requirement`: the requirement id (file name without `.html`, or the folder name);
 *   - `labels`: the requirement's labels from `--requirements`, when given and present;
 *   - `status`: `"ok"`, or `"failed"` with `error` (the worker crashed, the artifact could not be loaded, or its
 *     time budget ran out with a grace period); a failed row has `metrics: []`;
 *   - `ms`: wall time of the artifact, `finishedAt`: ISO time;
 *   - `evidence`: the pictures kept beside the results (store/evidence-keep.ts), paths relative to this file's folder;
 *   - `repeat`: which scoring of the artifact the row is (`batch --repeats n`: 1..n); absent means 1.
 *
 * A line is a row when result-row.ts `checkRow` accepts it (each field of the right type: a row whose `repeat` is
 * not a whole number ≥ 1, or whose metrics are not a list of metric results, is unreadable); readers skip any other
 * line and say which and why (`skippedLinesNote`).
 *
 * Crash safety: each row is written with one `write` of a whole line, so a run killed at any moment (even
 * `kill -9`) leaves complete rows plus at most one torn last line. Only a last line without its newline that is
 * a row or the start of one (a `{` that does not parse) is torn; `openResultsForAppend` cuts it away before
 * appending. Readers (leaderboard, norms, analyse) skip and count any other line that is not a row; appending
 * to a file with such a line is refused (a typo such as `--out requirements.jsonl` must not eat that file).
 *
 * Resume: a (model, requirement, repeat) that already has a row, ok or failed, is done and is not scored again
 * (so re-running the same command never duplicates a row; raising `--repeats` adds only the new repeats). Delete
 * failed rows by hand to retry them.
 */
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { ResultRow, RowStatus } from '../core/results.js';

export type { ResultRow, RowStatus };
import { InputError, errorMessage } from '../core/errors.js';
import { printable } from '../lib/text.js';
import { rowProblem } from './result-row.js';

export interface ReadResults {
  rows: ResultRow[];
  /** Lines that are not results rows (skipped by readers; appending refuses such a file). */
  badLines: number[];
  /** Why each of `badLines` is not a row (result-row.ts: the first bad field, or "not JSON"), in the same order. */
  badReasons: string[];
  /** The last line was torn (a crash mid-write); ignored. */
  tornTail: boolean;
  /** Byte length of the good prefix of the file (everything up to the last complete, valid row). */
  goodBytes: number;
}

/** The key of a row: model, requirement and repeat (rows without `repeat` are repeat 1). */
export function rowKey(model: string, requirement: string, repeat = 1): string {
  return `${model}\u0000${requirement}\u0000${repeat}`;
}

/** One line: a row, or why it is not one (not JSON, or the first bad field: result-row.ts). */
function readLine(text: string): { row: ResultRow } | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: 'not JSON' };
  }
  const problem = rowProblem(value);
  return problem === null ? { row: value as ResultRow } : { reason: problem };
}

/**
 * The note readers print for the lines they skipped, naming each (the first five with their reason), e.g.
 * "2 unreadable lines skipped: line 3 (metrics[0].score: expected a number or null), line 9 (not JSON)"; null
 * when there are none.
 */
export function skippedLinesNote(read: Pick<ReadResults, 'badLines' | 'badReasons'>): string | null {
  const n = read.badLines.length;
  if (n === 0) return null;
  const shown = read.badLines.slice(0, 5).map((line, i) => `line ${line} (${printable(read.badReasons[i] ?? 'not a results row').slice(0, 160)})`);
  return `${n} unreadable ${n === 1 ? 'line' : 'lines'} skipped: ${shown.join(', ')}${n > 5 ? `, and ${n - 5} more` : ''}`;
}

/** Parse results JSONL text (see the module comment for torn and bad lines). */
export function parseResults(buf: Buffer): ReadResults {
  const rows: ResultRow[] = [];
  const badLines: number[] = [];
  const badReasons: string[] = [];
  let tornTail = false;
  let goodBytes = 0;
  let pos = 0;
  let lineNo = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    lineNo++;
    const end = nl < 0 ? buf.length : nl;
    const text = buf.subarray(pos, end).toString('utf8');
    const read = text.trim() === '' ? null : readLine(text);
    if (nl < 0) {
      // No final newline: a torn write (even if it happens to parse, the writer never finished the line), when it
      // is a row or the start of one (a JSON object that does not parse). Any other last line is not ours.
      if (read) {
        if ('row' in read || (read.reason === 'not JSON' && text.trimStart().startsWith('{'))) tornTail = true;
        else {
          badLines.push(lineNo);
          badReasons.push(read.reason);
        }
      }
      break;
    }
    if (read && 'row' in read) rows.push(read.row);
    else if (read) {
      badLines.push(lineNo);
      badReasons.push(read.reason);
    }
    pos = nl + 1;
    goodBytes = pos;
  }
  return { rows, badLines, badReasons, tornTail, goodBytes };
}

/**
 * The one-line error for a results file with no usable row left (SPEC: exit 2 only then), naming why: its
 * skipped lines, and rows left out for their scores (`rowsWithValidScores`).
 */
export function noUsableRows(path: string, read: Pick<ReadResults, 'badLines' | 'badReasons'>, valid?: { rejected: number; examples: string[] }): InputError {
  const why = [skippedLinesNote(read), valid?.rejected ? `${valid.rejected} rejected for scores outside 0–100 or not finite, e.g. ${valid.examples[0]}` : null];
  const known = why.filter((w): w is string => w !== null);
  return new InputError(`${path}: no result rows${known.length ? ` (${known.join('; ')})` : ''}`);
}

export function readResults(path: string): ReadResults {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`${path}: ${code === 'ENOENT' ? 'no such file' : errorMessage(err)}`);
  }
  return parseResults(buf);
}

/** Keep the last row of each (model, requirement, repeat); returns the rows and how many duplicates were dropped. */
export function dedupeRows(rows: readonly ResultRow[]): { rows: ResultRow[]; duplicates: number } {
  const byKey = new Map<string, ResultRow>();
  for (const r of rows) byKey.set(rowKey(r.model, r.requirement, r.repeat ?? 1), r);
  return { rows: [...byKey.values()], duplicates: rows.length - byKey.size };
}

/**
 * Rows whose metric scores are all null or finite numbers in 0–100, and how many rows were left out because one
 * was not (a hand-edited or foreign file: one `1e308` would otherwise zero a perspective for every model).
 */
export function rowsWithValidScores(rows: readonly ResultRow[]): { rows: ResultRow[]; rejected: number; examples: string[] } {
  const out: ResultRow[] = [];
  const examples: string[] = [];
  for (const r of rows) {
    const bad = r.metrics.find((m) => m.score !== null && !(typeof m.score === 'number' && Number.isFinite(m.score) && m.score >= 0 && m.score <= 100));
    if (!bad) out.push(r);
    else if (examples.length < 3) examples.push(`${r.model}/${r.requirement} ${bad.id} = ${String(bad.score)}`);
  }
  return { rows: out, rejected: rows.length - out.length, examples };
}

/** An append-only results file. */
export class ResultsWriter {
  private fd: number | null;
  constructor(fd: number) {
    this.fd = fd;
  }
  /** Append one row as one whole line in a single write. */
  append(row: ResultRow): void {
    if (this.fd === null) throw new Error('results file closed');
    const buf = Buffer.from(JSON.stringify(row) + '\n', 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
  }
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * Open `path` for appending after reading what is there: returns the existing rows and a writer. A torn last
 * line is cut away first, so the next row starts on a fresh line.
 */
export function openResultsForAppend(path: string): { existing: ReadResults; writer: ResultsWriter } {
  let existing: ReadResults = { rows: [], badLines: [], badReasons: [], tornTail: false, goodBytes: 0 };
  if (existsSync(path)) existing = readResults(path);
  if (existing.badLines.length) {
    const n = existing.badLines.length;
    throw new InputError(
      `${path}: refusing to append: ${n === 1 ? 'line' : 'lines'} ${existing.badLines.slice(0, 5).join(', ')}${n > 5 ? ', …' : ''} ${n === 1 ? 'is not a results row' : 'are not results rows'} (line ${existing.badLines[0]}: ${printable(existing.badReasons[0] ?? '').slice(0, 120)}; is --out the right file?)`,
    );
  }
  let fd: number;
  try {
    fd = openSync(path, 'a+');
  } catch (err) {
    throw new InputError(`${path}: cannot write results (${errorMessage(err)})`);
  }
  if (existing.tornTail) ftruncateSync(fd, existing.goodBytes);
  return { existing, writer: new ResultsWriter(fd) };
}
