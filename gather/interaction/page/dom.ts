/** Small readings of the DOM shared by the probe's snapshots, views and control discovery. */

/* eslint-disable @typescript-eslint/no-explicit-any */
/** Elements whose content is not shown: left out of snapshots and views. */
export const SKIP_TAGS = /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|LINK|META)$/;
export const TEXT_TYPES = /^(text|search|email|url|tel|password|number|)$/i;
export const VALUE_TYPES = /^(color|date|time|datetime-local|month|week)$/i;

/** FNV-1a, 32 bits, as 8 hex digits: short and stable fingerprints of states. */
export function fnv(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Shown to a person: at least 2×2 px, visible and opaque, not off the page to the left or top. */
export function visible(el: Element): boolean {
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return false;
  const ck = (el as any).checkVisibility;
  if (typeof ck === 'function' && !ck.call(el, { visibilityProperty: true, opacityProperty: true })) return false;
  const x = r.left + scrollX;
  const y = r.top + scrollY;
  return x + r.width > 0 && y + r.height > 0 && x < Math.max(document.documentElement.scrollWidth, innerWidth);
}

/** Rendered at all (not display: none or visibility: hidden), whatever its size. */
export function rendered(el: Element): boolean {
  const ck = (el as any).checkVisibility;
  return typeof ck === 'function' ? !!ck.call(el, { visibilityProperty: true }) : true;
}

export function docBox(el: Element) {
  const r = el.getBoundingClientRect();
  return { x: Math.round(r.left + scrollX), y: Math.round(r.top + scrollY), width: Math.round(r.width), height: Math.round(r.height) };
}

const cssEscape = (s: string) => CSS.escape(s);

function uniqueId(el: Element): string | null {
  if (!el.id) return null;
  const sel = '#' + cssEscape(el.id);
  try {
    return document.querySelectorAll(sel).length === 1 ? sel : null;
  } catch {
    return null;
  }
}

/** A selector for `el`: from the nearest ancestor with a unique id (or body), by child position. */
export function selectorOf(el: Element): string {
  const parts: string[] = [];
  let cur: Element | null = el;
  while (cur && cur !== document.documentElement) {
    const sel = uniqueId(cur);
    if (sel) {
      parts.unshift(sel);
      return parts.join(' > ');
    }
    const tag = cur.tagName.toLowerCase();
    if (tag === 'body') {
      parts.unshift('body');
      return parts.join(' > ');
    }
    const parent: Element | null = cur.parentElement;
    if (!parent) {
      parts.unshift(tag);
      break;
    }
    const idx = Array.prototype.indexOf.call(parent.children, cur) + 1;
    parts.unshift(`${tag}:nth-child(${idx})`);
    cur = parent;
  }
  return parts.join(' > ');
}

/** What a person would call the control: its accessible label, text, value, title, placeholder, image alt, name or id. */
export function labelOf(el: Element): string {
  const pick = (...c: Array<string | null | undefined>) => c.map((x) => (x ?? '').replace(/\s+/g, ' ').trim()).find((x) => x.length > 0) ?? '';
  const input = el as HTMLInputElement;
  const txt = (el as HTMLElement).innerText;
  return pick(
    el.getAttribute('aria-label'),
    typeof txt === 'string' ? txt : el.textContent,
    el.tagName === 'INPUT' && /^(button|submit|reset)$/i.test(input.type) ? input.value : '',
    el.getAttribute('title'),
    el.getAttribute('placeholder'),
    el.querySelector('img[alt]')?.getAttribute('alt'),
    el.getAttribute('name'),
    el.id,
  ).slice(0, 80);
}

export const disabled = (el: Element): boolean =>
  !!(el as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true' || !!el.closest('fieldset[disabled]') || !!el.closest('[inert]');

export const isTextField = (el: Element): boolean => (el.tagName === 'INPUT' && TEXT_TYPES.test((el as HTMLInputElement).type)) || el.tagName === 'TEXTAREA';
/* eslint-enable @typescript-eslint/no-explicit-any */
