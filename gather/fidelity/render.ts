/**
 * Rendering one page at every fidelity viewport (core/fidelity.ts): the candidate (sandbox phase `fidelity`) and
 * an HTML reference (phase `reference`) go through exactly this function, so both are loaded, settled and read
 * the same way.
 *
 * One load, then resizing (documented choice, measured in bench/fidelity.ts): a fresh page in the given context
 * is sized to the first viewport (DPR 1, no touch, no mobile user agent: the viewports are window sizes, not
 * devices), the entry is loaded (`load`, at most LOAD_TIMEOUT_MS or 40 % of the time left, as the visit), and the
 * page settles SETTLE_MS, the visit's settle. Then for each viewport in order: the window is resized to it (the
 * first needs no resize), the page gets two animation frames (resize handlers, media queries and layout run),
 * every CSS/Web animation is stopped at a fixed point (finite ones at their end, infinite ones at their start:
 * collectors/screenshots.ts `freezeAnimations`), the page is scrolled to the top, and the collector (collect.ts) reads text blocks
 * and components; then the top of the page, at most FIDELITY_SCREENS viewport heights, is captured at half scale
 * (SHOT_SCALE).
 * Media queries and resize handlers follow the resize; a script that reads the width only once at load keeps its
 * desktop decision (bench/fidelity.ts compares resized views with views loaded fresh at each size). Resizing
 * costs one load instead of three.
 *
 * Dialogs are answered as dismissed and `window.close` is a no-op (collectors/dialogs.ts `dialogGuard`). An in-page step
 * that times out marks the page unresponsive: the remaining viewports are missing with that reason. Never throws
 * for page faults.
 */
import type { BrowserContext, Page } from 'puppeteer-core';
import type { Screenshot } from '../../core/browser-evidence.js';
import { errorMessage } from '../../core/errors.js';
import { gathered, missing, type Gathered } from '../../core/evidence.js';
import { FIDELITY_SCREENS, TEXT_KEEP_CHARS, type RenderedView, type ViewportSpec } from '../../core/fidelity.js';
import { dialogGuard, guardArgs } from '../collectors/dialogs.js';
import { freezeAnimations } from '../collectors/screenshots.js';
import { LOAD_TIMEOUT_MS, SETTLE_MS, STEP_TIMEOUT_MS, TimeoutError, sleep, withTimeout } from '../time.js';
import { PAGE_SEED, seedRandomness } from '../seeded-random.js';
import { COLLECT_ARGS, collectView, type CollectedView } from './collect.js';
import { gate } from '../step-gate.js';
import { COLLECTOR_BOUNDS, evaluateInPage } from '../isolated-world.js';

/**
 * Screenshots are captured at half scale (1 px per 2 CSS px, Chrome's own scaling): SSIM compares them after a
 * larger downscale anyway, the explanatory pictures show them at most 900 px wide, and decoding a half-scale
 * screenshot costs a quarter (measured: SSIM of three viewport pairs 270–510 ms at full scale).
 */
export const SHOT_SCALE = 0.5;

export interface RenderOptions {
  viewports: readonly ViewportSpec[];
  /** Pixels per CSS px of the screenshots (default SHOT_SCALE; 1 for comparing with a full-size picture). */
  shotScale?: number;
  /** Absolute time (performance.now()) by which rendering must be over. */
  deadline: number;
  /** Capture screenshots (default true). */
  screenshots?: boolean;
}

export interface RenderOutcome {
  /** One per viewport, in order. */
  views: Array<Gathered<RenderedView>>;
  faults: string[];
  loaded: boolean;
  timings: Record<string, number>;
}

/** Runs in the page: resolves after two animation frames (at most 300 ms, for a page whose frames are held). */
function twoFrames(): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, 300);
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        clearTimeout(t);
        resolve();
      }),
    );
  });
}

/** Render `url` in a fresh page of `context` at every viewport. The caller owns (and closes) the context. */
export async function renderViews(context: BrowserContext, url: string, opts: RenderOptions): Promise<RenderOutcome> {
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const faults: string[] = [];
  const left = () => opts.deadline - performance.now();
  const views: Array<Gathered<RenderedView>> = [];
  const first = opts.viewports[0];
  if (!first) return { views, faults, loaded: false, timings };
  let page: Page | undefined;
  let loaded = false;
  try {
    page = await context.newPage();
    page.on('dialog', (d) => d.dismiss().catch(() => undefined));
    await Promise.all([
      page.setViewport({ width: first.width, height: first.height, deviceScaleFactor: 1 }),
      page.evaluateOnNewDocument(dialogGuard, ...guardArgs()),
      page.evaluateOnNewDocument(seedRandomness, PAGE_SEED),
    ]);
    await gate.step('fidelity load');
    const tl = performance.now();
    try {
      await withTimeout(page.goto(url, { waitUntil: 'load', timeout: 0 }), Math.min(LOAD_TIMEOUT_MS, left() * 0.4), 'load');
      loaded = true;
    } catch (err) {
      faults.push(err instanceof TimeoutError ? `load timeout: ${err.message}` : `navigation failed: ${errorMessage(err)}`);
    }
    timings.load = Math.round(performance.now() - tl);
    if (loaded) await sleep(Math.min(SETTLE_MS, left()));
    let unresponsive: string | undefined;
    for (const [i, v] of opts.viewports.entries()) {
      if (unresponsive) {
        views.push(missing(unresponsive));
        continue;
      }
      await gate.step(`fidelity ${v.name} view`);
      const tv = performance.now();
      try {
        views.push(
          gathered(
            await withTimeout(
              viewAt(page, v, i > 0, opts.screenshots === false ? 0 : (opts.shotScale ?? SHOT_SCALE)),
              Math.min(STEP_TIMEOUT_MS, left()),
              `${v.name} view`,
            ),
          ),
        );
      } catch (err) {
        const why = err instanceof TimeoutError ? `${err.message} (page did not respond: busy main thread?)` : `${v.name} view failed: ${errorMessage(err)}`;
        faults.push(why);
        views.push(missing(why));
        if (err instanceof TimeoutError) unresponsive = `page did not respond (${v.name} view timed out)`;
      }
      timings[v.name] = Math.round(performance.now() - tv);
    }
  } catch (err) {
    const why = `rendering failed: ${errorMessage(err)}`;
    faults.push(why);
    while (views.length < opts.viewports.length) views.push(missing(why));
  } finally {
    page?.close().catch(() => undefined);
  }
  timings.total = Math.round(performance.now() - t0);
  return { views, faults, loaded, timings };
}

async function viewAt(page: Page, v: ViewportSpec, resize: boolean, shotScale: number): Promise<RenderedView> {
  if (resize) await page.setViewport({ width: v.width, height: v.height, deviceScaleFactor: 1 });
  await evaluateInPage(page, twoFrames);
  await evaluateInPage(page, () => {
    window.scrollTo(0, 0);
  });
  await evaluateInPage(page, freezeAnimations);
  const c = (await evaluateInPage(
    page,
    collectView,
    { ...COLLECT_ARGS, screens: FIDELITY_SCREENS, keepChars: TEXT_KEEP_CHARS },
    COLLECTOR_BOUNDS,
  )) as CollectedView;
  const view: RenderedView = {
    viewport: { ...v },
    source: 'dom',
    scrollWidth: c.scrollWidth,
    scrollHeight: c.scrollHeight,
    blocks: c.blocks,
    components: c.components,
  };
  if (c.truncated) view.truncated = true;
  if (shotScale > 0) view.screenshot = await topShot(page, v, c.scrollHeight, shotScale);
  return view;
}

/**
 * The top of the page: viewport width × min(max(scrollHeight, viewport height), FIDELITY_SCREENS viewport heights)
 * CSS px, `scale` pixels per CSS px.
 */
async function topShot(page: Page, v: ViewportSpec, scrollHeight: number, scale: number): Promise<Screenshot> {
  const height = Math.round(Math.min(Math.max(scrollHeight, v.height), FIDELITY_SCREENS * v.height));
  const png = Buffer.from(
    await page.screenshot({
      type: 'png',
      clip: { x: 0, y: 0, width: v.width, height, scale },
      captureBeyondViewport: height > v.height,
      optimizeForSpeed: true,
    }),
  );
  return { png, width: Math.round(v.width * scale), height: Math.round(height * scale), deviceScaleFactor: scale };
}
