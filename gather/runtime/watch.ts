/**
 * The runtime watch: how a page behaves while it runs and is used, on real time (issue 44). Given a page already
 * loaded in a context of its own, running on real time (no page clock of ours, no held frames), it:
 * 1. starts the observers (observer.ts) and Chrome's counters (`Performance.enable` in thread ticks) while
 *    SETTLE_MS pass (start-up work), then collects garbage and samples memory (JS heap, DOM nodes, listeners) and
 *    reads the input listeners (a stand-in for the later reading, should that one time out);
 * 2. records a trace of WINDOW_MS (trace.ts): every animation frame's CPU and wall time, and Chrome's presented
 *    and dropped frames; the main thread's CPU share over the same window (TaskDuration in thread ticks);
 * 3. collects garbage and samples memory again: growth over the window is what the page keeps while it runs;
 * 4. sends INPUTS (key presses, then a click at the viewport's centre) INPUT_GAP_MS apart, waits for the page to
 *    take them, ends the trace; while Chrome hands it over, reads the Event Timing entries of the interactions the
 *    inputs made (after two more frames), the input listeners and memory once more (after use).
 * Calls that do not depend on each other are sent together: on a page whose main thread never rests each call
 * waits for the end of a frame, and a dozen calls one after another cost seconds (issue 44: ≤ 2 s per page).
 * Every step is bounded by the deadline; a step that fails or runs out is a fault in the evidence and the
 * figures gathered so far are kept. Dialogs the page opens are dismissed (they would stop its main thread).
 *
 * Why a page of its own (browser-gatherer.ts loads one): the visit's page has its clock paused and, on a page that
 * never goes idle, its animation frames held, from just after its 300 ms settle (visit.ts), and the probe's pages
 * run on the probe's virtual clock (interaction/page/main/clock.ts): frame times there are not the page's. The
 * inputs would also change what the visit's screenshots show.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import type { MemorySample, RuntimeEvidence, RuntimeFrame, RuntimeInteraction } from '../../core/runtime-evidence.js';
import { errorMessage } from '../../core/errors.js';
import { bounded, type Bounds } from '../isolated-world.js';
import { sleep, withTimeout } from '../time.js';
import { counterShare } from '../collectors/busy-after-load.js';
import { installObservers, markInputs, readObservers, type Observed } from './observer.js';
import { readTrace, TRACE_CATEGORIES, type TraceEvent, type TraceReading } from './trace.js';

/** Real ms after load before the window starts: the page's start-up work is not its running cost. */
export const SETTLE_MS = 200;
/** The window's real length: frames, CPU share and memory growth are measured over it. */
export const WINDOW_MS = 1000;
/** What is sent after the window: key presses a game answers, then a click where the page's content is. */
export const INPUTS: ReadonlyArray<{ key: string; code: string; keyCode: number } | { click: true }> = [
  { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  { key: ' ', code: 'Space', keyCode: 32 },
  { click: true },
];
/** The event types that make a page one a player can use with the inputs sent. */
export const INPUT_EVENTS = ['keydown', 'keyup', 'keypress', 'pointerdown', 'pointerup', 'mousedown', 'mouseup', 'click', 'touchstart', 'touchend'] as const;
/**
 * Real ms between two inputs (three refreshes at 60 Hz: each its own interaction). None after the last: the trace
 * needs only the handlers, which have run once Chrome answers the input, and the Event Timing entries are read
 * after two more frames while Chrome hands the trace over (observer.ts `readObservers`).
 */
export const INPUT_GAP_MS = 50;
/**
 * How long Chrome may take to start a trace: the first of a browser's took 0.25 s on a quiet machine and over 2 s
 * at load 40 (2026-11-27).
 */
export const TRACE_START_MS = 6000;
/** How long Chrome may take to hand over the trace after it ends. */
export const TRACE_COLLECT_MS = 5000;
/**
 * The watch's own caps (real ms): a page whose main thread never rests answers every call late, and each phase
 * then stops where it is. The settle phase (observers, first memory reading) gets SETTLE_CAP_MS, the window its
 * WINDOW_MS whatever happened before, and what follows it POST_WINDOW_CAP_MS; the trace is ended and read in any
 * case. At most about 8 s after load in all.
 */
export const SETTLE_CAP_MS = 2500;
export const POST_WINDOW_CAP_MS = 3500;
/**
 * A memory reading's limit before the inputs: on a busy page it must leave them time. The readings after the inputs
 * (the listeners, the last memory reading) run beside the trace's hand-over and have CALL_MS each.
 */
export const SAMPLE_MS = 1000;
/** One protocol call's limit (a busy page answers between two tasks). */
export const CALL_MS = 2000;
/** The viewport the click aims at the centre of. */
export const WATCH_VIEWPORT = { width: 1280, height: 800 } as const;

const OBSERVED_BOUNDS: Bounds = { maxString: 40, maxItems: 2000, maxDepth: 4 };

export interface WatchOptions {
  /** performance.now() by which the watch must be over. */
  deadline: number;
  /** Ends the watch early (the figures so far are kept). */
  signal?: AbortSignal;
  /** What `prepareWatch` set up before the page loaded (else the watch sets it up on the loaded page). */
  prepared?: Prepared;
}

/** The name of the watch's isolated world. */
export const RUNTIME_WORLD = 'webgrade-runtime';

/** What `prepareWatch` set up: the counters are on, and the observers' world once its document exists. */
export interface Prepared {
  counters: boolean;
  /** The execution context of the observers' world in the current document of the top frame, if any. */
  world(): number | undefined;
}

/**
 * Before the page loads (its page still blank), on its protocol session: Chrome's counters on, and the observers installed in an isolated world
 * of every document the top frame loads (`Page.addScriptToEvaluateOnNewDocument` with a world name: they run
 * before the page's own scripts, where those cannot reach them). A page that never rests answers each call only
 * at the end of one of its frames; made before it loads, these calls cost the watch nothing.
 */
export async function prepareWatch(cdp: CDPSession): Promise<Prepared> {
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const top = frameTree.frame.id;
  let world: number | undefined;
  cdp.on('Runtime.executionContextCreated', (e: { context: { id: number; name: string; auxData?: { frameId?: string } } }) => {
    if (e.context.name === RUNTIME_WORLD && e.context.auxData?.frameId === top) world = e.context.id;
  });
  cdp.on('Runtime.executionContextDestroyed', (e: { executionContextId: number }) => {
    if (e.executionContextId === world) world = undefined;
  });
  const [counters] = await Promise.all([
    cdp.send('Performance.enable', { timeDomain: 'threadTicks' }).then(
      () => true,
      () => false,
    ),
    // Chrome runs a document's added scripts only where the session's page domain is on.
    cdp.send('Page.enable'),
    cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: `(${installObservers.toString()})()`, worldName: RUNTIME_WORLD }),
    cdp.send('Runtime.enable'),
  ]);
  return { counters, world: () => world };
}

/** The watch's state, one method per step. */
class Watch {
  readonly t0 = performance.now();
  readonly faults: string[] = [];
  readonly timings: Record<string, number> = {};
  readonly memory: MemorySample[] = [];
  private world?: number;

  constructor(
    readonly page: Page,
    readonly cdp: CDPSession,
    readonly opts: WatchOptions,
  ) {}

  /** What is left of the watch's time: its phase's own cap or the caller's deadline. */
  left(): number {
    return Math.min(this.opts.deadline, this.capAt) - performance.now();
  }

  /** Until when the current phase may run: the settle first, then what follows the window (`phase`). */
  capAt = performance.now() + SETTLE_CAP_MS;

  /** The window is over: what follows it (memory, inputs, their answers) has POST_WINDOW_CAP_MS. */
  phase(): void {
    this.capAt = performance.now() + POST_WINDOW_CAP_MS;
  }

  /** `fn` within CALL_MS and the deadline; undefined (and a fault) when it fails. */
  async call<T>(what: string, fn: () => Promise<T>, ms = CALL_MS, mustRun = false): Promise<T | undefined> {
    if (mustRun) {
      try {
        return await withTimeout(fn(), ms, what);
      } catch (err) {
        this.faults.push(`${what}: ${errorMessage(err)}`.slice(0, 300));
        return undefined;
      }
    }
    if (this.opts.signal?.aborted) {
      this.faults.push(`${what}: stopped`);
      return undefined;
    }
    try {
      return await withTimeout(fn(), Math.min(ms, this.left()), what);
    } catch (err) {
      this.faults.push(`${what}: ${errorMessage(err)}`.slice(0, 300));
      return undefined;
    }
  }

  /**
   * Evaluate a self-contained function in the watch's isolated world (the one `prepareWatch` had Chrome make at
   * document start, else one made on first use), bounded.
   */
  async evaluate<R>(fn: () => R, what: string): Promise<unknown> {
    return this.call(what, async () => {
      this.world ??= this.opts.prepared?.world();
      if (this.world === undefined) {
        const { frameTree } = (await this.cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
        const made = (await this.cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: RUNTIME_WORLD })) as {
          executionContextId: number;
        };
        this.world = made.executionContextId;
      }
      const r = (await this.cdp.send('Runtime.callFunctionOn', {
        functionDeclaration: fn.toString(),
        executionContextId: this.world,
        returnByValue: true,
        awaitPromise: true,
      })) as { result: { value?: unknown }; exceptionDetails?: { text: string } };
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.text);
      return bounded(r.result.value, OBSERVED_BOUNDS);
    });
  }

  /** Chrome's page metrics by name (numbers only). */
  async metrics(what: string): Promise<Record<string, number> | undefined> {
    const r = await this.call(what, () => this.cdp.send('Performance.getMetrics'));
    if (!r) return undefined;
    const out: Record<string, number> = {};
    for (const m of r.metrics) if (typeof m.name === 'string' && Number.isFinite(m.value)) out[m.name] = m.value;
    return out;
  }

  /** A full garbage collection, then the heap and DOM counters. */
  async sample(what: string, ms = SAMPLE_MS): Promise<void> {
    await this.call(`${what}: garbage collection`, () => this.cdp.send('HeapProfiler.collectGarbage'), ms);
    const m = await this.metrics(`${what}: counters`);
    if (m?.JSHeapUsedSize === undefined || m.Nodes === undefined) return;
    // The time of the reading, on Chrome's clock (its `Timestamp`, taken with the counters): on a loaded machine
    // the collection and the answer can take a second, and a time taken before them would credit the growth to
    // the wrong stretch (CI saw a 100 ms leak read as 26 MB/min where it is 60).
    const now = Math.round(performance.now() - this.windowStart);
    const first = this.memory[0];
    const at =
      first !== undefined && m.Timestamp !== undefined && this.firstTimestamp !== undefined
        ? Math.round(first.at + (m.Timestamp - this.firstTimestamp) * 1000)
        : now;
    if (first === undefined) this.firstTimestamp = m.Timestamp;
    this.memory.push({ at, heapBytes: Math.round(m.JSHeapUsedSize), nodes: Math.round(m.Nodes), listeners: Math.round(m.JSEventListeners ?? 0) });
  }
  /** Chrome's `Timestamp` (s) at the first memory reading. */
  private firstTimestamp: number | undefined;

  windowStart = performance.now();
  /** Real ms from the first input sent to the end of the wait for their answers. */
  waitedMs = 0;

  mark(name: string, since: number): void {
    this.timings[name] = Math.round(performance.now() - since);
  }

  /**
   * The window: a trace of WINDOW_MS with the CPU share over it. Resolves when the window is over; the trace
   * goes on (over the inputs) until `reading` ends and reads it.
   */
  async window(): Promise<{ busyCpu?: number; wall: number; reading: () => Promise<TraceReading | undefined> }> {
    const events: TraceEvent[] = [];
    const onData = (d: { value: TraceEvent[] }) => {
      if (events.length < 2_000_000) events.push(...d.value);
    };
    this.cdp.on('Tracing.dataCollected', onData);
    const complete = new Promise<void>((r) => this.cdp.once('Tracing.tracingComplete', () => r()));
    // Sent together: the counters are read on the renderer's clock (the CPU share is over their own two
    // timestamps), the trace starts in the browser; one round trip to a busy page instead of two.
    const [m0, started] = await Promise.all([
      this.metrics('counters before the window'),
      this.call(
        'trace start',
        () =>
          this.cdp.send('Tracing.start', {
            traceConfig: { includedCategories: [...TRACE_CATEGORIES], excludedCategories: ['*'] },
            transferMode: 'ReportEvents',
          }),
        TRACE_START_MS,
        true, // the window has priority over the settle's cap
      ),
    ]);
    const w0 = performance.now();
    this.windowStart = w0;
    // The window has priority over the watch's own cap: only the caller's deadline shortens it.
    await sleep(Math.max(0, Math.min(WINDOW_MS, this.opts.deadline - performance.now() - 1000)));
    this.phase();
    const m1 = await this.metrics('counters after the window');
    const wall = performance.now() - w0;
    // The trace goes on over the inputs (their handlers' CPU time): `stop` ends it and reads it.
    const reading = async () => {
      try {
        if (started === undefined) return undefined;
        // A trace left running would make the next one (Lighthouse's) fail: it is ended whatever time is left.
        if ((await this.call('trace end', () => this.cdp.send('Tracing.end'), CALL_MS, true)) === undefined) return undefined;
        await this.call('trace collection', () => complete, TRACE_COLLECT_MS, true);
        const t = readTrace(events);
        if (t.fault) this.faults.push(t.fault);
        return t;
      } finally {
        this.cdp.off('Tracing.dataCollected', onData);
      }
    };
    const out: { busyCpu?: number; wall: number; reading: () => Promise<TraceReading | undefined> } = { wall, reading };
    // Over the renderer's own clock (`Timestamp`, wall time in either time domain), as the visit's busy share, so
    // that a late answer on a loaded machine does not stretch the denominator.
    const counters = (m: Record<string, number> | undefined) =>
      m?.TaskDuration !== undefined && m.Timestamp !== undefined ? { task: m.TaskDuration, at: m.Timestamp } : undefined;
    const [r0, r1] = [counters(m0), counters(m1)];
    const share = r0 && r1 ? counterShare(r0, r1) : undefined;
    if (share !== undefined) out.busyCpu = Math.round(share * 1000) / 1000;
    return out;
  }

  /** The input event types the page listens to (window, document and every element, frames' excepted). */
  async listeners(what = 'listeners'): Promise<string[] | undefined> {
    return this.call(
      what,
      async () => {
        const types = new Set<string>();
        // Both targets at once: on a page that never rests each call waits for the end of a frame.
        await Promise.all(
          ['window', 'document'].map(async (expression) => {
            // The main world's objects: listeners are kept per world. `window` and `document` are unforgeable:
            // reading them runs none of the page's code.
            const r = (await this.cdp.send('Runtime.evaluate', { expression, objectGroup: 'webgrade-runtime' })) as {
              result: { objectId?: string };
            };
            if (!r.result.objectId) return;
            const l = (await this.cdp.send('DOMDebugger.getEventListeners', { objectId: r.result.objectId, depth: -1 })) as {
              listeners: Array<{ type?: unknown }>;
            };
            for (const x of l.listeners) if (typeof x.type === 'string' && (INPUT_EVENTS as readonly string[]).includes(x.type)) types.add(x.type);
            void this.cdp.send('Runtime.releaseObject', { objectId: r.result.objectId }).catch(() => undefined);
          }),
        );
        return [...types].sort();
      },
      CALL_MS,
    );
  }

  /**
   * The inputs at fixed moments, INPUT_GAP_MS apart, with the time (epoch ms) each was sent. Chrome answers an
   * input once the page has handled it: the next one is sent on time all the same (a busy page queues them, as it
   * would a player's), and the answers are awaited at the end, within what is left.
   */
  async inputs(): Promise<Array<{ input: string; sent: number; answeredMs?: number }>> {
    const sent: Array<{ input: string; sent: number; answeredMs?: number }> = [];
    const answers: Array<Promise<unknown>> = [];
    const first = performance.now();
    const send = (what: string, steps: Array<() => Promise<unknown>>) => {
      const row: { input: string; sent: number; answeredMs?: number } = { input: what, sent: Date.now() };
      const t = performance.now();
      const p = steps.reduce<Promise<unknown>>((a, step) => a.then(step), Promise.resolve());
      p.then(
        () => (row.answeredMs = Math.round(performance.now() - t)),
        (err: unknown) => this.faults.push(`${what}: ${errorMessage(err)}`.slice(0, 300)),
      );
      answers.push(p.catch(() => undefined));
      sent.push(row);
    };
    for (const [n, i] of INPUTS.entries()) {
      if (n > 0) await sleep(INPUT_GAP_MS);
      if (this.left() < INPUT_GAP_MS + 300 || this.opts.signal?.aborted) break;
      if ('click' in i) {
        const x = WATCH_VIEWPORT.width / 2;
        const y = WATCH_VIEWPORT.height / 2;
        send(`click ${x},${y}`, [
          () => this.cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y }),
          () => this.cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 }),
          () => this.cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 }),
        ]);
      } else {
        const key = { key: i.key, code: i.code, windowsVirtualKeyCode: i.keyCode, ...(i.key === ' ' ? { text: ' ' } : {}) };
        send(`key ${i.code}`, [
          () => this.cdp.send('Input.dispatchKeyEvent', { type: i.key === ' ' ? 'keyDown' : 'rawKeyDown', ...key }),
          () => this.cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key }),
        ]);
      }
    }
    await this.call('inputs handled', () => Promise.all(answers), Math.max(1, this.left() - 200));
    this.waitedMs = Math.round(performance.now() - first);
    return sent;
  }
}

/** The observers' answer, validated: only well-formed entries, numbers finite and in range. */
export function readObserved(raw: unknown): Observed | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const timeOrigin = typeof r.timeOrigin === 'number' && r.timeOrigin > 0 ? r.timeOrigin : undefined;
  if (timeOrigin === undefined) return undefined;
  const ok = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x < 1e9;
  const events: Observed['events'] = [];
  for (const e of Array.isArray(r.events) ? r.events : []) {
    if (!Array.isArray(e) || e.length !== 6 || typeof e[0] !== 'string' || !e.slice(1).every(ok)) continue;
    events.push(e as Observed['events'][number]);
  }
  const longFrames = (Array.isArray(r.longFrames) ? r.longFrames : []).filter(ok);
  return { timeOrigin, events, longFrames };
}

/**
 * Each input sent, with the interaction Event Timing measured for it: an interaction's events are matched to the
 * last input sent before they started (epoch ms, with 5 ms of slack for the two clocks' rounding). An input with
 * no reported event was answered within 16 ms (Event Timing reports nothing shorter).
 */
export function matchInteractions(sent: ReadonlyArray<{ input: string; sent: number; answeredMs?: number }>, observed: Observed): RuntimeInteraction[] {
  const out: RuntimeInteraction[] = sent.map((s) => ({ input: s.input, latencyMs: null, ...(s.answeredMs !== undefined ? { answeredMs: s.answeredMs } : {}) }));
  const byId = new Map<number, Observed['events']>();
  for (const e of observed.events) byId.set(e[5], [...(byId.get(e[5]) ?? []), e]);
  for (const group of byId.values()) {
    const start = Math.min(...group.map((e) => e[1])) + observed.timeOrigin;
    let k = -1;
    for (let i = 0; i < sent.length; i++) if (sent[i]!.sent <= start + 5) k = i;
    if (k < 0) continue;
    const worst = group.reduce((a, b) => (b[2] > a[2] ? b : a));
    const o = out[k]!;
    if (o.latencyMs !== null && o.latencyMs >= worst[2]) continue;
    o.latencyMs = Math.round(worst[2]);
    o.event = worst[0];
    o.processingMs = Math.round(Math.max(0, worst[4] - worst[3]));
  }
  return out;
}

/**
 * The CPU time of the handlers of the `i`-th input sent: key inputs take the trace's keydown groups in order, the
 * click the first pointerdown group. Undefined when the trace has no group for it (no event reached the page).
 */
export function handlerOf(sent: ReadonlyArray<{ input: string }>, groups: TraceReading['handlers'], i: number): number | undefined {
  const isKey = (s: { input: string }) => s.input.startsWith('key ');
  const me = sent[i]!;
  const pool = groups.filter((g) => (isKey(me) ? g.type.startsWith('key') : !g.type.startsWith('key')));
  const k = sent.slice(0, i).filter((s) => isKey(s) === isKey(me)).length;
  return pool[k]?.cpuMs;
}

/**
 * Watch `page` (loaded, on real time; `cdp` its protocol session) for one window, then use it (see the module
 * comment). Never throws: what failed is in `faults`.
 */
export async function watchRuntime(page: Page, cdp: CDPSession, opts: WatchOptions): Promise<RuntimeEvidence> {
  const w = new Watch(page, cdp, opts);
  const dismiss = (d: { dismiss(): Promise<void> }) => void d.dismiss().catch(() => undefined);
  page.on('dialog', dismiss);
  let win: Awaited<ReturnType<Watch['window']>> | undefined;
  let read = false;
  const ev: RuntimeEvidence = {
    traced: false,
    windowMs: 0,
    frames: [],
    presented: 0,
    dropped: 0,
    interactions: [],
    memory: w.memory,
    faults: w.faults,
    timings: w.timings,
  };
  try {
    let t = performance.now();
    // Start-up work goes on meanwhile: the settle is SETTLE_MS or these calls, whichever is longer.
    // Made before the page loaded (prepareWatch) or, failing that, now.
    const observing = opts.prepared?.world() !== undefined;
    await Promise.all([
      opts.prepared?.counters ? undefined : w.call('counters', () => cdp.send('Performance.enable', { timeDomain: 'threadTicks' })),
      observing ? undefined : w.evaluate(installObservers, 'observers'),
      sleep(Math.max(0, Math.min(SETTLE_MS, w.left() - 2000))),
    ]);
    w.windowStart = performance.now();
    // The listeners read now as well, beside the first memory reading: on a page whose frames outlast the calls' limit
    // the reading after the inputs can time out (a fresh clone's run, 2026-11-29), and this one then stands for it.
    const [, early] = await Promise.all([w.sample('memory at the start'), w.listeners('listeners before the window')]);
    w.mark('settle', t);
    t = performance.now();
    win = await w.window();
    ev.windowMs = Math.round(win.wall);
    if (win.busyCpu !== undefined) ev.busyCpu = win.busyCpu;
    // The mark only has to come before the first input: Chrome runs the two calls in the order sent.
    await Promise.all([w.sample('memory at the end of the window'), w.evaluate(markInputs, 'inputs mark')]);
    w.mark('window', t);
    t = performance.now();
    const sent = await w.inputs();
    ev.inputWaitMs = w.waitedMs;
    w.mark('inputs', t);
    t = performance.now();
    // Every input has been taken (or its wait is over): the trace can end. While Chrome gathers it from its
    // processes, the page's side is read.
    read = true;
    const [trace, observedRaw, listening] = await Promise.all([
      win.reading(),
      w.evaluate(readObservers, 'event timing'),
      w.listeners(),
      w.sample('memory after the inputs', CALL_MS),
    ]);
    // Listeners added by the page as it ran (a start screen's game) are in the later reading; the earlier one
    // stands in when the later one could not be read (said in the faults).
    if (listening) {
      ev.inputListeners = listening;
      ev.inputListenersRead = 'after the inputs';
    } else if (early) {
      ev.inputListeners = early;
      ev.inputListenersRead = 'before the window';
      w.faults.push('listeners after the inputs not read: the reading before the window is used');
    }
    const observed = readObserved(observedRaw);
    ev.interactions = matchInteractions(sent, observed ?? { timeOrigin: 0, events: [], longFrames: [] });
    if (observed) ev.longFrames = observed.longFrames.length;
    if (trace && !trace.fault) {
      ev.traced = true;
      ev.interactions.forEach((x, i) => {
        const h = handlerOf(sent, trace.handlers, i);
        if (h !== undefined) x.handlerCpuMs = h;
      });
      ev.frames = trace.frames;
      ev.presented = trace.presented;
      ev.dropped = trace.dropped;
      if (trace.spanMs > 0) ev.busyWall = Math.round(Math.min(1, trace.busyWallMs / Math.max(trace.spanMs, win.wall)) * 1000) / 1000;
    }
    w.mark('trace', t);
  } finally {
    if (win && !read) await win.reading().catch(() => undefined);
    page.off('dialog', dismiss);
  }
  return ev;
}
