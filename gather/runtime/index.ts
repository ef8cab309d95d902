/**
 * The runtime room: what a page costs while it runs and is used, on real time (issue 44). `watchRuntimeIn` is the
 * one entry: it needs a browser context of its own for the page (its sandbox phase `runtime`), the page's URL and
 * a deadline (and optionally an AbortSignal); it loads the page, watches it (watch.ts), closes the page and
 * returns plain, validated evidence (core/runtime-evidence.ts). It must not run while something else of ours
 * traces the browser (Lighthouse's measured phase): Chrome keeps one trace at a time.
 */
import type { BrowserContext } from 'puppeteer-core';
import type { RuntimeEvidence } from '../../core/runtime-evidence.js';
import { errorMessage } from '../../core/errors.js';
import { PAGE_SEED, seedRandomness } from '../seeded-random.js';
import { LOAD_TIMEOUT_MS, withTimeout } from '../time.js';
import { prepareWatch, WATCH_VIEWPORT, watchRuntime, type Prepared, type WatchOptions } from './watch.js';

export { watchRuntime, WINDOW_MS, SETTLE_MS, INPUTS } from './watch.js';
export { readTrace, pageThread } from './trace.js';

/** The page must load within this (or 40 % of what is left): the watch needs the rest. */
export const RUNTIME_LOAD_MS = Math.min(LOAD_TIMEOUT_MS, 8000);

/**
 * Load `url` in a new page of `context` (1280×800, randomness seeded as in the visit) and watch it. Throws only
 * when the browser itself fails (the caller restarts it); a page that does not load is watched as it is, with the
 * fault recorded.
 */
export async function watchRuntimeIn(context: BrowserContext, url: string, opts: WatchOptions): Promise<RuntimeEvidence> {
  const t0 = performance.now();
  const page = await context.newPage();
  try {
    const cdp = await page.createCDPSession();
    let fault: string | undefined;
    let prepared: Prepared | undefined;
    await Promise.all([
      page.setViewport({ ...WATCH_VIEWPORT, deviceScaleFactor: 1 }),
      page.evaluateOnNewDocument(seedRandomness, PAGE_SEED),
      prepareWatch(cdp).then(
        (p) => (prepared = p),
        (err: unknown) => (fault = `prepare: ${errorMessage(err)}`),
      ),
    ]);
    try {
      const left = opts.deadline - performance.now();
      await withTimeout(page.goto(url, { waitUntil: 'load', timeout: 0 }), Math.min(RUNTIME_LOAD_MS, left * 0.4), 'load');
    } catch (err) {
      fault = [fault, `load: ${errorMessage(err)}`].filter(Boolean).join('; ');
    }
    const tl = Math.round(performance.now() - t0);
    const ev = await watchRuntime(page, cdp, prepared ? { ...opts, prepared } : opts);
    if (fault) ev.faults.unshift(fault);
    ev.timings = { load: tl, ...ev.timings, total: Math.round(performance.now() - t0) };
    return ev;
  } finally {
    await page.close().catch(() => undefined);
  }
}
