/**
 * The visit runner: one visit of one artifact in a fresh browser context, into one BrowserEvidence object. It
 * owns the page, the navigation, the settle, the clock (every step guarded by the artifact's deadline; see
 * `VisitOptions`) and the faults; what is collected, and in which order, is collectors/index.ts's list.
 *
 * Phases, in order:
 * 1. Open: a page at 1280×800, DPR 1, in `context`; `Math.random` and `crypto` randomness seeded before any page
 *    script (seeded-random.ts), so that what a page draws at random is the same in two runs; every collector's
 *    `start` (listeners and recording from before navigation). Requests: the caller created `context` behind the
 *    sandbox proxy (sandbox/sandbox.ts), which answers and logs every request of every phase: the artifact's
 *    files, CDN files in `cdn` mode, nothing else; a main-frame navigation away is answered 204 (the page stays).
 *    `file://` is refused by Chrome itself for an http page (a console error, which counts). The caller reads the
 *    sandbox's log into the evidence afterwards (browser-kit.ts).
 * 2. Load: navigate and wait for `load` (at most LOAD_TIMEOUT_MS, or 40% of the budget if less). A page that
 *    never loads gets the fault "load timeout" and we go on with what is there.
 * 3. Settle: SETTLE_MS, with the main thread's busy share measured over it (collectors/busy-after-load.ts).
 * 4. Probe: the page must answer once within RESPONSIVE_PROBE_MS; a page that never goes idle then has its clock
 *    paused (`pauseClock`), any other page has it run on by PAGE_CLOCK_ADVANCE_MS at once and then paused
 *    (`advanceClock`), so that what its timers show soon after start-up is in the evidence on every run.
 * 5. Collect: each collector's step, in order, each within its limit.
 * 6. Phone: iPhone 12 Pro in a page of its own (collectors/mobile-visit.ts), unless the Lighthouse run measures it;
 *    on the page clock the phone picture is taken here either way (`phone`).
 * 7. Finish: what the listeners recorded.
 *
 * When an in-page step times out the page is taken as unresponsive (a busy main thread: endless loop) and the
 * remaining in-page steps are skipped, each field recording why in `unavailable`. Closing the context ends the
 * renderer; if even that hangs, the caller restarts Chrome.
 */
import type { BrowserContext, CDPSession, Page } from 'puppeteer-core';
import type { Artifact } from '../core/artifact/model.js';
import type { BrowserEvidence } from '../core/browser-evidence.js';
import { errorMessage } from '../core/errors.js';
import { busyAfterLoad, firstContentfulPaintMs, holdAnimationFrames, isNeverIdle } from './collectors/busy-after-load.js';
import { visitCollectors } from './collectors/index.js';
import { visitMobile } from './collectors/mobile-visit.js';
import { VIEWPORT } from './collectors/screenshots.js';
import { PageFaults, type VisitCollector, type VisitContext } from './collectors/visit-collector.js';
import { PAGE_SEED, seedRandomness } from './seeded-random.js';
import { LOAD_TIMEOUT_MS, SETTLE_MS, STEP_TIMEOUT_MS, TimeoutError, sleep, withTimeout } from './time.js';
import { gate } from './step-gate.js';
import { evaluateIsolated } from './isolated-world.js';
import { MOVE_CALL_MS, NETWORK_QUIET_CAP_MS, VisitClock } from './visit-clock.js';
import type { VisitClockMode } from '../core/visit-clock.js';

/**
 * How long the page may take to answer once after load before it counts as not responding. It was 2 s, then 5 s:
 * a heavy page whose scripts keep the main thread busy for seconds after load (ai-adoption in the corpus, a
 * Pyodide page: 2.6–3.2 s on the quiet machine at concurrency 1) answered in time there and, in 2 of 5 runs, not
 * with a second worker on the other core, and every screenshot and DOM metric then flipped between scored and
 * unscorable with the machine's load. 10 s leaves three times the quiet machine's need; an endless loop costs
 * 5 s more of its budget.
 */
export const RESPONSIVE_PROBE_MS = 10_000;
/** How far the clock of a page that goes idle is run on after the settle (`advanceClock`). */
export const PAGE_CLOCK_ADVANCE_MS = 1_000;
/** The real time the run-on may take (its clock stands still while fetches are pending). */
const PAGE_CLOCK_ADVANCE_WAIT_MS = 1_000;
/** Main-frame navigations after the entry from which an unresponsive page is said to be in a reload loop. */
const RELOAD_LOOP_NAVIGATIONS = 3;
/** Live dedicated workers from which an unresponsive page is said to be starved by its workers. */
const WORKER_STARVATION_WORKERS = 8;

export interface VisitOptions {
  /** Absolute time (performance.now()) by which the visit must be over. */
  deadline: number;
  /** Fields to gather; screenshots are skipped when not needed. */
  screenshots: boolean;
  /**
   * Where the iPhone 12 Pro measurement is taken: `'visit'` (default) loads the page a second time, in the
   * context `mobileContext` gives (fresh storage, the sandbox's `mobile` phase); `'lighthouse'` leaves it to the
   * artifact's Lighthouse run, which loads the page under the same emulation anyway (the phone gatherer,
   * gatherers/phone.ts, fills `mobile` from it); `'none'`: no phone load at all (no selected metric needs the
   * measurement or the pictures).
   */
  mobile?: 'visit' | 'lighthouse' | 'none';
  /** A fresh context for the mobile visit (default: the visit's own context). The caller closes it. */
  mobileContext?: () => Promise<BrowserContext>;
  /**
   * The page's clock: `'real'` (default) loads and settles on real time and then runs CDP virtual time on (phases
   * 3–4 above); `'page'` puts the page on a clock of our own from its first byte (visit-clock.ts), which replaces
   * phases 3 and 4.
   */
  clock?: VisitClockMode;
}

export { DEFAULT_VISIT_CLOCK, VISIT_CLOCKS, type VisitClockMode } from '../core/visit-clock.js';

/**
 * Visit the artifact at `entryUrl` in `context` and gather BrowserEvidence.
 * Never throws for page faults; throws only when the browser itself is unusable (the caller restarts it).
 */
export async function visitArtifact(
  context: BrowserContext,
  artifact: Artifact,
  origin: string,
  entryUrl: string,
  opts: VisitOptions,
): Promise<BrowserEvidence> {
  const t0 = performance.now();
  const page = await context.newPage();
  return new VisitRun(t0, context, page, await page.createCDPSession(), artifact, origin, entryUrl, opts).run();
}

/** One visit's state, with one method per phase. */
class VisitRun {
  private readonly timings: Record<string, number> = {};
  private readonly faults = new PageFaults();
  private readonly collectors: VisitCollector[] = visitCollectors();
  /** Documents the main frame showed (the entry is the first): more mean the page navigated. */
  private readonly documents: string[] = [];
  private readonly ctx: VisitContext;
  private closed = false;
  private responsive = true;
  private unresponsive = 'page did not respond (busy main thread)';
  /** The page clock of our own (VisitOptions `clock: 'page'`). */
  private readonly clock?: VisitClock;

  constructor(
    private readonly t0: number,
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly cdp: CDPSession,
    artifact: Artifact,
    origin: string,
    private readonly entryUrl: string,
    private readonly opts: VisitOptions,
  ) {
    let css: Promise<void> | undefined;
    const enableCss = () =>
      (css ??= cdp
        .send('DOM.enable')
        .then(() => cdp.send('CSS.enable'))
        .then(() => undefined));
    this.ctx = { page, cdp, artifact, origin, entryUrl, faults: this.faults, documents: this.documents, enableCss };
    if (opts.clock === 'page') {
      this.clock = new VisitClock(page, cdp, PAGE_SEED);
      this.ctx.pageClock = true;
    }
  }

  async run(): Promise<BrowserEvidence> {
    await this.open();
    const loaded = await this.load();
    const busy = this.clock ? await this.settleOnClock(this.clock, loaded) : await this.settleOnRealTime(loaded);
    const fcp = await this.step('domHtml', 'first paint', () => evaluateIsolated(this.cdp, firstContentfulPaintMs), RESPONSIVE_PROBE_MS);
    const ev: BrowserEvidence = {
      url: this.entryUrl,
      finalUrl: this.entryUrl,
      timings: this.timings,
      console: [],
      pageErrors: [],
      network: [],
      domHtml: '',
      domNodeCount: 0,
      screenshots: {},
      faults: this.faults.faults,
      loaded,
    };
    if (busy !== undefined) ev.busyAfterLoad = busy;
    if (fcp !== undefined) ev.firstContentfulPaintMs = fcp;
    await this.collect(ev);
    await this.phone(ev);
    return this.finish(ev);
  }

  private left(): number {
    return this.opts.deadline - performance.now();
  }

  private mark(name: string, since: number): void {
    this.timings[name] = Math.round(performance.now() - since);
  }

  /** The page watched, then every collector started: all listeners are in place before any protocol answer. */
  private async open(): Promise<void> {
    const { page } = this;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.documents.push(frame.url());
    });
    page.on('close', () => {
      this.closed = true;
      this.faults.add('the page window was closed');
    });
    page.on('error', (e) => this.faults.add(`page crashed: ${errorMessage(e)}`));
    // The protocol calls are independent of one another and go out together: one round trip to Chrome.
    await Promise.all([
      ...this.collectors.map((c) => c.start?.(this.ctx)),
      page.setViewport({ ...VIEWPORT, deviceScaleFactor: 1 }),
      // The page clock's script seeds the randomness first (interaction/page-script.ts `agentScript`).
      this.clock ? this.clock.install() : page.evaluateOnNewDocument(seedRandomness, PAGE_SEED),
    ]);
    this.mark('setup', this.t0);
  }

  /** Navigate and wait for `load`; false (and a fault) when it did not come. */
  private async load(): Promise<boolean> {
    await gate.step('visit load');
    const t = performance.now();
    try {
      await withTimeout(this.page.goto(this.entryUrl, { waitUntil: 'load', timeout: 0 }), Math.min(LOAD_TIMEOUT_MS, this.left() * 0.4), 'load');
      return true;
    } catch (err) {
      this.faults.add(err instanceof TimeoutError ? `load timeout: ${err.message}` : `navigation failed: ${errorMessage(err)}`);
      return false;
    } finally {
      this.mark('load', t);
    }
  }

  /** Phases 3 and 4 on real time; the busy share after load. */
  private async settleOnRealTime(loaded: boolean): Promise<number | undefined> {
    const busy = await this.settle(loaded);
    // On a page that never goes idle the probe's one answer is the hold of its frames (`pauseClock`).
    const neverIdle = isNeverIdle(busy);
    await this.step('domHtml', 'probe', () => this.page.evaluate(neverIdle ? holdAnimationFrames : () => undefined), RESPONSIVE_PROBE_MS);
    if (neverIdle) await this.pauseClock();
    else await this.advanceClock();
    return busy;
  }

  /**
   * Phases 3 and 4 on the page clock of our own (visit-clock.ts `settle`): its first move is the page's answer
   * (within RESPONSIVE_PROBE_MS); the busy share is the page's main-thread CPU time per page millisecond. A page that never
   * loaded is not moved (as on real time, it is collected as it is).
   */
  private async settleOnClock(clock: VisitClock, loaded: boolean): Promise<number | undefined> {
    const t = performance.now();
    this.responsive = !this.closed;
    if (!loaded) {
      this.mark('settle', t);
      return undefined;
    }
    const limit = RESPONSIVE_PROBE_MS + 2 * MOVE_CALL_MS + 2 * NETWORK_QUIET_CAP_MS + 4000;
    const settled = await this.step('domHtml', 'probe', () => clock.settle(RESPONSIVE_PROBE_MS, () => this.left()), limit);
    if (settled?.behind) this.faults.add(`the page clock fell behind (${settled.behind}): what was collected depends on real time`);
    this.mark('settle', t);
    return settled?.busy;
  }

  /** The settle after load (none for a page that never loads). Returns the main thread's busy share over it. */
  private async settle(loaded: boolean): Promise<number | undefined> {
    const t = performance.now();
    let busy: number | undefined;
    if (loaded) {
      const wait = () => sleep(Math.min(SETTLE_MS, this.left()));
      busy = await busyAfterLoad(this.cdp, wait, wait);
    }
    this.responsive = !this.closed;
    this.mark('settle', t);
    return busy;
  }

  /**
   * A page that never goes idle is collected on its own clock, stopped: its animation frames are held (by the
   * responsiveness probe: collectors/busy-after-load.ts `holdAnimationFrames`) and its timers stand still (CDP
   * virtual time paused, here),
   * so that every collector's call is answered between two tasks instead of after a frame's work (a fractal
   * recomputed every frame, slowed several times over by the block coverage the visit records, made each step
   * wait seconds and the coverage step time out). The collectors then see the page as its last frame left it;
   * what it logs afterwards is not seen (its per-frame errors were seen during load and settle). The screenshots'
   * freeze pauses the same clock for every page.
   */
  private async pauseClock(): Promise<void> {
    if (!this.responsive || this.closed) return;
    const t = performance.now();
    try {
      await withTimeout(this.cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pause' }), Math.min(STEP_TIMEOUT_MS, this.left()), 'pause clock');
    } catch (err) {
      this.faults.add(`pausing the page clock failed: ${errorMessage(err)}`);
    } finally {
      this.mark('pause clock', t);
    }
  }

  /**
   * A page that goes idle has its clock run on by PAGE_CLOCK_ADVANCE_MS of its own time, at once, then stopped
   * (CDP virtual time: the timers due in that time fire one after another, none later): a message a timer shows
   * 500 ms after start-up is in the evidence on every run, not only when the settle happened to last that long
   * (a corpus chat page gave its screenshot judges a new picture on every run). The clock stands still while
   * fetches are pending; if it has not run on within PAGE_CLOCK_ADVANCE_WAIT_MS of real time (a request that never
   * ends), it is stopped where it is. From here on the visit collects a page whose clock stands still, as for a
   * page that never goes idle (`pauseClock`).
   */
  private async advanceClock(): Promise<void> {
    if (!this.responsive || this.closed) return;
    const t = performance.now();
    try {
      const expired = new Promise<void>((r) => this.cdp.once('Emulation.virtualTimeBudgetExpired', () => r()));
      await this.cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pauseIfNetworkFetchesPending', budget: PAGE_CLOCK_ADVANCE_MS });
      await Promise.race([expired, sleep(Math.min(PAGE_CLOCK_ADVANCE_WAIT_MS, Math.max(0, this.left())))]);
      await withTimeout(this.cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pause' }), Math.min(STEP_TIMEOUT_MS, this.left()), 'pause clock');
    } catch (err) {
      this.faults.add(`running the page clock on failed: ${errorMessage(err)}`);
    } finally {
      this.mark('page clock', t);
    }
  }

  /** Why the page stopped answering, named by what can still be seen from outside its renderer. */
  private unresponsiveCause(): string {
    if (this.closed) return 'page did not respond (its window was closed)';
    const navigations = this.documents.length - 1;
    if (navigations >= RELOAD_LOOP_NAVIGATIONS)
      return `page did not respond: it kept navigating (${navigations} navigations after the entry loaded: a reload or redirect loop)`;
    const workers = this.page.workers().length;
    if (workers >= WORKER_STARVATION_WORKERS) return `page did not respond: ${workers} web workers compete with it for the CPU (worker starvation)`;
    return 'page did not respond (busy main thread: a long or endless script)';
  }

  /** Run an in-page step within its limit; on timeout mark the page unresponsive. Undefined when it failed. */
  private async step<T>(field: string, what: string, fn: () => Promise<T>, limit = STEP_TIMEOUT_MS): Promise<T | undefined> {
    if (!this.responsive || this.closed) {
      this.faults.skip(field, this.closed ? 'the page window was closed' : this.unresponsive);
      return undefined;
    }
    const t = performance.now();
    try {
      return await withTimeout(fn(), Math.min(limit, this.left()), what);
    } catch (err) {
      if (err instanceof TimeoutError) {
        this.responsive = false;
        this.unresponsive = this.unresponsiveCause();
        this.faults.add(`${what}: ${err.message}`);
        this.faults.skip(field, `${what} timed out (${this.unresponsive})`);
      } else {
        this.faults.add(`${what} failed: ${errorMessage(err)}`);
        this.faults.skip(field, `${what} failed: ${errorMessage(err)}`);
      }
      return undefined;
    } finally {
      this.timings[what] = Math.round(performance.now() - t);
    }
  }

  /** Every collector's step, in order (the screenshot ones only when screenshots are wanted). */
  private async collect(ev: BrowserEvidence): Promise<void> {
    for (const c of this.collectors) {
      if (!c.collect || (c.screenshots && !this.opts.screenshots)) continue;
      await gate.step(`visit ${c.name}`);
      const value = await this.step(c.field, c.name, () => c.collect!(this.ctx), c.limit);
      c.fill?.(ev, value, this.ctx);
    }
  }

  /**
   * The phone measurement in a page of its own (the desktop page may be unresponsive; this one loads anew). On the
   * page clock the phone picture is always this page's (collectors/mobile-visit.ts): when the Lighthouse run
   * measures the overflow, this visit takes the picture only, and a failure is a fault, not a missing measurement.
   */
  private async phone(ev: BrowserEvidence): Promise<void> {
    const { faults, opts } = this;
    if (opts.mobile === 'none') return;
    const responsive = this.responsive && !this.closed;
    // Measured in the Lighthouse run (gatherers/lighthouse.ts), which runs whenever the page answered the probe and gave
    // its DOM: a later step that timed out on a page busy starting up (a Pyodide page beside other work) is that
    // step's loss, not the phone check's.
    const byLighthouse = opts.mobile === 'lighthouse' && !this.closed && !faults.unavailable.domHtml;
    const pictureOnly = byLighthouse && this.clock !== undefined && opts.screenshots;
    if (byLighthouse && !pictureOnly) return;
    if (!responsive || this.left() <= 1000) {
      if (pictureOnly) faults.add(`phone picture: ${this.responsive ? 'no time left in the budget' : this.unresponsive}`);
      else faults.skip('mobile', this.responsive ? 'no time left in the budget for mobile emulation' : this.unresponsive);
      return;
    }
    const t = performance.now();
    try {
      const context = opts.mobileContext ? await opts.mobileContext() : this.context;
      const mob = await withTimeout(
        visitMobile(context, this.entryUrl, faults, () => this.left(), opts.screenshots, opts.clock),
        Math.min(LOAD_TIMEOUT_MS + 5000, this.left()),
        'mobile visit',
      );
      if (!pictureOnly) ev.mobile = mob.result;
      if (mob.screenshot) ev.screenshots.mobile = mob.screenshot;
    } catch (err) {
      faults.add(`mobile emulation: ${errorMessage(err)}`);
      if (!pictureOnly) faults.skip('mobile', `mobile emulation failed: ${errorMessage(err)}`);
    }
    this.mark('mobile', t);
  }

  private finish(ev: BrowserEvidence): BrowserEvidence {
    for (const c of this.collectors) c.finish?.(ev, this.ctx);
    if (Object.keys(this.faults.unavailable).length) ev.unavailable = this.faults.unavailable;
    this.cdp.detach().catch(() => undefined);
    this.page.removeAllListeners('close');
    ev.faults = [...this.faults.faults];
    this.timings.total = Math.round(performance.now() - this.t0);
    return ev;
  }
}
