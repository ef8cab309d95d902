/**
 * Human ratings for `webgrade analyse --ratings <file>`: how well each metric (and the overall) agrees with people.
 *
 * Formats: CSV with a header row (RFC 4180, csv.ts), or JSONL (one object per line); `.csv` is read as CSV, `.jsonl`
 * and `.json` as JSONL, anything else by its first character (`{`: JSONL). Each row names a page and a rating:
 *   - the page: `artifact` (its path, as in the results' `artifact` field), or `model` and `requirement`;
 *   - `rating`: a finite number, any scale, higher is better (only its order matters to rank correlations).
 * An empty rating (CSV) or `"rating": null` (JSONL) means not rated: skipped and counted. Anything else that is
 * not a number, a row that names no page, and a malformed line are bad input, named by line number.
 *
 * Matching to the results' pages (`matchRatings`): model + requirement exactly; an artifact path equal to the
 * page's after resolving both against the working folder (a folder artifact also matches as `<dir>/index.html`),
 * else by its trailing path segments when exactly one page ends with them (`runs/m/r1.html` matches
 * `/data/runs/m/r1.html`). Several ratings of one page (several raters) are averaged. Ratings that match no page
 * (or more than one) are counted and reported, not fatal; none matching at all is bad input.
 */
import { resolve, sep } from 'node:path';
import { InputError, readInputText } from '../core/errors.js';
import { readTableFile, tableRows } from './csv.js';

export interface Rating {
  line: number;
  artifact?: string;
  model?: string;
  requirement?: string;
  rating: number;
}

export interface RatingsFile {
  path: string;
  ratings: Rating[];
  /** Rows with an empty rating. */
  unrated: number;
}

function keyOf(o: Record<string, unknown>, name: string, line: number, path: string): Omit<Rating, 'rating' | 'line'> {
  const str = (k: string) => {
    const v = o[k];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new InputError(`${path}: line ${line}: "${k}" must be text`);
    return v;
  };
  const artifact = str('artifact');
  const model = str('model');
  const requirement = str('requirement');
  if (artifact) return { artifact };
  if (model && requirement) return { model, requirement };
  throw new InputError(`${path}: line ${line}: ${name} names no page (give "artifact", or "model" and "requirement")`);
}

function ratingOf(v: unknown, line: number, path: string): number | null {
  if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '')) return null;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n)) throw new InputError(`${path}: line ${line}: rating ${JSON.stringify(v)} is not a number`);
  return n;
}

export function parseRatings(text: string, path: string, format: 'csv' | 'jsonl'): RatingsFile {
  const ratings: Rating[] = [];
  let unrated = 0;
  const checkHead = (head: string[]) => {
    if (!head.includes('rating')) throw new InputError(`${path}: line 1: no "rating" column (columns: ${head.join(', ')})`);
    if (!head.includes('artifact') && !(head.includes('model') && head.includes('requirement'))) {
      throw new InputError(`${path}: line 1: needs an "artifact" column, or "model" and "requirement" columns`);
    }
  };
  for (const { line, row } of tableRows(text, path, format, 'ratings', { trim: true, checkHead })) {
    if (!('rating' in row)) throw new InputError(`${path}: line ${line}: no "rating"`);
    const key = keyOf(row, 'the row', line, path);
    const r = ratingOf(row.rating, line, path);
    if (r === null) unrated++;
    else ratings.push({ line, ...key, rating: r });
  }
  if (ratings.length === 0) throw new InputError(`${path}: no ratings (every row is empty or unrated)`);
  return { path, ratings, unrated };
}

export function loadRatings(path: string): RatingsFile {
  const { text, format } = readTableFile(path, 'ratings');
  return parseRatings(text, path, format);
}

export interface PageRef {
  model: string;
  requirement: string;
  artifact?: string;
}

export interface RatingMatch {
  /** Mean rating per matched page, by page index. */
  byPage: Map<number, { rating: number; raters: number }>;
  matched: number;
  unmatched: Rating[];
  ambiguous: Rating[];
}

function segments(p: string): string[] {
  return resolve(p).split(sep).filter(Boolean);
}

function withoutIndex(segs: string[]): string[] {
  return segs.length && segs[segs.length - 1]!.toLowerCase() === 'index.html' ? segs.slice(0, -1) : segs;
}

/** Match ratings to pages (module comment). */
export function matchRatings(ratings: readonly Rating[], pages: readonly PageRef[]): RatingMatch {
  const byModelReq = new Map<string, number>();
  const byPath = new Map<string, number>();
  const pageSegs: string[][] = [];
  pages.forEach((p, i) => {
    byModelReq.set(`${p.model}\u0000${p.requirement}`, i);
    const segs = p.artifact ? withoutIndex(segments(p.artifact)) : [];
    pageSegs.push(segs);
    if (segs.length) byPath.set(segs.join('/'), i);
  });
  const sums = new Map<number, { sum: number; n: number }>();
  const unmatched: Rating[] = [];
  const ambiguous: Rating[] = [];
  for (const r of ratings) {
    let idx: number | undefined;
    if (r.artifact !== undefined) {
      const want = withoutIndex(
        r.artifact
          .replace(/\\/g, '/')
          .split('/')
          .filter((s) => s && s !== '.'),
      );
      idx = byPath.get(withoutIndex(segments(r.artifact)).join('/'));
      if (idx === undefined && want.length) {
        const hits = pageSegs
          .map((segs, i) => (segs.length >= want.length && want.every((w, k) => segs[segs.length - want.length + k] === w) ? i : -1))
          .filter((i) => i >= 0);
        if (hits.length === 1) idx = hits[0];
        else if (hits.length > 1) {
          ambiguous.push(r);
          continue;
        }
      }
    } else idx = byModelReq.get(`${r.model}\u0000${r.requirement}`);
    if (idx === undefined) {
      unmatched.push(r);
      continue;
    }
    const s = sums.get(idx) ?? { sum: 0, n: 0 };
    s.sum += r.rating;
    s.n++;
    sums.set(idx, s);
  }
  const byPage = new Map([...sums].map(([i, s]) => [i, { rating: s.sum / s.n, raters: s.n }]));
  return { byPage, matched: ratings.length - unmatched.length - ambiguous.length, unmatched, ambiguous };
}
