/**
 * CSV records (RFC 4180) for the ratings and pairwise-preference files, read with csv-parse: fields separated by
 * commas, records by LF or CRLF, quoted fields with commas, line breaks and doubled quotes; a byte-order mark
 * dropped; blank lines are not records; records may differ in length (the readers check the columns they need).
 * `line` is the 1-based line on which each record starts, for error messages.
 */
import { parse } from 'csv-parse/sync';
import { InputError, readInputText } from '../core/errors.js';

export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {}

export function parseCsv(text: string): CsvRecord[] {
  try {
    const rows = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as Array<{
      record: string[];
      info: { lines: number; raw?: string };
    }>;
    // info.lines is the line the record ends on; a record starts as many line breaks earlier as it holds.
    return rows.map(({ record, info }) => ({ line: info.lines - (record.join(',').match(/\n/g)?.length ?? 0), fields: record }));
  } catch (err) {
    const e = err as { code?: string; lines?: number; message?: string };
    const line = e.lines ?? 0;
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') throw new CsvError(`line ${line}: a quoted field is never closed`);
    if (e.code === 'INVALID_OPENING_QUOTE') throw new CsvError(`line ${line}: a quote inside an unquoted field`);
    throw new CsvError(`line ${line}: ${e.message ?? String(err)}`);
  }
}

/** A ratings or preferences file's text and format (by extension, else by its first character); bad input is an InputError. */
export function readTableFile(path: string, noun: string): { text: string; format: 'csv' | 'jsonl' } {
  const text = readInputText(path);
  if (text.includes('\u0000')) throw new InputError(`${path}: a binary file, not CSV or JSONL ${noun}`);
  if (text.trim() === '') throw new InputError(`${path}: empty ${noun} file`);
  const lower = path.toLowerCase();
  const format = lower.endsWith('.csv')
    ? 'csv'
    : lower.endsWith('.jsonl') || lower.endsWith('.json')
      ? 'jsonl'
      : text.trimStart().startsWith('{')
        ? 'jsonl'
        : 'csv';
  return { text, format };
}

/**
 * The rows of a CSV (with a header; fields trimmed when `trim`) or JSONL file as objects with their line, the
 * header checked by `checkHead` (which throws an InputError naming what is missing). Malformed lines, records
 * whose length differs from the header's and CSV errors are InputErrors naming the file and line.
 */
export function tableRows(
  text: string,
  path: string,
  format: 'csv' | 'jsonl',
  noun: string,
  opts: { trim?: boolean; checkHead?: (head: string[]) => void } = {},
): Array<{ line: number; row: Record<string, unknown> }> {
  const out: Array<{ line: number; row: Record<string, unknown> }> = [];
  if (format === 'jsonl') {
    text.split('\n').forEach((raw, i) => {
      const line = i + 1;
      if (raw.trim() === '') return;
      let o: unknown;
      try {
        o = JSON.parse(raw);
      } catch {
        throw new InputError(`${path}: line ${line}: not valid JSON`);
      }
      if (!o || typeof o !== 'object' || Array.isArray(o)) throw new InputError(`${path}: line ${line}: expected a JSON object`);
      out.push({ line, row: o as Record<string, unknown> });
    });
    return out;
  }
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) throw new InputError(`${path}: ${err.message}`);
    throw err;
  }
  if (records.length === 0) throw new InputError(`${path}: empty ${noun} file`);
  const head = records[0]!.fields.map((h) => h.trim().toLowerCase());
  opts.checkHead?.(head);
  for (const rec of records.slice(1)) {
    if (rec.fields.length !== head.length) throw new InputError(`${path}: line ${rec.line}: ${rec.fields.length} fields, the header has ${head.length}`);
    out.push({ line: rec.line, row: Object.fromEntries(head.map((h, i) => [h, opts.trim ? rec.fields[i]!.trim() : rec.fields[i]!])) });
  }
  return out;
}
