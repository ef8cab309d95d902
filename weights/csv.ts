/**
 * CSV records (RFC 4180) for the ratings and pairwise-preference files, read with csv-parse: fields separated by
 * commas, records by LF or CRLF, quoted fields with commas, line breaks and doubled quotes; a byte-order mark
 * dropped; blank lines are not records; records may differ in length (the readers check the columns they need).
 * `line` is the 1-based line on which each record starts, for error messages.
 */
import { parse } from 'csv-parse/sync';

export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {}

export function parseCsv(text: string): CsvRecord[] {
  try {
    const rows = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as Array<{ record: string[]; info: { lines: number; raw?: string } }>;
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
