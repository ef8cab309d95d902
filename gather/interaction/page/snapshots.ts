/**
 * Snapshots: one record per element (document order), plus pseudo-records for the address, title and storage.
 * The acted-on control's own form state and rendering are left out (what our action does to it is ours).
 */
import { canvasPixels } from './canvas.js';
import { cfg } from './config.js';
import { fnv, rendered, selectorOf, SKIP_TAGS } from './dom.js';
import { taggedEl } from './reads.js';
import { storageState } from './storage.js';

/** Snapshots kept in the page by name (`pre` before an action, `post` after it). */
export const stored: Record<string, Map<string, string>> = {};
/** Separates an element record's parts: own state, form state, rendering, canvas pixels. */
export const SEP = '\u0001';

/**
 * A long value as its beginning plus a hash of the whole: a change anywhere in it counts (an iframe's srcdoc
 * that differs only after a shared preamble, an output that grows at its end).
 */
const clip = (v: string, n: number): string => (v.length > n ? `${v.slice(0, n)}…${fnv(v)}:${v.length}` : v);

export const normUrl = (u: string) => u.replace(/#$/, '');

/** Tag, sorted attributes, own text and open state. */
function baseState(el: Element): string {
  const tag = el.tagName;
  let base = tag;
  const names = el.getAttributeNames().sort();
  for (const n of names) base += ` ${n}=${clip(String(el.getAttribute(n)), 300)}`;
  let text = '';
  for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 3) text += c.nodeValue;
  text = text.replace(/\s+/g, ' ').trim();
  if (text) base += `|t:${clip(text, 300)}`;
  if (tag === 'DIALOG' || tag === 'DETAILS') base += `|o:${(el as HTMLDialogElement).open ? 1 : 0}`;
  return base;
}

function formState(el: Element): string {
  const tag = el.tagName;
  if (tag === 'INPUT') {
    const i = el as HTMLInputElement;
    return `v:${clip(String(i.value), 200)}|c:${i.checked ? 1 : 0}`;
  }
  if (tag === 'TEXTAREA') return `v:${clip(String((el as HTMLTextAreaElement).value), 200)}`;
  if (tag === 'SELECT') return `s:${(el as HTMLSelectElement).selectedIndex}`;
  return '';
}

function renderState(el: Element): string {
  let render = rendered(el) ? '1' : '0';
  const h = el as HTMLElement;
  if (typeof h.offsetWidth === 'number') render += `:${h.offsetWidth}x${h.offsetHeight}`;
  return render;
}

/** An element's own state: tag, attributes and own text; form state; rendering; canvas pixels (SEP between). */
function ownState(el: Element, skip: boolean): string {
  const base = baseState(el);
  const form = skip ? '' : formState(el);
  const render = skip ? '' : renderState(el);
  const px = el.tagName === 'CANVAS' ? canvasPixels(el as HTMLCanvasElement).hash : '';
  return base + SEP + form + SEP + render + SEP + px;
}

/** The records of this document (path → state); `excluded`'s own form state and rendering left out. */
export function records(excluded: Element | null): Map<string, string> {
  const out = new Map<string, string>();
  out.set('~url', normUrl(location.href));
  out.set('~title', document.title);
  out.set('~storage', storageState());
  const body = document.body;
  if (!body) return out;
  let n = 0;
  let rest = '';
  const skipOwn = (el: Element) => !!excluded && (el === excluded || ((excluded as HTMLLabelElement).control ?? null) === el);
  const walk = (el: Element, path: string) => {
    const kids = el.children;
    let k = 0;
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i]!;
      if (SKIP_TAGS.test(c.tagName)) continue;
      const p = `${path}.${k++}`;
      if (n < cfg.maxElements) out.set(p, ownState(c, skipOwn(c)));
      else rest += ownState(c, false);
      n++;
      walk(c, p);
    }
  };
  walk(body, 'b');
  if (rest) out.set('~rest', fnv(rest));
  out.set('~count', String(n));
  return out;
}

/** Take a snapshot and keep it under `name`; with `send`, return its records hashed (path → hash). */
export function snapshot(name: string, exclude: number | null, send: boolean): Record<string, string> | number {
  const rec = records(taggedEl(exclude));
  stored[name] = rec;
  if (!send) return rec.size;
  const out: Record<string, string> = {};
  for (const [k, v] of rec) out[k] = k === '~count' ? v : fnv(v);
  return out;
}

/** A record's path as a selector (pseudo-records by name). */
export function describe(path: string): string {
  if (path.startsWith('~')) return path.slice(1);
  let el: Element | null = document.body;
  for (const i of path.split('.').slice(1)) {
    const kids: Element[] = el ? Array.from(el.children).filter((c) => !SKIP_TAGS.test(c.tagName)) : [];
    el = kids[Number(i)] ?? null;
    if (!el) return path;
  }
  return el ? selectorOf(el) : path;
}
