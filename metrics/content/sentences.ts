/**
 * Words and sentences of visible text, for the copywriting metric (copywriting.ts has the rules these serve): a
 * word is a run of letters or digits with inner apostrophes; a sentence ends at . ! ? or their CJK forms; English
 * is told by the share of function words; readability is Flesch's reading ease.
 */
import { syllable } from 'syllable';
import type { TextBlock } from './visible-text.js';

/** The text analysed at most (characters); the rest is counted, not read. */
export const MAX_TEXT_CHARS = 200_000;
/** Longer "words" (hashes, URLs run together) are left out of readability. */
const MAX_WORD_LETTERS = 40;

export const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const ENGLISH_FUNCTION_WORDS = new Set([
  'the',
  'a',
  'an',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'for',
  'with',
  'is',
  'are',
  'was',
  'be',
  'it',
  'this',
  'that',
  'you',
  'your',
  'we',
  'our',
  'at',
  'by',
  'from',
  'as',
  'can',
  'will',
  'not',
  'all',
  'if',
]);
export interface Sentence {
  text: string;
  words: string[];
}

export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Split a block into sentences (see the module comment). */
export function sentencesOf(text: string): Sentence[] {
  return text
    .split(/(?<=[.!?。！？])\s+|(?<=[。！？])/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => ({ text: s, words: wordsOf(s) }))
    .filter((s) => s.words.length > 0);
}

export function isEnglish(words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const hits = words.filter((w) => ENGLISH_FUNCTION_WORDS.has(w.toLowerCase())).length;
  return hits / words.length >= 0.08;
}

/** Flesch reading ease of some sentences ("words" of more than 40 letters are left out). */
export function fleschReadingEase(sentences: readonly Sentence[]): number {
  const words = sentences.flatMap((s) => s.words).filter((w) => /\p{L}/u.test(w) && w.length <= MAX_WORD_LETTERS);
  const syllables = words.reduce((n, w) => n + Math.max(1, syllable(w)), 0);
  return 206.835 - 1.015 * (words.length / sentences.length) - 84.6 * (syllables / Math.max(1, words.length));
}

/** Blocks in document order up to `cap` characters, the crossing block cut (see the module comment). */
export function capBlocks(blocks: readonly TextBlock[], cap = MAX_TEXT_CHARS): { blocks: TextBlock[]; chars: number; totalChars: number; truncated: boolean } {
  const out: TextBlock[] = [];
  let chars = 0;
  let totalChars = 0;
  for (const b of blocks) {
    totalChars += b.text.length;
    if (chars >= cap) continue;
    const room = cap - chars;
    const text = b.text.length > room ? b.text.slice(0, room) : b.text;
    out.push(text === b.text ? b : { ...b, text });
    chars += text.length;
  }
  return { blocks: out, chars, totalChars, truncated: totalChars > chars };
}
