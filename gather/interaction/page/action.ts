/**
 * Before and after an action, in the probe's isolated world: `prepareStart` fills the form and brings the control
 * into view; the host then lets PREP pass on the page clock (the main-world agent); `prepareEnd` aims and takes
 * the "before" snapshot; after the action `post` compares the state with it. What the page did outside its DOM
 * (dialogs, sound, its reads of fields) is the agent's to report; the host joins the two.
 */
import { fnv, isTextField, selectorOf } from './dom.js';
import { fill } from './fill.js';
import { taggedEl } from './reads.js';
import { describe, normUrl, records, SEP, snapshot, stored } from './snapshots.js';
import { view } from './view.js';

/** What was true just before the action (to tell what the action moved). */
const before = { focus: null as Element | null, scroll: { x: 0, y: 0 } };

/** The control's centre in the viewport, and what covers it there (a person's click would land on that). */
function aim(el: Element): { point: { x: number; y: number }; covered: string | null } {
  const r = el.getBoundingClientRect();
  const x = Math.min(Math.max(r.left + r.width / 2, 1), innerWidth - 2);
  const y = Math.min(Math.max(r.top + r.height / 2, 1), innerHeight - 2);
  const hit = document.elementFromPoint(x, y);
  const lab = (el as HTMLLabelElement).control;
  let covered: string | null = null;
  if (
    hit &&
    hit !== el &&
    !el.contains(hit) &&
    !(lab && (hit === lab || lab.contains(hit))) &&
    !((el as HTMLInputElement).labels && Array.from((el as HTMLInputElement).labels ?? []).some((l) => l.contains(hit)))
  )
    covered = selectorOf(hit);
  return { point: { x, y }, covered };
}

/** Scroll the control to the middle of the viewport when it is not wholly inside it. */
function scrollTo(el: Element): boolean {
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
    return true;
  }
  return false;
}

/** Fill the form (but the target field) and bring the target into view; two real frames pass after a scroll. */
export async function prepareStart(opts: { fill: boolean; target: number | null }) {
  const el = taggedEl(opts.target);
  if (opts.target !== null && !el) return { missing: true, filled: [] as string[] };
  const filled = opts.fill ? fill(el && isTextField(el) ? el : null) : [];
  if (el && scrollTo(el)) await new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
  return { missing: false, filled };
}

/** After PREP: where to act and what covers it there, the "before" snapshot, focus and scroll. */
export function prepareEnd(opts: { target: number | null; exclude: number | null }) {
  const el = taggedEl(opts.target);
  const { point, covered } = el ? aim(el) : { point: null, covered: null };
  snapshot('pre', opts.exclude, false);
  before.focus = document.activeElement;
  before.scroll = { x: scrollX, y: scrollY };
  return { point, covered };
}

type Categories = { dom: string[]; form: string[]; layout: string[]; canvas: string[]; url: string[]; storage: string[] };

/** File a changed element record under the part of it that changed. */
function categorise(cat: Categories, k: string, a: string | undefined, after: string | undefined, versus: boolean): void {
  const d = describe(k);
  if (a === undefined || after === undefined || versus) {
    (after !== undefined && after.endsWith(SEP) === false && after.split(SEP)[3] ? cat.canvas : cat.dom).push(
      `${d}${a === undefined ? ' (added)' : after === undefined ? ' (removed)' : ''}`,
    );
    return;
  }
  const pa = a.split(SEP);
  const pb = after.split(SEP);
  if (pa[0] !== pb[0]) cat.dom.push(d);
  else if (pa[1] !== pb[1]) cat.form.push(d);
  else if (pa[2] !== pb[2]) cat.layout.push(d);
  else cat.canvas.push(d);
}

/** The records that differ from `pre` (or, for paths in `versus`, from the baseline's hash), by category. */
function compare(pre: Map<string, string>, now: Map<string, string>, ignore: string[], versusOf: Record<string, string>): { changed: number; cat: Categories } {
  const ignored = (p: string) => ignore.some((g) => p === g || p.startsWith(g + '.'));
  const cat: Categories = { dom: [], form: [], layout: [], canvas: [], url: [], storage: [] };
  let changed = 0;
  const keys = new Set<string>([...pre.keys(), ...now.keys()]);
  for (const k of keys) {
    if (k === '~count' || ignored(k)) continue;
    const after = now.get(k);
    const versus = Object.prototype.hasOwnProperty.call(versusOf, k);
    const same = versus ? versusOf[k] === (after === undefined ? undefined : fnv(after)) : pre.get(k) === after;
    if (same) continue;
    changed++;
    if (k === '~url') cat.url.push(normUrl(location.href));
    else if (k === '~storage') cat.storage.push('localStorage/sessionStorage/cookies');
    else if (k === '~title') cat.dom.push('document title');
    else if (k === '~rest') cat.dom.push('elements beyond the fingerprint cap');
    else categorise(cat, k, pre.get(k), after, versus);
  }
  return { changed, cat };
}

/** The element the page moved focus to (not the acted-on control or its parts), or null. */
function focusMoved(target: Element | null): string | null {
  const act = document.activeElement;
  if (
    act &&
    act !== document.body &&
    act !== document.documentElement &&
    act !== before.focus &&
    !(target && (target === act || target.contains(act) || ((target as HTMLLabelElement).control ?? null) === act))
  )
    return selectorOf(act);
  return null;
}

/**
 * After an action: differences from the `pre` snapshot (paths in `ignore` skipped; paths in `versus` compared
 * with that baseline's hash instead: they change by themselves), focus moved by the page, scroll, the view.
 */
export function post(opts: { exclude: number | null; acted: number | null; ignore: string[]; versus: Record<string, string> }) {
  const own = taggedEl(opts.exclude);
  const target = taggedEl(opts.acted);
  const pre = stored.pre ?? new Map<string, string>();
  const now = records(own);
  stored.post = now;
  const { changed, cat } = compare(pre, now, opts.ignore, opts.versus);
  const focus = focusMoved(target);
  const scrolled = Math.abs(scrollX - before.scroll.x) > 2 || Math.abs(scrollY - before.scroll.y) > 2;
  return { changed, cat, focus, scrolled, view: view(undefined, [...opts.ignore, ...Object.keys(opts.versus)]) };
}
