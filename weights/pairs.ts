/**
 * Pairwise preferences (SPEC "Inputs"), as an arena collects them, for `webgrade analyse --pairs` and
 * `webgrade weights fit --pairs`.
 *
 * Formats, chosen as for ratings (ratings.ts): CSV with a header row, or JSONL. Each row is one judgement:
 *   - `requirement`, `model_a`, `model_b`: the two pages compared, both answers to the same requirement;
 *   - `winner`: `a`, `b`, `tie` or `both-bad` (case-insensitive); both-bad (the arenas' "both are bad") counts
 *     as a tie, as SPEC says: it says nothing about which page is better; how many there were is counted;
 *   - `rater` (optional): who judged; only counted;
 *   - `time`, `position` (optional, what `webgrade arena` writes: when, and which side model_a was shown on) and
 *     any other field are read past.
 * A row without one of the required fields, with an unknown winner, or comparing a model with itself, and a
 * malformed line, are bad input, named by line number. One exception, so that a votes file can be read while an
 * arena writes it or after it was killed: a JSONL file's last line without its newline that is the start of an
 * object and does not parse is a torn write (arena/votes.ts writes each vote whole, so only a crash mid-write
 * leaves one); it is left out and said (`tornTail`), as the results reader does. Several judgements of the same two pages all count (an
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
  /** A both-bad vote is a tie here, with `bothBad` set. */
  winner: Winner;
  bothBad?: true;
  rater?: string;
}

export interface PairsFile {
  path: string;
  pairs: Preference[];
  /** Distinct raters named (0 when the file has no `rater`). */
  raters: number;
  /** Judgements whose winner was both-bad (counted as ties). */
  bothBad: number;
  /** The last line was a torn write, left out (module comment). */
  tornTail: boolean;
}

const WINNERS: readonly string[] = ['a', 'b', 'tie', 'both-bad'];

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
  if (!WINNERS.includes(w)) throw new InputError(`${path}: line ${line}: winner ${JSON.stringify(o.winner)} is not a, b, tie or both-bad`);
  if (modelA === modelB) throw new InputError(`${path}: line ${line}: model_a and model_b are both ${JSON.stringify(modelA)}`);
  const p: Preference = { line, requirement, modelA, modelB, winner: w === 'both-bad' ? 'tie' : (w as Winner) };
  if (w === 'both-bad') p.bothBad = true;
  const rater = text('rater');
  if (rater !== undefined) p.rater = rater;
  return p;
}

/** The text without a torn last JSONL line (module comment), and whether there was one. */
function withoutTornTail(text: string): { text: string; torn: boolean } {
  if (text.endsWith('\n')) return { text, torn: false };
  const cut = text.lastIndexOf('\n') + 1;
  const last = text.slice(cut);
  if (!last.trimStart().startsWith('{')) return { text, torn: false };
  try {
    JSON.parse(last);
    return { text, torn: false };
  } catch {
    return { text: text.slice(0, cut), torn: true };
  }
}

export function parsePairs(text: string, path: string, format: 'csv' | 'jsonl'): PairsFile {
  const torn = format === 'jsonl' ? withoutTornTail(text) : { text, torn: false };
  const checkHead = (head: string[]) => {
    const missing = ['requirement', 'model_a', 'model_b', 'winner'].filter((c) => !head.includes(c));
    if (missing.length)
      throw new InputError(
        `${path}: line 1: no ${missing.map((c) => `"${c}"`).join(', ')} column${missing.length > 1 ? 's' : ''} (columns: ${head.join(', ')})`,
      );
  };
  const pairs = tableRows(torn.text, path, format, 'pairs', { checkHead }).map(({ line, row }) => preferenceOf(row, line, path));
  if (pairs.length === 0) throw new InputError(`${path}: no judgements${torn.torn ? ' (only a torn line)' : ''}`);
  return {
    path,
    pairs,
    raters: new Set(pairs.map((p) => p.rater).filter((r) => r !== undefined)).size,
    bothBad: pairs.filter((p) => p.bothBad).length,
    tornTail: torn.torn,
  };
}

/** What a reader of the file should say about it (torn last line, both-bad votes). */
export function pairsFileNotes(f: PairsFile): string[] {
  const out: string[] = [];
  if (f.tornTail) out.push(`${f.path} ends with a torn line (an arena still writing, or killed mid-write): left out`);
  if (f.bothBad) out.push(`${f.bothBad} both-bad ${f.bothBad === 1 ? 'vote counts' : 'votes count'} as ${f.bothBad === 1 ? 'a tie' : 'ties'}`);
  return out;
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
