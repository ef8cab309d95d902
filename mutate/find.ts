/**
 * What operators look for in the static DOM: repeated components (cards), icons and their groups, images, text
 * elements. Read from the parsed DOM (never the text); only elements written in the source (with a location)
 * and rendered (not inside template/noscript) are returned, so an operator can edit them.
 *
 * Repeated components follow component-consistency's definition (its module comment): siblings with the same
 * tag and class list, class-less ones only for component-like tags, at least 2 members of which half have at
 * least 2 element children. Icons follow the page collector's (gather/collectors/icons.ts): small inline
 * SVGs, icon-font `<i>`/`<span>` elements, emoji used as icons; an icon's group is its nearest ancestor that
 * holds another icon. These are static guesses of what the browser will show; the runner's scores say whether
 * the defect was seen.
 */
import type { PageModel } from './page.js';

const COMPONENT_TAGS = new Set(['li', 'tr', 'article', 'figure', 'a', 'button', 'details', 'label', 'blockquote', 'dl']);
const NOT_COMPONENT_PARENTS = new Set(['svg', 'math', 'select', 'template', 'script', 'head', 'noscript']);

function classKey(el: Element): string {
  return Array.from(el.classList).sort().join(' ');
}

/** Groups of repeated sibling components in document order (each group's members in order). */
export function repeatedGroups(page: PageModel): Element[][] {
  const out: Element[][] = [];
  const body = page.doc.body;
  if (!body) return out;
  const parents = [body, ...Array.from(body.querySelectorAll('*'))];
  for (const parent of parents) {
    if (NOT_COMPONENT_PARENTS.has(parent.localName) || parent.closest('svg, template, noscript')) continue;
    const byKey = new Map<string, Element[]>();
    for (const c of Array.from(parent.children)) {
      const cls = classKey(c);
      if (!cls && !COMPONENT_TAGS.has(c.localName)) continue;
      const key = `${c.localName}|${cls}`;
      const list = byKey.get(key) ?? [];
      list.push(c);
      byKey.set(key, list);
    }
    for (const members of byKey.values()) {
      if (members.length < 2) continue;
      if (members.filter((m) => m.children.length >= 2).length * 2 < members.length) continue;
      if (!members.every((m) => page.located(m) && page.rendered(m))) continue;
      out.push(members);
    }
  }
  return out;
}

const FONT_CLASS =
  /^(fa|fas|far|fab|fal|fad|fa-solid|fa-regular|fa-brands|bi|bx|bxs|bxl|material-icons(-outlined|-round|-sharp|-two-tone)?|material-symbols-(outlined|rounded|sharp)|ri-.+|ion-.+|ph|ph-.+|ti|ti-.+|la|las|lar|lab|glyphicon|icon-.+)$/;
export const EMOJI_ONLY = /^(?:\p{Extended_Pictographic}(?:\uFE0F|\u200D\p{Extended_Pictographic}|\p{Emoji_Modifier})*\s*){1,2}$/u;

export type IconKind = 'svg' | 'font' | 'emoji';
export interface StaticIcon {
  el: Element;
  kind: IconKind;
}

function svgLooksLikeIcon(svg: Element): boolean {
  const num = (v: string | null) => (v === null ? null : parseFloat(v));
  const w = num(svg.getAttribute('width'));
  const h = num(svg.getAttribute('height'));
  if (w !== null && h !== null && !Number.isNaN(w) && !Number.isNaN(h)) return w >= 8 && h >= 8 && w <= 64 && h <= 64;
  const names = `${svg.getAttribute('class') ?? ''} ${svg.parentElement?.getAttribute('class') ?? ''}`.toLowerCase();
  if (names.includes('icon')) return true;
  const vb = (svg.getAttribute('viewBox') ?? '')
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  return vb.length === 4 && vb[2]! > 0 && vb[3]! > 0 && vb[2]! <= 48 && vb[3]! <= 48;
}

/** Icons of the static DOM, in document order. */
export function staticIcons(page: PageModel): StaticIcon[] {
  const out: StaticIcon[] = [];
  const seen = new Set<Element>();
  const push = (el: Element, kind: IconKind) => {
    if (seen.has(el) || !page.located(el) || !page.rendered(el)) return;
    seen.add(el);
    out.push({ el, kind });
  };
  const d = page.doc;
  for (const svg of Array.from(d.querySelectorAll('svg'))) {
    if (svg.parentElement?.closest('svg')) continue;
    if (svgLooksLikeIcon(svg)) push(svg, 'svg');
  }
  for (const el of Array.from(d.querySelectorAll('i, span'))) if (Array.from(el.classList).some((c) => FONT_CLASS.test(c))) push(el, 'font');
  for (const el of Array.from(d.querySelectorAll('button, a, li, span, label, div'))) {
    if (el.children.length > 0) continue;
    const text = (el.textContent ?? '').trim();
    if (text && EMOJI_ONLY.test(text)) push(el, 'emoji');
  }
  const order = (a: Element, b: Element) => (a === b ? 0 : a.compareDocumentPosition(b) & 4 ? -1 : 1);
  return out.sort((a, b) => order(a.el, b.el));
}

/** Icons grouped by their nearest ancestor that holds another icon; groups of ≥ 2, in document order. */
export function iconGroups(page: PageModel): StaticIcon[][] {
  const icons = staticIcons(page);
  const groups = new Map<Element, StaticIcon[]>();
  for (const icon of icons) {
    let c: Element | null = icon.el.parentElement;
    while (c && c !== page.doc.body && !icons.some((o) => o !== icon && c!.contains(o.el))) c = c.parentElement;
    const key = c ?? page.doc.body!;
    const list = groups.get(key) ?? [];
    list.push(icon);
    groups.set(key, list);
  }
  return [...groups.values()].filter((g) => g.length >= 2);
}

/** The first rendered element with its own non-blank text among `selector`, in document order. */
export function firstTextElement(page: PageModel, selector: string): Element | undefined {
  return page.elements(selector).find((el) => Array.from(el.childNodes).some((n) => n.nodeType === 3 && (n.textContent ?? '').trim().length > 1));
}

const BLOCKS = new Set([
  'div',
  'main',
  'section',
  'header',
  'nav',
  'article',
  'aside',
  'footer',
  'form',
  'ul',
  'ol',
  'table',
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'figure',
  'fieldset',
  'details',
  'dl',
  'pre',
  'blockquote',
]);

/** The first block-level child of `<body>` that is not hidden in the source (where content starts). */
export function firstBodyBlock(page: PageModel): Element | undefined {
  const body = page.doc.body;
  if (!body) return undefined;
  return Array.from(body.children).find((el) => {
    if (!BLOCKS.has(el.localName) || !page.located(el)) return false;
    if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return false;
    const style = (el.getAttribute('style') ?? '').replace(/\s+/g, '').toLowerCase();
    return !style.includes('display:none') && !style.includes('position:fixed') && !style.includes('position:absolute');
  });
}
