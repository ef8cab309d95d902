/**
 * The clock of the browser steps (the visit, the interaction probe, the fidelity renders): a time limit on a
 * promise, a wait, and the limits those steps share.
 */
import pTimeout from 'p-timeout';

export const LOAD_TIMEOUT_MS = 15_000;
/**
 * The settle after load: long enough for the load-time timers and promise chains of the pages we saw; see
 * bench/browser-suite.ts for what it costs.
 */
export const SETTLE_MS = 300;
export const MOBILE_SETTLE_MS = 300;
/** An in-page step's limit (the DOM, a screenshot, the coverage). */
export const STEP_TIMEOUT_MS = 8_000;
/**
 * Each in-page collector's limit. It was 5 s: a Pyodide page that answers the responsiveness probe and then runs
 * its start-up in long tasks (ai-adoption: 2.5–3 s after the probe on the quiet machine) was past it beside a
 * second worker, and every screenshot metric flipped to unscorable.
 */
export const COLLECTOR_TIMEOUT_MS = 8_000;

export class TimeoutError extends Error {}

/**
 * The timer fires one turn of the event loop late (setImmediate, after the poll phase): if our own CPU work
 * (scoring while gathering) held the loop past the deadline, an answer from Chrome that arrived meanwhile settles
 * the promise first and is taken instead of a false timeout.
 */
const lateTimers = {
  setTimeout: ((fn: () => void, ms: number) => setTimeout(() => setImmediate(fn), ms)) as unknown as typeof setTimeout,
  clearTimeout,
};

/** Timers that do not keep the process alive (for a wait nobody must outlive, such as an abandoned run's). */
export const unrefTimers = {
  setTimeout: ((fn: () => void, ms: number) => setTimeout(fn, ms).unref()) as unknown as typeof setTimeout,
  clearTimeout,
};

/** `p`, or a TimeoutError after `ms` (an answer already waiting when the timer fires is taken: see `lateTimers`). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  p.catch(() => undefined);
  if (ms <= 0) return Promise.reject(new TimeoutError(`${what}: no time left in the budget`));
  return pTimeout(p, { milliseconds: ms, message: new TimeoutError(`${what} timed out after ${Math.round(ms)} ms`), customTimers: lateTimers });
}

/** Wait `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
}
