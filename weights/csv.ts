/**
 * A small CSV reader (RFC 4180): fields separated by commas, records by LF or CRLF; a field in double quotes may
 * hold commas, line breaks and doubled quotes (`""`). A UTF-8 byte-order mark is dropped; a last empty line is not a
 * record. What it does not do: other separators, trimming, type conversion. `line` is the 1-based line on which
 * each record starts, for error messages.
 */

export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {}

export function parseCsv(text: string): CsvRecord[] {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = 0;
  let sawAny = false;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '' && !sawAny)) out.push({ line: start, fields });
    fields = [];
    field = '';
    sawAny = false;
  };
  while (i < s.length) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      if (c === '\n') line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new CsvError(`line ${line}: a quote inside an unquoted field`);
      quoted = true;
      sawAny = true;
      i++;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      sawAny = true;
      i++;
    } else if (c === '\n' || c === '\r') {
      endRecord();
      i += c === '\r' && s[i + 1] === '\n' ? 2 : 1;
      line++;
      start = line;
    } else {
      field += c;
      sawAny = true;
      i++;
    }
  }
  if (quoted) throw new CsvError(`line ${start}: a quoted field is never closed`);
  if (field !== '' || fields.length || sawAny) endRecord();
  return out;
}
