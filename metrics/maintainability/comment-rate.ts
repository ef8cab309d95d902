/**
 * comment-rate (SPEC #21): c = comment lines / non-blank lines × 100 over every HTML, CSS and JS file of the
 * artifact; score = min(√c × 10 + 60, 100).
 *
 * Interpretations:
 * - A line is a comment line when any non-blank character on it belongs to a comment: a whole-line comment,
 *   a line inside a multi-line comment (including lines holding only the delimiters), or a trailing comment
 *   after code. Blank lines, and blank lines inside a comment, count in neither number.
 * - HTML comments (`<!-- -->`) are found on the parsed DOM of each HTML file; CSS comments (`/* *\/`) by a
 *   small scanner that skips strings; JS comments (`//`, `/* *\/`) from the JS tokenizer (acorn), so that
 *   `//` inside strings, regexes and template literals is not a comment. Inline `<script>`/`<style>` blocks are
 *   mapped to their lines in the HTML file; comments inside `on*`/`style` attributes are ignored.
 * - Lines are counted once even when the same line holds several comments.
 * - An artifact with no non-blank line cannot exist (the loader rejects empty entries), so this metric is
 *   always scorable; 0 comment lines score 60, the bottom of SPEC's curve.
 */
import type { JSDOM } from 'jsdom';
import type { Artifact, SourceBlock } from '../../core/artifact/model.js';
import { nodeLocation } from '../../lib/artifact/loaded.js';
import { codeFiles } from '../../core/artifact/model.js';
import { parseJs } from '../../lib/js-parse.js';
import { LineIndex, splitLines } from '../../lib/text.js';
import { round2 } from '../lib/formula.js';
import { scored, type MetricDefinition } from '../../core/metric.js';

type LineSet = Set<number>;

/** Mark the lines of `text` between offsets [start, end) that hold non-blank characters. */
function markRange(lines: LineSet, text: string, idx: LineIndex, start: number, end: number, lineOffset: number): void {
  for (let i = start; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 32 || ch === 9 || ch === 10 || ch === 13) continue;
    lines.add(idx.position(i).line + lineOffset);
  }
}

/** CSS comment ranges [start, end) in a CSS text, skipping quoted strings. */
export function cssCommentRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' || c === "'") {
      i++;
      while (i < text.length && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close < 0 ? text.length : close + 2;
      out.push([i, end]);
      i = end;
    } else i++;
  }
  return out;
}

function htmlCommentLines(artifact: Artifact, dom: JSDOM, html: string, idx: LineIndex, lines: LineSet): void {
  const doc = dom.window.document;
  const walker = doc.createTreeWalker(doc, dom.window.NodeFilter.SHOW_COMMENT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const loc = nodeLocation(artifact, node);
    if (loc) markRange(lines, html, idx, loc.startOffset, loc.endOffset, 0);
  }
}

function blockCommentLines(block: SourceBlock, lines: LineSet): void {
  const idx = new LineIndex(block.text);
  const offset = block.line - 1;
  if (block.language === 'css') {
    for (const [a, b] of cssCommentRanges(block.text)) markRange(lines, block.text, idx, a, b, offset);
  } else {
    for (const c of parseJs(block).comments) markRange(lines, block.text, idx, c.start, c.end, offset);
  }
}

export interface CommentCount {
  file: string;
  nonBlank: number;
  comment: number;
}

export function countCommentLines(artifact: Artifact): CommentCount[] {
  const out: CommentCount[] = [];
  for (const f of codeFiles(artifact)) {
    const text = f.text!;
    const lines: LineSet = new Set();
    if (f.kind === 'html') {
      const dom = f.path === artifact.entry ? artifact.dom : null;
      if (dom) htmlCommentLines(artifact, dom, text, new LineIndex(text), lines);
      else htmlCommentLinesByScan(text, lines);
    }
    for (const block of artifact.sources) {
      if (block.file === f.path && block.origin !== 'attribute') blockCommentLines(block, lines);
    }
    const all = splitLines(text);
    let nonBlank = 0;
    all.forEach((line, i) => {
      if (line.trim() !== '') nonBlank++;
      else lines.delete(i + 1);
    });
    out.push({ file: f.path, nonBlank, comment: lines.size });
  }
  return out;
}

/** HTML comments in secondary HTML files (not the entry): a scan that skips script/style bodies. */
function htmlCommentLinesByScan(html: string, lines: LineSet): void {
  const idx = new LineIndex(html);
  const re = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?(?:-->|$)/gi;
  for (const m of html.matchAll(re)) {
    if (m[0].startsWith('<!--')) markRange(lines, html, idx, m.index!, m.index! + m[0].length, 0);
  }
}

const commentRate: MetricDefinition = {
  number: 21,
  id: 'comment-rate',
  perspective: 'maintainability',
  kind: 'rule',
  needs: ['source'],
  title: 'Comment rate',
  question: 'Is the code explained by comments?',
  suite: 'study',
  score({ artifact }) {
    const perFile = countCommentLines(artifact);
    const nonBlank = perFile.reduce((s, f) => s + f.nonBlank, 0);
    const comment = perFile.reduce((s, f) => s + f.comment, 0);
    const c = nonBlank === 0 ? 0 : (comment / nonBlank) * 100;
    const score = Math.min(Math.sqrt(c) * 10 + 60, 100);
    return scored(score, `${comment} of ${nonBlank} non-blank lines carry comments (${round2(c)}%)`, {
      commentLines: comment,
      nonBlankLines: nonBlank,
      commentPercent: round2(c),
      files: perFile,
    });
  },
};

export default commentRate;
