/**
 * Style-rule ranges of a stylesheet text, for CSS coverage. Chrome's rule-usage tracking reports only the
 * rules that were used; the unused ones are the style rules of the sheet that it did not report.
 *
 * A "rule" here is a top-level style rule (`selector { ... }`, including any rules nested inside it) or a style
 * rule inside a grouping at-rule (`@media`, `@supports`, `@layer`, `@container`, `@scope`, `@document`,
 * `@starting-style`). Other at-rules (`@font-face`, `@keyframes`, `@page`, `@property`, `@import`, ...) are
 * neither used nor unused: they are left out of both numbers. Ranges run from the first character of the
 * selector to just after the closing brace, the same convention as Chrome's `CSS.RuleUsage` offsets.
 */

const GROUPING = new Set(['media', 'supports', 'layer', 'container', 'scope', 'document', '-moz-document', 'starting-style']);

export interface RuleRange {
  start: number;
  end: number;
  /** The selector text (prelude) of the rule. */
  selector: string;
}

/** Skip a comment or string starting at i; returns the index after it, or i when none starts there. */
function skipAtom(text: string, i: number): number {
  const c = text[i];
  if (c === '/' && text[i + 1] === '*') {
    const close = text.indexOf('*/', i + 2);
    return close < 0 ? text.length : close + 2;
  }
  if (c === '"' || c === "'") {
    let j = i + 1;
    while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  return i;
}

/** Index of the `}` matching the `{` at `open` (or text.length). */
function matchBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length;) {
    const j = skipAtom(text, i);
    if (j !== i) {
      i = j;
      continue;
    }
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
    i++;
  }
  return text.length;
}

export function cssStyleRules(text: string, from = 0, to = text.length, out: RuleRange[] = []): RuleRange[] {
  let i = from;
  while (i < to) {
    // Skip whitespace and comments between rules.
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === ';' || c === '}') {
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      i = skipAtom(text, i);
      continue;
    }
    if (text.startsWith('<!--', i) || text.startsWith('-->', i)) {
      i += text[i] === '<' ? 4 : 3;
      continue;
    }
    const start = i;
    // Prelude: up to `{` or `;` at paren depth 0.
    let paren = 0;
    let j = i;
    while (j < to) {
      const k = skipAtom(text, j);
      if (k !== j) {
        j = k;
        continue;
      }
      const d = text[j];
      if (d === '(' || d === '[') paren++;
      else if (d === ')' || d === ']') paren--;
      else if (paren <= 0 && (d === '{' || d === ';')) break;
      j++;
    }
    if (j >= to || text[j] === ';') {
      i = j + 1;
      continue;
    }
    const close = Math.min(matchBrace(text, j), to);
    const prelude = text.slice(start, j).trim();
    if (prelude.startsWith('@')) {
      const name = /^@([-\w]+)/.exec(prelude)?.[1]?.toLowerCase() ?? '';
      if (GROUPING.has(name)) cssStyleRules(text, j + 1, close, out);
    } else {
      out.push({ start, end: Math.min(close + 1, text.length), selector: prelude });
    }
    i = close + 1;
  }
  return out;
}

/** Bytes of rules used / all, given Chrome's used ranges (a rule is used when a used range starts inside it). */
export function ruleCoverage(
  rules: readonly RuleRange[],
  used: ReadonlyArray<{ startOffset: number; endOffset: number }>,
): { total: number; used: number; unused: RuleRange[] } {
  const starts = used.map((u) => u.startOffset).sort((a, b) => a - b);
  let total = 0;
  let usedBytes = 0;
  const unused: RuleRange[] = [];
  for (const r of rules) {
    const len = r.end - r.start;
    total += len;
    // binary search: any used start in [r.start, r.end)
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! < r.start) lo = mid + 1;
      else hi = mid;
    }
    if (lo < starts.length && starts[lo]! < r.end) usedBytes += len;
    else unused.push(r);
  }
  return { total, used: usedBytes, unused };
}
