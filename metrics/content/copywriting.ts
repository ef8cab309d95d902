/**
 * `copywriting` (SPEC #12): rule-based quality of the page's visible text. As in the study, exactly **fourteen
 * named sub-scores**, each 0–100, of three kinds: statistical indicators, structural indicators and domain
 * vocabularies matched lexically; the score is their mean over the sub-scores that apply to this page (a
 * sub-score with nothing to look at, such as label clarity on a page without buttons or links, is left out and
 * listed as not applicable with the reason). Unscorable when the page has no visible text at all. The study
 * names its indicators only in kind; the fourteen below, their names and their formulas are ours.
 *
 * Text source: the static DOM's visible text (see `visible-text.ts` for what counts as visible and why code is
 * not prose). Sentences are split at `.`, `!`, `?`, `。`, `！`, `？` followed by space or end; words are runs of
 * letters, digits and apostrophes (Unicode-aware). "Prose" sentences are those of at least 4 words, outside the
 * blocks that placeholder-text flags: placeholder copy is filler, judged once by placeholder-text and not read as
 * prose by sentence-length, readability and wordiness. (Mutation testing, issue 20: a lorem-ipsum paragraph with a
 * TODO left the score unchanged, its placeholder-text penalty cancelled exactly by wordiness, whose denominator
 * grew by the filler's two clean "sentences".)
 *
 * Counting sub-scores use SPEC's logarithmic penalty `(1 − log2(1 + bad/(total+1))) × 100` (`logPenalty`),
 * the shape SPEC uses for "bad among total" everywhere; the others are stated with their formula below.
 *
 * Statistical indicators
 *  1. `sentence-length`: bad = prose sentences over 25 words, total = prose sentences.
 *  2. `readability`: Flesch reading ease over the English prose (syllables from the `syllable` package; "words"
 *     over 40 letters, such as hashes, are left out), mapped linearly so that FRE ≤ 10 → 0 and FRE ≥ 60
 *     ("plain English") → 100. Needs ≥ 3 prose sentences in English (see below).
 *  3. `wordiness`: the `write-good` checks (passive voice, weasel words, "there is/are" openings, wordy
 *     phrases, clichés, needless "so", adverbs) on the English prose; bad = findings, total = prose sentences
 *     read (see the caps below).
 *  4. `repetition`: doubled words ("the the") and text blocks of 5+ words that appear more than once
 *     (beyond the first); bad = those, total = blocks.
 *  5. `emphasis`: over-emphasis, the mean of two parts: shouting, `logPenalty(bad, sentences)` with bad =
 *     sentences written in capitals (3+ words, all letters upper-case) or ending in `!` beyond the first
 *     exclamation on the page; and emoji density, emoji per 100 words (the `emoji-regex` package), ≤ 2 → 100,
 *     then −10 points per extra emoji per 100 words, floor 0. (Before 2026-11 these were two sub-scores.)
 *
 * Structural indicators
 *  6. `placeholder-text`: lorem ipsum, "TODO", "TBD", "FIXME", "placeholder", "your text here", "insert … here",
 *     "sample text", "xxx", "[…]"-style template slots, "Untitled"; bad = blocks with any, total = blocks.
 *  7. `heading-hierarchy`: problems = no `<h1>` (when there are headings), more than one `<h1>`, each skipped
 *     level (h2 → h4), each empty heading, and no heading at all on a page of 150+ words; `max(0, 100 − 25 × problems)`.
 *     Not applicable on a short page without headings.
 *  8. `label-clarity`: buttons and links whose label is empty or vague ("click here", "here", "more",
 *     "read more", "link", "button", "ok" for a link, "…"); bad = those, total = buttons and links.
 *  9. `capitalisation`: headings and button labels of 3+ words classified as Title Case, Sentence case or ALL
 *     CAPS; score = 100 × share of the most common style. Needs ≥ 3 such labels.
 * 10. `mechanics`: punctuation and spelling-like anomalies (no dictionary, so only shapes that are wrong in any
 *     language): mixing of full-width and ASCII punctuation, of straight and curly quotes, repeated
 *     `!!`/`??`/`?!`, a space before `,.;:!?`, a missing space after `,;`; a letter three times in a row inside a
 *     word ("sooo"), a word glued to the next sentence ("end.Next"), unbalanced brackets within a block (an
 *     enumeration label such as "a)" or "2)" at the start of a block closes none);
 *     bad = anomalies, total = sentences. (Before 2026-11: `punctuation` and `spelling-anomalies`.)
 * 11. `page-title`: a non-empty `<title>` that is not a default ("Document", "Untitled", "index.html",
 *     "New Page", "React App", "Vite App", ...): 100, else 0.
 *
 * Domain vocabularies (the study's lexical matching against word lists; ours are in `copywriting-vocabulary.ts`,
 * in English and Simplified Chinese, with the matching rules)
 * 12. `operation-terms` (system operations): the labels of buttons and links are matched against groups of names
 *     for one operation (sign in: "Log in" / "Sign in" / 登录 / 登陆; delete: "Delete" / "Remove"; settings:
 *     "Settings" / "Preferences" / "Options"; …). Spellings that differ only by a space or hyphen ("log in",
 *     "login") are one name. U = operations named on the page, M = operations named in two or more ways;
 *     `logPenalty(M, U)`. Not applicable when no control names a listed operation.
 * 13. `compliance-terms`: absolute, superlative or unverifiable claims ("100% secure", "guaranteed", "best in
 *     the world", "#1", "risk-free", 最佳, 国家级, 销量第一, …), not preceded by a negation; bad = sentences with
 *     a claim, total = sentences. Always applicable (no claim scores 100).
 * 14. `terminology` (technical terminology): problems = technical terms written in a non-standard form
 *     ("Javascript", "Github", "json", "url", 登陆 for 登录; each distinct wrong form once; matches inside
 *     file names, paths and MIME types are not judged) + terms written several ways on one page (hyphen or
 *     space variants: "e-mail"/"email", "log in"/"login", "to-do"/"todo"); `max(0, 100 − 20 × problems)`.
 *
 * English detection (for 2 and 3, whose rules are English-only): at least 8 % of words are common English
 * function words; otherwise those two are not applicable ("text is not English"), never scored as bad English.
 *
 * Size: every part is linear in the text (or bounded by a cap), so that a hostile page cannot make the metric
 * slow (a 5 MB page once took over 400 s in the terminology check, which built a regular expression per word
 * pair and ran it over the whole text):
 * - at most MAX_TEXT_CHARS = 200 000 characters of visible text are analysed: blocks in document order, the
 *   block that crosses the cap cut there (`details.analysed` gives the characters analysed, the total, and
 *   `truncated`; the summary says so). Headings, controls and the title are read whole;
 * - `write-good` reads each prose sentence's first 1 000 characters, and stops after MAX_WRITE_GOOD_CHARS =
 *   50 000 characters (the note says how many sentences it read; `total` is those sentences);
 * - every regular expression has bounded repetition or works token by token (no backtracking over long words);
 * - a control's or heading's label is read up to 500 characters (visible-text.ts).
 * Measured (bench machine): a 3 MB page's copywriting takes well under a second; the test suite checks that a
 * multi-megabyte page scores in under 5 s with the cap applied.
 */
import emojiRegex from 'emoji-regex';
import writeGood from 'write-good';
import { logPenalty, round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { extractVisibleText, type VisibleText } from './visible-text.js';
import { MAX_TEXT_CHARS, WORD, capBlocks, fleschReadingEase, isEnglish, sentencesOf, wordsOf, type Sentence } from './sentences.js';
export { MAX_TEXT_CHARS, capBlocks, fleschReadingEase, isEnglish, sentencesOf, wordsOf, type Sentence } from './sentences.js';
import { COMPLIANCE_TERMS, OPERATION_GROUPS, TECHNICAL_TERMS, TECHNICAL_TERMS_ZH_STANDARD } from './copywriting-vocabulary.js';

/** The fourteen sub-scores, in the order of the module comment (statistical, structural, vocabulary). */
export const SUB_SCORES = [
  'sentence-length',
  'readability',
  'wordiness',
  'repetition',
  'emphasis',
  'placeholder-text',
  'heading-hierarchy',
  'label-clarity',
  'capitalisation',
  'mechanics',
  'page-title',
  'operation-terms',
  'compliance-terms',
  'terminology',
] as const;
export type SubScoreId = (typeof SUB_SCORES)[number];

/** Which kind of indicator each sub-score is (reported in details). */
export const SUB_SCORE_KIND: Record<SubScoreId, 'statistical' | 'structural' | 'vocabulary'> = {
  'sentence-length': 'statistical',
  readability: 'statistical',
  wordiness: 'statistical',
  repetition: 'statistical',
  emphasis: 'statistical',
  'placeholder-text': 'structural',
  'heading-hierarchy': 'structural',
  'label-clarity': 'structural',
  capitalisation: 'structural',
  mechanics: 'structural',
  'page-title': 'structural',
  'operation-terms': 'vocabulary',
  'compliance-terms': 'vocabulary',
  terminology: 'vocabulary',
};

export interface SubScore {
  id: SubScoreId;
  /** null when the sub-score does not apply to this page. */
  score: number | null;
  /** What was counted, or why it does not apply. */
  note: string;
  /** Up to 10 examples of what lost points. */
  examples: string[];
}

export const MAX_WRITE_GOOD_CHARS = 50_000;
const MAX_WRITE_GOOD_SENTENCE = 1_000;
const MAX_EXAMPLES = 10;
const LONG_SENTENCE_WORDS = 25;
const PROSE_MIN_WORDS = 4;

// Every repetition bounded: `test` on a block stays linear in its length.
const PLACEHOLDER =
  /\blorem\b|\bipsum\b|\bdolor sit\b|\bTODO\b|\bTBD\b|\bFIXME\b|\bplaceholder\b|\byour (?:text|title|content|name|company|logo) here\b|\binsert [\w\s]{1,30} here\b|\bsample text\b|\bxxx+\b|\[(?:insert|your|placeholder|name|title|text)[^\]\n]{0,80}\]|\{\{[^}\n]{0,80}\}\}|\buntitled\b/i;
const VAGUE_LABELS = new Set(['click here', 'here', 'more', 'read more', 'link', 'button', 'click', 'this', 'go', '...', '…', 'learn more', 'details']);
const DEFAULT_TITLES = new Set([
  'document',
  'untitled',
  'untitled document',
  'index',
  'index.html',
  'new page',
  'page',
  'react app',
  'vite app',
  'vite + react',
  'vite + react + ts',
  'my app',
  'app',
  'title',
  'home',
  'webpage',
  'html',
]);
const DOUBLED_OK = new Set(['ha', 'bye', 'no', 'very', 'so', 'knock', 'tick', 'tock', 'cha', 'bla', 'blah', 'la', 'na', 'pew', 'go', 'yes']);

const clip = (s: string, n = 80) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** Bad things found, counted in full, with the first few kept as examples. */
class Findings {
  count = 0;
  readonly examples: string[] = [];
  add(example: string | (() => string)): void {
    this.count++;
    if (this.examples.length < MAX_EXAMPLES) this.examples.push(typeof example === 'function' ? example() : example);
  }
}

function counted(id: SubScoreId, bad: Findings, total: number, what: string): SubScore {
  return { id, score: round2(logPenalty(bad.count, total)), note: `${bad.count} of ${total} ${what}`, examples: bad.examples };
}
const notApplicable = (id: SubScoreId, note: string): SubScore => ({ id, score: null, note, examples: [] });

interface Analysed {
  visible: VisibleText;
  /** The analysed blocks joined by newlines. */
  all: string;
  sentences: Sentence[];
  prose: Sentence[];
  words: string[];
  english: boolean;
}

type Check = (t: Analysed) => SubScore;

// --- vocabularies, compiled once --------------------------------------------------------------------------

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NOT_WORD_BEFORE = '(?<![\\p{L}\\p{N}])';
const NOT_WORD_AFTER = '(?![\\p{L}\\p{N}])';

/** Operation names: one regex per name; `key` joins spellings that differ by a space or hyphen. */
const OPERATION_NAMES = OPERATION_GROUPS.flatMap((g) => [
  ...g.en.map((name) => ({
    operation: g.operation,
    key: name.replace(/[\s-]/g, ''),
    re: new RegExp(`${NOT_WORD_BEFORE}${name.split(' ').map(escapeRe).join('[\\s-]?')}${NOT_WORD_AFTER}`, 'iu'),
  })),
  ...g['zh-Hans'].map((name) => ({ operation: g.operation, key: name, re: new RegExp(escapeRe(name), 'u') })),
]);

const NEGATION_BEFORE = "(?<!\\b(?:no|not|without|never|isn't|aren't|is not|are not) )";
const COMPLIANCE_EN = new RegExp(`${NOT_WORD_BEFORE}${NEGATION_BEFORE}(?:${COMPLIANCE_TERMS.en.join('|')})${NOT_WORD_AFTER}`, 'iu');
const COMPLIANCE_ZH = new RegExp(COMPLIANCE_TERMS['zh-Hans'].map(escapeRe).join('|'), 'u');

/** Not judged next to these: file names, paths, MIME types, code ("data.json", "application/json"). */
const TERM_BEFORE = '(?<![\\p{L}\\p{N}_/\\\\@:#=.-])';
const TERM_AFTER = '(?![\\p{L}\\p{N}_/\\\\@:#=-]|\\.[\\p{L}\\p{N}])';
const TECHNICAL = TECHNICAL_TERMS.map((t) => ({
  ...t,
  re: t.language === 'en' ? new RegExp(`${TERM_BEFORE}(?:${t.pattern})${TERM_AFTER}`, 'giu') : new RegExp(escapeRe(t.pattern), 'gu'),
}));

// --- the fourteen checks ------------------------------------------------------------------------------------

const CHECKS: Record<SubScoreId, Check> = {
  'sentence-length': ({ prose }) => {
    if (prose.length === 0) return notApplicable('sentence-length', 'no prose sentences');
    const long = new Findings();
    for (const s of prose) if (s.words.length > LONG_SENTENCE_WORDS) long.add(() => `${s.words.length} words: ${clip(s.text)}`);
    return counted('sentence-length', long, prose.length, `prose sentences are over ${LONG_SENTENCE_WORDS} words`);
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
    const bad = new Findings();
    let read = 0;
    let chars = 0;
    for (const s of prose) {
      if (chars >= MAX_WRITE_GOOD_CHARS) break;
      const text = s.text.slice(0, MAX_WRITE_GOOD_SENTENCE);
      chars += text.length;
      read++;
      for (const f of writeGood(text, { eprime: false })) bad.add(() => `${f.reason} in "${clip(s.text, 60)}"`);
    }
    const sub = counted('wordiness', bad, read, 'prose sentences: write-good findings');
    if (read < prose.length) sub.note += ` (write-good read the first ${read} of ${prose.length} prose sentences, ${MAX_WRITE_GOOD_CHARS} characters)`;
    return sub;
  },

  repetition: ({ visible }) => {
    const bad = new Findings();
    for (const b of visible.blocks) {
      // doubled words, token by token: two equal words with only white space between them
      let prev: { word: string; end: number } | null = null;
      for (const m of b.text.matchAll(WORD)) {
        const word = m[0];
        const start = m.index!;
        if (
          prev &&
          /^\p{L}{2,}$/u.test(word) &&
          word.toLowerCase() === prev.word.toLowerCase() &&
          /^\s+$/.test(b.text.slice(prev.end, start)) &&
          !DOUBLED_OK.has(word.toLowerCase())
        ) {
          const first = prev.word;
          bad.add(() => `doubled word "${clip(`${first} ${word}`, 60)}"`);
        }
        prev = { word, end: start + word.length };
      }
    }
    const seen = new Map<string, number>();
    for (const b of visible.blocks) {
      if (wordsOf(b.text).length < 5) continue;
      const key = b.text.toLowerCase();
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    for (const [text, n] of seen) for (let i = 1; i < n; i++) bad.add(() => `repeated block: "${clip(text, 60)}"`);
    return counted('repetition', bad, visible.blocks.length, 'blocks: doubled words and repeated blocks');
  },

  emphasis: ({ all, sentences, words }) => {
    if (words.length === 0) return notApplicable('emphasis', 'no words');
    const shout = new Findings();
    let exclamations = 0;
    for (const s of sentences) {
      const letters = s.words.filter((w) => /\p{L}/u.test(w));
      if (letters.length >= 3 && letters.every((w) => w === w.toUpperCase() && w !== w.toLowerCase())) shout.add(() => `capitals: "${clip(s.text, 60)}"`);
      else if (/!\s*$/.test(s.text) && ++exclamations > 1) shout.add(() => `exclamation: "${clip(s.text, 60)}"`);
    }
    const shouting = logPenalty(shout.count, Math.max(1, sentences.length));
    const emoji = all.match(emojiRegex()) ?? [];
    const per100 = (100 * emoji.length) / words.length;
    const density = per100 <= 2 ? 100 : Math.max(0, 100 - 10 * (per100 - 2));
    return {
      id: 'emphasis',
      score: round2((shouting + density) / 2),
      note: `shouting ${round2(shouting)} (${shout.count} of ${sentences.length} sentences in capitals or extra exclamations), emoji ${round2(density)} (${emoji.length} in ${words.length} words, ${round2(per100)} per 100)`,
      examples: [...shout.examples, ...(emoji.length && density < 100 ? [`emoji: ${emoji.slice(0, 10).join(' ')}`] : [])].slice(0, MAX_EXAMPLES),
    };
  },

  'placeholder-text': ({ visible }) => {
    const bad = new Findings();
    for (const b of visible.blocks) if (PLACEHOLDER.test(b.text)) bad.add(() => clip(b.text));
    return counted('placeholder-text', bad, visible.blocks.length, 'text blocks hold placeholder text');
  },

  'heading-hierarchy': ({ visible, words }) => {
    const hs = visible.headings;
    if (hs.length === 0) {
      if (words.length < 150) return notApplicable('heading-hierarchy', 'no headings on a short page');
      return { id: 'heading-hierarchy', score: 75, note: `no headings on a page of ${words.length} words`, examples: ['no headings'] };
    }
    const problems = new Findings();
    const h1 = hs.filter((h) => h.level === 1).length;
    if (h1 === 0) problems.add('no <h1>');
    if (h1 > 1) problems.add(`${h1} <h1> headings`);
    let prev = 0;
    for (const h of hs) {
      if (prev && h.level > prev + 1) problems.add(`h${prev} → h${h.level} skips a level ("${clip(h.text, 40)}")`);
      prev = h.level;
      if (!h.text) problems.add(`empty <h${h.level}>`);
    }
    return {
      id: 'heading-hierarchy',
      score: Math.max(0, 100 - 25 * problems.count),
      note: `${problems.count} problems in ${hs.length} headings`,
      examples: problems.examples,
    };
  },

  'label-clarity': ({ visible }) => {
    const cs = visible.controls;
    if (cs.length === 0) return notApplicable('label-clarity', 'no buttons or links');
    const bad = new Findings();
    for (const c of cs) {
      const l = c.label
        .toLowerCase()
        .replace(/[»›→>.!]+$/u, '')
        .trim();
      if (l === '' || VAGUE_LABELS.has(l) || (c.tag === 'a' && l === 'ok')) bad.add(() => `${c.selector}: ${c.label ? `"${c.label}"` : 'no label'}`);
    }
    return counted('label-clarity', bad, cs.length, 'buttons and links have an empty or vague label');
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
      const st = styleOf(ws);
      const list = counts.get(st) ?? [];
      list.push(ws.join(' '));
      counts.set(st, list);
    }
    const sorted = [...counts.entries()].sort((a, b) => b[1].length - a[1].length);
    const [major, majorLabels] = sorted[0]!;
    const others = sorted.slice(1).flatMap(([st, ls]) => ls.slice(0, MAX_EXAMPLES).map((l) => `${st}: "${clip(l, 50)}"`));
    return {
      id: 'capitalisation',
      score: round2((100 * majorLabels.length) / labels.length),
      note: `${majorLabels.length} of ${labels.length} labels in ${major}`,
      examples: others.slice(0, MAX_EXAMPLES),
    };
  },

  mechanics: ({ visible, all, sentences }) => {
    const bad = new Findings();
    // punctuation
    const fullWidth = /[，。：；！？（）]/u.test(all);
    const asciiInCjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}][,;:!?]/u.test(all);
    if (fullWidth && asciiInCjk) bad.add('full-width and ASCII punctuation mixed');
    if (/["']\p{L}/u.test(all) && /[“”‘’]/u.test(all) && /"[^"\n]{1,80}"/.test(all) && /“[^”\n]{1,80}”/.test(all)) bad.add('straight and curly quotes mixed');
    for (const m of all.matchAll(/[!?]{2,}/g)) bad.add(() => `"${m[0].slice(0, 10)}" at "${clip(all.slice(Math.max(0, m.index! - 20), m.index! + 2), 30)}"`);
    for (const m of all.matchAll(/\p{L} [,.;:!?](?=\s|$)/gu)) bad.add(() => `space before punctuation: "${m[0]}"`);
    for (const m of all.matchAll(/\p{Ll}[,;](?=\p{L})/gu)) bad.add(() => `no space after punctuation: "${all.slice(m.index!, m.index! + 6)}"`);
    // spelling-like anomalies
    for (const b of visible.blocks) {
      for (const w of b.text.matchAll(WORD)) {
        const word = w[0];
        if (/(\p{L})\1\1/u.test(word) && !/^(?:x+|z+|w{3})$/i.test(word) && !/^\p{Lu}+$/u.test(word)) bad.add(() => `"${clip(word, 40)}"`);
      }
      for (const m of b.text.matchAll(/(?<=\p{Ll}\p{Ll})[.!?]\p{Lu}\p{Ll}+/gu)) {
        bad.add(() => {
          let from = m.index!;
          while (from > 0 && m.index! - from < 30 && /\p{Ll}/u.test(b.text[from - 1]!)) from--;
          return `no space after a sentence: "${clip(b.text.slice(from, m.index! + m[0].length), 40)}"`;
        });
      }
      let open = 0;
      let close = 0;
      // an enumeration label ("a)", "B)", "12)") at the start of a block closes no bracket
      const enumeration = /^(?:\p{L}\d{0,2}|\d{1,2})\)/u.exec(b.text);
      if (enumeration) close--;
      for (let i = 0; i < b.text.length; i++) {
        const c = b.text.charCodeAt(i);
        if (c === 40) open++;
        else if (c === 41) close++;
      }
      if (open !== close) bad.add(() => `unbalanced brackets in "${clip(b.text, 50)}"`);
    }
    return counted('mechanics', bad, Math.max(1, sentences.length), 'sentences: punctuation and spelling-like anomalies');
  },

  'page-title': ({ visible }) => {
    const t = visible.title;
    if (!t) return { id: 'page-title', score: 0, note: 'no <title>', examples: ['no <title>'] };
    if (DEFAULT_TITLES.has(t.toLowerCase())) return { id: 'page-title', score: 0, note: `default title "${t}"`, examples: [`"${t}"`] };
    return { id: 'page-title', score: 100, note: `title "${clip(t, 60)}"`, examples: [] };
  },

  'operation-terms': ({ visible }) => {
    const used = new Map<string, Map<string, string>>(); // operation → key → label that used it
    for (const c of visible.controls) {
      if (!c.label) continue;
      for (const n of OPERATION_NAMES) {
        if (!n.re.test(c.label)) continue;
        const keys = used.get(n.operation) ?? new Map<string, string>();
        if (!keys.has(n.key)) keys.set(n.key, c.label);
        used.set(n.operation, keys);
      }
    }
    if (used.size === 0) return notApplicable('operation-terms', 'no button or link names a listed operation');
    const bad = new Findings();
    for (const [op, keys] of used) if (keys.size > 1) bad.add(() => `${op}: ${[...keys.values()].map((l) => `"${clip(l, 30)}"`).join(' / ')}`);
    return counted('operation-terms', bad, used.size, 'operations on the controls are named in more than one way');
  },

  'compliance-terms': ({ sentences }) => {
    if (sentences.length === 0) return notApplicable('compliance-terms', 'no sentences');
    const bad = new Findings();
    for (const s of sentences) {
      const m = COMPLIANCE_EN.exec(s.text) ?? COMPLIANCE_ZH.exec(s.text);
      if (m) bad.add(() => `"${m[0]}" in "${clip(s.text, 60)}"`);
    }
    return counted('compliance-terms', bad, sentences.length, 'sentences make an absolute or unverifiable claim');
  },

  terminology: ({ all, words }) => {
    const lower = all.toLowerCase();
    const problems = new Findings();
    // (a) one term written several ways: a hyphenated or spaced pair whose closed-up form is also a word
    const wordSet = new Set(words.map((w) => w.toLowerCase()));
    const forms = new Map<string, Set<string>>();
    for (const m of lower.matchAll(/(?<![\p{L}\p{N}])(\p{L}{1,12})[- ](\p{L}{2,12})(?![\p{L}\p{N}])/gu)) {
      const joined = m[1]! + m[2]!;
      if (!wordSet.has(joined)) continue;
      const set = forms.get(joined) ?? new Set<string>([joined]);
      set.add(m[0]);
      forms.set(joined, set);
    }
    for (const [, set] of forms) if (set.size > 1) problems.add([...set].map((f) => `"${f}"`).join(' / '));
    const variants = problems.count;
    // (b) technical terms in a non-standard form (each distinct wrong form once)
    const wrong = new Map<string, string>();
    for (const t of TECHNICAL) {
      for (const m of all.matchAll(t.re)) {
        const form = m[0];
        // the standard form, or that form in capitals (an all-caps heading is a style, not a misspelling)
        if (t.canonical.some((c) => c === form || c.toUpperCase() === form) || wrong.has(form)) continue;
        wrong.set(form, t.language === 'en' ? t.canonical[0]! : (TECHNICAL_TERMS_ZH_STANDARD[t.pattern] ?? ''));
      }
    }
    for (const [form, standard] of wrong) problems.add(`"${form}" (standard: ${standard})`);
    return {
      id: 'terminology',
      score: Math.max(0, 100 - 20 * problems.count),
      note: `${variants} terms written in more than one way, ${wrong.size} technical terms in a non-standard form`,
      examples: problems.examples,
    };
  },
};

/** What a copywriting analysis read: characters analysed and in all, and whether the cap cut the text. */
export interface AnalysedSize {
  chars: number;
  totalChars: number;
  cap: number;
  truncated: boolean;
}

/** Analyse a page's visible text and compute every sub-score (the text capped at MAX_TEXT_CHARS). */
export function copywritingSubScores(visibleAll: VisibleText): { subScores: SubScore[]; words: number; sentences: number; analysed: AnalysedSize } {
  const capped = capBlocks(visibleAll.blocks);
  const visible: VisibleText = { ...visibleAll, blocks: capped.blocks };
  const sentences: Sentence[] = [];
  const prose: Sentence[] = [];
  for (const b of visible.blocks) {
    const own = sentencesOf(b.text);
    sentences.push(...own);
    // placeholder blocks are filler, not copy: judged by placeholder-text alone (see the module comment)
    if (!PLACEHOLDER.test(b.text)) for (const s of own) if (s.words.length >= PROSE_MIN_WORDS) prose.push(s);
  }
  const words = visible.blocks.flatMap((b) => wordsOf(b.text));
  const all = visible.blocks.map((b) => b.text).join('\n');
  const analysed: Analysed = { visible, all, sentences, prose, words, english: isEnglish(words) };
  return {
    subScores: SUB_SCORES.map((id) => CHECKS[id](analysed)),
    words: words.length,
    sentences: sentences.length,
    analysed: { chars: capped.chars, totalChars: capped.totalChars, cap: MAX_TEXT_CHARS, truncated: capped.truncated },
  };
}

const copywriting: MetricDefinition = {
  number: 12,
  id: 'copywriting',
  perspective: 'content',
  kind: 'rule',
  needs: ['dom'],
  cost: 'heavy',
  title: 'Copywriting',
  question: 'Is the visible text clear, consistent, free of placeholders and well structured?',
  suite: 'study',
  score(evidence) {
    const visible = extractVisibleText(evidence.artifact.dom);
    const { subScores, words, sentences, analysed } = copywritingSubScores(visible);
    if (words === 0) return unscorable('no visible text in the static DOM (text written by scripts is not seen)', { subScores, analysed });
    const applicable = subScores.filter((s) => s.score !== null);
    const mean = applicable.reduce((a, s) => a + (s.score as number), 0) / applicable.length;
    const worst = [...applicable]
      .sort((a, b) => (a.score as number) - (b.score as number))
      .slice(0, 2)
      .filter((s) => (s.score as number) < 100);
    const summary =
      `mean of ${applicable.length} of ${SUB_SCORES.length} sub-scores over ${words} words` +
      (analysed.truncated ? ` (first ${analysed.chars} of ${analysed.totalChars} characters)` : '') +
      (worst.length ? `; weakest: ${worst.map((s) => `${s.id} ${s.score}`).join(', ')}` : '');
    return scored(round2(mean), summary, {
      words,
      sentences,
      blocks: visible.blocks.length,
      analysed,
      subScores: subScores.map((s) => ({ ...s, kind: SUB_SCORE_KIND[s.id] })),
      vocabularyLanguages: ['en', 'zh-Hans'],
    });
  },
};

export default copywriting;
