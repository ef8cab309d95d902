/**
 * A page clock of our own (the idea of Playwright's `page.clock`): timers, animation frames and idle callbacks
 * queue on a virtual clock that starts at 0 with the document and moves only when the probe calls `advance`,
 * so that two loads of one page go through the same states and a settle costs only the callbacks' own work.
 */
import { cfg, w } from './config.js';
import { N } from './natives.js';

interface Timer {
  id: number;
  at: number;
  seq: number;
  fn: (...a: unknown[]) => unknown;
  args: unknown[];
  every?: number;
  raf?: boolean;
}

/** The clock's state: virtual now, and the callbacks queued on it. */
export const clock = { vnow: 0, seq: 0, nextId: 1, timers: new Map<number, Timer>() };

/** Wakes the real event loop without timer clamping (a message channel), so promises and network answers run. */
let yieldReal: () => Promise<void>;

function makeYield(): () => Promise<void> {
  const channel = new MessageChannel();
  const waiting: Array<() => void> = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return () =>
    new Promise<void>((r) => {
      waiting.push(r);
      channel.port2.postMessage(0);
    });
}

const toFn = (fn: unknown): ((...a: unknown[]) => unknown) => {
  if (typeof fn === 'function') return fn as (...a: unknown[]) => unknown;
  const code = String(fn);
  return () => (0, eval)(code);
};

function addTimer(fn: unknown, at: number, args: unknown[], every?: number, raf?: boolean): number {
  const id = clock.nextId++;
  clock.timers.set(id, { id, at, seq: clock.seq++, fn: toFn(fn), args, ...(every ? { every } : {}), ...(raf ? { raf } : {}) });
  return id;
}

const clear = (id: unknown) => {
  clock.timers.delete(Number(id));
};

function installTimers(): void {
  w.setTimeout = function (fn: unknown, delay?: unknown, ...args: unknown[]) {
    return addTimer(fn, clock.vnow + Math.max(0, Number(delay) || 0), args);
  };
  w.setInterval = function (fn: unknown, delay?: unknown, ...args: unknown[]) {
    const d = Math.max(1, Number(delay) || 0);
    return addTimer(fn, clock.vnow + d, args, d);
  };
  w.clearTimeout = clear;
  w.clearInterval = clear;
  w.requestAnimationFrame = function (cb: unknown) {
    return addTimer(cb, Math.floor(clock.vnow / cfg.frameMs) * cfg.frameMs + cfg.frameMs, [], undefined, true);
  };
  w.cancelAnimationFrame = clear;
  w.requestIdleCallback = function (cb: (d: unknown) => void) {
    return addTimer(() => cb({ didTimeout: false, timeRemaining: () => 10 }), clock.vnow + 1, []);
  };
  w.cancelIdleCallback = clear;
}

/** `Date` and `performance.now` read the virtual clock (the date starts at a fixed day). */
function installDate(): void {
  const ND = N.Date;
  class FakeDate extends ND {
    constructor(...a: unknown[]) {
      if (a.length === 0) super(cfg.epochMs + Math.floor(clock.vnow));
      else super(...(a as [number]));
    }
    static override now(): number {
      return cfg.epochMs + Math.floor(clock.vnow);
    }
  }
  w.Date = new Proxy(FakeDate, {
    apply() {
      return new ND(cfg.epochMs + Math.floor(clock.vnow)).toString();
    },
  });
  try {
    Object.defineProperty(performance, 'now', { value: () => clock.vnow, configurable: true, writable: true });
  } catch {
    /* leave it */
  }
}

/** Animation frames from now on every `ms` virtual ms (a page too heavy for 60 frames a second, see run.ts). */
export function setFrameMs(ms: number): void {
  cfg.frameMs = Math.max(1, Math.round(ms));
}

/** Replace the page's timers and dates with the virtual clock. */
export function installClock(): void {
  yieldReal = makeYield();
  installTimers();
  installDate();
}

/** An error thrown by a callback is reported as uncaught, as the browser would, without stopping the clock. */
function report(e: unknown): void {
  if (N.reportError) N.reportError(e);
  else
    N.setTimeout(() => {
      throw e;
    }, 0);
}

function nextDue(): Timer | undefined {
  let next: Timer | undefined;
  for (const t of clock.timers.values()) if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
  return next;
}

function fire(next: Timer): void {
  clock.vnow = Math.max(clock.vnow, next.at);
  if (next.every) {
    next.at += next.every;
    next.seq = clock.seq++;
  } else clock.timers.delete(next.id);
  try {
    next.fn.apply(w, next.raf ? [next.at] : next.args);
  } catch (e) {
    report(e);
  }
}

/**
 * Move the clock `ms` ahead, running every callback due in order and yielding to the real event loop between
 * them; stops early at `maxFires` callbacks (a storm) or `maxAdvanceRealMs` real milliseconds (slow).
 */
export async function advance(ms: number): Promise<{ fired: number; storm: boolean; slow: boolean; realMs: number; moved: number }> {
  const from = clock.vnow;
  const target = clock.vnow + Math.max(0, ms);
  const t0 = N.perfNow();
  let fired = 0;
  let storm = false;
  let slow = false;
  for (;;) {
    const next = nextDue();
    if (!next || next.at > target) break;
    if (fired >= cfg.maxFires) {
      storm = true;
      break;
    }
    if (N.perfNow() - t0 > cfg.maxAdvanceRealMs) {
      slow = true;
      break;
    }
    fire(next);
    fired++;
    await yieldReal();
  }
  if (!storm && !slow) clock.vnow = target;
  await yieldReal();
  return { fired, storm, slow, realMs: Math.round(N.perfNow() - t0), moved: clock.vnow - from };
}
