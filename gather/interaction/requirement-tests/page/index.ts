/**
 * Requirement tests, in the probe's isolated world: what the test runner (../run.ts) calls through `__wg.tests.<fn>`:
 * locate an element and bring it into view, clear a field, pick an option, read a check box, fingerprint a part
 * of the page (for `changed`), and check an expectation. Synchronous: the page clock (../../../page/main/clock.ts) is
 * moved by the runner between calls.
 *
 * Interpretations of the expectations: `visible` and `hidden` look at the rendered text of the page
 * (`innerText`, which leaves out what is not displayed), not at the values in fields (what a user typed into a
 * field is not the page's answer to it: `value` checks fields); `count` counts
 * the elements the locator finds; `value` reads a field's value (a select's chosen option text or value), else
 * the element's text; `storage` looks for the key in localStorage and sessionStorage.
 */
import { canvasPixels } from '../../page/canvas.js';
import { fnv, visible } from '../../page/dom.js';
import { docBox, locate, locateAll, matcher, nearestFor, nearestTexts, valueOf, type PageLocator } from './locate.js';

/** Elements found by `find`, by index (valid until the next page load). */
const held: Element[] = [];

/** A form field behind a label. */
const field = (el: Element): Element => (el.tagName === 'LABEL' ? ((el as HTMLLabelElement).control ?? el) : el);

/** The rendered text of the page; with `fields`, the values shown in visible fields too (the agent's view). */
function pageText(fields = false): string {
  const body = document.body;
  if (!body) return '';
  if (!fields) return body.innerText;
  const values: string[] = [];
  for (const el of Array.from(body.querySelectorAll('input,textarea,select'))) if (visible(el)) values.push(valueOf(el));
  return `${body.innerText}\n${values.join('\n')}`;
}

function find(loc: PageLocator, scroll = true) {
  const el = locate(loc);
  if (!el) return { found: false as const, nearest: nearestFor(loc), matches: 0 };
  const r0 = el.getBoundingClientRect();
  if (scroll && (r0.top < 0 || r0.left < 0 || r0.bottom > innerHeight || r0.right > innerWidth))
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
  const r = el.getBoundingClientRect();
  held.push(el);
  const x = Math.min(Math.max(r.left + r.width / 2, 1), innerWidth - 2);
  const y = Math.min(Math.max(r.top + r.height / 2, 1), innerHeight - 2);
  const rect = { x: r.left, y: r.top, width: r.width, height: r.height };
  return { found: true as const, i: held.length - 1, point: { x, y }, rect, box: docBox(el), tag: el.tagName.toLowerCase() };
}

function clear(i: number): void {
  const el = field(held[i]!);
  (el as HTMLElement).focus?.();
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') (el as HTMLInputElement | HTMLTextAreaElement).value = '';
  else if ((el as HTMLElement).isContentEditable) el.textContent = '';
  else return;
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

function choose(i: number, option: string): string | null {
  const el = field(held[i]!);
  if (el.tagName !== 'SELECT') return null;
  const s = el as HTMLSelectElement;
  const m = matcher(option);
  const opts = Array.from(s.options);
  const best = opts.find((o) => m(o.text) === 2 || m(o.value) === 2) ?? opts.find((o) => m(o.text) > 0 || m(o.value) > 0);
  if (!best) return null;
  s.selectedIndex = best.index;
  s.dispatchEvent(new Event('input', { bubbles: true }));
  s.dispatchEvent(new Event('change', { bubbles: true }));
  return best.text;
}

function checked(i: number): boolean | null {
  const el = field(held[i]!);
  if (el.tagName === 'INPUT') return (el as HTMLInputElement).checked;
  const aria = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
  return aria === null ? null : aria === 'true';
}

/** The element each `changed` expectation found at the start (by key), while it stays in the document. */
const watched = new Map<string, Element>();

/** Computed properties an element's `changed` compares (what moves, shows, hides or recolours it). */
const STYLE_PROPS = [
  'transform',
  'opacity',
  'visibility',
  'display',
  'color',
  'background-color',
  'fill',
  'stroke',
  'width',
  'height',
  'filter',
  'clip-path',
  'translate',
  'rotate',
  'scale',
];

/** An SVG element's attributes and its descendants' (an SVG animation changes attributes, not text), cut. */
function svgAttributes(el: Element): string {
  if (!(el instanceof SVGElement)) return '';
  let out = '';
  for (const node of [el, ...Array.from(el.querySelectorAll('*')).slice(0, 400)]) {
    for (const a of Array.from(node.attributes)) {
      // A SMIL animation changes the animated value, not the attribute: both are read.
      const anim = (node as unknown as Record<string, { animVal?: { value?: unknown } } | undefined>)[a.name];
      out += `${a.name}=${a.value}${anim && typeof anim === 'object' && anim.animVal && typeof anim.animVal.value === 'number' ? `/${anim.animVal.value}` : ''};`;
    }
    const ctm = node instanceof SVGGraphicsElement ? node.getCTM() : null;
    if (ctm) out += `ctm=${[ctm.a, ctm.b, ctm.c, ctm.d, ctm.e, ctm.f].map((v) => v.toFixed(2)).join(',')};`;
    if (out.length > 20_000) break;
  }
  return out;
}

/**
 * A short fingerprint of `what`, compared before and after a test (`changed`, `unchanged`). An element's covers
 * its text, value, class, child count, canvas pixels, its box (position and size in the viewport), the computed
 * properties in STYLE_PROPS and, for SVG, its and its descendants' attributes. With `key`, the element found first
 * is kept and fingerprinted again as long as it is in the document (a button whose text changes is no longer found
 * by that text); after a reload the locator finds it anew.
 */
function fingerprint(what: PageLocator | 'canvas' | 'page', key?: string): string {
  if (what === 'page') return fnv(`${location.href}|${document.querySelectorAll('*').length}|${pageText(true)}`);
  if (what === 'canvas')
    return (
      Array.from(document.querySelectorAll('canvas'))
        .map((c) => canvasPixels(c).hash)
        .join(',') || 'no canvas'
    );
  const kept = key !== undefined ? watched.get(key) : undefined;
  const el = kept?.isConnected ? kept : locate(what);
  if (!el) return 'absent';
  if (key !== undefined && !kept) watched.set(key, el);
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  const style = STYLE_PROPS.map((p) => cs.getPropertyValue(p)).join('|');
  return fnv(
    `${(el as HTMLElement).innerText}|${valueOf(el)}|${el.getAttribute('class') ?? ''}|${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)}x${Math.round(r.height)}|${el.querySelectorAll('*').length}|${el.tagName === 'CANVAS' ? canvasPixels(el as HTMLCanvasElement).hash : ''}|${style}|${svgAttributes(el)}`,
  );
}

/** The viewport's size in CSS pixels. */
const viewport = () => ({ width: document.documentElement.clientWidth || innerWidth, height: document.documentElement.clientHeight || innerHeight });

/**
 * Where an element is in the viewport (CSS pixels, not scrolled into view: reading does not move the page), or
 * null when the locator finds nothing; `canvas` gives the visible canvases.
 */
function rects(what: PageLocator | 'canvas'): Array<{ x: number; y: number; width: number; height: number }> | null {
  const els = what === 'canvas' ? Array.from(document.querySelectorAll('canvas')).filter((c) => visible(c)) : [locate(what)].filter((x): x is Element => !!x);
  if (!els.length) return null;
  return els.map((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, width: r.width, height: r.height };
  });
}

/** The rendered text of an element (a number is read from it), or null when the locator finds nothing. */
function textOf(what: PageLocator): string | null {
  const el = locate(what);
  if (!el) return null;
  const f = field(el);
  return /^(INPUT|TEXTAREA|SELECT)$/.test(f.tagName) ? valueOf(f) : ((f as HTMLElement).innerText ?? f.textContent ?? '');
}

const THIRDS = ['top-left', 'top', 'top-right', 'left', 'center', 'right', 'bottom-left', 'bottom', 'bottom-right'];

/** `box`: where the element is against the viewport (inside it, the share of it covered, which third its centre is in). */
function boxExpect(loc: PageLocator, e: { inside?: boolean; covers?: number; at?: string }): { ok: boolean; found: string } {
  const el = locate(loc);
  if (!el)
    return {
      ok: false,
      found: `nothing found; nearest: ${nearestFor(loc, 3)
        .map((t) => JSON.stringify(t))
        .join(', ')}`,
    };
  const r = el.getBoundingClientRect();
  const v = viewport();
  const w = Math.max(0, Math.min(r.right, v.width) - Math.max(r.left, 0));
  const h = Math.max(0, Math.min(r.bottom, v.height) - Math.max(r.top, 0));
  const share = (w * h) / Math.max(1, v.width * v.height);
  const inside = r.left >= -1 && r.top >= -1 && r.right <= v.width + 1 && r.bottom <= v.height + 1;
  const cx = Math.min(2, Math.max(0, Math.floor((3 * (r.left + r.width / 2)) / v.width)));
  const cy = Math.min(2, Math.max(0, Math.floor((3 * (r.top + r.height / 2)) / v.height)));
  const place = THIRDS[cy * 3 + cx]!;
  const ok = (e.inside === undefined || e.inside === inside) && (e.covers === undefined || share >= e.covers) && (e.at === undefined || e.at === place);
  return {
    ok,
    found: `${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)} in a ${v.width}×${v.height} viewport: ${inside ? 'inside' : 'not inside'}, covering ${share.toFixed(3)}, centre at the ${place}`,
  };
}

/** `style`: a computed property of the element. */
function styleExpect(loc: PageLocator, e: { property: string; is?: string; matches?: string }): { ok: boolean; found: string } {
  const el = locate(loc);
  if (!el)
    return {
      ok: false,
      found: `nothing found; nearest: ${nearestFor(loc, 3)
        .map((t) => JSON.stringify(t))
        .join(', ')}`,
    };
  const v = getComputedStyle(el).getPropertyValue(e.property).trim();
  const ok = e.is !== undefined ? v === e.is.trim() || normColour(v) === normColour(e.is) : new RegExp(e.matches!, 'i').test(v);
  return { ok, found: JSON.stringify(v.slice(0, 160)) };
}

/** A colour as a canvas reads it back (so that "red", "#f00" and "rgb(255, 0, 0)" compare equal); other values as given. */
let colourCtx: CanvasRenderingContext2D | null | undefined;
function normColour(v: string): string {
  colourCtx ??= document.createElement('canvas').getContext('2d');
  if (!colourCtx) return v.trim();
  colourCtx.fillStyle = '#010203';
  colourCtx.fillStyle = v.trim();
  const c = String(colourCtx.fillStyle);
  return c === '#010203' && !/^#010203$/i.test(v.trim()) ? v.trim() : c;
}

type PageExpectation = {
  box?: PageLocator;
  inside?: boolean;
  covers?: number;
  at?: string;
  style?: PageLocator;
  property?: string;
  visible?: string;
  hidden?: string;
  count?: PageLocator;
  min?: number;
  max?: number;
  value?: PageLocator;
  is?: string;
  matches?: string;
  url?: string;
  storage?: string;
};

/** Check one expectation that the page alone can answer; `found` says what was there. */
function expect(e: PageExpectation): { ok: boolean; found: string } {
  if (e.box !== undefined) return boxExpect(e.box, e);
  if (e.style !== undefined)
    return styleExpect(e.style, {
      property: e.property!,
      ...(e.is !== undefined ? { is: e.is } : {}),
      ...(e.matches !== undefined ? { matches: e.matches } : {}),
    });
  if (e.visible !== undefined || e.hidden !== undefined) {
    const want = (e.visible ?? e.hidden)!;
    const shown = matcher(want)(pageText()) > 0;
    const ok = e.visible !== undefined ? shown : !shown;
    return {
      ok,
      found: shown
        ? 'shown'
        : `not shown; nearest: ${nearestTexts(want, 3)
            .map((t) => JSON.stringify(t))
            .join(', ')}`,
    };
  }
  if (e.count !== undefined) {
    const n = locateAll(e.count).length;
    return { ok: (e.min === undefined || n >= e.min) && (e.max === undefined || n <= e.max), found: `${n} found` };
  }
  if (e.value !== undefined) {
    const el = locate(e.value);
    if (!el)
      return {
        ok: false,
        found: `nothing found; nearest: ${nearestFor(e.value, 3)
          .map((t) => JSON.stringify(t))
          .join(', ')}`,
      };
    const f = field(el);
    const v = /^(INPUT|TEXTAREA|SELECT)$/.test(f.tagName) ? valueOf(f) : ((f as HTMLElement).innerText ?? '');
    const ok = e.is !== undefined ? v.trim() === e.is.trim() : new RegExp(e.matches!, 'i').test(v);
    return { ok, found: JSON.stringify(v.slice(0, 120)) };
  }
  if (e.url !== undefined) return { ok: location.href.includes(e.url), found: location.href.slice(0, 200) };
  if (e.storage !== undefined) {
    const has = [localStorage, sessionStorage].some((s) => {
      try {
        return s.getItem(e.storage!) !== null;
      } catch {
        return false;
      }
    });
    return { ok: has, found: has ? 'present' : 'absent' };
  }
  return { ok: false, found: 'unknown expectation' };
}

/** The visible text of the page, cut (what the agent reads besides the controls). */
function text(max: number): string {
  return pageText(true)
    .replace(/\n{3,}/g, '\n\n')
    .slice(0, max);
}

export const testsApi = {
  find,
  clear,
  choose,
  checked,
  fingerprint,
  rects,
  textOf,
  viewport,
  expect,
  text,
  focused: () => !!document.activeElement && document.activeElement !== document.body,
};
