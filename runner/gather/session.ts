/**
 * One visit of one artifact in a fresh browser context: everything the runtime metrics need, in one
 * BrowserEvidence object.
 *
 * What happens, in order (every step guarded by the artifact's deadline; see `SessionOptions`):
 * 1. A fresh incognito-like browser context and page at 1280×800, DPR 1. Before any page script runs,
 *    `alert`/`confirm`/`prompt`/`print` are replaced by functions that return what a dismissed dialog returns
 *    (undefined/false/null) and count the call, and `window.close` by a no-op that records a fault; puppeteer's
 *    `dialog` event dismisses whatever still opens (e.g. beforeunload). So an alert storm costs nothing and a
 *    page cannot close its own window.
 * 2. Requests: the caller created `context` behind the sandbox proxy (sandbox/sandbox.ts), which answers and logs
 *    every request of every phase: the artifact's files, CDN files in `cdn` mode, nothing else; a main-frame
 *    navigation away is answered 204 (the page stays). `file://` is refused by Chrome itself for an http page (a
 *    console error, which counts). The caller reads the sandbox's log into the evidence afterwards
 *    (browser-gatherer.ts): a "Failed to load resource" line about a request the sandbox refused or withheld is
 *    webgrade's doing, not the page's.
 * 3. Console messages, uncaught exceptions and unhandled rejections (CDP `Runtime.exceptionThrown`; a rejection
 *    handled later is revoked and dropped), the network log, JS coverage (V8 block coverage) and CSS rule usage
 *    are recorded from before navigation. `Math.random` and `crypto` randomness are seeded before any page script
 *    (seeded-random.ts), so that what a page draws at random is the same in two runs.
 * 4. Navigate and wait for `load` (at most LOAD_TIMEOUT_MS, or 40% of the budget if less), then settle
 *    SETTLE_MS (300 ms: long enough for the load-time timers and promise chains of the pages we saw; see
 *    bench/browser-suite.ts for what it costs), or as long as the caller's `idle` work takes if longer. A
 *    page that never loads gets the fault "load timeout" and we go on with what is there.
 * 5. The responsiveness probe (RESPONSIVE_PROBE_MS); DOM (`page.content()`, cut at DOM_CAP_CHARS) and node count; every PAGE_COLLECTORS entry (each at most
 *    COLLECTOR_TIMEOUT_MS); coverage; then, animations stopped and the page clock paused, the desktop
 *    first-screen screenshot (1280×800) and full-page screenshot
 *    (1280 × min(max(scrollHeight, 800), FULL_PAGE_CAP_PX)); `truncated` says when the cap cut it. PNGs are
 *    encoded with Chrome's fast zlib setting (`optimizeForSpeed`): larger files, the same pixels.
 * 6. iPhone 12 Pro: a second page of the same context, emulated (390×844, DPR 3, touch, mobile UA) before it
 *    loads the entry; after load + settle: documentElement scrollWidth − clientWidth, the outermost elements
 *    sticking out to the right, and a first-screen screenshot.
 *
 * When an in-page step times out the page is taken as unresponsive (a busy main thread: endless loop) and the
 * remaining in-page steps are skipped, each field recording why in `unavailable`. Closing the context ends the
 * renderer; if even that hangs, the caller restarts Chrome.
 */
import { type BrowserContext, type CDPSession, type Page } from 'puppeteer-core';
import type { Artifact } from '../../core/artifact/model.js';
import type { BrowserEvidence, ConsoleEntry, CoverageEntry, FontUse, MobileResult, PageError, Screenshot } from '../../core/browser-evidence.js';
import { errorMessage } from '../../core/errors.js';
import { PAGE_COLLECTORS } from './collectors/index.js';
import { cssStyleRules, ruleCoverage } from './css-rules.js';
import { MOBILE_EMULATION, measureOverflow, mobileResult } from './mobile-measure.js';
import { PAGE_SEED, seedRandomness } from './seeded-random.js';
import { requestPath } from './server.js';


export const VIEWPORT = { width: 1280, height: 800 } as const;
export const LOAD_TIMEOUT_MS = 15_000;
export const SETTLE_MS = 300;
export const MOBILE_SETTLE_MS = 300;
/**
 * Each in-page collector's limit. It was 5 s: a Pyodide page that answers the responsiveness probe and then runs
 * its start-up in long tasks (ai-adoption: 2.5–3 s after the probe on the quiet machine) was past it beside a
 * second worker, and every screenshot metric flipped to unscorable.
 */
export const COLLECTOR_TIMEOUT_MS = 8_000;
/**
 * How long the page may take to answer once after load before it counts as not responding. It was 2 s, then 5 s:
 * a heavy page whose scripts keep the main thread busy for seconds after load (ai-adoption in the corpus, a
 * Pyodide page: 2.6–3.2 s on the quiet machine at concurrency 1) answered in time there and, in 2 of 5 runs, not
 * with a second worker on the other core, and every screenshot and DOM metric then flipped between scored and
 * unscorable with the machine's load. 10 s leaves three times the quiet machine's need; an endless loop costs
 * 5 s more of its budget.
 */
export const RESPONSIVE_PROBE_MS = 10_000;
export const STEP_TIMEOUT_MS = 8_000;
export const FULL_PAGE_CAP_PX = 8000;
export const DOM_CAP_CHARS = 5_000_000;

export interface SessionOptions {
  /** Absolute time (performance.now()) by which the visit must be over. */
  deadline: number;
  /** Fields to gather; screenshots are skipped when not needed. */
  screenshots: boolean;
  /**
   * Where the iPhone 12 Pro measurement is taken: `'visit'` (default) loads the page a second time, in the
   * context `mobileContext` gives (fresh storage, the sandbox's `mobile` phase); `'lighthouse'` leaves it to the
   * artifact's Lighthouse run, which loads the page under the same emulation anyway (browser-gatherer.ts fills
   * `mobile` from it).
   */
  mobile?: 'visit' | 'lighthouse';
  /** A fresh context for the mobile visit (default: the visit's own context). The caller closes it. */
  mobileContext?: () => Promise<BrowserContext>;
  /** Work to run while the page settles after load (Node is idle then); see browser-gatherer.ts. */
  idle?: () => Promise<void>;
}

export class TimeoutError extends Error {}

/**
 * `p`, or a TimeoutError after `ms`. When the timer fires, the rejection waits one more turn of the event loop
 * (setImmediate, after the poll phase): if our own CPU work (scoring while gathering) held the loop past the
 * deadline, an answer from Chrome that arrived meanwhile is taken instead of a false timeout.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  p.catch(() => undefined);
  if (ms <= 0) return Promise.reject(new TimeoutError(`${what}: no time left in the budget`));
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const t = setTimeout(() => {
      setImmediate(() => {
        if (!settled) reject(new TimeoutError(`${what} timed out after ${Math.round(ms)} ms`));
      });
    }, ms);
    p.then(
      (v) => {
        settled = true;
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        settled = true;
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** Main-frame navigations after the entry from which an unresponsive page is said to be in a reload loop. */
const RELOAD_LOOP_NAVIGATIONS = 3;
/** Live dedicated workers from which an unresponsive page is said to be starved by its workers. */
const WORKER_STARVATION_WORKERS = 8;

/** Wait `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
}

/** Runs in the page before any script: dialogs answer as dismissed, window.close is a no-op; both counted. */
export function dialogGuard(): void {
  const w = window as unknown as Record<string, unknown>;
  const counts = { dialogs: 0, closes: 0 };
  Object.defineProperty(w, '__webgradeGuard', { value: counts, enumerable: false });
  const answer = (ret: unknown) =>
    function () {
      counts.dialogs++;
      return ret;
    };
  w.alert = answer(undefined);
  w.confirm = answer(false);
  w.prompt = answer(null);
  w.print = answer(undefined);
  w.close = function () {
    counts.closes++;
  };
}

/**
 * Runs in the page before the screenshots: every CSS animation, transition and Web Animation is stopped at a
 * fixed point, finite ones at their end (the state an intro animation settles in) and infinite ones (spinners,
 * pulses, marquees) at their start; the caller then pauses the page's clock (CDP virtual time), so that timers
 * and requestAnimationFrame loops stand still while both screenshots are taken. What a script drew before that
 * moment (a canvas game's frame, a counter) still depends on how long the page ran: documented, not controlled.
 * Returns how many animations were stopped.
 */
export function freezeAnimations(): number {
  let n = 0;
  for (const a of document.getAnimations()) {
    try {
      const end = a.effect?.getComputedTiming().endTime;
      if (typeof end === 'number' && Number.isFinite(end)) a.finish();
      else {
        a.pause();
        a.currentTime = 0;
      }
      n++;
    } catch {
      /* an animation that cannot be stopped stays as it is */
    }
  }
  return n;
}

/** Runs in the page: which of the given selectors (dynamic pseudo-classes already removed) match something. */
function matchSelectors(selectors: string[]): boolean[] {
  return selectors.map((s) => {
    try {
      return s !== '' && document.querySelector(s) !== null;
    } catch {
      return false;
    }
  });
}

const USER_ACTION_PSEUDO = /:(hover|focus|focus-visible|focus-within|active|visited|target|checked|invalid|valid|user-invalid|user-valid|placeholder-shown|disabled|enabled|indeterminate|default|autofill)\b(\([^)]*\))?|::?(selection|placeholder|before|after|marker|backdrop|file-selector-button|first-letter|first-line|-webkit-[\w-]+|-moz-[\w-]+)\b/gi;

/** A selector list with user-action and pseudo-element parts removed (`a:hover` → `a`), for matching in the page. */
export function interactionFreeSelector(selector: string): string {
  return selector
    .split(',')
    .map((s) => s.replace(USER_ACTION_PSEUDO, '').trim())
    .map((s) => (s === '' || /[>+~]$/.test(s) ? '*' : s))
    .join(', ');
}

interface StyleSheetHeader {
  styleSheetId: string;
  sourceURL: string;
  isInline: boolean;
  startLine: number;
  startColumn: number;
  isConstructed?: boolean;
  origin?: string;
}

/** Name of a coverage source: artifact-relative path, or `<file>#inline-<n>` (1-based, in document order). */
function sourceName(url: string, origin: string, inlineIndex?: number): string | null {
  if (!url.startsWith(origin + '/')) return null;
  const rel = requestPath(url.slice(origin.length));
  if (rel === null) return null;
  return inlineIndex === undefined ? rel : `${rel}#inline-${inlineIndex}`;
}

export class PageFaults {
  faults: string[] = [];
  unavailable: Record<string, string> = {};
  add(f: string): void {
    if (!this.faults.includes(f)) this.faults.push(f);
  }
  skip(field: string, reason: string): void {
    this.unavailable[field] ??= reason;
  }
}

/**
 * Visit the artifact at `entryUrl` in a fresh context of `context`'s browser and gather BrowserEvidence.
 * Never throws for page faults; throws only when the browser itself is unusable (the caller restarts it).
 */
export async function visitArtifact(
  context: BrowserContext,
  artifact: Artifact,
  origin: string,
  entryUrl: string,
  opts: SessionOptions,
): Promise<BrowserEvidence> {
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const mark = (name: string, since: number) => (timings[name] = Math.round(performance.now() - since));
  const left = () => opts.deadline - performance.now();
  const f = new PageFaults();
  const consoleEntries: ConsoleEntry[] = [];
  const pageErrors: Array<PageError & { id?: number }> = [];
  let dialogs = 0;

  const page = await context.newPage();
  page.on('dialog', (d) => {
    dialogs++;
    d.dismiss().catch(() => undefined);
  });
  // Documents the main frame showed (the entry is the first): more mean the page navigated (a reload loop, a link
  // followed within the artifact), which changes what coverage and the DOM describe and why a page stops answering.
  const documents: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) documents.push(frame.url());
  });
  let closed = false;
  page.on('close', () => {
    closed = true;
    f.add('the page window was closed');
  });
  page.on('error', (e) => f.add(`page crashed: ${errorMessage(e)}`));

  page.on('console', (msg) => {
    const loc = msg.location();
    const entry: ConsoleEntry = { level: msg.type(), text: msg.text() };
    if (loc?.url) entry.url = loc.url;
    if (loc?.lineNumber !== undefined) entry.line = loc.lineNumber + 1;
    if (/^Failed to load resource/.test(entry.text) && loc?.url && isFaviconProbe(loc.url, origin)) entry.browserMade = true;
    consoleEntries.push(entry);
  });

  const cdp: CDPSession = await page.createCDPSession();
  cdp.on('Runtime.exceptionThrown', (e: { exceptionDetails: { exceptionId: number; text: string; exception?: { description?: string; value?: unknown } } }) => {
    const d = e.exceptionDetails;
    const rejection = /in promise/i.test(d.text);
    const desc = d.exception?.description ?? (d.exception?.value !== undefined ? String(d.exception.value) : undefined);
    pageErrors.push({ id: d.exceptionId, kind: rejection ? 'unhandled-rejection' : 'exception', message: desc ? desc.split('\n')[0]! : d.text, ...(desc && desc.includes('\n') ? { stack: desc } : {}) });
  });
  cdp.on('Runtime.exceptionRevoked', (e: { exceptionId: number }) => {
    const i = pageErrors.findIndex((p) => p.id === e.exceptionId);
    if (i >= 0) pageErrors.splice(i, 1);
  });
  const sheets = new Map<string, StyleSheetHeader>();
  cdp.on('CSS.styleSheetAdded', (e: { header: StyleSheetHeader }) => sheets.set(e.header.styleSheetId, e.header));
  // Every listener is in place; the protocol calls are independent of one another (except the CSS chain) and
  // go out together: one round trip to Chrome instead of eight in a row.
  await Promise.all([
    page.setViewport({ ...VIEWPORT, deviceScaleFactor: 1 }),
    page.evaluateOnNewDocument(dialogGuard),
    page.evaluateOnNewDocument(seedRandomness, PAGE_SEED),
    cdp.send('Runtime.enable'),
    cdp
      .send('DOM.enable')
      .then(() => cdp.send('CSS.enable'))
      .then(() => cdp.send('CSS.startRuleUsageTracking')),
    page.coverage.startJSCoverage({ resetOnNavigation: false, reportAnonymousScripts: false, useBlockCoverage: true } as Parameters<Page['coverage']['startJSCoverage']>[0]),
  ]);
  mark('setup', t0);

  // Load and settle.
  const tLoad = performance.now();
  let loaded = false;
  try {
    await withTimeout(page.goto(entryUrl, { waitUntil: 'load', timeout: 0 }), Math.min(LOAD_TIMEOUT_MS, left() * 0.4), 'load');
    loaded = true;
  } catch (err) {
    f.add(err instanceof TimeoutError ? `load timeout: ${err.message}` : `navigation failed: ${errorMessage(err)}`);
  }
  mark('load', tLoad);
  // The settle is idle time for Node: the caller's `idle` work (scoring the static metrics) runs during it. If
  // that work takes longer, the page simply settles longer.
  // A page that never loads gets no settle, but the idle work runs now all the same: after the visit the budget
  // may be gone (a reload loop spends it on in-page steps that fail one after another).
  // The main thread's busy share over the settle (BrowserEvidence.busyAfterLoad): Chrome's task time against the
  // wall time, time spent stopped by another worker's measurement left out.
  let busyAfterLoad: number | undefined;
  if (loaded) {
    // The metrics are answered by the page's main thread: one that does not answer within a second is busy.
    const taskSeconds = () =>
      withTimeout(page.metrics(), 1000, 'metrics').then(
        (m) => m.TaskDuration,
        (err) => (err instanceof TimeoutError ? ('busy' as const) : undefined),
      );
    const task0 = await taskSeconds();
    const w0 = performance.now();
    await Promise.all([sleep(Math.min(SETTLE_MS, left())), opts.idle?.()]);
    const task1 = task0 === 'busy' ? 'busy' : await taskSeconds();
    const wall = (performance.now() - w0) / 1000;
    if (task0 === 'busy' || task1 === 'busy') busyAfterLoad = 1;
    else if (task0 !== undefined && task1 !== undefined && wall > 0) busyAfterLoad = Math.min(1, Math.max(0, (task1 - task0) / wall));
  } else await opts.idle?.();

  let responsive = !closed;
  let unresponsive = 'page did not respond (busy main thread)';
  /** Why the page stopped answering, named by what can still be seen from outside its renderer. */
  const unresponsiveCause = (): string => {
    if (closed) return 'page did not respond (its window was closed)';
    const navigations = documents.length - 1;
    if (navigations >= RELOAD_LOOP_NAVIGATIONS) return `page did not respond: it kept navigating (${navigations} navigations after the entry loaded: a reload or redirect loop)`;
    const workers = page.workers().length;
    if (workers >= WORKER_STARVATION_WORKERS) return `page did not respond: ${workers} web workers compete with it for the CPU (worker starvation)`;
    return 'page did not respond (busy main thread: a long or endless script)';
  };
  /** Run an in-page step; on timeout mark the page unresponsive and return undefined. */
  const step = async <T>(field: string, what: string, fn: () => Promise<T>, limit = STEP_TIMEOUT_MS): Promise<T | undefined> => {
    if (!responsive || closed) {
      f.skip(field, closed ? 'the page window was closed' : unresponsive);
      return undefined;
    }
    const t = performance.now();
    try {
      return await withTimeout(fn(), Math.min(limit, left()), what);
    } catch (err) {
      if (err instanceof TimeoutError) {
        responsive = false;
        unresponsive = unresponsiveCause();
        f.add(`${what}: ${err.message}`);
        f.skip(field, `${what} timed out (${unresponsive})`);
      } else {
        f.add(`${what} failed: ${errorMessage(err)}`);
        f.skip(field, `${what} failed: ${errorMessage(err)}`);
      }
      return undefined;
    } finally {
      timings[what] = Math.round(performance.now() - t);
    }
  };

  // Probe responsiveness: a page stuck in a loop never answers.
  await step('domHtml', 'probe', () => page.evaluate(() => 1), RESPONSIVE_PROBE_MS);

  const ev: BrowserEvidence = {
    url: entryUrl,
    finalUrl: entryUrl,
    timings,
    console: consoleEntries,
    pageErrors,
    network: [],
    domHtml: '',
    domNodeCount: 0,
    screenshots: {},
    faults: f.faults,
    loaded,
  };
  if (busyAfterLoad !== undefined) ev.busyAfterLoad = Math.round(busyAfterLoad * 1000) / 1000;

  const guard = await step('dialogs', 'guard counts', () =>
    page.evaluate(() => (window as unknown as { __webgradeGuard?: { dialogs: number; closes: number } }).__webgradeGuard ?? { dialogs: 0, closes: 0 }),
  );
  if (guard?.closes) f.add(`the page called window.close() ${guard.closes} time(s) (ignored)`);

  const dom = await step('domHtml', 'dom', async () => {
    const html = await page.content();
    const count = await page.evaluate(() => document.getElementsByTagName('*').length);
    return { html, count, url: page.url() };
  });
  if (documents.length > 1) {
    ev.navigations = documents.length - 1;
    ev.finalUrl = documents[documents.length - 1]!; // the DOM step below gives the same when it succeeds
    f.add(`the page navigated ${documents.length - 1} time(s) after its entry (last to ${documents[documents.length - 1]})`);
  }
  if (dom) {
    ev.finalUrl = dom.url;
    ev.domNodeCount = dom.count;
    if (dom.html.length > DOM_CAP_CHARS) {
      ev.domHtml = dom.html.slice(0, DOM_CAP_CHARS);
      ev.domTruncated = true;
      f.add(`DOM of ${dom.html.length} characters cut at ${DOM_CAP_CHARS}`);
    } else ev.domHtml = dom.html;
  }

  for (const c of PAGE_COLLECTORS) {
    const raw = await step(String(c.key), `collector ${String(c.key)}`, () => page.evaluate(c.fn, c.arg), COLLECTOR_TIMEOUT_MS);
    if (raw === undefined) continue;
    try {
      (ev as unknown as Record<string, unknown>)[c.key] = c.finish ? c.finish(raw) : raw;
    } catch (err) {
      f.add(`collector ${String(c.key)} finish failed: ${errorMessage(err)}`);
      f.skip(String(c.key), `collector failed: ${errorMessage(err)}`);
    }
  }

  const coverage = await step('coverage', 'coverage', () => collectCoverage(page, cdp, sheets, artifact, origin));
  if (coverage) ev.coverage = coverage;

  const fonts = await step('fonts', 'fonts', () => usedFonts(cdp), COLLECTOR_TIMEOUT_MS);
  if (fonts) ev.fonts = fonts;

  if (opts.screenshots) {
    // Screenshots of a page that moves differ between runs (the screenshot metrics of one animated page
    // differed by up to 41.5 points): they are taken with the page frozen (see `freezeAnimations`).
    const frozen = await step('screenshots', 'freeze', async () => {
      const n = await page.evaluate(freezeAnimations);
      await cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pause' });
      return n;
    });
    if (frozen !== undefined) ev.frozenAnimations = frozen;
    const desktop = await step('screenshots', 'desktop screenshot', async () => {
      const png = Buffer.from(await page.screenshot({ type: 'png', captureBeyondViewport: false, optimizeForSpeed: true }));
      return { png, width: VIEWPORT.width, height: VIEWPORT.height, deviceScaleFactor: 1 } satisfies Screenshot;
    });
    if (desktop) ev.screenshots.desktop = desktop;
    const full = await step('screenshots', 'full-page screenshot', async () => {
      const h = await page.evaluate(() => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0));
      const height = Math.min(Math.max(h, VIEWPORT.height), FULL_PAGE_CAP_PX);
      const png = Buffer.from(await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: VIEWPORT.width, height }, captureBeyondViewport: true, optimizeForSpeed: true }));
      return { png, width: VIEWPORT.width, height, deviceScaleFactor: 1, truncated: h > FULL_PAGE_CAP_PX } satisfies Screenshot;
    });
    if (full) ev.screenshots.fullPage = full;
  }

  // Mobile emulation on a second page of the same context (the desktop page may be unresponsive; this one loads
  // anew), unless the Lighthouse run measures it.
  if (responsive && !closed && opts.mobile === 'lighthouse') {
    // measured in the Lighthouse run (browser-gatherer.ts)
  } else if (responsive && !closed && left() > 1000) {
    const tm = performance.now();
    try {
      const mctx = opts.mobileContext ? await opts.mobileContext() : context;
      const mob = await withTimeout(visitMobile(mctx, origin, entryUrl, f, left, opts.screenshots), Math.min(LOAD_TIMEOUT_MS + 5000, left()), 'mobile visit');
      ev.mobile = mob.result;
      if (mob.screenshot) ev.screenshots.mobile = mob.screenshot;
    } catch (err) {
      f.add(`mobile emulation: ${errorMessage(err)}`);
      f.skip('mobile', `mobile emulation failed: ${errorMessage(err)}`);
    }
    mark('mobile', tm);
  } else f.skip('mobile', responsive ? 'no time left in the budget for mobile emulation' : unresponsive);

  if (guard) dialogs += guard.dialogs;
  ev.dialogs = dialogs;
  if (dialogs > 20) f.add(`dialog storm: ${dialogs} dialogs dismissed`);
  for (const e of pageErrors) delete e.id;
  if (Object.keys(f.unavailable).length) ev.unavailable = f.unavailable;
  cdp.detach().catch(() => undefined);
  page.removeAllListeners('close');
  ev.faults = [...f.faults];
  timings.total = Math.round(performance.now() - t0);
  return ev;
}

function isFaviconProbe(url: string, origin: string): boolean {
  return url === `${origin}/favicon.ico`;
}

/** At most this many elements are asked which fonts rendered their text (the first ones in document order). */
export const FONT_SAMPLE_ELEMENTS = 400;

/**
 * The font families that actually rendered the page's text (Chrome's `CSS.getPlatformFontsForNode`: the family
 * of the font file used, a web font or a system font, and how many glyphs it drew), summed over the text of the
 * first FONT_SAMPLE_ELEMENTS elements of the body, most glyphs first. Says whether an emoji or CJK fallback, or a
 * CDN web font, was in use.
 */
async function usedFonts(cdp: CDPSession): Promise<FontUse[]> {
  const { root } = (await cdp.send('DOM.getDocument', { depth: 0 })) as { root: { nodeId: number } };
  const { nodeIds } = (await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: 'body, body *' })) as { nodeIds: number[] };
  const answers = await Promise.all(
    nodeIds.slice(0, FONT_SAMPLE_ELEMENTS).map((nodeId) =>
      (cdp.send('CSS.getPlatformFontsForNode', { nodeId }) as Promise<{ fonts: Array<{ familyName: string; isCustomFont: boolean; glyphCount: number }> }>).catch(() => ({ fonts: [] })),
    ),
  );
  const byFamily = new Map<string, FontUse>();
  for (const a of answers) {
    for (const f of a.fonts) {
      const u = byFamily.get(f.familyName) ?? { family: f.familyName, glyphs: 0, webFont: f.isCustomFont };
      u.glyphs += f.glyphCount;
      byFamily.set(f.familyName, u);
    }
  }
  return [...byFamily.values()].sort((a, b) => b.glyphs - a.glyphs);
}

async function collectCoverage(
  page: Page,
  cdp: CDPSession,
  sheets: Map<string, StyleSheetHeader>,
  artifact: Artifact,
  origin: string,
): Promise<{ js: CoverageEntry[]; css: CoverageEntry[] }> {
  void artifact;
  const jsRaw = await page.coverage.stopJSCoverage();
  const js: CoverageEntry[] = [];
  const inlineJs = new Map<string, number>();
  for (const e of jsRaw) {
    const path = sourceName(e.url, origin);
    if (path === null) continue;
    const file = requestPath(e.url.slice(origin.length))!;
    const f = artifact.files.find((x) => x.path === file);
    // A script whose text differs from the served file is an inline block of that (HTML) file.
    const inline = f?.kind === 'html';
    let name = path;
    if (inline) {
      const n = (inlineJs.get(file) ?? 0) + 1;
      inlineJs.set(file, n);
      name = `${file}#inline-${n}`;
    }
    const used = e.ranges.reduce((s, r) => s + (r.end - r.start), 0);
    js.push({ source: name, totalBytes: e.text.length, usedBytes: used });
  }

  const { ruleUsage } = (await cdp.send('CSS.stopRuleUsageTracking')) as { ruleUsage: Array<{ styleSheetId: string; startOffset: number; endOffset: number; used: boolean }> };
  const usedBySheet = new Map<string, typeof ruleUsage>();
  for (const r of ruleUsage) {
    if (!r.used) continue;
    const list = usedBySheet.get(r.styleSheetId) ?? [];
    list.push(r);
    usedBySheet.set(r.styleSheetId, list);
  }
  const own = [...sheets.values()]
    .filter((h) => (h.origin ?? 'regular') === 'regular' && !h.isConstructed && sourceName(h.sourceURL, origin) !== null)
    .sort((a, b) => a.startLine - b.startLine || a.startColumn - b.startColumn);
  const css: CoverageEntry[] = [];
  const inlineCss = new Map<string, number>();
  const pending: Array<{ entry: CoverageEntry; selectors: Array<{ sel: string; bytes: number }> }> = [];
  for (const h of own) {
    const file = requestPath(h.sourceURL.slice(origin.length))!;
    const fileKind = artifact.files.find((x) => x.path === file)?.kind;
    // A <link> whose load was blocked leaves an empty non-inline sheet named after the document: skip it.
    if (!h.isInline && fileKind === 'html') continue;
    let name = file;
    if (h.isInline) {
      const n = (inlineCss.get(file) ?? 0) + 1;
      inlineCss.set(file, n);
      name = `${file}#inline-${n}`;
    }
    let text = '';
    try {
      text = ((await cdp.send('CSS.getStyleSheetText', { styleSheetId: h.styleSheetId })) as { text: string }).text;
    } catch {
      continue; // the sheet went away (removed by a script)
    }
    const cov = ruleCoverage(cssStyleRules(text), usedBySheet.get(h.styleSheetId) ?? []);
    const entry: CoverageEntry = { source: name, totalBytes: cov.total, usedBytes: cov.used, interactionBytes: 0 };
    css.push(entry);
    const selectors: Array<{ sel: string; bytes: number }> = [];
    for (const r of cov.unused) {
      const free = interactionFreeSelector(r.selector);
      if (r.selector && free !== r.selector) selectors.push({ sel: free, bytes: r.end - r.start });
    }
    if (selectors.length) pending.push({ entry, selectors });
  }
  const flat = pending.flatMap((p) => p.selectors.map((s) => s.sel));
  if (flat.length) {
    const hits = await page.evaluate(matchSelectors, flat.slice(0, 5000));
    let i = 0;
    for (const p of pending) {
      for (const s of p.selectors) {
        if (hits[i++]) p.entry.interactionBytes! += s.bytes;
      }
    }
  }
  return { js, css };
}

/**
 * Load the entry under iPhone 12 Pro emulation in a page of `context` and measure overflow (and the first screen
 * when `screenshot`). Used when the Lighthouse run (which measures the same thing in its own emulated load) is
 * not run or did not yield the measurement.
 */
export async function visitMobile(
  context: BrowserContext,
  origin: string,
  entryUrl: string,
  f: PageFaults,
  left: () => number,
  screenshot: boolean,
): Promise<{ result: MobileResult; screenshot?: Screenshot }> {
  const device = MOBILE_EMULATION;
  const page = await context.newPage();
  try {
    await page.emulate(device);
    await Promise.all([page.evaluateOnNewDocument(dialogGuard), page.evaluateOnNewDocument(seedRandomness, PAGE_SEED)]);
    page.on('dialog', (d) => d.dismiss().catch(() => undefined));
    try {
      await withTimeout(page.goto(entryUrl, { waitUntil: 'load', timeout: 0 }), Math.min(LOAD_TIMEOUT_MS, left() - 500), 'mobile load');
    } catch (err) {
      if (!(err instanceof TimeoutError)) throw err;
      f.add(err.message);
    }
    await sleep(Math.min(MOBILE_SETTLE_MS, left() - 500));
    const m = await withTimeout(page.evaluate(measureOverflow), Math.min(STEP_TIMEOUT_MS, left()), 'mobile overflow measure');
    const result = mobileResult(m, 'mobile visit');
    let shot: Screenshot | undefined;
    if (screenshot) {
      const png = Buffer.from(await withTimeout(page.screenshot({ type: 'png', captureBeyondViewport: false, optimizeForSpeed: true }), Math.min(STEP_TIMEOUT_MS, left()), 'mobile screenshot'));
      shot = mobileScreenshot(png);
    }
    return shot ? { result, screenshot: shot } : { result };
  } finally {
    page.close().catch(() => undefined);
  }
}

/** The Screenshot record of an emulated first screen (device pixels). */
export function mobileScreenshot(png: Buffer): Screenshot {
  const v = MOBILE_EMULATION.viewport;
  const dpr = v.deviceScaleFactor ?? 1;
  return { png, width: v.width * dpr, height: v.height * dpr, deviceScaleFactor: dpr };
}
