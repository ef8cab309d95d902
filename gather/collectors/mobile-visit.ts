/**
 * The phone measurement by a visit of its own (BrowserEvidence.mobile and .screenshots.mobile): the entry loaded
 * in a second page under iPhone 12 Pro emulation (390×844, DPR 3, touch, mobile UA; ../mobile-measure.ts) before
 * it loads, then, after load and MOBILE_SETTLE_MS, the document element's sideways overflow, the outermost
 * elements sticking out to the right, and the first screen. Used when the Lighthouse run (which measures the same
 * thing in its own emulated load) is not run or did not yield the measurement.
 *
 * On the visit's page clock (`--visit-clock page`, ../visit-clock.ts) this page runs on a clock of its own too: the
 * clock (with the seeded randomness) before any page script, the settle on it instead of MOBILE_SETTLE_MS of real
 * time, and the page's CSS and Web Animations stopped before the picture as for the desktop screenshot
 * (screenshots.ts `freezeAnimations`). There the visit takes the **phone picture** in this page even when the
 * Lighthouse run measures the overflow (../visit.ts `phone`): Lighthouse's page runs on real time, so a canvas drawn
 * in `requestAnimationFrame` or a timer-driven start-up gave a new phone picture on every run (the stability
 * benchmark's pictures: 56 of 66 pages identical with the desktop visit on the page clock, every miss the phone
 * picture).
 */
import type { BrowserContext } from 'puppeteer-core';
import type { MobileResult, Screenshot } from '../../core/browser-evidence.js';
import { MOBILE_EMULATION, measureOverflow, mobileResult } from '../mobile-measure.js';
import { PAGE_SEED, seedRandomness } from '../seeded-random.js';
import type { VisitClockMode } from '../../core/visit-clock.js';
import { VisitClock } from '../visit-clock.js';
import { freezeAnimations } from './screenshots.js';
import { LOAD_TIMEOUT_MS, MOBILE_SETTLE_MS, STEP_TIMEOUT_MS, TimeoutError, sleep, withTimeout } from '../time.js';
import { dialogGuard, guardArgs } from './dialogs.js';
import type { PageFaults } from './visit-collector.js';
import { gate } from '../step-gate.js';
import { evaluateInPage, evaluateIsolated } from '../isolated-world.js';

/**
 * Load the entry under emulation in a page of `context` and measure overflow (and the first screen when
 * `screenshot`), within `left()`, on real time or on the page clock (`clock`). A load that times out, a page clock
 * that fell behind and a page that did not answer its clock are faults and the measurement goes on; anything
 * else throws.
 */
export async function visitMobile(
  context: BrowserContext,
  entryUrl: string,
  f: PageFaults,
  left: () => number,
  screenshot: boolean,
  clockMode: VisitClockMode = 'real',
): Promise<{ result: MobileResult; screenshot?: Screenshot }> {
  const page = await context.newPage();
  try {
    const cdp = clockMode === 'page' ? await page.createCDPSession() : undefined;
    const clock = cdp ? new VisitClock(page, cdp, PAGE_SEED) : undefined;
    await page.emulate(MOBILE_EMULATION);
    // The page clock's script seeds the randomness first (interaction/page-script.ts `agentScript`).
    await Promise.all([
      page.evaluateOnNewDocument(dialogGuard, ...guardArgs()),
      clock ? clock.install() : page.evaluateOnNewDocument(seedRandomness, PAGE_SEED),
    ]);
    page.on('dialog', (d) => d.dismiss().catch(() => undefined));
    await gate.step('phone visit');
    try {
      await withTimeout(page.goto(entryUrl, { waitUntil: 'load', timeout: 0 }), Math.min(LOAD_TIMEOUT_MS, left() - 500), 'mobile load');
    } catch (err) {
      if (!(err instanceof TimeoutError)) throw err;
      f.add(err.message);
    }
    if (clock) await settleOnClock(clock, f, left);
    else await sleep(Math.min(MOBILE_SETTLE_MS, left() - 500));
    const m = await withTimeout(evaluateInPage(page, measureOverflow), Math.min(STEP_TIMEOUT_MS, left()), 'mobile overflow measure');
    const result = mobileResult(m, 'mobile visit');
    if (!screenshot) return { result };
    if (cdp) await withTimeout(evaluateIsolated(cdp, freezeAnimations), Math.min(STEP_TIMEOUT_MS, left()), 'mobile freeze');
    const png = await withTimeout(
      page.screenshot({ type: 'png', captureBeyondViewport: false, optimizeForSpeed: true }),
      Math.min(STEP_TIMEOUT_MS, left()),
      'mobile screenshot',
    );
    return { result, screenshot: mobileScreenshot(Buffer.from(png)) };
  } finally {
    page.close().catch(() => undefined);
  }
}

/** The settle on the page clock (../visit-clock.ts `settle`); a page that did not answer it is a fault. */
async function settleOnClock(clock: VisitClock, f: PageFaults, left: () => number): Promise<void> {
  try {
    const settled = await clock.settle(Math.min(STEP_TIMEOUT_MS, left() - 500), left);
    if (settled.behind) f.add(`mobile visit: the page clock fell behind (${settled.behind})`);
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
    f.add(`mobile visit: ${err.message}`);
  }
}

/** The Screenshot record of an emulated first screen (device pixels). */
export function mobileScreenshot(png: Buffer): Screenshot {
  const v = MOBILE_EMULATION.viewport;
  const dpr = v.deviceScaleFactor ?? 1;
  return { png, width: v.width * dpr, height: v.height * dpr, deviceScaleFactor: dpr };
}
