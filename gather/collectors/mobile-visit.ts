/**
 * The phone measurement by a visit of its own (BrowserEvidence.mobile and .screenshots.mobile): the entry loaded
 * in a second page under iPhone 12 Pro emulation (390×844, DPR 3, touch, mobile UA; ../mobile-measure.ts) before
 * it loads, then, after load and MOBILE_SETTLE_MS, the document element's sideways overflow, the outermost
 * elements sticking out to the right, and the first screen. Used when the Lighthouse run (which measures the same
 * thing in its own emulated load) is not run or did not yield the measurement.
 */
import type { BrowserContext } from 'puppeteer-core';
import type { MobileResult, Screenshot } from '../../core/browser-evidence.js';
import { MOBILE_EMULATION, measureOverflow, mobileResult } from '../mobile-measure.js';
import { PAGE_SEED, seedRandomness } from '../seeded-random.js';
import { LOAD_TIMEOUT_MS, MOBILE_SETTLE_MS, STEP_TIMEOUT_MS, TimeoutError, sleep, withTimeout } from '../time.js';
import { dialogGuard, guardArgs } from './dialogs.js';
import type { PageFaults } from './visit-collector.js';
import { gate } from '../step-gate.js';
import { evaluateInPage } from '../isolated-world.js';

/**
 * Load the entry under emulation in a page of `context` and measure overflow (and the first screen when
 * `screenshot`), within `left()`. A load that times out is a fault and the measurement goes on; anything else
 * throws.
 */
export async function visitMobile(
  context: BrowserContext,
  entryUrl: string,
  f: PageFaults,
  left: () => number,
  screenshot: boolean,
): Promise<{ result: MobileResult; screenshot?: Screenshot }> {
  const page = await context.newPage();
  try {
    await page.emulate(MOBILE_EMULATION);
    await Promise.all([page.evaluateOnNewDocument(dialogGuard, ...guardArgs()), page.evaluateOnNewDocument(seedRandomness, PAGE_SEED)]);
    page.on('dialog', (d) => d.dismiss().catch(() => undefined));
    await gate.step('phone visit');
    try {
      await withTimeout(page.goto(entryUrl, { waitUntil: 'load', timeout: 0 }), Math.min(LOAD_TIMEOUT_MS, left() - 500), 'mobile load');
    } catch (err) {
      if (!(err instanceof TimeoutError)) throw err;
      f.add(err.message);
    }
    await sleep(Math.min(MOBILE_SETTLE_MS, left() - 500));
    const m = await withTimeout(evaluateInPage(page, measureOverflow), Math.min(STEP_TIMEOUT_MS, left()), 'mobile overflow measure');
    const result = mobileResult(m, 'mobile visit');
    if (!screenshot) return { result };
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

/** The Screenshot record of an emulated first screen (device pixels). */
export function mobileScreenshot(png: Buffer): Screenshot {
  const v = MOBILE_EMULATION.viewport;
  const dpr = v.deviceScaleFactor ?? 1;
  return { png, width: v.width * dpr, height: v.height * dpr, deviceScaleFactor: dpr };
}
