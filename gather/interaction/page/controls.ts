/**
 * Control discovery: the visible, enabled elements a person could act on, in document order, with their kind
 * (how the probe acts on them) and, for navigation elements, how they navigate. Listener marks come from the
 * probe's DOMDebugger listing (`mark`) and from React's props, which only the page's own world sees: the
 * main-world agent reports them by position (main/index.ts `reactMarks`) and `enumerate` is given that report.
 */
import { disabled, docBox, labelOf, selectorOf, TEXT_TYPES, VALUE_TYPES, visible } from './dom.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const marks = new WeakMap<Element, Set<string>>();
/** Elements whose every click handler only dispatches on the event target (event delegation): not controls. */
const delegating = new WeakSet<Element>();

export function mark(el: unknown, types: string[], delegation?: boolean): void {
  if (!(el instanceof Element)) return;
  if (delegation) delegating.add(el);
  const s = marks.get(el) ?? new Set<string>();
  for (const t of types) s.add(t);
  marks.set(el, s);
}

const CLICK = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'dblclick', 'auxclick'];
const KEYS = ['keydown', 'keyup', 'keypress'];
const INPUTS = ['input', 'change'];
const NAV_CONTAINER = 'nav, [role=navigation], [role=tablist], [role=menu], [role=menubar], header';
const NAV_CLASS = /^(tab|tabs?-(btn|button|link|item|trigger)|nav-(link|item|btn|button)|menu-(link|item))$/i;
const NAV_DATA = ['data-tab', 'data-page', 'data-view', 'data-route', 'data-section', 'data-screen', 'data-panel'];
const SEMANTIC = 'button, a[href], [role=button], summary, select, label, input, textarea';

/** What the main-world agent saw of React: handler props by element position under body, and root containers. */
export interface ReactReport {
  handlers: Record<string, string[]>;
  roots: number[];
}

/** React's roots (a framework's container is not a control), from the last report. */
const reactRoots = new WeakSet<Element>();

/** Mark the elements React gave handlers to, by their position in `body.querySelectorAll('*')`. */
function reactMarks(all: Element[], report: ReactReport | null): void {
  if (!report || typeof report !== 'object') return;
  for (const [k, types] of Object.entries(report.handlers ?? {})) {
    const el = all[Number(k)];
    if (el && Array.isArray(types)) mark(el, types.filter((t) => typeof t === 'string').slice(0, 10));
  }
  for (const i of Array.isArray(report.roots) ? report.roots : []) {
    const el = all[Number(i)];
    if (el) reactRoots.add(el);
  }
}

interface Found {
  kind: string | null;
  href?: string;
  nav?: string;
}

const clicksOrKeys = (listens: string[]) => listens.some((t) => CLICK.includes(t) || KEYS.includes(t));

/** A same-origin link: to this document (an anchor, a hash route, a placeholder) or to another file. */
function linkKind(el: Element, listens: string[], here: URL): Found {
  const raw = el.getAttribute('href') ?? '';
  if (/^\s*javascript:/i.test(raw)) return { kind: 'link' };
  let u: URL | null = null;
  try {
    u = new URL(raw, location.href);
  } catch {
    u = null;
  }
  const out: Found = { kind: null };
  if (!u || u.origin !== here.origin) out.kind = null;
  else if (u.pathname === here.pathname && u.search === here.search) {
    out.kind = 'link';
    out.href = u.href;
    const frag = u.hash.replace(/^#/, '');
    if (frag.startsWith('/') || frag.startsWith('!')) out.nav = 'hash-route';
    else if (frag.length > 0) out.nav = 'anchor';
    else if (el.closest(NAV_CONTAINER)) out.nav = 'placeholder';
  } else {
    out.kind = 'page-link';
    out.href = u.href;
    out.nav = 'page';
  }
  if (!out.kind && listens.some((t) => CLICK.includes(t))) out.kind = 'listener';
  return out;
}

/** How the probe acts on `el` (null: not a control); undefined: skip it (a nested editable area). */
function kindOf(el: Element, tag: string, listens: string[], here: URL): Found | undefined {
  const input = el as HTMLInputElement;
  if (tag === 'button' || (tag === 'input' && /^(button|submit|reset|image)$/i.test(input.type)) || el.getAttribute('role') === 'button' || tag === 'summary')
    return { kind: 'button' };
  if (tag === 'a' && el.hasAttribute('href')) return linkKind(el, listens, here);
  if (tag === 'textarea' || (tag === 'input' && TEXT_TYPES.test(input.type)) || (el as HTMLElement).isContentEditable) {
    if ((el as HTMLElement).isContentEditable && el.parentElement?.isContentEditable) return undefined;
    return { kind: 'text' };
  }
  if (tag === 'input' && /^(checkbox|radio)$/i.test(input.type)) return { kind: 'toggle' };
  if (tag === 'select') return { kind: 'select' };
  if (tag === 'input' && input.type === 'range') return { kind: 'range' };
  if (tag === 'input' && VALUE_TYPES.test(input.type)) return { kind: 'value' };
  if (tag === 'input' && input.type === 'file') return { kind: 'file' };
  if (tag === 'label') {
    const ctl = (el as HTMLLabelElement).control as HTMLInputElement | null;
    if (ctl && /^(checkbox|radio)$/i.test(ctl.type) && !visible(ctl)) return { kind: 'toggle' };
    if (ctl && ctl.type === 'file' && !visible(ctl)) return { kind: 'file' };
    return { kind: clicksOrKeys(listens) ? 'listener' : null };
  }
  return { kind: tag !== 'body' && tag !== 'html' && clicksOrKeys(listens) ? 'listener' : null };
}

/** Not a control after all: a delegating container, a framework root, a hidden file input, disabled or hidden. */
function leftOut(el: Element, kind: string, tag: string): boolean {
  // A framework's root container (React 17+ listens there for the whole app) or an element that only
  // delegates clicks to its children is not a control itself.
  if (kind === 'listener' && (delegating.has(el) || reactRoots.has(el))) return true;
  if (kind === 'file' && tag === 'input' && !visible(el)) return true; // a hidden file input is reached through its button or label
  return disabled(el) || !visible(el);
}

/** Tabs and navigation buttons: elements that act like navigation without being links. */
function navOf(el: Element, kind: string): string | undefined {
  if (el.getAttribute('role') === 'tab' || el.closest('[role=tablist]')) return 'tab';
  if (NAV_DATA.some((a) => el.hasAttribute(a)) || Array.from(el.classList).some((c) => NAV_CLASS.test(c))) return 'tab';
  if ((kind === 'button' || kind === 'listener' || kind === 'link') && el.closest('nav, [role=navigation]')) return 'nav-button';
  return undefined;
}

/** Inside a control (its parts act through it) or inside an svg without listeners of its own. */
function within(el: Element): boolean {
  // inside an svg: only elements with listeners count (chart bars, map regions)
  if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg' && !marks.get(el)?.size) return true;
  const parentControl = el.parentElement?.closest(SEMANTIC);
  return !!parentControl && parentControl !== el && !(parentControl.tagName === 'LABEL' && el.tagName === 'INPUT');
}

/** The controls of this document, in document order. */
export function enumerate(react: ReactReport | null = null): Array<Record<string, unknown>> {
  const body = document.body;
  if (!body) return [];
  const all = Array.from(body.querySelectorAll('*'));
  reactMarks(all, react);
  const out: Array<Record<string, unknown>> = [];
  const here = new URL(location.href);
  for (const el of all) {
    if (within(el)) continue;
    const tag = el.tagName.toLowerCase();
    const m = marks.get(el);
    const listens = m ? Array.from(m) : [];
    const found = kindOf(el, tag, listens, here);
    if (!found?.kind) continue;
    const { kind, href } = found;
    if (leftOut(el, kind, tag)) continue;
    const nav = found.nav ?? (kind !== 'page-link' ? navOf(el, kind) : undefined);
    out.push({
      kind,
      selector: selectorOf(el),
      tag,
      text: labelOf(el),
      box: docBox(el),
      ...(listens.length ? { listeners: listens.filter((t) => CLICK.includes(t) || KEYS.includes(t) || INPUTS.includes(t)) } : {}),
      ...(href ? { href } : {}),
      ...(nav ? { nav } : {}),
    });
  }
  return out;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
