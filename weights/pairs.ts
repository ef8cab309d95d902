/**
 * Pairwise preferences (SPEC "Inputs"), as an arena collects them, for `webgrade analyse --pairs` and
 * `webgrade weights fit --pairs`.
 *
 * Formats, chosen as for ratings (ratings.ts): CSV with a header row, or JSONL. Each row is one judgement:
 *   - `requirement`, `model_a`, `model_b`: the two pages compared, both answers to the same requirement;
 *   - `winner`: `a`, `b` or `tie` (case-insensitive);
 *   - `rater` (optional): who judged; only counted.
 * A row without one of the required fields, with an unknown winner, or comparing a model with itself, and a
 * malformed line, are bad input, named by line number. Several judgements of the same two pages all count (an
 * arena's repeated votes are its evidence). A judgement naming a page the results do not have is counted and
 * reported, not fatal; none matching at all is bad input (the caller says so).
 */
import { InputError, readInputText } from '../core/errors.js';
import { readTableFile, tableRows } from './csv.js';

export type Winner = 'a' | 'b' | 'tie';

export interface Preference {
  line: number;
  requirement: string;
  modelA: string;
  modelB: string;
  winner: Winner;
  rater?: string;
}

export interface PairsFile {
  path: string;
  pairs: Preference[];
  /** Distinct raters named (0 when the file has no `rater`). */
  raters: number;
}

const WINNERS: readonly Winner[] = ['a', 'b', 'tie'];

function preferenceOf(o: Record<string, unknown>, line: number, path: string): Preference {
  const text = (k: string): string | undefined => {
    const v = o[k];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new InputError(`${path}: line ${line}: "${k}" must be text`);
    return v.trim() === '' ? undefined : v.trim();
  };
  const need = (k: string): string => {
    const v = text(k);
    if (v === undefined) throw new InputError(`${path}: line ${line}: no "${k}"`);
    return v;
  };
  const requirement = need('requirement');
  const modelA = need('model_a');
  const modelB = need('model_b');
  const w = need('winner').toLowerCase();
  if (!(WINNERS as readonly string[]).includes(w)) throw new InputError(`${path}: line ${line}: winner ${JSON.stringify(o.winner)} is not a, b or tie`);
  if (modelA === modelB) throw new InputError(`${path}: line ${line}: model_a and model_b are both ${JSON.stringify(modelA)}`);
  const p: Preference = { line, requirement, modelA, modelB, winner: w as Winner };
  const rater = text('rater');
  if (rater !== undefined) p.rater = rater;
  return p;
}

export function parsePairs(text: string, path: string, format: 'csv' | 'jsonl'): PairsFile {
  const checkHead = (head: string[]) => {
    const missing = ['requirement', 'model_a', 'model_b', 'winner'].filter((c) => !head.includes(c));
    if (missing.length)
      throw new InputError(
        `${path}: line 1: no ${missing.map((c) => `"${c}"`).join(', ')} column${missing.length > 1 ? 's' : ''} (columns: ${head.join(', ')})`,
      );
  };
  const pairs = tableRows(text, path, format, 'pairs', { checkHead }).map(({ line, row }) => preferenceOf(row, line, path));
  if (pairs.length === 0) throw new InputError(`${path}: no judgements`);
  return { path, pairs, raters: new Set(pairs.map((p) => p.rater).filter((r) => r !== undefined)).size };
}

export function loadPairs(path: string): PairsFile {
  const { text, format } = readTableFile(path, 'pairs');
  return parsePairs(text, path, format);
}

/** One judgement matched to two pages of the results (indices into the pages given to `matchPairs`). */
export interface MatchedPair {
  a: number;
  b: number;
  winner: Winner;
  line: number;
}

export interface PairMatch {
  pairs: MatchedPair[];
  /** Judgements naming a page (model, requirement) the results do not have. */
  unmatched: Preference[];
}

/** Match judgements to pages by (model, requirement). */
export function matchPairs(prefs: readonly Preference[], pages: ReadonlyArray<{ model: string; requirement: string }>): PairMatch {
  const index = new Map<string, number>();
  pages.forEach((p, i) => index.set(`${p.model}\u0000${p.requirement}`, i));
  const pairs: MatchedPair[] = [];
  const unmatched: Preference[] = [];
  for (const p of prefs) {
    const a = index.get(`${p.modelA}\u0000${p.requirement}`);
    const b = index.get(`${p.modelB}\u0000${p.requirement}`);
    if (a === undefined || b === undefined) unmatched.push(p);
    else pairs.push({ a, b, winner: p.winner, line: p.line });
  }
  return { pairs, unmatched };
}
