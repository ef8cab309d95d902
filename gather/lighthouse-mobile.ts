/**
 * The mobile measurement as part of the artifact's one Lighthouse run. Lighthouse already loads the page under
 * mobile emulation, and we configure that emulation to be the iPhone 12 Pro of SPEC #19 (lighthouse.ts), so
 * instead of loading the page a second time in the session we add one custom gatherer to Lighthouse's own
 * navigation (Lighthouse's model: gatherers collect, audits read):
 *
 * - `WebgradeMobile` (gatherer): after Lighthouse's load and quiet windows, runs `measureOverflow` in an
 *   isolated world of the page and, when asked, captures the first screen (PNG, 1170×2532 device pixels), its
 *   CSS and Web Animations stopped first as for the desktop screenshot (the tab was seeded as the visit is:
 *   lighthouse-thread-worker.ts).
 *   It runs in Lighthouse's artifact phase, after the trace is stopped, so it does not touch the performance
 *   measurement.
 * - The same gatherer can hold the run at its start (`before`): Lighthouse calls every gatherer's
 *   `startInstrumentation` after its own set-up (configuration, the CPU benchmark, emulation) and before it
 *   starts tracing and loads the page, so a caller that still has work to do (gatherers/lighthouse.ts: the desktop
 *   visit and the metrics that need only it) lets Lighthouse prepare meanwhile and start measuring only when
 *   that work is over. Lighthouse awaits the phases of its gatherers one after another, so nothing is measured
 *   while the gatherer waits.
 * - `webgrade-mobile` (audit, informative): Lighthouse keeps only the artifacts some selected audit requires,
 *   so this audit requires the artifact and is selected with `onlyAudits`; it reports the overflow in the
 *   LHR. It belongs to no category: category scores are untouched.
 *
 * A gatherer error becomes Lighthouse's usual artifact error (the run goes on); the caller then falls back to a
 * mobile visit in the session.
 */
import { Audit, Gatherer } from 'lighthouse';
import { measureOverflow, type OverflowMeasure } from './mobile-measure.js';
import { acquireMeasureLock } from './measure-lock.js';
import { holdAnimationFrames } from './collectors/busy-after-load.js';
import { freezeAnimations } from './collectors/screenshots.js';

export const MOBILE_ARTIFACT = 'WebgradeMobile';
export const MOBILE_AUDIT = 'webgrade-mobile';

export interface MobileArtifact {
  measure: OverflowMeasure;
  /** Base64 PNG of the emulated first screen, when asked for. */
  screenshotBase64?: string;
}

interface DriverLike {
  executionContext: { evaluate<T>(fn: () => T, opts: { args: []; useIsolation?: boolean; deps?: unknown[] }): Promise<T> };
  defaultSession: { sendCommand(method: string, params?: Record<string, unknown>): Promise<unknown> };
}

// Lighthouse's classes, typed loosely: its types only know its own artifact names and phase results.
const BaseGatherer = Gatherer as unknown as new () => { meta: { supportedModes: string[] } };
const BaseAudit = Audit as unknown as new () => object;

/** The page as the visit saw it before Lighthouse measures (lighthouse.ts `lighthouseSettingsFor` reads it). */
export interface PageState {
  /** The main thread stayed busy after load (collectors/busy-after-load.ts `isNeverIdle`). */
  neverIdle?: boolean;
  /** The visit saw no first contentful paint by the end of its settle. */
  noContentfulPaint?: boolean;
}

/**
 * What a held run is told when the caller's work is over: skip, or measure the page as the visit saw it (its
 * waits then follow that: lighthouse.ts `lighthouseSettingsFor`).
 */
export type HoldVerdict = 'skip' | PageState;

/** How a run's measured phase went (issue "Numbers that hold still"); rows carry these in their timings. */
export interface MeasureStats {
  /** Milliseconds Lighthouse waited for `before` (after its set-up, before measuring). */
  heldMs?: number;
  /** Milliseconds it waited for the machine-wide measurement lock. */
  lockWaitMs?: number;
  /** Milliseconds it held the lock: the measured phase (page load, quiet windows, trace collection). */
  measuredMs?: number;
}

/** The row timings' names of MeasureStats' fields. */
export const MEASURE_TIMINGS = {
  heldMs: 'lighthouseHeld',
  lockWaitMs: 'lighthouseLockWait',
  measuredMs: 'lighthouseMeasured',
} as const satisfies Record<keyof MeasureStats, string>;

/** Copy the fields of `from` that are set onto `to`. */
export function copyMeasureStats(from: MeasureStats, to: MeasureStats): void {
  for (const k of Object.keys(MEASURE_TIMINGS) as Array<keyof MeasureStats>) if (from[k] !== undefined) to[k] = from[k];
}

export interface MobileGathererOptions {
  /** Capture the emulated first screen. */
  screenshot: boolean;
  /**
   * Hold Lighthouse before it starts measuring until this settles (the wait goes into `stats.heldMs`). `'skip'` (or a
   * rejection) means the caller no longer wants the run: the gatherer closes Lighthouse's tab, so that the run
   * fails at once ("Session closed") instead of loading the page.
   */
  before?: Promise<HoldVerdict>;
  /**
   * Take the machine-wide measurement lock (measure-lock.ts) before the page is loaded and give it back once the
   * trace is taken; `release` is where the run keeps the release function (so that a run that fails in between
   * still gives the lock back).
   */
  lock?: {
    timeoutMs: number;
    release: { fn?: () => Promise<void> };
  };
  /** Filled as the run goes: the hold, the lock's wait, the measured phase. */
  stats?: MeasureStats;
  /** Take the phone measurement in getArtifact (false: the run only needs the hold and the lock). */
  measure?: boolean;
  /**
   * Called with the verdict before the page is loaded, with the run's settings object (the one Lighthouse reads
   * its waits from when it navigates, right after this phase): the run changes its waits for a never-idle page.
   */
  onVerdict?: (verdict: HoldVerdict, settings: Record<string, unknown>) => void;
  /** The page never goes idle (known at the start; a held run may learn it from its verdict). */
  neverIdle?: boolean;
}

/** Build the gatherer class for one run. */
export function mobileGatherer(opts: MobileGathererOptions): new () => object {
  const { screenshot, before, lock } = opts;
  const stats = opts.stats ?? {};
  let lockedAt = 0;
  let neverIdle = !!opts.neverIdle;
  return class WebgradeMobile extends BaseGatherer {
    override meta = { supportedModes: ['navigation'] };

    async startInstrumentation(context: { page: { close(): Promise<void> }; settings: Record<string, unknown> }): Promise<void> {
      if (before) {
        const t = performance.now();
        const verdict = await before.catch(() => 'skip' as const);
        stats.heldMs = Math.round(performance.now() - t);
        if (verdict === 'skip') {
          await context.page.close();
          return;
        }
        if (verdict.neverIdle) neverIdle = true;
        opts.onVerdict?.(verdict, context.settings);
      }
      if (lock) {
        const t = performance.now();
        const release = await acquireMeasureLock(lock.timeoutMs);
        lockedAt = performance.now();
        stats.lockWaitMs = Math.round(lockedAt - t);
        let given = false;
        lock.release.fn = async () => {
          if (given) return;
          given = true;
          await release();
        };
      }
    }

    /**
     * Lighthouse calls this after every gatherer's `stopSensitiveInstrumentation`, where its Trace and DevtoolsLog
     * gatherers end the trace and collect it: the measurement is over, so the lock is given back here, before the
     * artifact phase (axe, image and font checks, ...), which measures nothing.
     */
    async stopInstrumentation(context: { driver: unknown }): Promise<void> {
      if (neverIdle) await holdFrames(context.driver as DriverLike);
      if (lock?.release.fn) {
        const fn = lock.release.fn;
        stats.measuredMs = Math.round(performance.now() - lockedAt);
        await fn();
      }
    }

    async getArtifact(context: { driver: unknown }): Promise<MobileArtifact> {
      try {
        const driver = context.driver as DriverLike;
        if (opts.measure === false) return { measure: { scrollWidth: 0, clientWidth: 0, offenders: [] } };
        const measure = await driver.executionContext.evaluate(measureOverflow, { args: [], useIsolation: true });
        const out: MobileArtifact = { measure };
        if (screenshot) {
          // Stop the page's CSS and Web Animations as the desktop screenshot does (collectors/screenshots.ts), so
          // that the phone picture of a page with a spinner or a pulse is the same in two runs. After the overflow
          // is measured (mobile-compat reads the page as it is). This gatherer's artifact is the last one collected
          // (Lighthouse orders only its full-page screenshot and bf-cache checks after it, both off here:
          // lighthouse.ts), so nothing Lighthouse scores sees the frozen page.
          await driver.executionContext.evaluate(freezeAnimations, { args: [], useIsolation: true }).catch(() => 0);
          const shot = (await driver.defaultSession.sendCommand('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true })) as { data: string };
          out.screenshotBase64 = shot.data;
        }
        return out;
      } finally {
        // Given back in stopInstrumentation already; again here in case Lighthouse skipped that phase.
        await lock?.release.fn?.();
      }
    }
  };
}

/**
 * The trace is taken: on a page that never goes idle, its animation frames are held for the artifact phase, whose
 * gatherers (axe, styles, fonts, trace elements, ...) each evaluate in the page and would otherwise wait for a
 * frame's work every time (measured: 20–40 s of the run on the heavy fixtures under load). Its timers go on (axe
 * needs them). A failure leaves the page as it was.
 */
async function holdFrames(driver: DriverLike): Promise<void> {
  await driver.executionContext.evaluate(holdAnimationFrames, { args: [], useIsolation: false }).catch(() => undefined);
}

export class WebgradeMobileAudit extends BaseAudit {
  static get meta() {
    return {
      id: MOBILE_AUDIT,
      title: 'webgrade: sideways overflow under phone emulation',
      description: 'scrollWidth − clientWidth of the document element after load (webgrade mobile-compat, SPEC #19).',
      requiredArtifacts: [MOBILE_ARTIFACT],
      scoreDisplayMode: Audit.SCORING_MODES.INFORMATIVE,
    };
  }

  static audit(artifacts: Record<string, unknown>) {
    const a = artifacts[MOBILE_ARTIFACT] as MobileArtifact;
    const overflow = Math.max(0, a.measure.scrollWidth - a.measure.clientWidth);
    return { score: overflow === 0 ? 1 : 0, numericValue: overflow, numericUnit: 'unitless', displayValue: `${overflow} px` };
  }
}
