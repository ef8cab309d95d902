/**
 * Checking a requirement test's expectations (SPEC "Requirement tests"; docs/requirement-tests.md has the
 * language). What the page's DOM answers (`visible`, `count`, `value`, `box`, `style` ...) is read by the locators
 * in the probe's isolated world (page/index.ts); what the screen shows (`changed: "screen"`, `moving`, `still`,
 * `pixels`, `ocr`, a number read by OCR) from our own capture of the viewport (pixels.ts, ocr.ts); errors from
 * the browser's own reports. Nothing is taken from the page's scripts, and every answer from the page is checked
 * for shape before it is used.
 *
 * Interpretations:
 * - `changed`/`unchanged` compare a sample taken right after the restore (or right after the step named by
 *   `since`) with one taken now: an element's fingerprint, every canvas's pixels, the page's address, element
 *   count and text, or the viewport's pixels (with the anti-aliasing tolerance of pixels.ts). Inside a
 *   `waitUntil`, without `since`, the sample is the one taken when the wait began.
 * - `moving`/`still` take two samples `over` page-clock ms apart (default MOTION_MS) after the steps: the
 *   viewport, the element's box on screen (an element whose box moved has moved, whatever it shows), or the
 *   visible canvases' boxes on screen (a canvas drawn by a worker
 *   through OffscreenCanvas or by WebGL shows there, whether or not its pixels read back). An element off screen
 *   cannot move: the expectation fails, saying so.
 * - `noErrors` counts the uncaught exceptions and rejections from the start of the restore's load (start-up
 *   included) to now; console messages are not errors here.
 * - A number is the first number in the text (`1,234` and `1 234` read as 1234, `−5` as −5); `approx` holds
 *   within `tolerance` (default: 1 % of the compared value, at least 0.5).
 * - `anyOf` holds when one of its expectations holds; each is checked (and reported) in order, stopping at the
 *   first that holds.
 */
import { describeExpectation, describeTarget, type Expectation, type Locator, type Region, type Target } from '../../../core/requirement-tests.js';
import type { RecordedError } from '../window.js';
import { EVAL_MS } from '../probe/limits.js';
import type { ProbeRun } from '../probe/run.js';
import { readText } from './ocr.js';
import {
  clip,
  colourOf,
  crop,
  decode,
  differ,
  dominant,
  hexOf,
  pngOf,
  regionDifference,
  regionIn,
  shareOf,
  COLOUR_TOLERANCE,
  REGION_DIFF_SHARE,
  type Rgb,
} from './pixels.js';

/** Page-clock milliseconds between the two samples of `moving`/`still` by default. */
export const MOTION_MS = 500;

/** A sample for `changed`/`unchanged`: a fingerprint from the page, or the viewport's pixels. */
export type Sample = { hash: string } | { img: Rgb };

/** A test in progress: what its expectations compare with, what it read, what it acted on. */
export interface TestState {
  t0: number;
  /** Unique per test: the page keeps the elements `changed` watches under keys that start with it. */
  key: string;
  /** Samples for `changed`/`unchanged`, by expectation path ("3", "3.2" inside an anyOf, "w5" in a waitUntil). */
  before: Map<string, Sample>;
  /** Numbers read by `read` steps, by name. */
  values: Map<string, number>;
  /** Errors recorded since the restore's load began (start-up included). */
  errors: RecordedError[];
  /** With `baseline`: whether each expectation already held on the restored start state, before any step. */
  atStart?: boolean[];
  steps: Array<{ step: string; ok: boolean; note?: string; skipped?: boolean }>;
  boxes: Array<{ x: number; y: number; width: number; height: number }>;
  /** The viewport captured at the current clock, while nothing moved (dropped by every step and every wait). */
  shot?: Rgb;
}

export type Verdict = { ok: boolean; found: string };

const isRect = (r: unknown): r is { x: number; y: number; width: number; height: number } =>
  !!r && typeof r === 'object' && ['x', 'y', 'width', 'height'].every((k) => typeof (r as Record<string, unknown>)[k] === 'number');

/** The viewport as it shows now (captured once per clock moment). */
export async function screen(run: ProbeRun, st: TestState): Promise<Rgb> {
  st.shot ??= await decode(await run.d.viewportShot(run.bound(EVAL_MS)));
  return st.shot;
}

/** The element's (or the visible canvases') rectangles in the viewport, or null when the locator finds nothing. */
export async function rectsOf(run: ProbeRun, what: Locator | 'canvas'): Promise<Array<{ x: number; y: number; width: number; height: number }> | null> {
  const raw = await run.call<unknown>('tests.rects', [what]);
  if (raw === null) return null;
  return Array.isArray(raw) ? raw.filter(isRect) : null;
}

/** The pixels of a target's rectangles on screen (the whole viewport for "screen"), or why there are none. */
async function pixelsOf(run: ProbeRun, st: TestState, what: Locator | 'canvas' | 'screen', region?: Region): Promise<Rgb[] | string> {
  const img = await screen(run, st);
  const full = { x: 0, y: 0, width: img.width, height: img.height };
  const outer = what === 'screen' ? [full] : await rectsOf(run, what);
  if (!outer || !outer.length) return `${describeTarget(what)} found nothing`;
  const out: Rgb[] = [];
  for (const r of outer) {
    const c = clip(img, regionIn(r, region));
    if (c) out.push(crop(img, c));
  }
  return out.length ? out : `${describeTarget(what)} is not on screen`;
}

/** A sample of a target for `changed`/`unchanged`. */
export async function sample(run: ProbeRun, st: TestState, target: Target, key: string): Promise<Sample> {
  if (target === 'screen') return { img: await screen(run, st) };
  return { hash: String(await run.call<string>('tests.fingerprint', [target, key])) };
}

function compare(was: Sample | undefined, now: Sample): { same: boolean; found: string } {
  if (!was) return { same: true, found: 'no sample to compare with' };
  if ('img' in now) {
    if (!('img' in was)) return { same: false, found: 'changed' };
    const d = differ(was.img, now.img);
    return { same: !d.differ, found: `${d.changed} of ${d.of} pixels changed` };
  }
  const h = 'hash' in was ? was.hash : '';
  return { same: h === now.hash, found: h === now.hash ? 'unchanged' : now.hash === 'absent' ? 'gone' : h === 'absent' ? 'appeared' : 'changed' };
}

/** Every `changed`/`unchanged` expectation in a list (anyOf included), with its path and `since`. */
export function changeExpectations(expect: readonly Expectation[], prefix = ''): Array<{ path: string; target: Target; since?: string }> {
  const out: Array<{ path: string; target: Target; since?: string }> = [];
  expect.forEach((e, k) => {
    const path = `${prefix}${k}`;
    if ('changed' in e) out.push({ path, target: e.changed, ...(e.since ? { since: e.since } : {}) });
    else if ('unchanged' in e) out.push({ path, target: e.unchanged, ...(e.since ? { since: e.since } : {}) });
    else if ('anyOf' in e) out.push(...changeExpectations(e.anyOf, `${path}.`));
  });
  return out;
}

/** Take the samples that compare with `since` (undefined: the start state) for these expectations. */
export async function takeSamples(run: ProbeRun, st: TestState, expect: readonly Expectation[], since: string | undefined, prefix = ''): Promise<void> {
  for (const c of changeExpectations(expect, prefix)) if (c.since === since) st.before.set(c.path, await sample(run, st, c.target, `${st.key}:${c.path}`));
}

/** The first number in a text (module comment), or null. */
export function numberIn(text: string): number | null {
  const m = /[-−]?\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?|[-−]?\d+(?:\.\d+)?/.exec(text.replace(/\u00a0/g, ' '));
  if (!m) return null;
  const n = Number(m[0].replace(/[, ]/g, '').replace('−', '-'));
  return Number.isFinite(n) ? n : null;
}

/** The text of a target: an element's rendered text, or by OCR of its region of the screen. */
export async function textIn(
  run: ProbeRun,
  st: TestState,
  what: Locator | 'screen',
  ocr: boolean,
  region?: Region,
): Promise<{ text: string } | { why: string }> {
  if (!ocr && what !== 'screen') {
    const t = await run.call<unknown>('tests.textOf', [what]);
    return typeof t === 'string' ? { text: t } : { why: `${describeTarget(what)} found nothing` };
  }
  const px = await pixelsOf(run, st, what, region);
  if (typeof px === 'string') return { why: px };
  const texts: string[] = [];
  for (const p of px) texts.push((await readText(await pngOf(p))).text);
  return { text: texts.join('\n') };
}

function errorsFound(errs: readonly RecordedError[]): Verdict {
  const list = errs.filter((x) => x.kind !== 'console');
  return {
    ok: list.length === 0,
    found: list.length
      ? list
          .slice(0, 3)
          .map((x) => x.message.slice(0, 120))
          .join('; ')
      : 'none',
  };
}

/** Where a target's boxes are, rounded (an element that moves across the screen looks the same inside its own box). */
async function placeOf(run: ProbeRun, what: Locator | 'canvas' | 'screen'): Promise<string> {
  if (what === 'screen') return '';
  return ((await rectsOf(run, what)) ?? []).map((r) => [r.x, r.y, r.width, r.height].map(Math.round).join(',')).join(';');
}

async function motion(run: ProbeRun, st: TestState, what: Locator | 'canvas' | 'screen', over: number, want: boolean): Promise<Verdict> {
  const a = await pixelsOf(run, st, what);
  if (typeof a === 'string') return { ok: false, found: a };
  const placeA = await placeOf(run, what);
  await run.advance(over, false);
  st.shot = undefined;
  const b = await pixelsOf(run, st, what);
  if (typeof b === 'string') return { ok: false, found: `${b} after ${over} ms` };
  if (placeA !== (await placeOf(run, what))) return { ok: want, found: `it moved on screen in ${over} ms` };
  let changed = 0;
  let of = 0;
  let moved = false;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = a[i] && b[i] ? differ(a[i]!, b[i]!) : { differ: true, changed: 0, of: 0 };
    changed += d.changed;
    of += d.of;
    if (d.differ) moved = true;
  }
  return { ok: moved === want, found: `${changed} of ${of} pixels changed in ${over} ms` };
}

async function pixels(run: ProbeRun, st: TestState, e: Extract<Expectation, { pixels: unknown }>): Promise<Verdict> {
  const px = await pixelsOf(run, st, e.pixels, e.region);
  if (typeof px === 'string') return { ok: false, found: px };
  const img = px[0]!;
  const tol = e.tolerance ?? COLOUR_TOLERANCE;
  if (e.dominant !== undefined) {
    const want = colourOf(e.dominant)!;
    const d = dominant(img);
    const ok = Math.hypot(d.colour[0] - want[0], d.colour[1] - want[1], d.colour[2] - want[2]) <= tol;
    return { ok, found: `main colour ${hexOf(d.colour)} (${Math.round(d.share * 100)} % of ${img.width}×${img.height})` };
  }
  if (e.color !== undefined) {
    const share = shareOf(img, colourOf(e.color)!, tol);
    return { ok: (e.min === undefined || share >= e.min) && (e.max === undefined || share <= e.max), found: `${e.color} covers ${share.toFixed(3)}` };
  }
  const other = await pixelsOf(run, st, e.pixels, e.differs);
  if (typeof other === 'string') return { ok: false, found: other };
  const share = regionDifference(img, other[0]!);
  return { ok: share > REGION_DIFF_SHARE, found: `${share.toFixed(3)} of the pixels differ` };
}

/** A number a test compares with: a literal, or a name read earlier. */
function refValue(st: TestState, v: number | string): number | undefined {
  return typeof v === 'number' ? v : st.values.get(v);
}

async function numberCheck(run: ProbeRun, st: TestState, e: Extract<Expectation, { number: unknown }>): Promise<Verdict> {
  const t = await textIn(run, st, e.number, e.ocr === true, e.region);
  if ('why' in t) return { ok: false, found: t.why };
  const n = numberIn(t.text);
  if (n === null) return { ok: false, found: `no number in ${JSON.stringify(t.text.slice(0, 80))}` };
  const fails: string[] = [];
  const cmp = (name: string, v: number | string | undefined, ok: (x: number) => boolean) => {
    if (v === undefined) return;
    const x = refValue(st, v);
    if (x === undefined) fails.push(`${v} was never read`);
    else if (!ok(x)) fails.push(`${name} ${x}`);
  };
  cmp('not >', e.gt, (x) => n > x);
  cmp('not <', e.lt, (x) => n < x);
  cmp('not =', e.eq, (x) => n === x);
  cmp('not ≈', e.approx, (x) => Math.abs(n - x) <= (e.tolerance ?? Math.max(0.5, Math.abs(x) * 0.01)));
  const read = [...new Set([e.gt, e.lt, e.eq, e.approx].filter((v): v is string => typeof v === 'string'))].map((v) => `${v} was ${st.values.get(v)}`);
  return { ok: fails.length === 0, found: `${n}${read.length ? ` (${read.join(', ')})` : ''}${fails.length ? `: ${fails.join(', ')}` : ''}` };
}

async function ocrCheck(run: ProbeRun, st: TestState, e: Extract<Expectation, { ocr: string }>): Promise<Verdict> {
  const t = await textIn(run, st, e.in ?? 'screen', true, e.region);
  if ('why' in t) return { ok: false, found: t.why };
  const m = /^\/(.*)\/([a-z]*)$/s.exec(e.ocr);
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const ok = m ? new RegExp(m[1]!, [...new Set(`${m[2]}i`.replace(/[gy]/g, ''))].join('')).test(t.text) : norm(t.text).includes(norm(e.ocr));
  return { ok, found: `read ${JSON.stringify(t.text.replace(/\s+/g, ' ').slice(0, 120))}` };
}

/** Check one expectation on the page as it is now; `path` names its samples. */
export async function checkOne(run: ProbeRun, st: TestState, e: Expectation, path: string): Promise<Verdict> {
  if ('noErrors' in e) return errorsFound(st.errors);
  if ('changed' in e || 'unchanged' in e) {
    const target = 'changed' in e ? e.changed : e.unchanged;
    const c = compare(st.before.get(path), await sample(run, st, target, `${st.key}:${path}`));
    return { ok: 'changed' in e ? !c.same : c.same, found: c.found };
  }
  if ('moving' in e) return motion(run, st, e.moving, e.over ?? MOTION_MS, true);
  if ('still' in e) return motion(run, st, e.still, e.over ?? MOTION_MS, false);
  if ('anyOf' in e) {
    const found: string[] = [];
    for (const [i, sub] of e.anyOf.entries()) {
      const v = await checkOne(run, st, sub, `${path}.${i}`);
      found.push(`${describeExpectation(sub)}: ${v.found}`);
      if (v.ok) return { ok: true, found: found.join(' | ') };
    }
    return { ok: false, found: found.join(' | ') };
  }
  if ('pixels' in e) return pixels(run, st, e);
  if ('number' in e) return numberCheck(run, st, e);
  if ('ocr' in e) return ocrCheck(run, st, e);
  const r = await run.call<unknown>('tests.expect', [e]);
  const o = r as { ok?: unknown; found?: unknown } | null;
  return { ok: o?.ok === true, found: typeof o?.found === 'string' ? o.found : 'no answer from the page' };
}

/** Check every expectation on the page as it is now. */
export async function checkExpectations(
  run: ProbeRun,
  st: TestState,
  expect: readonly Expectation[],
): Promise<Array<{ expect: string; ok: boolean; found: string }>> {
  const out: Array<{ expect: string; ok: boolean; found: string }> = [];
  for (const [k, e] of expect.entries()) {
    const r = await checkOne(run, st, e, String(k));
    out.push({ expect: describeExpectation(e), ok: r.ok, found: r.found });
  }
  return out;
}
