/**
 * How busy the page's main thread is after load (BrowserEvidence.busyAfterLoad): Chrome's counters
 * (`Performance.getMetrics`: task time, the thread's CPU time, the renderer's clock) on both sides of the settle
 * (`counterShare`). The runner owns the settle; this only reads the counters on both sides of it.
 */
import type { CDPSession } from 'puppeteer-core';
import { chromeMetrics } from '../thread-time.js';
import { withTimeout } from '../time.js';

/**
 * A page whose main thread was busy at least this share of the settle never goes idle: it animates or computes
 * on every frame (issue 31). Measured on 2026-11-25 (bench/heavy-pages.ts, machine loaded): corpus pages 0–24 %
 * after load (start-up work), one corpus animation (arena-animated) and the heavy fixtures (fixtures/heavy/)
 * 86–100 %; half is far from both. Such a page is measured on its own clock rather than on quiet (gatherers/lighthouse.ts).
 */
export const NEVER_IDLE_BUSY = 0.5;

/** Whether a page with this busy share after load is taken as never going idle. */
export function isNeverIdle(busy: number | undefined): boolean {
  return busy !== undefined && busy >= NEVER_IDLE_BUSY;
}

/**
 * Runs in the page (self-contained: it is serialised): the frame callbacks already requested are cancelled (frame
 * request ids count up from 1 in a document: the last thousand before a fresh one) and from now on the page's
 * `requestAnimationFrame` keeps the callbacks it is given and never runs them, so that a loop driven by animation
 * frames stops at once and the page answers our calls between two tasks. Headless Chrome drives frames from its
 * compositor, which CDP virtual time does not stop. A loop that kept its own reference to the function goes on.
 */
export function holdAnimationFrames(): void {
  const last = window.requestAnimationFrame(() => undefined);
  for (let id = Math.max(1, last - 1000); id <= last; id++) window.cancelAnimationFrame(id);
  const held: FrameRequestCallback[] = [];
  window.requestAnimationFrame = (cb: FrameRequestCallback) => held.push(cb);
  window.cancelAnimationFrame = () => undefined;
}

/** Runs in the page: when its first contentful paint came (ms), or null when none has yet. */
export function firstContentfulPaintMs(): number | null {
  const e = performance.getEntriesByName('first-contentful-paint')[0];
  return e ? Math.round(e.startTime) : null;
}

/**
 * How long a metrics call may take before the page is taken as busy all along. Chrome answers it without waiting for
 * the page's task to end (measured: answers in the middle of a 600 ms task, with that task's time so far counted),
 * so a late answer says the machine is slow, not the page, and is still a measurement on the renderer's clock: the
 * wait is long. A still page on CI (two cores, two test files each with Chrome and Lighthouse) was called never-idle
 * on 2026-11-27, where here, with four and with eight CPU hogs beside the browser, it measures ≤ 0.03
 * (test/gather/busy-share-load.test.ts); with the earlier 1 s a late answer was one explanation, one long task
 * filling the settle the other (see `busyAfterLoad`).
 */
export const METRICS_TIMEOUT_MS = 5000;

/** One reading of Chrome's counters (s): task time so far, the main thread's CPU time so far (when given), the renderer's clock. */
export interface Counters {
  task: number;
  cpu?: number;
  at: number;
}

/** Chrome's counters now; 'busy' when the page did not answer, undefined when the call failed. */
async function counters(cdp: CDPSession): Promise<Counters | 'busy' | undefined> {
  const m = await chromeMetrics(cdp, METRICS_TIMEOUT_MS);
  if (m === 'timeout') return 'busy';
  const [task, cpu, at] = [m?.get('TaskDuration'), m?.get('ThreadTime'), m?.get('Timestamp')];
  return task !== undefined && at !== undefined ? { task, at, ...(cpu !== undefined ? { cpu } : {}) } : undefined;
}

/** The busy share of one window (`wait`); 'busy' when a call was not answered in time, undefined when not measured. */
async function windowShare(cdp: CDPSession, wait: () => Promise<unknown>): Promise<number | 'busy' | undefined> {
  const a = await counters(cdp);
  await wait();
  const b = a === 'busy' ? 'busy' : await counters(cdp);
  if (a === 'busy' || b === 'busy') return 'busy';
  return a !== undefined && b !== undefined ? counterShare(a, b) : undefined;
}

/**
 * The renderer's busy share between two readings of Chrome's counters, on the renderer's own clock, clamped to 0–1;
 * undefined when no time passed. With the thread's CPU time: CPU time over the window less the time the thread
 * spent inside tasks without a core (task time − CPU time: preempted by other processes). So a page computing in a
 * loop is busy whether or not it shares its core (it used every moment it had one), and a still page's short tasks,
 * stretched by a loaded machine, do not make it busy: on CI (2026-11-28, the whole suite on two cores) the still
 * fixture measured 0.13 on task time over the window, which counts the stretch. Alone, with a core always at hand,
 * this is task time over the window, as before. Without the CPU time: task time over the window.
 */
export function counterShare(a: Counters, b: Counters): number | undefined {
  const wall = b.at - a.at;
  if (!(wall > 0)) return undefined;
  const task = Math.max(0, b.task - a.task);
  if (a.cpu === undefined || b.cpu === undefined) return Math.min(1, task / wall);
  const cpu = Math.max(0, b.cpu - a.cpu);
  const had = wall - Math.max(0, task - cpu);
  return had > 0 ? Math.min(1, cpu / had) : 1;
}

/**
 * The main thread's busy share (0–1, rounded to 3 places) while `settle` runs; undefined when not measured.
 * Both sides of the share are the renderer's: its task time over its own clock between the two readings
 * (Performance.getMetrics' `Timestamp`), not over ours. On a loaded machine an answer can take hundreds of ms to
 * reach us; timed on our clock that delay counted as idle time of the page (a page computing in a loop measured
 * 0.42 on CI, where it measures 0.95 here).
 *
 * A share of NEVER_IDLE_BUSY or more is confirmed by a second window as long as the first (`confirm`, when given and
 * the page answered): the page's share is the smaller of the two. A page that never goes idle is busy in both; a
 * still page whose one long task (its first layout of a thousand paragraphs, stretched by a loaded machine) happened
 * to fill the first window is not called never-idle for it. Only pages measured busy pay the second window.
 */
export async function busyAfterLoad(cdp: CDPSession, settle: () => Promise<unknown>, confirm?: () => Promise<unknown>): Promise<number | undefined> {
  // The counters are this session's to read (the visit's own CDP session): enabled once, here.
  await withTimeout(cdp.send('Performance.enable'), METRICS_TIMEOUT_MS, 'metrics').catch(() => undefined);
  const first = await windowShare(cdp, settle);
  if (first === 'busy') return 1;
  let busy = first;
  if (confirm && busy !== undefined && busy >= NEVER_IDLE_BUSY) {
    const again = await windowShare(cdp, confirm);
    if (again !== undefined) busy = Math.min(busy, again === 'busy' ? 1 : again);
  }
  return busy === undefined ? undefined : Math.round(busy * 1000) / 1000;
}
