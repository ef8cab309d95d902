/**
 * `copywriting` (SPEC #12): rule-based quality of the page's visible text. Fourteen sub-scores, each 0–100;
 * the score is their mean over the sub-scores that apply to this page (a sub-score that has nothing to look at,
 * such as label clarity on a page without buttons or links, is left out and listed as not applicable with the
 * reason). Unscorable when the page has no visible text at all.
 *
 * Text source: the static DOM's visible text (see `visible-text.ts` for what counts as visible and why code is
 * not prose). Sentences are split at `.`, `!`, `?`, `。`, `！`, `？` followed by space or end; words are runs of
 * letters, digits and apostrophes (Unicode-aware). "Prose" sentences are those of at least 4 words.
 *
 * Counting sub-scores use SPEC's logarithmic penalty `(1 − log2(1 + bad/(total+1))) × 100` (`logPenalty`),
 * the shape SPEC uses for "bad among total" everywhere; the others are stated with their formula below.
 *
 *  1. `placeholder-text`: lorem ipsum, "TODO", "TBD", "FIXME", "placeholder", "your text here", "insert … here",
 *     "sample text", "xxx", "[…]"-style template slots, "Untitled"; bad = blocks with any, total = blocks.
 *  2. `sentence-length`: bad = prose sentences over 25 words, total = prose sentences.
 *  3. `readability`: Flesch reading ease over the English prose (syllables from the `syllable` package),
 *     mapped linearly so that FRE ≤ 10 → 0 and FRE ≥ 60 ("plain English") → 100. Needs ≥ 3 prose sentences in
 *     English (see below).
 *  4. `wordiness`: the `write-good` checks (passive voice, weasel words, "there is/are" openings, wordy
 *     phrases, clichés, needless "so", adverbs) on the English prose; bad = findings, total = prose sentences.
 *  5. `punctuation`: mixing of full-width and ASCII punctuation, of straight and curly quotes, repeated
 *     `!!`/`??`/`?!`, a space before `,.;:!?`, and a missing space after `,;` or after a sentence end before a
 *     capital; bad = anomalies, total = sentences.
 *  6. `heading-hierarchy`: problems = no `<h1>` (when there are headings), more than one `<h1>`, each skipped
 *     level (h2 → h4), each empty heading, and no heading at all on a page of 150+ words; `max(0, 100 − 25 × problems)`.
 *     Not applicable on a short page without headings.
 *  7. `label-clarity`: buttons and links whose label is empty or vague ("click here", "here", "more",
 *     "read more", "link", "button", "ok" for a link, "…"); bad = those, total = buttons and links.
 *  8. `repetition`: doubled words ("the the") and text blocks of 5+ words that appear more than once
 *     (beyond the first); bad = those, total = blocks.
 *  9. `terminology`: one term written several ways (hyphen or space variants: "e-mail"/"email",
 *     "log in"/"login", "to-do"/"todo"); `max(0, 100 − 20 × terms with variants)`.
 * 10. `capitalisation`: headings and button labels of 3+ words classified as Title Case, Sentence case or ALL
 *     CAPS; score = 100 × share of the most common style. Needs ≥ 3 such labels.
 * 11. `shouting`: prose sentences written in capitals (3+ words, all letters upper-case) or ending in `!`
 *     beyond the first exclamation on the page; bad = those, total = sentences.
 * 12. `emoji-density`: emoji per 100 words (the `emoji-regex` package); ≤ 2 → 100, then −10 points per extra
 *     emoji per 100 words, floor 0.
 * 13. `spelling-anomalies` (no dictionary, so only shapes that are wrong in any language): a letter three
 *     times in a row inside a word ("sooo"), a word glued to the next sentence ("end.Next"), and unbalanced
 *     brackets within a block; bad = anomalies, total = sentences.
 * 14. `page-title`: a non-empty `<title>` that is not a default ("Document", "Untitled", "index.html",
 *     "New Page", "React App", "Vite App", ...): 100, else 0.
 *
 * English detection (for 3 and 4, whose rules are English-only): at least 8 % of words are common English
 * function words; otherwise those two are not applicable ("text is not English"), never scored as bad English.
 */
import emojiRegex from 'emoji-regex';
import { syllable } from 'syllable';
import writeGood from 'write-good';
import { logPenalty, round2 } from '../formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { extractVisibleText, type VisibleText } from './visible-text.js';

export const SUB_SCORES = [
  'placeholder-text', 'sentence-length', 'readability', 'wordiness', 'punctuation', 'heading-hierarchy',
  'label-clarity', 'repetition', 'terminology', 'capitalisation', 'shouting', 'emoji-density',
  'spelling-anomalies', 'page-title',
] as const;
export type SubScoreId = (typeof SUB_SCORES)[number];

export interface SubScore {
  id: SubScoreId;
  /** null when the sub-score does not apply to this page. */
  score: number | null;
  /** What was counted, or why it does not apply. */
  note: string;
  /** Up to 10 examples of what lost points. */
  examples: string[];
}

const MAX_EXAMPLES = 10;
const LONG_SENTENCE_WORDS = 25;
const PROSE_MIN_WORDS = 4;

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const ENGLISH_FUNCTION_WORDS = new Set(['the', 'a', 'an', 'and', 'or', 'of', 'to', 'in', 'on', 'for', 'with', 'is', 'are', 'was', 'be', 'it', 'this', 'that', 'you', 'your', 'we', 'our', 'at', 'by', 'from', 'as', 'can', 'will', 'not', 'all', 'if']);
const PLACEHOLDER = /\blorem\b|\bipsum\b|\bdolor sit\b|\bTODO\b|\bTBD\b|\bFIXME\b|\bplaceholder\b|\byour (?:text|title|content|name|company|logo) here\b|\binsert [\w\s]{1,30} here\b|\bsample text\b|\bxxx+\b|\[(?:insert|your|placeholder|name|title|text)[^\]]*\]|\{\{[^}]*\}\}|\buntitled\b/i;
const VAGUE_LABELS = new Set(['click here', 'here', 'more', 'read more', 'link', 'button', 'click', 'this', 'go', '...', '…', 'learn more', 'details']);
const DEFAULT_TITLES = new Set(['document', 'untitled', 'untitled document', 'index', 'index.html', 'new page', 'page', 'react app', 'vite app', 'vite + react', 'vite + react + ts', 'my app', 'app', 'title', 'home', 'webpage', 'html']);

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

/** Flesch reading ease of some sentences. */
export function fleschReadingEase(sentences: readonly Sentence[]): number {
  const words = sentences.flatMap((s) => s.words).filter((w) => /\p{L}/u.test(w));
  const syllables = words.reduce((n, w) => n + Math.max(1, syllable(w)), 0);
  return 206.835 - 1.015 * (words.length / sentences.length) - 84.6 * (syllables / words.length);
}

const clip = (s: string, n = 80) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

function counted(id: SubScoreId, bad: string[], total: number, what: string): SubScore {
  return { id, score: round2(logPenalty(bad.length, total)), note: `${bad.length} of ${total} ${what}`, examples: bad.slice(0, MAX_EXAMPLES) };
}
const notApplicable = (id: SubScoreId, note: string): SubScore => ({ id, score: null, note, examples: [] });

type Check = (t: Analysed) => SubScore;

interface Analysed {
  visible: VisibleText;
  sentences: Sentence[];
  prose: Sentence[];
  words: string[];
  english: boolean;
}

const CHECKS: Record<SubScoreId, Check> = {
  'placeholder-text': ({ visible }) =>
    counted('placeholder-text', visible.blocks.filter((b) => PLACEHOLDER.test(b.text)).map((b) => clip(b.text)), visible.blocks.length, 'text blocks hold placeholder text'),

  'sentence-length': ({ prose }) => {
    if (prose.length === 0) return notApplicable('sentence-length', 'no prose sentences');
    const long = prose.filter((s) => s.words.length > LONG_SENTENCE_WORDS);
    return counted('sentence-length', long.map((s) => `${s.words.length} words: ${clip(s.text)}`), prose.length, `prose sentences are over ${LONG_SENTENCE_WORDS} words`);
  },

  readability: ({ prose, english }) => {
    if (!english) return notApplicable('readability', 'text is not English');
    if (prose.length < 3) return notApplicable('readability', 'fewer than 3 prose sentences');
    const fre = fleschReadingEase(prose);
    const score = Math.min(100, Math.max(0, ((fre - 10) / 50) * 100));
    return { id: 'readability', score: round2(score), note: `Flesch reading ease ${round2(fre)} over ${prose.length} sentences`, examples: [] };
  },

  wordiness: ({ prose, english }) => {
    if (!english) return notApplicable('wordiness', 'text is not English');
    if (prose.length === 0) return notApplicable('wordiness', 'no prose sentences');
    const bad: string[] = [];
    for (const s of prose) for (const f of writeGood(s.text, { eprime: false })) bad.push(`${f.reason} in "${clip(s.text, 60)}"`);
    return counted('wordiness', bad, prose.length, 'prose sentences: write-good findings');
  },

  punctuation: ({ visible, sentences }) => {
    const all = visible.blocks.map((b) => b.text).join('\n');
    const bad: string[] = [];
    const fullWidth = /[，。：；！？（）]/u.test(all);
    const asciiInCjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}][,;:!?]/u.test(all);
    if (fullWidth && asciiInCjk) bad.push('full-width and ASCII punctuation mixed');
    if (/["']\p{L}/u.test(all) && /[“”‘’]/u.test(all) && /"[^"\n]{1,80}"/.test(all) && /“[^”\n]{1,80}”/.test(all)) bad.push('straight and curly quotes mixed');
    for (const m of all.matchAll(/[!?]{2,}/g)) bad.push(`"${m[0]}" at "${clip(all.slice(Math.max(0, m.index! - 20), m.index! + 2), 30)}"`);
    for (const m of all.matchAll(/\p{L} +[,.;:!?](?=\s|$)/gu)) bad.push(`space before punctuation: "${m[0]}"`);
    for (const m of all.matchAll(/\p{Ll}[,;](?=\p{L})/gu)) bad.push(`no space after punctuation: "${all.slice(m.index!, m.index! + 6)}"`);
    return counted('punctuation', bad, Math.max(1, sentences.length), 'sentences: punctuation anomalies');
  },

  'heading-hierarchy': ({ visible, words }) => {
    const hs = visible.headings;
    if (hs.length === 0) {
      if (words.length < 150) return notApplicable('heading-hierarchy', 'no headings on a short page');
      return { id: 'heading-hierarchy', score: 75, note: `no headings on a page of ${words.length} words`, examples: ['no headings'] };
    }
    const problems: string[] = [];
    const h1 = hs.filter((h) => h.level === 1).length;
    if (h1 === 0) problems.push('no <h1>');
    if (h1 > 1) problems.push(`${h1} <h1> headings`);
    let prev = 0;
    for (const h of hs) {
      if (prev && h.level > prev + 1) problems.push(`h${prev} → h${h.level} skips a level ("${clip(h.text, 40)}")`);
      prev = h.level;
      if (!h.text) problems.push(`empty <h${h.level}>`);
    }
    return { id: 'heading-hierarchy', score: Math.max(0, 100 - 25 * problems.length), note: `${problems.length} problems in ${hs.length} headings`, examples: problems.slice(0, MAX_EXAMPLES) };
  },

  'label-clarity': ({ visible }) => {
    const cs = visible.controls;
    if (cs.length === 0) return notApplicable('label-clarity', 'no buttons or links');
    const bad = cs
      .filter((c) => {
        const l = c.label.toLowerCase().replace(/[»›→>.!]+$/u, '').trim();
        return l === '' || VAGUE_LABELS.has(l) || (c.tag === 'a' && l === 'ok');
      })
      .map((c) => `${c.selector}: ${c.label ? `"${c.label}"` : 'no label'}`);
    return counted('label-clarity', bad, cs.length, 'buttons and links have an empty or vague label');
  },

  repetition: ({ visible }) => {
    const bad: string[] = [];
    for (const b of visible.blocks) {
      for (const m of b.text.matchAll(/\b(\p{L}{2,})\s+\1\b/giu)) {
        if (/^(?:ha|bye|no|very|so|knock|tick|tock|cha|bla|blah|la|na|pew|go|yes)$/i.test(m[1]!)) continue;
        bad.push(`doubled word "${m[0]}"`);
      }
    }
    const seen = new Map<string, number>();
    for (const b of visible.blocks) {
      if (wordsOf(b.text).length < 5) continue;
      const key = b.text.toLowerCase();
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    for (const [text, n] of seen) if (n > 1) for (let i = 1; i < n; i++) bad.push(`repeated block: "${clip(text, 60)}"`);
    return counted('repetition', bad, visible.blocks.length, 'blocks: doubled words and repeated blocks');
  },

  terminology: ({ visible }) => {
    const all = visible.blocks.map((b) => b.text).join('\n').toLowerCase();
    const forms = new Map<string, Set<string>>();
    // Hyphenated and spaced pairs, and the same letters closed up.
    for (const m of all.matchAll(/\b(\p{L}{1,12})[- ](\p{L}{2,12})\b/gu)) {
      const joined = m[1]! + m[2]!;
      if (!new RegExp(`\\b${joined}\\b`, 'u').test(all)) continue;
      const set = forms.get(joined) ?? new Set<string>([joined]);
      set.add(m[0]);
      forms.set(joined, set);
    }
    const variants = [...forms.entries()].filter(([, s]) => s.size > 1).map(([, s]) => [...s].map((f) => `"${f}"`).join(' / '));
    return { id: 'terminology', score: Math.max(0, 100 - 20 * variants.length), note: `${variants.length} terms written in more than one way`, examples: variants.slice(0, MAX_EXAMPLES) };
  },

  capitalisation: ({ visible }) => {
    const labels = [...visible.headings.map((h) => h.text), ...visible.controls.filter((c) => c.tag !== 'a').map((c) => c.label)]
      .map((l) => wordsOf(l).filter((w) => /\p{L}/u.test(w)))
      .filter((ws) => ws.length >= 3);
    if (labels.length < 3) return notApplicable('capitalisation', 'fewer than 3 headings or button labels of 3+ words');
    const styleOf = (ws: string[]): string => {
      if (ws.every((w) => w === w.toUpperCase())) return 'ALL CAPS';
      const rest = ws.slice(1).filter((w) => w.length > 3);
      if (rest.length === 0) return 'Sentence case';
      const capped = rest.filter((w) => /^\p{Lu}/u.test(w)).length;
      return capped / rest.length >= 0.5 ? 'Title Case' : 'Sentence case';
    };
    const counts = new Map<string, string[]>();
    for (const ws of labels) {
      const s = styleOf(ws);
      counts.set(s, [...(counts.get(s) ?? []), ws.join(' ')]);
    }
    const sorted = [...counts.entries()].sort((a, b) => b[1].length - a[1].length);
    const [major, majorLabels] = sorted[0]!;
    const others = sorted.slice(1).flatMap(([s, ls]) => ls.map((l) => `${s}: "${clip(l, 50)}"`));
    return { id: 'capitalisation', score: round2((100 * majorLabels.length) / labels.length), note: `${majorLabels.length} of ${labels.length} labels in ${major}`, examples: others.slice(0, MAX_EXAMPLES) };
  },

  shouting: ({ sentences }) => {
    if (sentences.length === 0) return notApplicable('shouting', 'no sentences');
    const bad: string[] = [];
    let exclamations = 0;
    for (const s of sentences) {
      const letters = s.words.filter((w) => /\p{L}/u.test(w));
      if (letters.length >= 3 && letters.every((w) => w === w.toUpperCase() && w !== w.toLowerCase())) bad.push(`capitals: "${clip(s.text, 60)}"`);
      else if (/!\s*$/.test(s.text) && ++exclamations > 1) bad.push(`exclamation: "${clip(s.text, 60)}"`);
    }
    return counted('shouting', bad, sentences.length, 'sentences shout (capitals, or exclamations beyond the first)');
  },

  'emoji-density': ({ visible, words }) => {
    if (words.length === 0) return notApplicable('emoji-density', 'no words');
    const all = visible.blocks.map((b) => b.text).join(' ');
    const emoji = all.match(emojiRegex()) ?? [];
    const per100 = (100 * emoji.length) / words.length;
    const score = per100 <= 2 ? 100 : Math.max(0, 100 - 10 * (per100 - 2));
    return { id: 'emoji-density', score: round2(score), note: `${emoji.length} emoji in ${words.length} words (${round2(per100)} per 100)`, examples: emoji.slice(0, MAX_EXAMPLES) };
  },

  'spelling-anomalies': ({ visible, sentences }) => {
    const bad: string[] = [];
    for (const b of visible.blocks) {
      for (const w of wordsOf(b.text)) if (/(\p{L})\1\1/u.test(w) && !/^(?:x+|z+|w{3})$/i.test(w) && !/^\p{Lu}+$/u.test(w)) bad.push(`"${w}"`);
      for (const m of b.text.matchAll(/\p{Ll}{2,}[.!?](\p{Lu}\p{Ll}+)/gu)) bad.push(`no space after a sentence: "${m[0]}"`);
      const open = (b.text.match(/\(/g) ?? []).length;
      const close = (b.text.match(/\)/g) ?? []).length;
      if (open !== close) bad.push(`unbalanced brackets in "${clip(b.text, 50)}"`);
    }
    return counted('spelling-anomalies', bad, Math.max(1, sentences.length), 'sentences: spelling-like anomalies');
  },

  'page-title': ({ visible }) => {
    const t = visible.title;
    if (!t) return { id: 'page-title', score: 0, note: 'no <title>', examples: ['no <title>'] };
    if (DEFAULT_TITLES.has(t.toLowerCase())) return { id: 'page-title', score: 0, note: `default title "${t}"`, examples: [`"${t}"`] };
    return { id: 'page-title', score: 100, note: `title "${clip(t, 60)}"`, examples: [] };
  },
};

/** Analyse a page's visible text and compute every sub-score. */
export function copywritingSubScores(visible: VisibleText): { subScores: SubScore[]; words: number; sentences: number } {
  const sentences = visible.blocks.flatMap((b) => sentencesOf(b.text));
  const prose = sentences.filter((s) => s.words.length >= PROSE_MIN_WORDS);
  const words = visible.blocks.flatMap((b) => wordsOf(b.text));
  const analysed: Analysed = { visible, sentences, prose, words, english: isEnglish(words) };
  return { subScores: SUB_SCORES.map((id) => CHECKS[id](analysed)), words: words.length, sentences: sentences.length };
}

const copywriting: MetricDefinition = {
  number: 12,
  id: 'copywriting',
  perspective: 'content',
  kind: 'rule',
  needs: ['dom'],
  title: 'Copywriting',
  question: 'Is the visible text clear, consistent, free of placeholders and well structured?',
  suite: 'study',
  score(evidence) {
    const visible = extractVisibleText(evidence.artifact.dom);
    const { subScores, words, sentences } = copywritingSubScores(visible);
    if (words === 0) return unscorable('no visible text in the static DOM (text written by scripts is not seen)', { subScores });
    const applicable = subScores.filter((s) => s.score !== null);
    const mean = applicable.reduce((a, s) => a + (s.score as number), 0) / applicable.length;
    const worst = [...applicable].sort((a, b) => (a.score as number) - (b.score as number)).slice(0, 2).filter((s) => (s.score as number) < 100);
    const summary = `mean of ${applicable.length} sub-scores over ${words} words` + (worst.length ? `; weakest: ${worst.map((s) => `${s.id} ${s.score}`).join(', ')}` : '');
    return scored(round2(mean), summary, { words, sentences, blocks: visible.blocks.length, subScores });
  },
};

export default copywriting;
