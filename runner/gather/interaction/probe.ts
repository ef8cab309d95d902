/**
 * The interaction probe: uses the page the way a tester would, in its own browser context (sandbox phase
 * `interaction`), and records what every action did. The interaction metrics (metrics/interaction/) and
 * dead-code read its log (core/browser-evidence.ts `InteractionEvidence`).
 *
 * Steps, every one bounded by the probe's deadline (INTERACTION_DEFAULTS.budgetMs, or less when the artifact's
 * budget is shorter) and each action by a per-action timeout:
 * 1. First load (L): load, then SETTLE virtual ms of the page clock (page-script.ts: timers and animation frames
 *    run on a clock the probe moves, so the settle costs only the callbacks' own work). The first view is
 *    measured (render-validity); listeners are listed with CDP `DOMDebugger.getEventListeners` (every element,
 *    window and document); controls are enumerated in document order; the start state is screenshotted. Then
 *    PREP + OBSERVE virtual ms pass without any action: what changes meanwhile changes by itself (a clock, an
 *    animation, a game loop), and the errors raised then are the page's own, not an action's.
 * 2. When the page has empty text fields, a filled baseline (R1): reload, fill them, PREP, OBSERVE. Then a
 *    second baseline (R2), the same as the first: what differs between two identical runs is unstable (it
 *    depends on real time: network timing, a CSS transition in progress) and never counts as an effect.
 * 3. Controls (at most `maxControls`, keyboard first, then document order; with more, that many spread evenly
 *    over document order): for each, the start state is restored (storage and cookies of the origin cleared,
 *    the entry page loaded again, SETTLE), the other empty text fields are filled (not for the keyboard), the
 *    control is scrolled into view if needed, PREP passes (debounced input handlers and scroll reactions happen
 *    before the "before" snapshot), then the action, the mouse moves off the page, OBSERVE passes, the network
 *    goes quiet, and the state is compared with the "before" snapshot (elements, text, attributes, form values,
 *    which elements are rendered and their sizes, canvas pixels, address, storage), except that what changes by
 *    itself is compared with the baseline at the same virtual moment instead, and unstable parts are left out.
 *    Events recorded during the action also count (page-script.ts: dialogs, sound, clipboard, downloads,
 *    popups, file choosers, requests, focus moved by the page, scrolling by the page, the field's value read by
 *    the page's code). A control with none of these is inert.
 * 4. In-app navigation, breadth first: every navigation element (links to other files, fragments, hash routes,
 *    tabs, nav buttons, `#` links in navigation) is tried from the start view (reusing the control's action when
 *    it was acted on), then from each new view reached (up to `navDepth` steps, `maxViews` views and
 *    `maxNavActions` tries), until each led somewhere or every reached view was tried.
 * 5. Coverage (V8 block coverage of every load, coverage.ts), crops of the inert controls, close.
 *
 * Determinism: the page clock, seeded randomness and a fixed start date make two runs of one page go through the
 * same states; the order of controls is fixed; the only source of variation left is real time (a slow machine
 * hitting the budget or a per-action timeout), which the log records (`outcome`, `unavailable.actions`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { BrowserContext } from 'puppeteer-core';
import type { Artifact } from '../../../core/artifact/model.js';
import type {
  ControlKind,
  FirstView,
  InteractionAction,
  InteractionControl,
  InteractionEffect,
  InteractionError,
  InteractionEvidence,
  InteractionSettings,
  InteractionView,
  NavigationLog,
  NavigationResult,
  NavKind,
  Screenshot,
} from '../../../core/browser-evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { requestPath } from '../server.js';
import { TimeoutError, withTimeout } from '../session.js';
import { ProbeDriver, type RecordedError, type Window } from './driver.js';
import type { ProbeConfig } from './page-script.js';

/** The probe's defaults (README "Interaction probe" has the measurements behind them). */
export const INTERACTION_DEFAULTS = {
  /** Controls acted on at most (the keyboard counts as one). */
  maxControls: 40,
  /** Real milliseconds one action may take, its reload included. */
  actionTimeoutMs: 4000,
  /** Real milliseconds the whole probe may take (less when the artifact's budget is shorter). */
  budgetMs: 15_000,
  /** Virtual milliseconds (page clock) after load, before each action, after each action. */
  settleMs: 1000,
  prepMs: 300,
  observeMs: 1000,
  /** Navigation: steps from the start view, distinct views, tries beyond the control actions. */
  navDepth: 2,
  maxViews: 12,
  maxNavActions: 24,
} as const;

export const FIRST_LOAD_TIMEOUT_MS = 15_000;
export const RELOAD_TIMEOUT_MS = 5_000;
export const NETWORK_QUIET_CAP_MS = 1500;
export const SCREENSHOT_CAP_PX = 4000;
/** A page that hangs this many times during actions is given up. */
export const MAX_HANGS = 2;
const EVAL_MS = 3000;
/**
 * Real milliseconds kept from the probe's budget for finishing: the last coverage read, closing the page, the
 * crops and closing the context. The steps run against the budget minus this, so the whole probe, its browser
 * context included, stays within its budget.
 */
export const FINISH_RESERVE_MS = 1500;

export const PROBE_CONFIG: ProbeConfig = {
  epochMs: Date.UTC(2026, 0, 15, 9, 0, 0),
  seed: 20260115,
  frameMs: 16,
  maxFires: 5000,
  maxAdvanceRealMs: 1500,
  maxElements: 4000,
};

export interface ProbeOptions {
  /** performance.now() by which the probe must be over. */
  deadline: number;
  /** performance.now() when the probe's work began (its browser context created): the budget counts from here. */
  started?: number;
  /** At most this long for the first load's load event (default FIRST_LOAD_TIMEOUT_MS). */
  firstLoadMs?: number;
  settings?: Partial<Omit<InteractionSettings, 'restore'>>;
}

/** Which kinds keep their own state out of the comparison (what the action does to the control itself is ours). */
const OWN_STATE: ReadonlySet<ControlKind> = new Set(['text', 'toggle', 'select', 'range', 'value', 'file']);
const VALUE_KINDS = OWN_STATE;

// -----------------------------------------------------------------------------------------------------------
// Sample files for file inputs and file choosers.

let samples: string | undefined;
function sampleDir(): string {
  if (samples) return samples;
  const dir = mkdtempSync(join(tmpdir(), 'webgrade-probe-files-'));
  // 4×4 PNG (red, green, blue, white quarters), generated once.
  writeFileSync(join(dir, 'sample.png'), Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAHUlEQVR4nGP4z8DwHwyBDAYGBgZGRgYGJgYGBgBCIAQBJ2dDeAAAAABJRU5ErkJggg==', 'base64'));
  writeFileSync(join(dir, 'sample.txt'), 'webgrade sample text\nsecond line\n');
  writeFileSync(join(dir, 'sample.csv'), 'name,value\nalpha,1\nbeta,2\n');
  writeFileSync(join(dir, 'sample.json'), '{"name": "sample", "values": [1, 2, 3]}\n');
  samples = dir;
  return dir;
}

/** The sample file for an `accept` attribute. */
export function sampleFile(accept: string): string {
  const a = accept.toLowerCase();
  const dir = sampleDir();
  if (/image|\.png|\.jpe?g|\.gif|\.webp|\.svg/.test(a)) return join(dir, 'sample.png');
  if (/csv/.test(a)) return join(dir, 'sample.csv');
  if (/json/.test(a)) return join(dir, 'sample.json');
  return join(dir, 'sample.txt');
}

// -----------------------------------------------------------------------------------------------------------
// Keys a document-level key listener tests.

const KEY_CODES: Record<number, string> = { 13: 'Enter', 32: ' ', 37: 'ArrowLeft', 38: 'ArrowUp', 39: 'ArrowRight', 40: 'ArrowDown', 27: 'Escape' };
const NAMED = ['Enter', ' ', 'Space', 'ArrowLeft', 'ArrowUp', 'ArrowRight', 'ArrowDown', 'Escape', 'Esc', 'Backspace', 'Delete', 'Tab', 'Home', 'End', 'PageUp', 'PageDown'];
export const DEFAULT_KEYS = ['Enter', ' ', 'ArrowUp', 'ArrowRight', 'ArrowDown', 'ArrowLeft'];
const KEY_ORDER = (k: string) => (k === ' ' ? 0 : k === 'Enter' ? 1 : k.startsWith('Arrow') ? 2 : 3);

/**
 * The keys a listener's source tests (`key === 'ArrowUp'`, `case 'w':`, `code === 'KeyW'`, `keyCode === 37`),
 * Space and Enter first, then arrows, then the rest; at most 8. Empty when none is named.
 */
export function keysOf(sources: readonly string[]): string[] {
  const found = new Set<string>();
  for (const src of sources) {
    for (const m of src.matchAll(/['"`](Arrow(?:Up|Down|Left|Right)|Enter|Escape|Esc|Backspace|Delete|Tab|Home|End|PageUp|PageDown|Space| )['"`]/g)) found.add(m[1] === 'Space' ? ' ' : m[1] === 'Esc' ? 'Escape' : m[1]!);
    for (const m of src.matchAll(/\b(?:key|code)\s*(?:===?|!==?)\s*['"`]([^'"`]{1,12})['"`]/gi)) found.add(normaliseKey(m[1]!));
    for (const m of src.matchAll(/\bcase\s+['"`]([^'"`]{1,12})['"`]\s*:/g)) found.add(normaliseKey(m[1]!));
    for (const m of src.matchAll(/\b(?:keyCode|which)\s*(?:===?|!==?)\s*(\d{1,3})\b/g)) {
      const n = Number(m[1]);
      if (KEY_CODES[n]) found.add(KEY_CODES[n]!);
      else if (n >= 65 && n <= 90) found.add(String.fromCharCode(n + 32));
      else if (n >= 48 && n <= 57) found.add(String.fromCharCode(n));
    }
  }
  const keys = [...found].filter((k) => NAMED.includes(k) || /^[a-z0-9]$/i.test(k));
  return keys.sort((a, b) => KEY_ORDER(a) - KEY_ORDER(b) || a.localeCompare(b)).slice(0, 8);
}

function normaliseKey(k: string): string {
  if (k === 'Space' || k === 'Spacebar') return ' ';
  if (k === 'Esc') return 'Escape';
  const code = /^Key([A-Z])$/.exec(k);
  if (code) return code[1]!.toLowerCase();
  const digit = /^Digit(\d)$/.exec(k);
  if (digit) return digit[1]!;
  return k;
}

const keyName = (k: string) => (k === ' ' ? 'Space' : k);

// -----------------------------------------------------------------------------------------------------------

interface RawControl {
  kind: ControlKind;
  selector: string;
  tag: string;
  text: string;
  box: InteractionControl['box'];
  listeners?: string[];
  href?: string;
  nav?: NavKind;
}

interface PrepareResult {
  missing: boolean;
  point?: { x: number; y: number } | null;
  covered?: string | null;
  filled?: string[];
  storm?: boolean;
}

interface PostResult {
  changed: number;
  cat: { dom: string[]; form: string[]; layout: string[]; canvas: string[]; url: string[]; storage: string[] };
  events: Record<string, string[]>;
  focus: string | null;
  scrolled: boolean;
  reads: number[];
  view: InteractionView;
}

/** A baseline: the snapshot records (path → hash) before and after OBSERVE without an action, and its errors. */
interface Baseline {
  before: Record<string, string>;
  after: Record<string, string>;
  /** Paths that changed by themselves between `before` and `after`. */
  spontaneous: string[];
  errors: InteractionError[];
  view: InteractionView;
}

const differing = (a: Record<string, string>, b: Record<string, string>): string[] => {
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (k !== '~count' && a[k] !== b[k]) out.push(k);
  return out;
};

/** Drop paths whose ancestor is already listed. */
function topmost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const p of sorted) if (!out.some((q) => p === q || p.startsWith(q + '.'))) out.push(p);
  return out.sort();
}

const plain = (e: RecordedError): InteractionError => ({ kind: e.kind, message: e.message });

/** `a` minus the errors of `b` (as a multiset by kind and message). */
function minusErrors(a: readonly InteractionError[], b: readonly InteractionError[]): InteractionError[] {
  const left = new Map<string, number>();
  for (const e of b) left.set(`${e.kind}\n${e.message}`, (left.get(`${e.kind}\n${e.message}`) ?? 0) + 1);
  const out: InteractionError[] = [];
  for (const e of a) {
    const k = `${e.kind}\n${e.message}`;
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else out.push(e);
  }
  return out;
}

class OutOfBudget extends Error {}

/**
 * Probe the artifact served at `entryUrl` in `context` (a sandbox context of phase `interaction`). Never throws
 * for page faults (they are in the evidence); throws only when the browser itself is unusable.
 */
export async function probeInteraction(context: BrowserContext, artifact: Artifact, origin: string, entryUrl: string, opts: ProbeOptions): Promise<InteractionEvidence> {
  const t0 = performance.now();
  const settings: InteractionSettings = { ...INTERACTION_DEFAULTS, ...opts.settings, restore: 'reload of the entry page with the origin\'s storage and cookies cleared' };
  const hardDeadline = Math.min(opts.deadline, (opts.started ?? t0) + settings.budgetMs);
  const deadline = hardDeadline - FINISH_RESERVE_MS;
  const left = () => deadline - performance.now();
  const timings: Record<string, number> = {};
  const faults: string[] = [];
  const unavailable: Record<string, string> = {};
  const ev: InteractionEvidence = { settings, controls: [], actions: [], navigation: { views: [], links: [], untried: [] }, loadErrors: [], filled: [], timings, faults, unavailable };
  const mark = (name: string, since: number) => (timings[name] = (timings[name] ?? 0) + Math.round(performance.now() - since));

  let d = new ProbeDriver(context, origin, PROBE_CONFIG, sampleFile);
  await d.open();
  /** An action was cut by the budget while the page may still be running its handler. */
  let busy = false;
  const bound = (ms: number) => Math.max(1, Math.min(ms, left()));
  const call = <T>(fn: string, args: unknown[], ms = EVAL_MS) => {
    if (left() <= 0) throw new OutOfBudget('the probe\'s time budget is used up');
    return d.call<T>(fn, args, bound(ms));
  };
  const settle = async () => {
    await d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, left()));
    await call('advance', [settings.settleMs]);
    await d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, left()));
  };
  let selectors: Array<string | null> = [];
  /** Paths left out of every view (they change by themselves or are unstable). */
  let ignoreInViews: string[] = [];
  /** The view after each control's action (navigation reuses it). */
  const viewAfter = new Map<number, InteractionView>();

  /** Restore the start state: storage cleared, the entry page loaded again and settled, controls tagged. */
  let firstLoadTimedOut = false;
  const restore = async (url = entryUrl, tagSelectors: Array<string | null> = selectors): Promise<{ missing: number[]; status?: number }> => {
    const t = performance.now();
    await d.takeCoverage(bound(EVAL_MS)).catch(() => undefined);
    // localStorage and sessionStorage are cleared by the page script; the rest through the browser, when used.
    const deep = await d.call<boolean>('clearSession', [], bound(1000)).catch(() => true);
    if (deep) await withTimeout(d.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'cookies,local_storage,indexeddb,websql,cache_storage,service_workers,file_systems' }), bound(EVAL_MS), 'clear storage').catch(() => undefined);
    const nav = await d.navigate(url, bound(firstLoadTimedOut ? 2000 : RELOAD_TIMEOUT_MS));
    if (nav.error) throw new Error(`reload failed: ${nav.error}`);
    await settle();
    const missing = await call<number[]>('tag', [tagSelectors]);
    mark('restore', t);
    return nav.status !== undefined ? { missing, status: nav.status } : { missing };
  };

  try {
    // 1. First load.
    const tl = performance.now();
    let nav: Awaited<ReturnType<ProbeDriver['navigate']>>;
    try {
      nav = await d.navigate(entryUrl, bound(opts.firstLoadMs ?? FIRST_LOAD_TIMEOUT_MS));
    } catch (err) {
      throw new Error(`the first load failed: ${errorMessage(err)}`);
    }
    if (nav.error) throw new Error(`the first load failed: ${nav.error}`);
    if (!nav.loaded) {
      firstLoadTimedOut = true;
      faults.push('the load event did not fire within the first load\'s timeout; actions reload without waiting for it');
    }
    try {
      await d.eval('1', bound(2000), 'responsiveness probe');
      await settle();
    } catch (err) {
      if (err instanceof OutOfBudget) throw err;
      const why = err instanceof TimeoutError ? 'the page did not respond after load (busy main thread)' : `the page could not be probed: ${errorMessage(err)}`;
      unavailable.firstView = why;
      ev.hung = true;
      faults.push(why);
      mark('firstLoad', tl);
      return ev;
    }
    ev.firstView = await call<FirstView>('firstView', []);
    ev.firstView.loaded = nav.loaded && ev.firstView.loaded;
    ev.loadErrors = d.allErrors.map(plain);
    mark('firstLoad', tl);

    const te = performance.now();
    let keySources: string[] = [];
    try {
      keySources = (await d.listeners(bound(EVAL_MS))).documentKeys;
    } catch (err) {
      if (err instanceof OutOfBudget) throw err;
      faults.push(`listeners could not be listed: ${errorMessage(err)}`);
    }
    const raw = await call<RawControl[]>('enumerate', []);
    const controls: InteractionControl[] = [];
    if (keySources.length) {
      const named = keysOf(keySources);
      const onlyDismiss = named.length > 0 && named.every((k) => k === 'Escape' || k === 'Tab');
      if (!onlyDismiss) controls.push({ index: 0, kind: 'keyboard', selector: 'document', tag: 'document', text: 'key listeners on the page', keys: named.length ? named : DEFAULT_KEYS, acted: false });
      else faults.push('the page\'s key listeners only test Escape/Tab: nothing to dismiss in the start state, not acted on');
    }
    for (const r of raw) controls.push({ index: controls.length, ...r, ...(r.box ? {} : {}), acted: false });
    ev.controls = controls;
    selectors = controls.map((c) => (c.kind === 'keyboard' ? null : c.selector));
    const actable = controls.filter((c) => c.kind !== 'page-link');
    const chosen = actable.length <= settings.maxControls ? actable : Array.from({ length: settings.maxControls }, (_, i) => actable[Math.floor((i * actable.length) / settings.maxControls)]!);
    for (const c of chosen) c.acted = true;
    mark('enumerate', te);

    const ts = performance.now();
    try {
      const shot = await d.screenshot(SCREENSHOT_CAP_PX, bound(EVAL_MS));
      ev.screenshot = { png: shot.png, width: shot.width, height: shot.height, deviceScaleFactor: 1, truncated: shot.truncated } satisfies Screenshot;
    } catch (err) {
      if (err instanceof OutOfBudget) throw err;
      unavailable.screenshot = `screenshot failed: ${errorMessage(err)}`;
    }
    mark('screenshot', ts);

    // The unfilled baseline: L goes on without an action.
    const tb = performance.now();
    await call('tag', [selectors]);
    const baseline = async (fill: boolean, reload: boolean): Promise<Baseline> => {
      if (reload) await restore();
      const w = d.startWindow();
      const prep = await call<PrepareResult>('prepare', [{ fill, target: null, exclude: null, prepMs: settings.prepMs, frames: false }]);
      if (fill && prep.filled) ev.filled = prep.filled;
      const fillErrors = w.errors.map(plain);
      const before = await call<Record<string, string>>('snapshot', ['A', null, true]);
      const w2 = d.startWindow();
      await call('advance', [settings.observeMs]);
      await d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, left()));
      const after = await call<Record<string, string>>('snapshot', ['B', null, true]);
      if (fill && fillErrors.length) ev.fillErrors = fillErrors;
      return { before, after, spontaneous: differing(before, after), errors: w2.errors.map(plain), view: undefined as unknown as InteractionView };
    };
    const plainBase = await baseline(false, false);
    // A filled baseline when the page has a text field (buttons act on a filled form), and a second run of
    // the same to find what is unstable. The views are read at the end of that second run, leaving out what
    // changes by itself or is unstable.
    const needFill = raw.some((c) => c.kind === 'text') && chosen.some((c) => c.kind !== 'keyboard');
    const filledBase = needFill ? await baseline(true, true) : plainBase;
    const twin = await baseline(needFill, true);
    const ref = needFill ? filledBase : plainBase;
    const unstable = topmost([...differing(ref.before, twin.before), ...differing(ref.after, twin.after)]);
    if (unstable.length) ev.unstable = unstable.slice(0, 50);
    ignoreInViews = topmost([...unstable, ...plainBase.spontaneous.filter((p) => !p.startsWith('~')), ...ref.spontaneous.filter((p) => !p.startsWith('~'))]);
    ref.view = await call<InteractionView>('view', [null, ignoreInViews]);
    if (plainBase !== ref) plainBase.view = ref.view;
    ev.navigation.startView = ref.view;
    mark('baselines', tb);

    // 3. Controls.
    const readsOf = new Map<number, Set<number>>();
    let hangs = 0;
    const ta = performance.now();
    const runAction = async (c: InteractionControl): Promise<InteractionAction> => {
      const t = performance.now();
      const a: InteractionAction = { control: c.index, action: actionName(c), outcome: 'done', effects: [], errors: [], ms: 0 };
      const base = c.kind === 'keyboard' ? plainBase : ref;
      const exclude = OWN_STATE.has(c.kind) ? c.index : null;
      const { missing } = await restore();
      if (c.kind !== 'keyboard' && missing.includes(c.index)) {
        a.outcome = 'not-found';
        a.note = 'not found after the reload';
        return a;
      }
      const prep = await call<PrepareResult>('prepare', [{ fill: c.kind !== 'keyboard', target: c.kind === 'keyboard' ? null : c.index, exclude, prepMs: settings.prepMs, frames: false }]);
      if (prep.missing) {
        a.outcome = 'not-found';
        a.note = 'not found after the reload';
        return a;
      }
      if (prep.covered) a.note = `covered by ${prep.covered}`;
      const since = performance.now();
      const w = d.startWindow();
      a.action = await act(c, prep.point ?? null);
      let post: PostResult | null = null;
      let navigated: { url: string; status?: number; view?: InteractionView } | null = null;
      try {
        await call('advance', [settings.observeMs]);
      } catch (err) {
        if (!w.documents.length) throw err;
      }
      await d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, left()), since);
      if (w.documents.length) {
        navigated = await afterNavigation(w);
      } else {
        post = await call<PostResult>('post', [{ exclude, acted: c.kind === 'keyboard' ? null : c.index, ignore: unstable, versus: versus(base) }]);
      }
      a.effects = effectsOf(c, w, post, navigated, base);
      if (post && c.nav) {
        // The view a navigation element leads to is read with the mouse off the page (a hover menu is not a view).
        await d.mouseOut().catch(() => undefined);
        await call('advance', [0]);
        post.view = await call<InteractionView>('view', [null, ignoreInViews]);
      }
      if (post) {
        a.view = post.view.key;
        viewAfter.set(c.index, post.view);
        for (const r of post.reads) {
          const s = readsOf.get(r) ?? new Set<number>();
          s.add(c.index);
          readsOf.set(r, s);
        }
      } else if (navigated?.view) {
        a.view = navigated.view.key;
        viewAfter.set(c.index, navigated.view);
      }
      a.errors = minusErrors(w.errors.filter((e) => !blockedLine(e)).map(plain), base.errors);
      if (w.refused.length) a.refused = [...new Set(w.refused)].slice(0, 20);
      a.ms = Math.round(performance.now() - t);
      return a;
    };

    /** After a navigation during an action: wait for the new document, settle it, and read its view. */
    const afterNavigation = async (w: Window): Promise<{ url: string; status?: number; view?: InteractionView }> => {
      const last = w.documents[w.documents.length - 1]!;
      const status = d.statusOfLoader(last.loaderId);
      const out: { url: string; status?: number; view?: InteractionView } = { url: last.url, ...(status !== undefined ? { status } : {}) };
      try {
        await withTimeout(
          (async () => {
            for (let i = 0; i < 50; i++) {
              const ready = await d.eval<string>('document.readyState', bound(1000), 'ready state').catch(() => 'loading');
              if (ready === 'complete') break;
              await new Promise((r) => setTimeout(r, 20));
            }
          })(),
          bound(RELOAD_TIMEOUT_MS),
          'navigation load',
        );
        const hasProbe = await d.eval<boolean>('!!window.__wgProbe', bound(1000), 'probe present');
        if (hasProbe) {
          await settle();
          out.view = await call<InteractionView>('view', [status]);
        }
      } catch {
        /* a document we cannot read (an error page, a download): its status says what it was */
      }
      return out;
    };

    const act = async (c: InteractionControl, point: { x: number; y: number } | null): Promise<string> => {
      switch (c.kind) {
        case 'keyboard': {
          await call('blur', []);
          for (const k of c.keys ?? DEFAULT_KEYS) {
            await d.press(k);
            await call('advance', [100]);
          }
          return `keys ${(c.keys ?? DEFAULT_KEYS).map(keyName).join(' ')}`;
        }
        case 'text': {
          const value = await call<string>('fillValue', [c.index]);
          if (point) await d.click(point.x, point.y);
          await d.type(value);
          await d.press('Enter');
          // Then the field loses focus, as when a person clicks elsewhere: a textarea's change event (Enter adds
          // a line there) and blur handlers fire.
          await call('blur', []);
          return `type ${JSON.stringify(value)} + Enter`;
        }
        case 'select': {
          const chosenOption = await call<string | null>('selectOther', [c.index]);
          return chosenOption === null ? 'select (no other option)' : `select ${JSON.stringify(chosenOption)}`;
        }
        case 'range': {
          if (point) await d.click(point.x, point.y);
          await d.press('ArrowRight');
          return 'click + ArrowRight';
        }
        case 'value': {
          const v = await call<string | null>('setOwnValue', [c.index]);
          return `set ${JSON.stringify(v)}`;
        }
        case 'file': {
          if (c.tag === 'input') {
            const f = await d.setFiles(c.index, '', bound(EVAL_MS));
            return `choose ${f.split('/').pop()}`;
          }
          if (point) await d.click(point.x, point.y);
          return 'click';
        }
        case 'listener': {
          const ls = c.listeners ?? [];
          const clicky = ls.some((l) => l !== 'dblclick' && !/^key/.test(l) && l !== 'input' && l !== 'change');
          if (!clicky && ls.includes('dblclick')) {
            if (point) await d.click(point.x, point.y, 2);
            return 'double click';
          }
          if (!clicky && ls.some((l) => /^key/.test(l))) {
            if (point) await d.click(point.x, point.y);
            await d.press('Enter');
            return 'click + Enter';
          }
          if (point) await d.click(point.x, point.y);
          return 'click';
        }
        default:
          if (point) await d.click(point.x, point.y);
          return 'click';
      }
    };

    for (const c of chosen) {
      if (left() < Math.min(settings.actionTimeoutMs, 1500)) {
        unavailable.actions = `the probe's time budget ran out: ${chosen.length - ev.actions.length} of ${chosen.length} controls not acted on`;
        break;
      }
      let a: InteractionAction;
      const t = performance.now();
      const limit = bound(settings.actionTimeoutMs);
      try {
        a = await withTimeout(runAction(c), limit, `action on ${c.selector}`);
      } catch (err) {
        a = { control: c.index, action: actionName(c), outcome: 'failed', note: errorMessage(err).slice(0, 200), effects: [], errors: [], ms: Math.round(performance.now() - t) };
        // Cut short by the probe's budget, not by the per-action timeout: not a slow or hung page, left out.
        // So is a timeout with too little of the budget left to tell a slow page from a hung one fairly.
        const budgetCut = err instanceof TimeoutError && (limit < settings.actionTimeoutMs || left() + FINISH_RESERVE_MS < 1500 + 700);
        if (err instanceof OutOfBudget || budgetCut) {
          if (budgetCut) {
            busy = true;
            a.note = `the probe's time budget ran out during this action (after ${Math.round(performance.now() - t)} ms)`;
            ev.actions.push(a);
          }
          unavailable.actions = `the probe's time budget ran out: ${chosen.length - ev.actions.length + (budgetCut ? 1 : 0)} of ${chosen.length} controls not acted on`;
          break;
        }
        if (err instanceof TimeoutError) {
          // The reserve for finishing may pay for this check: a page is not called hung on a shorter wait.
          const alive = await d.eval('1', 1500, 'responsiveness').then(
            () => true,
            () => false,
          );
          a.outcome = alive ? 'timeout' : 'hung';
          if (!alive) {
            hangs++;
            a.errors.push({ kind: 'exception', message: 'the page stopped responding after this action' });
            // A hung renderer: its script stopped, a new page (same context) for the next action.
            await withTimeout(d.cdp.send('Runtime.terminateExecution'), 300, 'terminate').catch(() => undefined);
            // Without the time for a new page, the stopped one stays (the finish reads its coverage and closes it).
            const renew = left() >= 1500;
            if (renew) {
              await d.close().catch(() => undefined);
              d = new ProbeDriver(context, origin, PROBE_CONFIG, sampleFile);
              await d.open();
            }
            if (hangs >= MAX_HANGS || !renew || left() < 1500) {
              ev.actions.push(a);
              unavailable.actions = hangs >= MAX_HANGS ? `the page stopped responding after ${hangs} actions: the rest were not acted on` : `the probe's time budget ran out after the page stopped responding: ${chosen.length - ev.actions.length} of ${chosen.length} controls not acted on`;
              break;
            }
          }
        }
      }
      ev.actions.push(a);
    }
    // A second chance: a control inert from the start state (an already selected tab, Undo with no history,
    // Clear with nothing to clear) is tried once more right after another control acted: a live sibling in its
    // group (same parent), else the nearest live control before it, else after it.
    const live = (i: number) => ev.actions.some((x) => x.control === i && x.outcome === 'done' && x.effects.length > 0);
    const parentOf = (sel: string) => sel.replace(/ > [^>]+$/, '');
    // A sibling that was itself live only right after another control (a game's direction buttons, live once Start
    // was pressed) hands on that control: the siblings need the same state.
    const precursor = (c: InteractionControl): InteractionControl | undefined => {
      const pool = chosen.filter((x) => x !== c && x.kind !== 'keyboard' && live(x.index));
      const p =
        pool.find((x) => x.tag === c.tag && parentOf(x.selector) === parentOf(c.selector) && x.selector.includes(' > ') && c.selector.includes(' > ')) ??
        pool.find((x) => x.tag === c.tag && x.nav !== undefined && x.nav === c.nav) ??
        [...pool].reverse().find((x) => x.index < c.index) ??
        pool.find((x) => x.index > c.index);
      const via = p ? ev.actions.find((x) => x.control === p.index)?.after : undefined;
      return via !== undefined && via !== c.index ? controls[via] : p;
    };
    const tc2 = performance.now();
    const everIgnored = topmost([...unstable, ...plainBase.spontaneous, ...ref.spontaneous]);
    let outOfBudget = false;
    for (const a of [...ev.actions]) {
      const c = controls[a.control]!;
      if (a.outcome !== 'done' || a.effects.length || c.kind === 'keyboard') continue;
      const p = precursor(c);
      if (!p) continue;
      if (outOfBudget || left() < settings.actionTimeoutMs) {
        if (!outOfBudget) faults.push('the probe\'s time budget ran out before every inert control had its second chance');
        outOfBudget = true;
        a.undecided = `inert from the start state; the probe's time budget ran out before its second chance (after ${describeControl(p)})`;
        continue;
      }
      try {
        const second = await withTimeout(
          (async () => {
            await restore();
            const pp = await call<PrepareResult>('prepare', [{ fill: true, target: p.index, exclude: OWN_STATE.has(p.kind) ? p.index : null, prepMs: 0, frames: false }]);
            if (pp.missing) return null;
            const w0 = d.startWindow();
            await act(p, pp.point ?? null);
            await call('advance', [settings.observeMs]);
            await d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, left()));
            if (w0.documents.length) return null;
            await call('tag', [selectors]);
            const exclude = OWN_STATE.has(c.kind) ? c.index : null;
            const prep = await call<PrepareResult>('prepare', [{ fill: false, target: c.index, exclude, prepMs: settings.prepMs, frames: false }]);
            if (prep.missing) return null;
            const since = performance.now();
            const w = d.startWindow();
            await act(c, prep.point ?? null);
            try {
              await call('advance', [settings.observeMs]);
            } catch (err) {
              if (!w.documents.length) throw err;
            }
            await d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, left()), since);
            const navigated = w.documents.length ? await afterNavigation(w) : null;
            const post = navigated ? null : await call<PostResult>('post', [{ exclude, acted: c.index, ignore: everIgnored, versus: {} }]);
            return { effects: effectsOf(c, w, post, navigated, ref), errors: minusErrors(w.errors.filter((e) => !blockedLine(e)).map(plain), ref.errors), refused: w.refused };
          })(),
          bound(settings.actionTimeoutMs),
          `second chance for ${c.selector}`,
        );
        if (second && second.effects.length) {
          a.effects = second.effects;
          a.after = p.index;
          a.note = [a.note, `inert from the start state; it responded right after ${describeControl(p)} acted`].filter(Boolean).join('; ');
          for (const e of second.errors) if (!a.errors.some((x) => x.message === e.message)) a.errors.push(e);
          if (second.refused.length) a.refused = [...new Set([...(a.refused ?? []), ...second.refused])];
        }
      } catch (err) {
        if (err instanceof OutOfBudget) {
          outOfBudget = true;
          a.undecided = `inert from the start state; the probe's time budget ran out during its second chance (after ${describeControl(p)})`;
          continue;
        }
        faults.push(`second chance for ${c.selector}: ${errorMessage(err)}`);
        a.undecided = `inert from the start state; its second chance (after ${describeControl(p)}) failed: ${errorMessage(err)}`;
      }
    }
    mark('secondChance', tc2);

    // The value of a field read by the page's code while some action was observed: it feeds something.
    for (const a of ev.actions) {
      const c = controls[a.control]!;
      if (!VALUE_KINDS.has(c.kind)) continue;
      const by = readsOf.get(c.index);
      if (!by) continue;
      const names = [...by].map((i) => (i === c.index ? 'its own listener' : describeControl(controls[i]!)));
      a.effects.push({ kind: 'value-read', detail: `read by the page when acting on ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}` });
    }
    mark('actions', ta);

    // 4. Navigation.
    const tn = performance.now();
    await navigate(ev, controls, ref.view, viewAfter, {
      restore,
      call,
      driver: () => d,
      left,
      settings,
      afterNavigation,
      act,
      ignore: () => ignoreInViews,
      entryUrl,
      listeners: async () => {
        await d.listeners(bound(EVAL_MS));
      },
    }).catch((err) => {
      if (err instanceof OutOfBudget) ev.navigation.truncated = 'the probe\'s time budget ran out';
      else faults.push(`navigation check failed: ${errorMessage(err)}`);
    });
    mark('navigation', tn);
  } catch (err) {
    if (err instanceof OutOfBudget) unavailable.actions ??= 'the probe\'s time budget ran out';
    else faults.push(errorMessage(err));
  } finally {
    const tc = performance.now();
    // A handler still running (cut by the budget) would hold up the coverage read and the page's closing: stop it.
    if (busy) await withTimeout(d.cdp.send('Runtime.terminateExecution'), 300, 'terminate').catch(() => undefined);
    await d.takeCoverage(Math.max(300, Math.min(EVAL_MS, left() + FINISH_RESERVE_MS - 700))).catch(() => undefined);
    const js = d.coverage.entries((url) => {
      if (!url.startsWith(origin + '/')) return null;
      const file = requestPath(url.slice(origin.length));
      if (file === null) return null;
      const f = artifact.files.find((x) => x.path === (file === '' ? artifact.entry : file));
      return f ? { file: f.path, html: f.kind === 'html' } : null;
    });
    if (js.length || ev.firstView) ev.coverage = { js };
    mark('coverage', tc);
    await d.close().catch((err) => faults.push(errorMessage(err)));
  }
  // Crops of the controls where nothing was seen.
  const tcrop = performance.now();
  if (ev.screenshot) {
    for (const a of ev.actions) {
      const c = ev.controls[a.control]!;
      if (a.outcome !== 'done' || a.effects.length || !c.box) continue;
      const crop = await cropAround(ev.screenshot, c.box).catch(() => null);
      if (crop) a.crop = crop;
    }
  }
  mark('crops', tcrop);
  timings.total = Math.round(performance.now() - t0);
  if (!Object.keys(unavailable).length) delete ev.unavailable;
  return ev;

  function versus(base: Baseline): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of base.spontaneous) out[p] = base.after[p] ?? '-';
    return out;
  }
}

/** The evidence of a page that was not probed because it does not answer. */
export function unresponsiveEvidence(reason: string): InteractionEvidence {
  return {
    settings: { ...INTERACTION_DEFAULTS, restore: 'reload of the entry page with the origin\'s storage and cookies cleared' },
    controls: [],
    actions: [],
    navigation: { views: [], links: [], untried: [] },
    loadErrors: [],
    filled: [],
    timings: {},
    faults: [reason],
    unavailable: { firstView: reason },
    hung: true,
  };
}

/** What `act` does for a kind (before it is done; the log says exactly). */
function actionName(c: InteractionControl): string {
  switch (c.kind) {
    case 'keyboard':
      return `keys ${(c.keys ?? DEFAULT_KEYS).map(keyName).join(' ')}`;
    case 'text':
      return 'type + Enter';
    case 'select':
      return 'select another option';
    case 'range':
      return 'click + ArrowRight';
    case 'value':
      return 'set a value';
    case 'file':
      return 'choose a file';
    default:
      return 'click';
  }
}

function describeControl(c: InteractionControl): string {
  return c.text ? `"${c.text.slice(0, 30)}"` : c.selector;
}

/** A "Failed to load resource" line about a request the sandbox refused (webgrade's doing, not the page's). */
function blockedLine(e: RecordedError): boolean {
  return e.kind === 'console' && !!e.url && /^Failed to load resource/.test(e.message) && /status of 403/.test(e.message);
}

function effectsOf(c: InteractionControl, w: Window, post: PostResult | null, navigated: { url: string; status?: number; view?: InteractionView } | null, base: Baseline): InteractionEffect[] {
  const out: InteractionEffect[] = [];
  const list = (xs: string[]) => `${xs.slice(0, 3).join(', ')}${xs.length > 3 ? ` and ${xs.length - 3} more` : ''}`;
  if (post) {
    const { cat } = post;
    if (cat.dom.length) out.push({ kind: 'dom', detail: list(cat.dom) });
    if (cat.form.length) out.push({ kind: 'form', detail: list(cat.form) });
    if (cat.layout.length) out.push({ kind: 'layout', detail: list(cat.layout) });
    if (cat.canvas.length) out.push({ kind: 'canvas', detail: list(cat.canvas) });
    if (cat.url.length) {
      // A fragment that names nothing changes only the address: not an effect by itself.
      const v = post.view;
      const onlyFragment = sameDocumentPath(cat.url[0]!, base.view);
      if (!onlyFragment || v.anchorExists || post.changed > 1) out.push({ kind: 'url', detail: cat.url[0]!.replace(/^https?:\/\/[^/]+/, '') });
    }
    if (cat.storage.length) out.push({ kind: 'storage', detail: cat.storage[0]! });
    for (const [k, v] of Object.entries(post.events)) {
      if (k === 'close') continue;
      out.push({ kind: k as InteractionEffect['kind'], detail: list(v.filter((x) => x)) || k });
    }
    if (post.focus) out.push({ kind: 'focus', detail: post.focus });
    if (post.scrolled) out.push({ kind: 'scroll', detail: 'the page scrolled' });
  }
  if (navigated) {
    const path = (() => {
      try {
        return new URL(navigated.url).pathname;
      } catch {
        return navigated.url;
      }
    })();
    const reload = path === base.view.path && (navigated.status === undefined || navigated.status >= 400 || (navigated.view !== undefined && navigated.view.textHash === base.view.textHash && navigated.view.elements === base.view.elements));
    if (!reload) out.push({ kind: 'navigation', detail: `to ${path}${navigated.status ? ` (HTTP ${navigated.status})` : ''}` });
  }
  if (w.dialogs.length) out.push({ kind: 'dialog', detail: list(w.dialogs) });
  if (w.fileChoosers) out.push({ kind: 'file-chooser', detail: 'a file chooser opened' });
  if (w.popups.length && !out.some((e) => e.kind === 'popup')) out.push({ kind: 'popup', detail: list(w.popups) });
  const reqs = w.requests.filter((r) => !(navigated && r.navigation));
  if (reqs.length) out.push({ kind: 'request', detail: list(reqs.map((r) => `${r.method} ${r.url.replace(/^https?:\/\/127\.0\.0\.1:\d+/, '')}`)) });
  void c;
  return out;
}

function sameDocumentPath(url: string, view: InteractionView): boolean {
  try {
    const u = new URL(url);
    return u.pathname === view.path;
  } catch {
    return false;
  }
}

/** A PNG crop of the screenshot around `box` (16 px margin, at most 640×360, scaled down to fit). */
export async function cropAround(shot: Screenshot, box: NonNullable<InteractionControl['box']>): Promise<Buffer | null> {
  const m = 16;
  const left = Math.max(0, Math.floor(box.x - m));
  const top = Math.max(0, Math.floor(box.y - m));
  const right = Math.min(shot.width, Math.ceil(box.x + box.width + m));
  const bottom = Math.min(shot.height, Math.ceil(box.y + box.height + m));
  if (right - left < 2 || bottom - top < 2) return null;
  return sharp(shot.png)
    .extract({ left, top, width: right - left, height: bottom - top })
    .resize(640, 360, { fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer();
}

// -----------------------------------------------------------------------------------------------------------
// Navigation: breadth first over views.

interface NavContext {
  /** Load `url` (default the entry) in its start state and tag the controls of that document. */
  restore: (url?: string, selectors?: Array<string | null>) => Promise<{ missing: number[]; status?: number }>;
  call: <T>(fn: string, args: unknown[], ms?: number) => Promise<T>;
  driver: () => ProbeDriver;
  left: () => number;
  settings: InteractionSettings;
  afterNavigation: (w: Window) => Promise<{ url: string; status?: number; view?: InteractionView }>;
  act: (c: InteractionControl, point: { x: number; y: number } | null) => Promise<string>;
  ignore: () => string[];
  entryUrl: string;
  listeners: () => Promise<void>;
}

/** How to reach a view: the document loaded (default the entry), then the controls acted on in turn. */
interface ViewPath {
  url?: string;
  steps: number[];
}

type QueuedView = InteractionView & { depth: number; route: ViewPath };

async function navigate(ev: InteractionEvidence, controls: InteractionControl[], startView: InteractionView, viewAfter: ReadonlyMap<number, InteractionView>, ctx: NavContext): Promise<void> {
  const nav = ev.navigation;
  const entryPath = new URL(ctx.entryUrl).pathname;
  const docOf = (c: InteractionControl) => c.page ?? entryPath;
  const navControls = () => controls.filter((c) => c.nav);
  if (!navControls().length) return;
  const selectorsOf = (doc: string) => controls.map((c) => (c.kind === 'keyboard' || docOf(c) !== doc ? null : c.selector));
  const views = new Map<string, QueuedView>();
  views.set(startView.key, { ...startView, depth: 0, route: { steps: [] } });
  const present = new Map<string, number[]>();
  present.set(startView.key, navControls().filter((c) => !c.page).map((c) => c.index));
  const results = new Map<number, NavigationResult>();
  const byHref = new Map<string, { to: InteractionView | null; status?: number }>();
  const result = (i: number) => {
    let r = results.get(i);
    if (!r) results.set(i, (r = { control: i, tries: [], leads: false }));
    return r;
  };
  const queue: QueuedView[] = [];
  /** Judge one try of control `c` from view `from`, reaching `to` (null: no readable document). */
  const judge = (c: InteractionControl, from: InteractionView, to: InteractionView | null, status: number | undefined, navigated: boolean, note?: string) => {
    const r = result(c.index);
    r.tries.push({ from: from.key, to: to?.key ?? null, ...(status !== undefined ? { status } : {}), ...(note ? { note } : {}) });
    if (r.leads) return;
    let leads = false;
    let reason: string | undefined;
    if (navigated || (to && to.path !== from.path)) {
      if (status !== undefined && status >= 400) reason = `missing local file ${(c.href ?? to?.path ?? '').replace(/^https?:\/\/[^/]+/, '')} (HTTP ${status})`;
      else leads = true;
    } else if (to) {
      const contentChanged = to.textHash !== from.textHash || to.elements !== from.elements;
      if (c.nav === 'anchor') {
        leads = to.anchorExists || contentChanged;
        if (!leads) reason = `missing anchor ${c.href?.replace(/^[^#]*/, '') ?? to.hash}`;
      } else if (c.nav === 'hash-route') {
        leads = contentChanged || to.anchorExists;
        if (!leads) reason = `hash route ${c.href?.replace(/^[^#]*/, '') ?? ''} changes nothing`;
      } else {
        leads = contentChanged;
        if (!leads) reason = 'changes nothing';
      }
    } else reason = note ?? 'nothing could be read after it';
    if (leads) {
      r.leads = true;
      delete r.reason;
      if (to && !views.has(to.key)) {
        const fromV = views.get(from.key) ?? views.get(startView.key)!;
        const docUrl = (c.href ?? '').replace(/#.*$/, '');
        const route: ViewPath = to.path !== from.path ? { url: docUrl || new URL(to.path, ctx.entryUrl).href, steps: [] } : { ...(fromV.route.url ? { url: fromV.route.url } : {}), steps: [...fromV.route.steps, c.index] };
        const v: QueuedView = { ...to, depth: fromV.depth + 1, route };
        views.set(to.key, v);
        queue.push(v);
      }
    } else if (reason) r.reason = reason;
  };

  /** Reach view `v` by its route (controls tagged); false when a step's control was missing. */
  const reach = async (v: QueuedView): Promise<boolean> => {
    const doc = v.route.url ? new URL(v.route.url).pathname : entryPath;
    await ctx.restore(v.route.url, selectorsOf(doc));
    for (const s of v.route.steps) {
      const p = await ctx.call<PrepareResult>('prepare', [{ fill: false, target: s, exclude: null, prepMs: 0, frames: false }]);
      if (p.missing) return false;
      await ctx.act(controls[s]!, p.point ?? null);
      await ctx.driver().mouseOut().catch(() => undefined);
      await ctx.call('advance', [ctx.settings.observeMs]);
    }
    if (v.route.steps.length) await ctx.call('tag', [selectorsOf(doc)]);
    return true;
  };

  let tries = 0;
  const budget = () => {
    if (tries >= ctx.settings.maxNavActions) throw new NavCap();
    if (ctx.left() < ctx.settings.actionTimeoutMs) throw new NavBudget();
    tries++;
  };
  /** The navigation elements shown in view `v` (reached anew), new ones added to the controls. */
  const discover = async (v: QueuedView): Promise<number[]> => {
    budget();
    const run = async () => {
      if (!(await reach(v))) return [];
      await ctx.listeners().catch(() => undefined);
      const raw = await ctx.call<Array<Omit<InteractionControl, 'index' | 'acted'>>>('enumerate', []);
      const doc = v.path;
      const out: number[] = [];
      for (const r of raw) {
        if (!r.nav) continue;
        let c = controls.find((x) => docOf(x) === doc && x.selector === r.selector);
        if (!c) {
          c = { index: controls.length, ...r, acted: false, ...(doc !== entryPath ? { page: doc } : {}) };
          controls.push(c);
        }
        out.push(c.index);
      }
      return out;
    };
    return withTimeout(run(), Math.max(1, Math.min(ctx.settings.actionTimeoutMs * 2, ctx.left())), 'navigation discovery');
  };
  /** Act on `c` after reaching view `v`. */
  const tryFrom = async (v: QueuedView, c: InteractionControl): Promise<void> => {
    const known = c.kind === 'page-link' && !c.listeners?.length && c.href ? byHref.get(c.href.replace(/#.*$/, '')) : undefined;
    if (known) {
      judge(c, v, known.to, known.status, true, 'same file as another link');
      return;
    }
    budget();
    const run = async () => {
      if (!(await reach(v))) return;
      if (c.kind === 'page-link') await ctx.call('stripTarget', [c.index]).catch(() => undefined);
      const p = await ctx.call<PrepareResult>('prepare', [{ fill: false, target: c.index, exclude: null, prepMs: ctx.settings.prepMs, frames: false }]);
      if (p.missing) {
        judge(c, v, null, undefined, false, 'not found in this view');
        return;
      }
      const from = await ctx.call<InteractionView>('view', [null, ctx.ignore()]);
      const d = ctx.driver();
      const w = d.startWindow();
      const since = performance.now();
      await ctx.act(c, p.point ?? null);
      await d.mouseOut().catch(() => undefined);
      try {
        await ctx.call('advance', [ctx.settings.observeMs]);
      } catch (err) {
        if (!w.documents.length) throw err;
      }
      await d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, ctx.left()), since);
      if (w.documents.length) {
        const n = await ctx.afterNavigation(w);
        if (c.kind === 'page-link' && c.href) byHref.set(c.href.replace(/#.*$/, ''), { to: n.view ?? null, ...(n.status !== undefined ? { status: n.status } : {}) });
        judge(c, from, n.view ?? null, n.status, true, n.view ? undefined : `loaded ${n.url.replace(/^https?:\/\/[^/]+/, '')}, not a readable page`);
      } else {
        const to = await ctx.call<InteractionView>('view', [null, ctx.ignore()]);
        const blocked = w.requests.some((r) => r.navigation);
        judge(c, from, to, undefined, false, blocked ? 'a navigation away from the artifact (refused by the sandbox)' : undefined);
      }
    };
    await withTimeout(run(), Math.max(1, Math.min(ctx.settings.actionTimeoutMs * 2, ctx.left())), 'navigation try');
  };

  const start = views.get(startView.key)!;
  try {
    // Depth 1: from the start view, reusing each control's action when it was acted on (made on a filled form:
    // the fields do not change which view a navigation element leads to).
    for (const i of present.get(start.key)!) {
      const c = controls[i]!;
      const a = ev.actions.find((x) => x.control === c.index && x.outcome === 'done');
      const to = viewAfter.get(c.index);
      if (a && to) {
        const navEffect = a.effects.find((e) => e.kind === 'navigation');
        const status = navEffect ? /HTTP (\d+)/.exec(navEffect.detail) : null;
        judge(c, startView, to, status ? Number(status[1]) : to.status, !!navEffect || to.path !== startView.path);
      } else await tryFrom(start, c);
    }
    // Deeper: each new view's navigation elements that have not led anywhere yet.
    while (queue.length) {
      const v = queue.shift()!;
      if (v.depth >= ctx.settings.navDepth) continue;
      if (views.size > ctx.settings.maxViews) {
        nav.truncated = `more than ${ctx.settings.maxViews} views: the search stopped there`;
        break;
      }
      const shown = await discover(v);
      present.set(v.key, shown);
      for (const i of shown) {
        if (results.get(i)?.leads) continue;
        await tryFrom(v, controls[i]!);
      }
    }
  } catch (err) {
    if (err instanceof NavCap) nav.truncated = `at most ${ctx.settings.maxNavActions} navigation tries`;
    else if (err instanceof NavBudget) nav.truncated = 'the probe\'s time budget ran out';
    else if (err instanceof TimeoutError) nav.truncated = `a navigation try timed out (${errorMessage(err)})`;
    else throw err;
  } finally {
    nav.views = [...views.values()].map(({ route: _r, ...v }) => v);
    nav.links = navControls()
      .filter((c) => results.has(c.index))
      .map((c) => results.get(c.index)!);
    nav.untried = navControls()
      .filter((c) => !results.has(c.index))
      .map((c) => c.index);
  }
}

class NavCap extends Error {}
class NavBudget extends Error {}
