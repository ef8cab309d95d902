/**
 * How busy the page's main thread is after load (BrowserEvidence.busyAfterLoad): Chrome's task time
 * (`Performance.getMetrics` TaskDuration) over the settle, against the renderer's own clock. The runner owns the settle;
 * this only reads the task time on both sides of it.
 */
import type { Page } from 'puppeteer-core';
import { TimeoutError, withTimeout } from '../time.js';

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

/** Chrome's task seconds so far and the renderer's clock when it counted them (s); 'busy' when the page did not answer, undefined when the call failed. */
function taskSeconds(page: Page): Promise<{ task: number; at: number } | 'busy' | undefined> {
  return withTimeout(page.metrics(), METRICS_TIMEOUT_MS, 'metrics').then(
    (m) => (m.TaskDuration !== undefined && m.Timestamp !== undefined ? { task: m.TaskDuration, at: m.Timestamp } : undefined),
    (err) => (err instanceof TimeoutError ? ('busy' as const) : undefined),
  );
}

/** The busy share of one window (`wait`); 'busy' when a call was not answered in time, undefined when not measured. */
async function windowShare(page: Page, wait: () => Promise<unknown>): Promise<number | 'busy' | undefined> {
  const a = await taskSeconds(page);
  await wait();
  const b = a === 'busy' ? 'busy' : await taskSeconds(page);
  if (a === 'busy' || b === 'busy') return 'busy';
  return a !== undefined && b !== undefined ? taskShare(a, b) : undefined;
}

/**
 * The renderer's busy share between two readings of Chrome's counters: task seconds over the renderer's own clock
 * (`TaskDuration` and `Timestamp` of Performance.getMetrics), clamped to 0–1; undefined when no time passed.
 */
export function taskShare(a: { task: number; at: number }, b: { task: number; at: number }): number | undefined {
  return b.at > a.at ? Math.min(1, Math.max(0, (b.task - a.task) / (b.at - a.at))) : undefined;
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
export async function busyAfterLoad(page: Page, settle: () => Promise<unknown>, confirm?: () => Promise<unknown>): Promise<number | undefined> {
  const first = await windowShare(page, settle);
  if (first === 'busy') return 1;
  let busy = first;
  if (confirm && busy !== undefined && busy >= NEVER_IDLE_BUSY) {
    const again = await windowShare(page, confirm);
    if (again !== undefined) busy = Math.min(busy, again === 'busy' ? 1 : again);
  }
  return busy === undefined ? undefined : Math.round(busy * 1000) / 1000;
}
