/**
 * One run of the probe on one page: the state its phases share (the evidence being written, the driver, the
 * budget, the controls and baselines found) and the steps every phase uses (calls bounded by the budget, the
 * settle, the restore of the start state, reading a document reached by navigation).
 */
import type { Moved } from '../page/main/clock.js';
import type { BrowserContext, Page } from 'puppeteer-core';
import type { Artifact } from '../../../core/artifact/model.js';
import type { InteractionControl, InteractionEvidence, InteractionSettings, InteractionView } from '../../../core/browser-evidence.js';
import { withTimeout } from '../../time.js';
import { ProbeDriver } from '../driver.js';
import type { Window } from '../window.js';
import {
  EVAL_MS,
  FINISH_RESERVE_MS,
  FRAME_COST_TARGET_MS,
  HEAVY_FRAME_COST_MS,
  HELD_FRAME_MS,
  INTERACTION_DEFAULTS,
  MAX_FRAME_MS,
  PACED_MAX_FRAME_MS,
  NETWORK_QUIET_CAP_MS,
  PROBE_CONFIG,
  RELOAD_TIMEOUT_MS,
  RESTORE,
  START_UP_MS,
} from './limits.js';
import type { Baseline, Navigated, PostResult, PrepareResult, RawControl } from './page-answers.js';
import { sampleFile } from './samples.js';
import { gate } from '../../step-gate.js';
import { threadSeconds } from '../../thread-time.js';

export interface ProbeOptions {
  /** performance.now() by which the probe must be over. */
  deadline: number;
  /** performance.now() when the probe's work began (its browser context created): the budget counts from here. */
  started?: number;
  /** At most this long for the first load's load event (default FIRST_LOAD_TIMEOUT_MS). */
  firstLoadMs?: number;
  settings?: Partial<Omit<InteractionSettings, 'restore'>>;
  /**
   * Called once, MEASURE_MS virtual ms into the first settle, when the page's cost is known (`settleCost`): the
   * requirement tests adapt their frames there, not after a whole first test at 16 ms frames.
   */
  onCostKnown?: (run: ProbeRun) => Promise<void>;
  /**
   * Real ms the first move of the clock after a load may wait for the page's own start-up work, which runs off
   * the page clock (a WebAssembly runtime such as Pyodide compiling, data parsed in a network callback) and holds
   * the main thread meanwhile, and the page's first answer after its load (first-load.ts); default START_UP_MS,
   * past which the page counts as not answering.
   */
  startUpMs?: number;
  /** A blank page of the context, opened ahead (BrowserKit.preopen): the first page the probe opens. */
  blank?: Page;
  /** Whether the pages keep V8 block coverage (ProbeConfig.coverage; default on: the probe's evidence needs it). */
  coverage?: boolean;
  /**
   * On a page whose frames were adapted early (`adaptedEarly`: heavy, no worker), every settle holds the page's
   * frames (its timers go on) after its first ones, as the visit's settle holds a busy page's frames: the first settle
   * after the frames its cost was measured over, every later one after SETTLE_FRAMES frame intervals (the frame
   * the document's first request is due at); a restore then costs a frame, not a second of the page's frames. The
   * later sample of the first view draws only its last frame (`advanceToLastFrame`). The probe's (probe.ts); not the
   * requirement tests', whose waits and windows count frames.
   */
  holdSettleFrames?: boolean;
  /**
   * On a heavy page whose frames adapt early (`adaptEarly`), frames this many page ms apart whatever their measured
   * cost, instead of about as far apart as one costs: the probe's (probe.ts, PROBE_HEAVY_FRAME_MS), whose own cost on
   * a heavy page is its frames. The decision is then only "heavy or not", so the first settle's cost measure stops
   * after its first frame when that frame alone already costs the mark for the whole measure (`costOf`).
   */
  heavyFrameMs?: number;
}

/** Frame intervals a held settle runs before holding the rest (the first draws of a document just loaded). */
export const SETTLE_FRAMES = 1;

/** Virtual ms of the first settle after which `onCostKnown` is called (four frames at 16 ms). */
export const MEASURE_MS = 64;

/** The probe's budget is used up: the phase in progress stops and the run finishes. */
export class OutOfBudget extends Error {}

/** What one move of the page clock did (page/main/clock.ts `advance`). */
export type Advanced = Moved;

export class ProbeRun {
  readonly t0 = performance.now();
  readonly settings: InteractionSettings;
  /** performance.now() by which the steps must be over (the finish has FINISH_RESERVE_MS after it). */
  readonly deadline: number;
  readonly timings: Record<string, number> = {};
  readonly faults: string[] = [];
  readonly unavailable: Record<string, string> = {};
  readonly ev: InteractionEvidence;
  d!: ProbeDriver;
  /** An action was cut by the budget while the page may still be running its handler. */
  busy = false;
  /** Reloads then wait less for the load event. */
  firstLoadTimedOut = false;
  /** Requests the page made in the last restore's settle (after its load, the clock running: probe/baselines.ts). */
  settleRequests = 0;
  controls: InteractionControl[] = [];
  /** The controls acted on (at most `maxControls`). */
  chosen: InteractionControl[] = [];
  /** The controls' selectors in the entry document (null for the keyboard), tagged after each restore. */
  selectors: Array<string | null> = [];
  /** The page has a text field (then the baselines are run on a filled form). */
  hasTextField = false;
  plainBase!: Baseline;
  /** The baseline actions are compared with (filled when the page has text fields). */
  ref!: Baseline;
  /** Paths that differ between two identical runs: never an effect. */
  unstable: string[] = [];
  /** Paths left out of every view (they change by themselves or are unstable). */
  ignoreInViews: string[] = [];
  /** The view after each control's action (navigation reuses it). */
  readonly viewAfter = new Map<number, InteractionView>();
  /** Field index → the controls whose action made the page read its value. */
  readonly readsOf = new Map<number, Set<number>>();
  /** Virtual ms between animation frames (more than 16 on a heavy page, from `adaptFrames`). */
  frameMs = PROBE_CONFIG.frameMs;
  /** The page clock of the current document after the last move (virtual ms since it began). */
  clockNow = 0;
  /** The start state's viewport as first captured (render-validity reads it: driver.ts `screenshot`). */
  startViewport?: Buffer;
  /** CPU ms of the page's main thread the first settle cost per virtual second of the page clock (`costOf`). */
  settleCost?: number;
  /**
   * Frames were adapted MEASURE_MS into the first document's settle (`adaptEarly`): that document ran its first
   * frames at 16 ms and the rest at `frameMs`, every later load at `frameMs` from its start.
   */
  adaptedEarly = false;
  private clockNoted = false;
  /** The blank page opened ahead (ProbeOptions `blank`), until the first page is opened. */
  private blank: Page | undefined;

  constructor(
    readonly context: BrowserContext,
    readonly artifact: Artifact,
    readonly origin: string,
    readonly entryUrl: string,
    readonly opts: ProbeOptions,
  ) {
    this.settings = { ...INTERACTION_DEFAULTS, ...opts.settings, restore: RESTORE };
    this.blank = opts.blank;
    const hardDeadline = Math.min(opts.deadline, (opts.started ?? this.t0) + this.settings.budgetMs);
    this.deadline = hardDeadline - FINISH_RESERVE_MS;
    this.ev = {
      settings: this.settings,
      controls: [],
      actions: [],
      navigation: { views: [], links: [], untried: [] },
      loadErrors: [],
      filled: [],
      timings: this.timings,
      faults: this.faults,
      unavailable: this.unavailable,
    };
  }

  /** A new page for the probe (the first, or after a hung one). */
  async openPage(): Promise<void> {
    this.d = new ProbeDriver(this.context, this.origin, this.opts.coverage === false ? { ...PROBE_CONFIG, coverage: false } : PROBE_CONFIG, sampleFile);
    const blank = this.blank;
    this.blank = undefined; // a page after a hung one is a new one
    await this.d.open(blank);
  }

  /** performance.now() by which the current piece of work must be over (a requirement test's time limit), if sooner. */
  limit?: number;

  left(): number {
    return Math.min(this.deadline, this.limit ?? Infinity) - performance.now();
  }

  bound(ms: number): number {
    return Math.max(1, Math.min(ms, this.left()));
  }

  /** Add the real milliseconds since `since` to the timing `name`. */
  mark(name: string, since: number): void {
    this.timings[name] = (this.timings[name] ?? 0) + Math.round(performance.now() - since);
  }

  /** Call a reader (the probe's isolated world) within the budget; OutOfBudget when none is left. */
  call<T>(fn: string, args: unknown[], ms = EVAL_MS): Promise<T> {
    if (this.left() <= 0) throw new OutOfBudget("the probe's time budget is used up");
    return this.d.call<T>(fn, args, this.bound(ms));
  }

  /** Ask the main-world agent (the page clock and the recorders) within the budget; OutOfBudget when none is left. */
  agent<T>(op: string, args: unknown[], ms = EVAL_MS): Promise<T> {
    if (this.left() <= 0) throw new OutOfBudget("the probe's time budget is used up");
    return this.d.agent<T>(op, args, this.bound(ms));
  }

  /** The controls of the current document (page/controls.ts), with what the agent saw of React's handlers. */
  async enumerate(): Promise<RawControl[]> {
    const react = await this.agent<unknown>('react', []).catch(() => null);
    const raw = await this.call<RawControl[]>('enumerate', [react]);
    return Array.isArray(raw) ? raw : [];
  }

  /** Tag the controls' selectors in both worlds (the readers act on them, the agent notes reads of them). */
  async tag(selectors: Array<string | null>): Promise<number[]> {
    const [missing] = await Promise.all([this.call<number[]>('tag', [selectors]), this.agent('tag', [selectors])]);
    return Array.isArray(missing) ? missing.filter((i) => Number.isInteger(i)) : [];
  }

  /**
   * Before an action: the readers fill the form and bring the target into view, PREP passes on the page clock,
   * the readers aim and take the "before" snapshot, and the agent starts noting events and reads.
   */
  async prepare(opts: { fill: boolean; target: number | null; exclude: number | null; prepMs: number }): Promise<PrepareResult> {
    const start = await this.call<{ missing: boolean; filled: string[] }>('prepareStart', [{ fill: opts.fill, target: opts.target }]);
    if (start.missing) return { missing: true };
    // PREP, then the agent starts noting (the clock stands still until the action: nothing happens in between).
    const adv = await this.agent<Advanced>('advance', [opts.prepMs, true]);
    const end = await this.call<{ point: { x: number; y: number } | null; covered: string | null }>('prepareEnd', [
      { target: opts.target, exclude: opts.exclude },
    ]);
    return { missing: false, point: end.point, covered: end.covered, filled: start.filled, storm: !!(adv.storm || adv.slow) };
  }

  /** After an action: what the agent noted since `prepare` (events, reads), and what the readers compare. */
  async post(opts: { exclude: number | null; acted: number | null; ignore: string[]; versus: Record<string, string> }): Promise<PostResult> {
    // Both read the same moment (the clock stands still): asked together.
    const [noted, diff] = await Promise.all([
      this.agent<{ events: Record<string, string[]>; reads: number[] }>('untrack', []),
      this.call<Omit<PostResult, 'events' | 'reads'>>('post', [opts]),
    ]);
    return { ...diff, events: noted.events ?? {}, reads: (noted.reads ?? []).filter((i) => Number.isInteger(i)) };
  }

  quiet(since?: number): Promise<boolean> {
    return this.d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, this.left()), since);
  }

  /**
   * Move the page clock `ms` ahead. When the page's callbacks could not all run (a storm of them, or more
   * real time than the page script allows one move), the clock fell behind and what follows depends on real
   * time: the log says so once.
   */
  async advance(ms: number, note = true, callMs = EVAL_MS): Promise<Advanced> {
    const r = await this.agent<Advanced>('advance', [ms], callMs);
    if (typeof r.now === 'number') this.clockNow = r.now;
    if ((r.storm || r.slow) && note)
      this.clockBehind(
        r.storm ? `over ${PROBE_CONFIG.maxFires} callbacks in one move` : `a move of ${ms} virtual ms took over ${PROBE_CONFIG.maxAdvanceRealMs} real ms`,
      );
    return r;
  }

  /** Log (once) that the page clock fell behind (`why`), in any move of it, PREP's included. */
  clockBehind(why: string): void {
    if (this.clockNoted) return;
    this.clockNoted = true;
    this.faults.push(`the page clock fell behind (${why}): states after it depend on real time`);
  }

  /** Frames are held in settles and later samples (`holdSettleFrames` on a page whose frames adapted early). */
  get holdsFrames(): boolean {
    return !!this.opts.holdSettleFrames && this.adaptedEarly;
  }

  /**
   * Run `work` with the page's animation frames held (its timers go on), the frame already due too, then let them
   * run again.
   */
  async holding<T>(work: () => Promise<T>): Promise<T> {
    await this.agent('setFrameMs', [HELD_FRAME_MS, true]);
    try {
      return await work();
    } finally {
      // A held frame comes back due at most one interval from now (page/main/clock.ts `setFrameMs`).
      await this.agent('setFrameMs', [this.frameMs]);
    }
  }

  /** Move the page clock `ms` with the page's animation frames held. */
  private async held(ms: number, note = true): Promise<void> {
    if (ms > 0) await this.holding(() => this.advance(ms, note));
  }

  /**
   * SETTLE virtual ms of the page clock, with the network quiet before and after. On a page that holds its frames
   * (`holdsFrames`) only the settle's first frames are drawn: in the first settle those its cost was measured over
   * (one at 16 ms, or MEASURE_MS of them), in the later ones SETTLE_FRAMES intervals at the adapted frames.
   */
  async settle(): Promise<void> {
    await this.quiet();
    // The first settle measures the page's cost (frames then adapt): a clock behind there is not noted.
    // The first move waits for the page's start-up (opts.startUpMs): the page's own time in it is not counted.
    const startUp = this.opts.startUpMs ?? START_UP_MS;
    const { settleMs } = this.settings;
    if (this.settleCost === undefined && this.opts.onCostKnown) {
      // The cost from the settle's first frames; the rest of it at the frames the caller chose from that.
      const { moved, cost } = await this.costOf(Math.min(MEASURE_MS, settleMs), startUp);
      this.settleCost = cost;
      await this.opts.onCostKnown(this);
      if (this.holdsFrames) await this.held(settleMs - moved, false);
      else if (settleMs > moved) await this.advance(settleMs - moved, false);
    } else if (this.settleCost === undefined) {
      this.settleCost = (await this.costOf(settleMs, startUp)).cost;
    } else if (this.holdsFrames) {
      const first = await this.advance(Math.min(SETTLE_FRAMES * this.frameMs, settleMs), true, startUp);
      await this.held(settleMs - first.moved);
    } else {
      await this.advance(settleMs, true, startUp);
    }
    await this.quiet();
  }

  /**
   * Move the page clock `ms` ahead with the page's frames held but the last one (its timers go on) on a page that
   * holds its frames (`holdsFrames`), a plain `advance` otherwise: the page then shows what its frame at the end of
   * the move draws (for a later sample of a view, not for a run an action's effect is compared in).
   */
  async advanceToLastFrame(ms: number): Promise<void> {
    if (!this.holdsFrames || ms <= this.frameMs) {
      await this.advance(ms);
      return;
    }
    await this.held(ms - this.frameMs);
    await this.advance(this.frameMs);
  }

  /**
   * Move the page clock `ms` (not noted when it falls behind: this is the measure) and say what the move cost the
   * page: CPU ms of its main thread per page-clock second (Chrome's ThreadTime, thread-time.ts), so that a loaded
   * machine, where every move takes longer, does not make a light page heavy and change its frames (and with them
   * what a requirement test sees). The page's answer comes first, in its own call: start-up work that holds the
   * main thread after load (Pyodide) is not its frames' cost. Without Chrome's count, the move's real time (an
   * estimate from above).
   */
  private async costOf(ms: number, startUp: number): Promise<{ moved: number; cost: number }> {
    await this.advance(0, false, startUp);
    const t1 = await threadSeconds(this.d.cdp, this.bound(EVAL_MS));
    const spentSince = (t: number | undefined, realMs: number) => (t1 !== undefined && t !== undefined ? Math.max(0, (t - t1) * 1000) : realMs);
    let moved = 0;
    let realMs = 0;
    const first = PROBE_CONFIG.frameMs;
    if (this.opts.heavyFrameMs !== undefined && ms > first) {
      // The first frame alone: when it already cost the mark's CPU time for the whole window, the page is heavy
      // whatever the rest would cost (and with `heavyFrameMs` nothing else depends on how heavy): the measure ends.
      const m1 = await this.advance(first, false, startUp);
      moved = m1.moved;
      realMs = m1.realMs;
      const spent = spentSince(await threadSeconds(this.d.cdp, this.bound(EVAL_MS)), realMs);
      if (spent >= (HEAVY_FRAME_COST_MS * ms) / 1000) return { moved, cost: (spent * 1000) / ms };
    }
    // As long as the answer may take: one frame of a very heavy page can outlast EVAL_MS.
    const m = await this.advance(ms - moved, false, startUp);
    const spent = spentSince(await threadSeconds(this.d.cdp, this.bound(EVAL_MS)), realMs + m.realMs);
    return { moved: moved + m.moved, cost: (spent * 1000) / Math.max(1, moved + m.moved) };
  }

  /**
   * On a heavy page (its first settle cost HEAVY_FRAME_COST_MS CPU ms a page second or more), animation
   * frames come further apart (16 ms times its cost over FRAME_COST_TARGET_MS, at most MAX_FRAME_MS) in every later load: each
   * restore, baseline and action then costs a fraction, and the budget reaches the controls. True when the
   * interval changed (the document loaded so far ran at 16 ms: a baseline must reload).
   * With `paced` (the requirement tests), a page whose one frame costs more CPU time than MAX_FRAME_MS gets
   * frames as far apart as one of its frames costs (at most PACED_MAX_FRAME_MS): the page clock then runs at
   * about real speed, the pace at which a person's browser would draw that page, not two or more times slower.
   * With `paced` and `heavyFrameMs` (the probe), every such page gets frames `heavyFrameMs` apart.
   */
  adaptFrames(paced = false): boolean {
    if (this.settleCost === undefined || this.settleCost < HEAVY_FRAME_COST_MS) return false;
    const base = PROBE_CONFIG.frameMs;
    // The cost of one frame, as measured at 16 ms frames (timers count in it too: an estimate from above).
    const perFrame = (this.settleCost * base) / 1000;
    const cap = paced ? Math.min(PACED_MAX_FRAME_MS, Math.max(MAX_FRAME_MS, base * Math.ceil(perFrame / base))) : MAX_FRAME_MS;
    this.frameMs =
      paced && this.opts.heavyFrameMs !== undefined ? this.opts.heavyFrameMs : Math.min(cap, base * Math.ceil(this.settleCost / FRAME_COST_TARGET_MS));
    this.settings.frameMs = this.frameMs;
    return true;
  }

  /**
   * For `onCostKnown`: on a heavy page, frames at the page's own pace (`adaptFrames(true)`) from here on, in this
   * document and every later load. Not on a page paced by real time, a worker's: its settle costs real time by
   * design, not by weight. True when the interval changed.
   */
  async adaptEarly(): Promise<boolean> {
    const moved = await this.agent<{ workers?: unknown }>('advance', [0]).catch(() => null);
    if ((moved?.workers ?? 0) !== 0 || !this.adaptFrames(true)) return false;
    await this.agent('setFrameMs', [this.frameMs]).catch(() => undefined);
    this.adaptedEarly = true;
    return true;
  }

  /** In a document just loaded: frames at the run's interval when it is not the default. */
  private async frames(): Promise<void> {
    if (this.frameMs !== PROBE_CONFIG.frameMs) await this.agent('setFrameMs', [this.frameMs]);
  }

  /** Restore the start state: storage cleared, the entry page loaded again and settled, controls tagged. */
  async restore(url = this.entryUrl, tagSelectors: Array<string | null> = this.selectors): Promise<{ missing: number[]; status?: number }> {
    await gate.step('probe restore');
    const t = performance.now();
    const d = this.d;
    // The coverage so far is taken; localStorage and sessionStorage are cleared by the readers; the rest through the
    // browser, when the page used more (the agent noted IndexedDB, caches or workers) or set cookies.
    const [, cookies, used] = await Promise.all([
      d.takeCoverage(this.bound(EVAL_MS)).catch(() => undefined),
      d.call<boolean>('clearSession', [], this.bound(1000)).catch(() => true),
      d.agent<boolean>('deep', [], this.bound(1000)).catch(() => true),
    ]);
    const deep = cookies !== false || used !== false;
    if (deep)
      await withTimeout(
        d.cdp.send('Storage.clearDataForOrigin', {
          origin: this.origin,
          storageTypes: 'cookies,local_storage,indexeddb,websql,cache_storage,service_workers,file_systems',
        }),
        this.bound(EVAL_MS),
        'clear storage',
      ).catch(() => undefined);
    const nav = await d.navigate(url, this.bound(this.firstLoadTimedOut ? 2000 : RELOAD_TIMEOUT_MS));
    if (nav.error) throw new Error(`reload failed: ${nav.error}`);
    await this.frames();
    const sent = d.win.requests.length;
    await this.settle();
    this.settleRequests = d.win.requests.length - sent;
    const missing = await this.tag(tagSelectors);
    this.mark('restore', t);
    return nav.status !== undefined ? { missing, status: nav.status } : { missing };
  }

  /** Wait (a bounded number of polls) until the document reached by navigation has loaded. */
  private async loaded(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const ready = await this.d.call<string>('readyState', [], this.bound(1000)).catch(() => 'loading');
      if (ready === 'complete') break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** After a navigation during an action: wait for the new document, settle it, and read its view. */
  async afterNavigation(w: Window): Promise<Navigated> {
    const last = w.documents[w.documents.length - 1]!;
    const status = this.d.statusOfLoader(last.loaderId);
    const out: Navigated = { url: last.url, ...(status !== undefined ? { status } : {}) };
    try {
      await withTimeout(this.loaded(), this.bound(RELOAD_TIMEOUT_MS), 'navigation load');
      if (this.d.hasReaders) {
        await this.frames();
        await this.settle();
        out.view = await this.call<InteractionView>('view', [status]);
      }
    } catch {
      /* a document we cannot read (an error page, a download): its status says what it was */
    }
    return out;
  }

  /** The paths of `base` that change by themselves, with the hash they have at the end of its OBSERVE. */
  versus(base: Baseline): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of base.spontaneous) out[p] = base.after[p] ?? '-';
    return out;
  }
}
