/**
 * The visible text of a static DOM, as the copywriting metric reads it.
 *
 * Interpretation (documented choices):
 * - Static DOM only (jsdom, scripts not run), like component-consistency: the score of a page must not depend
 *   on which other metrics ran, and text that scripts write later is not seen. Pages that build all their text
 *   in JavaScript therefore have little text here; that is reported in details, not guessed.
 * - Not visible, so skipped: `<head>` (except `<title>`, read separately), `script`, `style`, `template`,
 *   `noscript` (hidden while scripts run), `svg`, `math`, `canvas`, `iframe`, `object`, elements with the `hidden`
 *   attribute, `aria-hidden="true"`, an inline style with `display:none` or `visibility:hidden`, and
 *   `<input type="hidden">`.
 * - Code is not prose: `code`, `pre`, `kbd`, `samp`, `var` and `textarea` contents are left out of the prose
 *   (they are sample data, not copy). Inside a block, the left-out element leaves CODE_MARK (U+FFFC, the object
 *   replacement character: not a letter, not punctuation) in its place, so that "Use <code>x</code>." reads
 *   "Use ￼." and not "Use ." (a space before a full stop), and "the <code>x</code> the" is not a doubled word.
 *   A block whose only content is such marks is no block.
 * - Text is grouped into blocks by the nearest block-level ancestor (paragraph, heading, list item, cell,
 *   button, label ...), so a sentence split across `<b>` or `<a>` stays one sentence.
 * - A heading's or control's label is read up to MAX_LABEL_CHARS = 500 characters and MAX_LABEL_NODES = 2000
 *   nodes: labels are short, and nested controls (a link inside a button inside a link ...) must not make the
 *   walk quadratic in the page size.
 */
import type { JSDOM } from 'jsdom';

const SKIP = new Set(['head', 'script', 'style', 'template', 'noscript', 'svg', 'math', 'canvas', 'iframe', 'object', 'embed']);
const CODE = new Set(['code', 'pre', 'kbd', 'samp', 'var', 'textarea']);
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'br',
  'cite',
  'data',
  'dfn',
  'em',
  'i',
  'mark',
  'q',
  's',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'wbr',
  'font',
  'del',
  'ins',
  'img',
]);

export interface TextBlock {
  /** Lower-case tag of the block element. */
  tag: string;
  /** Whitespace-normalised text. */
  text: string;
}

export interface VisibleText {
  title: string | null;
  blocks: TextBlock[];
  /** Headings in document order with their level and text. */
  headings: Array<{ level: number; text: string }>;
  /** Buttons, links and labelled controls with their visible or accessible label. */
  controls: Array<{ tag: string; label: string; selector: string }>;
}

function hiddenByMarkup(el: Element): boolean {
  if (el.hasAttribute('hidden')) return true;
  if (el.getAttribute('aria-hidden') === 'true') return true;
  const style = (el.getAttribute('style') ?? '').replace(/\s+/g, '').toLowerCase();
  if (style.includes('display:none') || style.includes('visibility:hidden')) return true;
  if (el.tagName.toLowerCase() === 'input' && (el.getAttribute('type') ?? '').toLowerCase() === 'hidden') return true;
  return false;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** What a left-out code element leaves in its block's text (see the module comment). */
export const CODE_MARK = '\uFFFC';

function shortSelector(el: Element): string {
  const tag = el.tagName.toLowerCase();
  if (el.id) return `${tag}#${el.id}`;
  const cls = (el.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 2);
  return cls.length ? `${tag}.${cls.join('.')}` : tag;
}

/** The label a person sees (or hears) on a control. */
function controlLabel(el: Element): string {
  const tag = el.tagName.toLowerCase();
  if (tag === 'input') {
    const type = (el.getAttribute('type') ?? 'text').toLowerCase();
    if (['submit', 'button', 'reset'].includes(type)) return norm(el.getAttribute('value') ?? (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''));
    return '';
  }
  const text = norm(visibleTextOf(el));
  if (text) return text;
  return norm(el.getAttribute('aria-label') ?? el.getAttribute('title') ?? '');
}

export const MAX_LABEL_CHARS = 500;
const MAX_LABEL_NODES = 2000;

function visibleTextOf(el: Element, budget = { chars: MAX_LABEL_CHARS, nodes: MAX_LABEL_NODES }): string {
  let out = '';
  for (const node of Array.from(el.childNodes)) {
    if (budget.chars <= 0 || budget.nodes <= 0) break;
    budget.nodes--;
    let piece = '';
    if (node.nodeType === 3) piece = node.textContent ?? '';
    else if (node.nodeType === 1) {
      const child = node as Element;
      const t = child.tagName.toLowerCase();
      if (SKIP.has(t) || hiddenByMarkup(child)) continue;
      if (t === 'img') piece = ' ' + (child.getAttribute('alt') ?? '') + ' ';
      else piece = ' ' + visibleTextOf(child, budget) + ' ';
    }
    if (node.nodeType === 3) {
      piece = piece.slice(0, budget.chars);
      budget.chars -= piece.length;
    }
    out += piece;
  }
  return out;
}

export function extractVisibleText(dom: JSDOM): VisibleText {
  const doc = dom.window.document;
  const titleEl = doc.querySelector('head > title, title');
  const title = titleEl ? norm(titleEl.textContent ?? '') : null;
  const blocks: TextBlock[] = [];
  const headings: VisibleText['headings'] = [];
  const controls: VisibleText['controls'] = [];

  // Walk the tree; each block element collects the text of its inline descendants; nested blocks start anew.
  const walk = (el: Element, current: { tag: string; parts: string[] } | null): void => {
    const tag = el.tagName.toLowerCase();
    if (SKIP.has(tag) || hiddenByMarkup(el)) return;
    if (CODE.has(tag)) {
      current?.parts.push(CODE_MARK);
      return;
    }
    if (/^h[1-6]$/.test(tag)) headings.push({ level: Number(tag[1]), text: norm(visibleTextOf(el)) });
    if (
      tag === 'button' ||
      tag === 'a' ||
      (tag === 'input' && ['submit', 'button', 'reset'].includes((el.getAttribute('type') ?? '').toLowerCase())) ||
      el.getAttribute('role') === 'button'
    ) {
      controls.push({ tag, label: controlLabel(el), selector: shortSelector(el) });
    }
    let own = current;
    const isBlock = !INLINE.has(tag);
    if (isBlock) own = { tag, parts: [] };
    for (const node of Array.from(el.childNodes)) {
      if (node.nodeType === 3) own?.parts.push(node.textContent ?? '');
      else if (node.nodeType === 1) {
        const child = node as Element;
        if (child.tagName.toLowerCase() === 'img') own?.parts.push(' ');
        else if (child.tagName.toLowerCase() === 'br') own?.parts.push('\n');
        else walk(child, own);
      }
    }
    if (isBlock && own) {
      const text = norm(own.parts.join(''));
      if (text && text.replaceAll(CODE_MARK, '').trim()) blocks.push({ tag, text });
    }
  };
  if (doc.body) walk(doc.body, null);
  return { title, blocks, headings, controls };
}
