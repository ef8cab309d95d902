/**
 * A page clock of our own (the idea of Playwright's `page.clock`): timers, animation frames and idle callbacks
 * queue on a virtual clock that starts at 0 with the document and moves only when the probe calls `advance`,
 * so that two loads of one page go through the same states and a settle costs only the callbacks' own work.
 *
 * It lives in the page's own world because it must replace the page's `setTimeout`, `requestAnimationFrame`,
 * `Date` and `performance.now`. A page can undo that for itself (its timers then run on real time, and what it
 * shows depends on the machine); it cannot reach the clock's state or answers, which only our readers in the
 * isolated world and the probe read (primordials.ts says how).
 */
import { moveAnimationsBy } from './animations.js';
import { agentConfig, w } from './config.js';
import { untilAnswered } from './network.js';
import {
  MathFloor,
  MathMax,
  MathRound,
  MapCtor,
  MessageChannelCtor,
  NumberCtor,
  ObjectDefineProperty,
  PromiseCtor,
  ReflectApply,
  StringCtor,
  add,
  mapDelete,
  mapIteratorNext,
  mapSet,
  mapSize,
  mapValues,
  perfNow,
  portPostMessage,
  realSetTimeout,
  record,
  reportErrorNative,
  setPortOnMessage,
  settled,
  sleepReal,
} from './primordials.js';

interface Timer {
  id: number;
  at: number;
  seq: number;
  fn: (...a: unknown[]) => unknown;
  args: unknown[];
  every: number;
  raf: boolean;
}

/** The clock's state: virtual now, and the callbacks queued on it. */
export const clock = { vnow: 0, seq: 0, nextId: 1, timers: new MapCtor<number, Timer>() };

/** Wakes the real event loop without timer clamping (a message channel), so promises and network answers run. */
let yieldReal: () => Promise<void>;

function makeYield(): () => Promise<void> {
  const channel = new MessageChannelCtor();
  const port1 = channel.port1;
  const port2 = channel.port2;
  const waiting: Array<() => void> = [];
  let head = 0;
  setPortOnMessage(port1, () => {
    if (head < waiting.length) {
      const r = waiting[head]!;
      waiting[head++] = undefined as unknown as () => void;
      if (head === waiting.length) waiting.length = head = 0;
      r();
    }
  });
  return () => {
    return settled(
      new PromiseCtor<void>((r) => {
        add(waiting, r);
        portPostMessage(port2, 0);
      }),
    );
  };
}

const toFn = (fn: unknown): ((...a: unknown[]) => unknown) => {
  if (typeof fn === 'function') return fn as (...a: unknown[]) => unknown;
  const code = StringCtor(fn);
  return () => (0, eval)(code);
};

function addTimer(fn: unknown, at: number, args: unknown[], every: number, raf: boolean): number {
  const id = clock.nextId++;
  mapSet(clock.timers, id, { id, at, seq: clock.seq++, fn: toFn(fn), args, every, raf });
  return id;
}

const clear = (id: unknown) => {
  mapDelete(clock.timers, NumberCtor(id));
};

function installTimers(): void {
  w.setTimeout = function (fn: unknown, delay?: unknown, ...args: unknown[]) {
    return addTimer(fn, clock.vnow + MathMax(0, NumberCtor(delay) || 0), args, 0, false);
  };
  w.setInterval = function (fn: unknown, delay?: unknown, ...args: unknown[]) {
    const d = MathMax(1, NumberCtor(delay) || 0);
    return addTimer(fn, clock.vnow + d, args, d, false);
  };
  w.clearTimeout = clear;
  w.clearInterval = clear;
  w.requestAnimationFrame = function (cb: unknown) {
    const f = agentConfig.frameMs;
    return addTimer(cb, MathFloor(clock.vnow / f) * f + f, [], 0, true);
  };
  w.cancelAnimationFrame = clear;
  w.requestIdleCallback = function (cb: (d: unknown) => void) {
    return addTimer(() => cb({ didTimeout: false, timeRemaining: () => 10 }), clock.vnow + 1, [], 0, false);
  };
  w.cancelIdleCallback = clear;
}

/** `Date` and `performance.now` read the virtual clock (the date starts at a fixed day). */
function installDate(): void {
  const ND = w.Date as DateConstructor;
  const epoch = agentConfig.epochMs;
  class FakeDate extends ND {
    constructor(...a: unknown[]) {
      if (a.length === 0) super(epoch + MathFloor(clock.vnow));
      else super(...(a as [number]));
    }
    static override now(): number {
      return epoch + MathFloor(clock.vnow);
    }
  }
  w.Date = new Proxy(FakeDate, {
    apply() {
      return new ND(epoch + MathFloor(clock.vnow)).toString();
    },
  });
  try {
    ObjectDefineProperty(performance, 'now', { value: () => clock.vnow, configurable: true, writable: true });
  } catch {
    /* leave it */
  }
}

/**
 * Animation frames from now on every `ms` virtual ms (a page too heavy for 60 frames a second, see run.ts). A frame
 * already requested keeps its time, unless the new interval brings the next frame sooner (frames held at a very
 * long interval are due again at the next frame of the shorter one), or `reschedule`: then every frame requested is
 * due at the new interval's next frame, sooner or later (the probe holding a page's frames from now on, not from the
 * frame after the one due).
 */
export function setFrameMs(ms: number, reschedule = false): void {
  const f = MathMax(1, MathRound(ms));
  agentConfig.frameMs = f;
  const next = MathFloor(clock.vnow / f) * f + f;
  const it = mapValues(clock.timers);
  for (let r = mapIteratorNext(it); !r.done; r = mapIteratorNext(it)) {
    const t = r.value as Timer;
    if (t.raf && (reschedule || t.at > next)) t.at = next;
  }
}

/** Replace the page's timers and dates with the virtual clock. */
export function installClock(): void {
  yieldReal = makeYield();
  installTimers();
  installDate();
}

/** An error thrown by a callback is reported as uncaught, as the browser would, without stopping the clock. */
function report(e: unknown): void {
  if (reportErrorNative) reportErrorNative(e);
  else
    realSetTimeout(() => {
      throw e;
    }, 0);
}

function nextDue(): Timer | undefined {
  let next: Timer | undefined;
  const it = mapValues(clock.timers);
  for (let r = mapIteratorNext(it); !r.done; r = mapIteratorNext(it)) {
    const t = r.value as Timer;
    if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
  }
  return next;
}

function fire(next: Timer): void {
  clock.vnow = MathMax(clock.vnow, next.at);
  if (next.every) {
    next.at += next.every;
    next.seq = clock.seq++;
  } else mapDelete(clock.timers, next.id);
  try {
    ReflectApply(next.fn, w, next.raf ? [next.at] : next.args);
  } catch (e) {
    report(e);
  }
}

/** What one move of the clock did. */
export interface Moved {
  fired: number;
  storm: boolean;
  slow: boolean;
  realMs: number;
  moved: number;
  /** The clock after the move (virtual ms since the document began). */
  now: number;
}

/**
 * Move the clock `ms` ahead, running every callback due in order and yielding to the real event loop between
 * them; stops early at `maxFires` callbacks (a storm) or `maxAdvanceRealMs` real milliseconds (slow). Before each
 * callback, and before the move ends, the clock waits while the page's own requests are in flight (network.ts),
 * at most `maxNetworkWaitMs` a move, not counted as the move's time.
 *
 * `paced` (a page that started a worker, recorders.ts `workersStarted`): the clock never runs ahead of real time,
 * each callback waiting until as much real time has passed since the move began as page time, and the move lasting
 * at least `ms` real milliseconds in all. A worker computes on real time and the page draws what it posts: unpaced,
 * a second of page time passes in a few real milliseconds and the page shows nothing the worker has sent yet.
 */
export async function advance(ms: number, paced = false): Promise<Moved> {
  const from = clock.vnow;
  const span = MathMax(0, NumberCtor(ms) || 0);
  const target = clock.vnow + span;
  const t0 = perfNow();
  const limit = agentConfig.maxAdvanceRealMs + (paced ? span : 0);
  let fired = 0;
  let storm = false;
  let slow = false;
  // Real ms spent waiting for the page's requests (network.ts): not counted against the move's limit.
  let waited = 0;
  for (;;) {
    waited += await untilAnswered(MathMax(0, agentConfig.maxNetworkWaitMs - waited));
    const next = nextDue();
    if (!next || next.at > target) break;
    if (fired >= agentConfig.maxFires) {
      storm = true;
      break;
    }
    if (perfNow() - t0 - waited > limit) {
      slow = true;
      break;
    }
    if (paced) {
      const ahead = next.at - from - (perfNow() - t0);
      if (ahead > 1) await sleepReal(ahead);
    }
    fire(next);
    fired++;
    await yieldReal();
  }
  if (paced && !storm && !slow) {
    const left = span - (perfNow() - t0);
    if (left > 1) await sleepReal(left);
  }
  if (!storm && !slow) clock.vnow = target;
  const frame = moveAnimationsBy(clock.vnow - from);
  if (frame) await frame;
  await yieldReal();
  const out = record<number | boolean>() as unknown as Moved;
  out.fired = fired;
  out.storm = storm;
  out.slow = slow;
  out.realMs = MathRound(perfNow() - t0);
  out.moved = clock.vnow - from;
  out.now = clock.vnow;
  return out;
}

/** Callbacks queued on the clock. */
export const pending = (): number => mapSize(clock.timers) as number;
