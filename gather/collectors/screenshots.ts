/**
 * The desktop screenshots (BrowserEvidence.screenshots.desktop, .fullPage, and .frozenAnimations), taken only
 * when a metric needs them. Screenshots of a page that moves differ between runs (the screenshot metrics of one
 * animated page differed by up to 41.5 points), so the page is frozen first (`freezeAnimations`, then CDP virtual
 * time paused); then the first screen (VIEWPORT) and the full page (VIEWPORT.width × min(max(scrollHeight,
 * VIEWPORT.height), FULL_PAGE_CAP_PX); `truncated` says when the cap cut it; a document no taller than the viewport
 * is captured without resizing the view). PNGs are encoded with Chrome's fast
 * zlib setting (`optimizeForSpeed`): larger files, the same pixels.
 */
import type { BrowserEvidence, Screenshot } from '../../core/browser-evidence.js';
import { evaluateIsolated } from '../isolated-world.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

export const VIEWPORT = { width: 1280, height: 800 } as const;
export const FULL_PAGE_CAP_PX = 8000;

/**
 * Runs in an isolated world of the page before the screenshots: every CSS animation, transition and Web Animation is stopped at a
 * fixed point, finite ones at their end (the state an intro animation settles in) and infinite ones (spinners,
 * pulses, marquees) at their start; the caller then pauses the page's clock (CDP virtual time), so that timers
 * and requestAnimationFrame loops stand still while both screenshots are taken; a focused field's caret is hidden.
 * What a script drew before that moment (a canvas game's frame, a counter) still depends on how long the page
 * ran: documented, not controlled.
 * Returns how many animations were stopped.
 */
export function freezeAnimations(): number {
  // A focused field's caret blinks on its own timer: shown in one run's screenshot, not in the next (two corpus
  // pages with an autofocused field gave their screenshot judges a new picture on every run). Hidden for the
  // screenshots, as Playwright's screenshots do by default; nothing collected after this reads styles.
  // Only when a field has the focus: a style added while the page clock is paused needs a new frame, and a page
  // whose clock and frames stand still (a WebGL scene that never goes idle) then never gives the screenshot one.
  const focused = document.activeElement;
  if (focused && focused !== document.body && (focused.matches('input, textarea, select') || (focused as HTMLElement).isContentEditable)) {
    const caret = document.createElement('style');
    caret.textContent = '*, *::before, *::after { caret-color: transparent !important; }';
    (document.head ?? document.documentElement).appendChild(caret);
  }
  let n = 0;
  for (const a of document.getAnimations()) {
    try {
      const end = a.effect?.getComputedTiming().endTime;
      if (typeof end === 'number' && Number.isFinite(end)) a.finish();
      else {
        a.pause();
        a.currentTime = 0;
      }
      n++;
    } catch {
      /* an animation that cannot be stopped stays as it is */
    }
  }
  return n;
}

export const freezeCollector: VisitCollector<number> = {
  field: 'screenshots',
  name: 'freeze',
  screenshots: true,
  async collect({ cdp, pageClock }: VisitContext): Promise<number> {
    const n = Number(await evaluateIsolated(cdp, freezeAnimations)) || 0;
    // On the visit's page clock the page's time already stands still, and pausing CDP virtual time as well left
    // no frame for the caret style on three corpus pages with a focused field: their screenshots timed out.
    if (!pageClock) await cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pause' });
    return n;
  },
  fill(ev: BrowserEvidence, frozen: number | undefined): void {
    if (frozen !== undefined) ev.frozenAnimations = frozen;
  },
};

/** Runs in an isolated world: the document's height. */
export function pageHeight(): number {
  return Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
}

export const desktopScreenshotCollector: VisitCollector<Screenshot> = {
  field: 'screenshots',
  name: 'desktop screenshot',
  screenshots: true,
  async collect({ page }: VisitContext): Promise<Screenshot> {
    const png = Buffer.from(await page.screenshot({ type: 'png', captureBeyondViewport: false, optimizeForSpeed: true }));
    return { png, width: VIEWPORT.width, height: VIEWPORT.height, deviceScaleFactor: 1 };
  },
  fill(ev: BrowserEvidence, shot: Screenshot | undefined): void {
    if (shot) ev.screenshots.desktop = shot;
  },
};

export const fullPageScreenshotCollector: VisitCollector<Screenshot> = {
  field: 'screenshots',
  name: 'full-page screenshot',
  screenshots: true,
  async collect({ page, cdp }: VisitContext): Promise<Screenshot> {
    const h = Number(await evaluateIsolated(cdp, pageHeight)) || 0;
    const height = Math.min(Math.max(h, VIEWPORT.height), FULL_PAGE_CAP_PX);
    const clip = { x: 0, y: 0, width: VIEWPORT.width, height };
    // A capture beyond the viewport resizes the page's view, and a page that fits itself to the window redraws for
    // it (badge-drawer in the corpus: its canvas at 4× in the first screen, at 1× or 4× in the full page, run to
    // run). A document no taller than the viewport is captured as it stands.
    const beyond = h > VIEWPORT.height;
    const png = Buffer.from(await page.screenshot({ type: 'png', clip, captureBeyondViewport: beyond, optimizeForSpeed: true }));
    return { png, width: VIEWPORT.width, height, deviceScaleFactor: 1, truncated: h > FULL_PAGE_CAP_PX };
  },
  fill(ev: BrowserEvidence, shot: Screenshot | undefined): void {
    if (shot) ev.screenshots.fullPage = shot;
  },
};
