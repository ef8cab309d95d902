/**
 * The runtime watch's witness inside the page: Event Timing and Long Animation Frame observers in an isolated
 * world of the page's top frame (../isolated-world.ts says why there), kept in that world between two calls.
 * Both APIs are the browser's: the page cannot reach these observers, feed them entries or see them.
 * Every function here runs in the page (self-contained: it is sent as source text).
 */

/** What the observers saw, as the page side answers it (validated on our side: watch.ts `readObserved`). */
export interface Observed {
  /** `performance.timeOrigin` of the document (epoch ms): event start times are turned into epoch ms with it. */
  timeOrigin: number;
  /** Event Timing entries with an interaction id: [type, startTime, duration, processingStart, processingEnd, interactionId]. */
  events: Array<[string, number, number, number, number, number]>;
  /** Long Animation Frame entries seen since `install` (count) and their start times after `since` (ms). */
  longFrames: number[];
}

/** Runs in the page: start both observers (buffered), under a property of this world's own `window`. */
export function installObservers(): number {
  const w = window as unknown as { __webgradeRuntime?: { events: unknown[]; longFrames: number[] } };
  const store = (w.__webgradeRuntime = { events: [] as unknown[], longFrames: [] as number[] });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as Array<PerformanceEventTiming & { interactionId?: number }>) {
        if (store.events.length >= 500 || !e.interactionId) continue;
        store.events.push([e.name, e.startTime, e.duration, e.processingStart, e.processingEnd, e.interactionId]);
      }
    }).observe({ type: 'event', buffered: true, durationThreshold: 16 } as PerformanceObserverInit);
  } catch {
    /* no Event Timing: no interactions measured */
  }
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (store.longFrames.length < 2000) store.longFrames.push(e.startTime);
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch {
    /* no LoAF: the trace is the only frame witness */
  }
  return performance.timeOrigin;
}

/** Runs in the page: what the observers saw so far (after a frame, so that pending entries are delivered). */
export function readObservers(): Promise<Observed> {
  const w = window as unknown as { __webgradeRuntime?: { events: Observed['events']; longFrames: number[] } };
  return new Promise((resolve) => {
    const answer = () => {
      const s = w.__webgradeRuntime;
      resolve({ timeOrigin: performance.timeOrigin, events: s ? s.events.slice() : [], longFrames: s ? s.longFrames.slice() : [] });
    };
    // Entries are delivered after the paint that ends them, and that paint's time comes a frame later: wait for
    // two frames, or 200 ms at most.
    const t = setTimeout(answer, 200);
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => (clearTimeout(t), answer()), 0)));
  });
}

/** Runs in the page: mark the end of the window in the trace (from this world: the page never sees it). */
export function markInputs(): boolean {
  console.timeStamp('webgrade-runtime-inputs');
  return true;
}
