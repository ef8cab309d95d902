/**
 * Requirement tests, in the page: find elements the way a user does (SPEC "Requirement tests", locators).
 * Bundled into the probe's isolated-world readers (../../page/index.ts exposes it as `__wg.tests`).
 *
 * Interpretations:
 * - Candidates are visible elements (../../page/dom.ts `visible`). The texts of an element are its rendered text,
 *   aria-label, aria-labelledby text, its labels' text (form fields), placeholder, title, alt, and the value of
 *   buttons and fields.
 * - A text (whole or contained) belongs to the innermost element that has it: an element whose child has the same
 *   match is not a candidate (otherwise `body` would contain every text). The innermost match is then raised to
 *   its closest interactive ancestor (a button, link, label, summary, an element with a role or tabindex), since
 *   that is what a user clicks when they click the words.
 * - Rank: whole-text matches, then contained ones; among equals, document order.
 * - `role` uses the explicit role, else the implicit one of common elements (button, link, textbox, checkbox,
 *   radio, combobox, listbox, slider, heading, list, listitem, img, navigation, table, row, cell, tab); `name`
 *   matches its texts as a string locator does.
 * - Nothing found: the nearest texts on offer are the visible short texts of interactive elements, labels,
 *   placeholders and headings, ranked by shared letter pairs with the wanted text.
 */
import { docBox, visible } from '../../page/dom.js';

export type PageLocator = string | { text?: string; label?: string; placeholder?: string; role?: string; name?: string; css?: string; nth?: number };

const INTERACTIVE = 'a[href],button,input,select,textarea,label,summary,[role],[tabindex],[onclick],[contenteditable=""],[contenteditable="true"]';

const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/** A matcher for a locator string: `/re/flags` or a case-insensitive text. */
export function matcher(want: string): (text: string) => 0 | 1 | 2 {
  const m = /^\/(.*)\/([a-z]*)$/.exec(want);
  if (m) {
    const re = new RegExp(m[1]!, [...new Set(`${m[2]}i`.replace(/[gy]/g, ''))].join(''));
    return (t) => (t && re.test(t) ? 2 : 0);
  }
  const w = norm(want).toLowerCase();
  return (t) => {
    const x = norm(t).toLowerCase();
    if (!x) return 0;
    if (x === w) return 2;
    return x.includes(w) ? 1 : 0;
  };
}

function valueOf(el: Element): string {
  if (el.tagName === 'INPUT') return (el as HTMLInputElement).value;
  if (el.tagName === 'TEXTAREA') return (el as HTMLTextAreaElement).value;
  if (el.tagName === 'SELECT') {
    const s = el as HTMLSelectElement;
    return s.options[s.selectedIndex]?.text ?? '';
  }
  return '';
}

function labelTexts(el: Element): string[] {
  const out: string[] = [];
  const aria = el.getAttribute('aria-labelledby');
  if (aria)
    out.push(
      aria
        .split(/\s+/)
        .map((id) => norm(document.getElementById(id)?.textContent))
        .join(' '),
    );
  const labels = (el as HTMLInputElement).labels;
  if (labels) for (const l of Array.from(labels)) out.push(norm((l as HTMLElement).innerText));
  return out;
}

/** What a person may call `el`, by way of locating. */
function textsOf(el: Element, way: 'any' | 'text' | 'label' | 'placeholder'): string[] {
  const h = el as HTMLElement;
  if (way === 'placeholder') return [el.getAttribute('placeholder') ?? ''];
  if (way === 'label') return [el.getAttribute('aria-label') ?? '', ...labelTexts(el)];
  const out = [typeof h.innerText === 'string' ? h.innerText : (el.textContent ?? '')];
  if (way === 'text') return out;
  out.push(
    el.getAttribute('aria-label') ?? '',
    el.getAttribute('title') ?? '',
    el.getAttribute('placeholder') ?? '',
    el.getAttribute('alt') ?? '',
    ...labelTexts(el),
  );
  if (/^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(el.tagName)) out.push(valueOf(el) || (el as HTMLButtonElement).value || '');
  return out;
}

const IMPLICIT: Array<[string, string]> = [
  ['button', 'button,input[type=button],input[type=submit],input[type=reset],input[type=image],summary'],
  ['link', 'a[href],area[href]'],
  [
    'textbox',
    'textarea,input:not([type]),input[type=text],input[type=email],input[type=search],input[type=url],input[type=tel],input[type=password],input[type=number]',
  ],
  ['checkbox', 'input[type=checkbox]'],
  ['radio', 'input[type=radio]'],
  ['combobox', 'select:not([multiple])'],
  ['listbox', 'select[multiple]'],
  ['slider', 'input[type=range]'],
  ['heading', 'h1,h2,h3,h4,h5,h6'],
  ['list', 'ul,ol'],
  ['listitem', 'li'],
  ['img', 'img[alt]:not([alt=""]),svg[role=img]'],
  ['navigation', 'nav'],
  ['table', 'table'],
  ['row', 'tr'],
  ['cell', 'td'],
  ['columnheader', 'th'],
  ['form', 'form'],
  ['dialog', 'dialog'],
];

function roleOf(el: Element): string {
  const r = el.getAttribute('role');
  if (r) return r.split(/\s+/)[0]!.toLowerCase();
  for (const [role, sel] of IMPLICIT) if (el.matches(sel)) return role;
  return '';
}

function visibleElements(): Element[] {
  const body = document.body;
  if (!body) return [];
  return Array.from(body.querySelectorAll('*')).filter((el) => !/^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|OPTION)$/.test(el.tagName) && visible(el));
}

/** Every element the locator finds, best first (rank, then document order); `nth` is applied by the caller. */
export function locateAll(loc: PageLocator): Element[] {
  const o = typeof loc === 'string' ? { text: loc, any: true } : { ...loc, any: false };
  if (o.css !== undefined) {
    let list: Element[];
    try {
      list = Array.from(document.querySelectorAll(o.css));
    } catch {
      return [];
    }
    return list.filter((el) => visible(el));
  }
  const all = visibleElements();
  if (o.role !== undefined) {
    const role = o.role.toLowerCase();
    const m = o.name !== undefined ? matcher(o.name) : null;
    const hits = all.filter((el) => roleOf(el) === role).map((el) => ({ el, rank: m ? Math.max(0, ...textsOf(el, 'any').map(m)) : 2 }));
    return hits
      .filter((h) => h.rank > 0)
      .sort((a, b) => b.rank - a.rank)
      .map((h) => h.el);
  }
  const want = o.text ?? o.label ?? o.placeholder ?? '';
  const way = o.any ? 'any' : o.label !== undefined ? 'label' : o.placeholder !== undefined ? 'placeholder' : 'text';
  const m = matcher(want);
  const rank = new Map<Element, number>();
  for (const el of all) {
    const r = Math.max(0, ...textsOf(el, way).map(m));
    if (r > 0) rank.set(el, r);
  }
  // Innermost: an element with a descendant of the same rank gives way to it.
  const inner: Array<{ el: Element; rank: number }> = [];
  for (const [el, r] of rank) {
    let child = false;
    for (const [other, r2] of rank) if (other !== el && r2 >= r && el.contains(other)) child = true;
    if (!child) inner.push({ el, rank: r });
  }
  const seen = new Set<Element>();
  const out: Array<{ el: Element; rank: number }> = [];
  for (const h of inner) {
    const up = h.el.closest(INTERACTIVE) ?? h.el;
    const el = up.tagName === 'LABEL' && way === 'label' ? ((up as HTMLLabelElement).control ?? up) : up;
    if (seen.has(el)) continue;
    seen.add(el);
    out.push({ el, rank: h.rank });
  }
  out.sort((a, b) => b.rank - a.rank || (a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  return out.map((h) => h.el);
}

/** Letter pairs shared with the wanted text (Dice's coefficient). */
function similarity(a: string, b: string): number {
  const pairs = (s: string) => {
    const x = s.toLowerCase();
    const out = new Map<string, number>();
    for (let i = 0; i < x.length - 1; i++) out.set(x.slice(i, i + 2), (out.get(x.slice(i, i + 2)) ?? 0) + 1);
    return out;
  };
  const pa = pairs(a);
  const pb = pairs(b);
  let both = 0;
  for (const [k, n] of pa) both += Math.min(n, pb.get(k) ?? 0);
  const total = Math.max(1, a.length - 1 + b.length - 1);
  return (2 * both) / total;
}

/**
 * The short texts the page offers (controls, labels, placeholders, headings), nearest to `want` first; with a
 * role, the texts of the elements of that role when there are any.
 */
export function nearestTexts(want: string, n = 5, role?: string): string[] {
  const texts = new Set<string>();
  const all = visibleElements();
  const ofRole = role ? all.filter((el) => roleOf(el) === role.toLowerCase()) : [];
  for (const el of ofRole.length ? ofRole : all) {
    if (!ofRole.length && !el.matches(`${INTERACTIVE},h1,h2,h3,h4,h5,h6,th,legend`)) continue;
    for (const t of textsOf(el, 'any')) {
      const x = norm(t);
      if (x && x.length <= 60) texts.add(x);
    }
  }
  const w = want.replace(/^\/(.*)\/[a-z]*$/, '$1');
  return [...texts]
    .map((t) => ({ t, s: similarity(w, t) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, n)
    .map((x) => x.t);
}

/** The nearest texts for a locator that found nothing. */
export function nearestFor(loc: PageLocator, n = 5): string[] {
  return nearestTexts(wantedText(loc), n, typeof loc === 'string' ? undefined : loc.role);
}

/** The text a locator wants (for the nearest texts). */
export function wantedText(loc: PageLocator): string {
  return typeof loc === 'string' ? loc : (loc.text ?? loc.label ?? loc.placeholder ?? loc.name ?? loc.role ?? loc.css ?? '');
}

/** The element a locator picks (its `nth`), or null. */
export function locate(loc: PageLocator): Element | null {
  const all = locateAll(loc);
  const nth = typeof loc === 'string' ? 1 : (loc.nth ?? 1);
  return all[nth - 1] ?? null;
}

export { docBox, valueOf };
