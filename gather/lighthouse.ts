/**
 * One Lighthouse run per artifact, on the session's Chrome (same debugging port), with categories performance,
 * accessibility and best-practices. Every Lighthouse-based metric reads this one report.
 *
 * Settings (LIGHTHOUSE_SETTINGS): Lighthouse's defaults (mobile form factor, simulated throttling) except the
 * four quiet windows at 100 ms instead of ~1 s, no full-page screenshot, capped waits (maxWaitForFcp 15 s,
 * maxWaitForLoad at most 30 s and never beyond the artifact's budget), the `bf-cache` audit skipped (a diagnostic of
 * weight 0 in performance and in no other category; its gatherer navigates away and back after the load, about
 * 0.3 s per page, and no metric reads it), and the emulated phone: the iPhone 12 Pro
 * of SPEC #19 (390×844 CSS px, DPR 3, touch, its user agent) instead of Lighthouse's Moto G Power, so that one
 * emulated load serves both Lighthouse and mobile-compat (lighthouse-mobile.ts). With simulated throttling the
 * metric values are computed from the trace, so shorter quiet windows only end the observation sooner; bench/
 * browser-suite.ts `--verify-settings` compares category scores against a default run (see the report).
 *
 * Pages that never go idle (issue 31; collectors/busy-after-load.ts `isNeverIdle`: the visit found the main
 * thread busy at least half of the settle): Lighthouse waits for a quiet CPU after load, which such a page (a
 * long task every frame) never gives, so it would wait its whole `maxWaitForLoad` and then, in the artifact
 * phase, wait for a frame's work at every one of its gatherers' calls into the page. For them
 * (`lighthouseSettingsFor`): `maxWaitForLoad` is NEVER_IDLE_WINDOW_MS, and after the trace is taken their
 * animation frames are held (lighthouse-mobile.ts). The performance score of such a page is therefore its score
 * over the first NEVER_IDLE_WINDOW_MS of its life: FCP, LCP, Speed Index and CLS as for any page, and Total
 * Blocking Time summed over the long tasks of that window (simulated), which for a page computing every frame
 * is already past the point where TBT scores 0; Lighthouse adds its "loaded too slowly" run warning. Measured on
 * the four fixtures/heavy/ pages (bare runs, machine at load 19–21): a 5 s window gave performance 70, 70, 70 and
 * 68 (the three.js scene) in 16–19 s per run, a 10 s window 70, 70, 67 and 64 in 21–36 s; accessibility 100 and
 * best practices 96 in both. On the quiet machine (2026-11-26, Chromium 156, two bare runs each of fractal,
 * particles, three-scene, cloth): 5 s gave 75/73, 70/70, 70/70, 76/82 in 2.8–9.4 s per run, 3 s gave 79/75,
 * 70/70, 70/70, 92/98 in 2.3–6.8 s, 2.5 s 78/73, 70/70, 70/70, 79/85 in 2.8–6.4 s (cloth's score moves
 * between any two runs); the window is 3 s: 2.5 s less per never-idle page, no score that moved beyond a rerun's
 * noise, and it still holds the load of every heavy fixture (three.js from the CDN cache included). The run's
 * time limit lowers `maxWaitForLoad` to at least 5 s, or the page's own window when shorter. The other waits,
 * and every setting of the other pages, are unchanged.
 *
 * Isolation: Lighthouse loads the page itself (not through our request interception); Chrome's
 * `--host-resolver-rules`/proxy flags (chrome-process.ts) make every request but loopback fail. The requests
 * that failed are listed from the report's `network-requests` audit as `blockedRequests`.
 *
 * Lighthouse cannot run twice at once in one process (TOOLCHAIN.md): runs are serialised by a queue (one per
 * thread: the scorer runs Lighthouse in one worker thread, lighthouse-thread.ts). A run that overruns its time
 * limit is abandoned: the caller kills Chrome and stops the thread, and the metrics become unscorable with the
 * reason.
 */
import { createRequire } from 'node:module';
import lighthouseLog from 'lighthouse-logger';
import pTimeout from 'p-timeout';
import { unrefTimers } from './time.js';
import type { Page } from 'puppeteer-core';
import type { LighthouseEvidence } from '../core/evidence.js';
import { errorMessage } from '../core/errors.js';
import {
  MOBILE_ARTIFACT,
  MOBILE_AUDIT,
  WebgradeMobileAudit,
  copyMeasureStats,
  mobileGatherer,
  type HoldVerdict,
  type PageState,
  type MeasureStats,
  type MobileArtifact,
} from './lighthouse-mobile.js';
import { MOBILE_EMULATION } from './mobile-measure.js';
import { requestKeysFromDevtoolsLog } from './page-requests.js';
import { navigateWithResolvedConfig } from './resolved-config.js';

export const LIGHTHOUSE_CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;

export const LIGHTHOUSE_SETTINGS = {
  formFactor: 'mobile',
  screenEmulation: {
    mobile: true,
    width: MOBILE_EMULATION.viewport.width,
    height: MOBILE_EMULATION.viewport.height,
    deviceScaleFactor: MOBILE_EMULATION.viewport.deviceScaleFactor,
    disabled: false,
  },
  emulatedUserAgent: MOBILE_EMULATION.userAgent,
  pauseAfterFcpMs: 100,
  pauseAfterLoadMs: 100,
  networkQuietThresholdMs: 100,
  cpuQuietThresholdMs: 100,
  disableFullPageScreenshot: true,
  maxWaitForFcp: 15_000,
  maxWaitForLoad: 30_000,
  skipAudits: ['bf-cache'],
};

export type { PageState };

/**
 * How long Lighthouse observes a page that never goes idle, from the start of its navigation (its
 * `maxWaitForLoad`; the trace covers this window). See the module comment for the choice.
 */
export const NEVER_IDLE_WINDOW_MS = 3_000;

/**
 * How long Lighthouse waits for the first contentful paint of a page whose visit saw none by the end of its
 * settle (load + SETTLE_MS, with the static scoring's time), instead of LIGHTHOUSE_SETTINGS' 15 s. Such a page
 * (a blank canvas waiting for a microphone that headless Chrome does not have: the corpus's audio-spectrum) then
 * ends its run with Lighthouse's NO_FCP error 5 s after navigation instead of 15 s: its Lighthouse metrics are
 * unscorable with that error either way. A page that first paints between the settle's end and 5 s is still
 * measured; one that paints later than 5 s after a settle without paint loses its Lighthouse metrics (before: 15 s).
 */
export const NO_PAINT_FCP_WAIT_MS = 5_000;

/** The waits among the settings: what `lighthouseSettingsFor` changes for the page the visit saw. */
const WAIT_KEYS = ['maxWaitForLoad', 'maxWaitForFcp', 'pauseAfterLoadMs', 'networkQuietThresholdMs', 'cpuQuietThresholdMs'] as const;

/**
 * Lighthouse's settings for one run: LIGHTHOUSE_SETTINGS, with the never-idle window for a page that never goes
 * idle and the short first-paint wait for a page that painted nothing in the visit. The one place the settings
 * are chosen (a held run applies the waits when its verdict comes: `applyPageState`).
 */
export function lighthouseSettingsFor(page: PageState = {}): typeof LIGHTHOUSE_SETTINGS {
  const settings = { ...LIGHTHOUSE_SETTINGS };
  if (page.neverIdle) settings.maxWaitForLoad = NEVER_IDLE_WINDOW_MS;
  if (page.noContentfulPaint) settings.maxWaitForFcp = NO_PAINT_FCP_WAIT_MS;
  return settings;
}

/** Put the waits `lighthouseSettingsFor(page)` chooses into a run's settings, never longer than they were. */
export function applyPageState(settings: Record<string, unknown>, page: PageState): void {
  const chosen = lighthouseSettingsFor(page);
  for (const k of WAIT_KEYS) {
    const now = settings[k];
    settings[k] = typeof now === 'number' ? Math.min(now, chosen[k]) : chosen[k];
  }
}

let queue: Promise<unknown> = Promise.resolve();

type LighthouseFn = (
  url: string,
  flags: Record<string, unknown>,
  config?: Record<string, unknown>,
  page?: Page,
) => Promise<{ lhr: LhrLike; artifacts?: Record<string, unknown> } | undefined>;
let lighthouseFn: LighthouseFn | undefined;

async function loadLighthouse(): Promise<LighthouseFn> {
  if (!lighthouseFn) {
    lighthouseFn = (await import('lighthouse')).default as unknown as LighthouseFn;
    memoiseMessageFormat();
  }
  return lighthouseFn;
}

/**
 * Lighthouse builds a new `IntlMessageFormat` for every string it formats (each audit title and description,
 * every run: shared/localization/format.js), and each construction resolves the locale through
 * `Intl.NumberFormat.supportedLocalesOf` and parses the ICU message anew: measured, 0.3 CPU-seconds per page in
 * the Lighthouse thread, the largest single cost of its audit phase. Both are static hooks of the class
 * (`resolveLocale`, `__parse`) and pure functions of their arguments (a locale list; a message and parser
 * options), so this thread keeps their answers: an Intl.Locale (immutable) and a parsed message tree that
 * intl-messageformat only reads. The report's text is unchanged (a test compares it with and without).
 * `WEBGRADE_LIGHTHOUSE_MEMO=off` leaves Lighthouse's formatting as it is.
 */
export function memoiseMessageFormat(): void {
  if (process.env.WEBGRADE_LIGHTHOUSE_MEMO === 'off') return;
  // The intl-messageformat Lighthouse itself resolves (the same module instance: it imports the CommonJS main).
  const require = createRequire(createRequire(import.meta.url).resolve('lighthouse/package.json'));
  const { IntlMessageFormat: Format } = require('intl-messageformat') as {
    IntlMessageFormat: {
      resolveLocale?: (l: string | string[]) => unknown;
      __parse?: (m: string, o?: Record<string, unknown>) => unknown;
      __webgradeMemo?: true;
    };
  };
  if (Format.__webgradeMemo || typeof Format.resolveLocale !== 'function' || typeof Format.__parse !== 'function') return;
  const resolveLocale = Format.resolveLocale.bind(Format);
  const parse = Format.__parse;
  const locales = new Map<string, unknown>();
  const parsed = new Map<string, unknown>();
  Format.resolveLocale = (l) => {
    const key = typeof l === 'string' ? l : JSON.stringify(l);
    if (!locales.has(key)) locales.set(key, resolveLocale(l));
    return locales.get(key);
  };
  Format.__parse = (message, options) => {
    const key = `${message}\u0000${JSON.stringify(options, (k, v: unknown) => (k === 'locale' && v !== undefined ? String(v) : v))}`;
    let tree = parsed.get(key);
    if (tree === undefined) {
      tree = parse(message, options);
      if (parsed.size < 20_000) parsed.set(key, tree);
    }
    return tree;
  };
  Format.__webgradeMemo = true;
}

/**
 * Lighthouse's CPU benchmark, measured once per thread. Every Lighthouse run starts by spinning the CPU for about
 * a second in a blank tab (`computeBenchmarkIndex`: two 500 ms loops); the index only feeds the report's
 * `environment.benchmarkIndex` and its "slow machine" warning (no audit or score reads it: core/runner.js,
 * gather/driver/environment.js), yet it is one CPU-second per page, a sixth of a page's whole cost, and with two
 * workers on two cores it spins while the other worker's page is being measured. So the first run of a thread
 * measures it for real and later runs report that measurement: Lighthouse evaluates the function it finds on its
 * exported `pageFunctions` object when it runs, and we put there one that returns the measured index.
 * `WEBGRADE_LIGHTHOUSE_BENCHMARK=every-run` keeps Lighthouse's own benchmark in every run.
 */
let benchmarkIndex: number | undefined;
async function reuseBenchmarkIndex(lhr: LhrLike): Promise<void> {
  if (benchmarkIndex !== undefined || process.env.WEBGRADE_LIGHTHOUSE_BENCHMARK === 'every-run') return;
  const measured = lhr.environment?.benchmarkIndex;
  if (typeof measured !== 'number' || !Number.isFinite(measured) || measured <= 0) return;
  const mod = (await import('lighthouse/core/lib/page-functions.js')) as unknown as { pageFunctions: { computeBenchmarkIndex: () => number } };
  benchmarkIndex = Math.round(measured);
  // A function expression Lighthouse can inline into its evaluation script, as it does the original.
  mod.pageFunctions.computeBenchmarkIndex = new Function(`return ${benchmarkIndex};`) as () => number;
}

interface LhrLike {
  lighthouseVersion: string;
  categories: Record<string, { score: number | null; title: string }>;
  audits: Record<
    string,
    {
      score: number | null;
      scoreDisplayMode: string;
      title: string;
      displayValue?: string;
      errorMessage?: string;
      details?: { items?: Array<Record<string, unknown>> };
    }
  >;
  runWarnings: string[];
  runtimeError?: { code: string; message: string };
  environment?: { benchmarkIndex?: number };
}

export interface LighthouseRunOptions {
  port: number;
  /** Milliseconds the run may take. */
  timeoutMs: number;
  /** Use Lighthouse's default settings (for the settings check of the benchmark). */
  defaults?: boolean;
  /**
   * Also take the mobile measurement in this run (lighthouse-mobile.ts); `screenshot` adds the first screen;
   * `before` holds the run after Lighthouse's set-up and before it starts measuring, until it settles.
   */
  mobile?: { screenshot: boolean; before?: Promise<HoldVerdict> };
  /**
   * A blank tab for Lighthouse to run in (a puppeteer-core page; the version Lighthouse depends on). Without
   * it Lighthouse connects its own puppeteer to `port` for this run and opens a tab in the default context.
   */
  page?: Page;
  /** Called when Lighthouse starts its CPU benchmark (see LIGHTHOUSE_BENCHMARK_STATUS). */
  onBenchmark?: () => void;
  /** Hold the machine-wide measurement lock (measure-lock.ts) around the measured phase. */
  lock?: boolean;
  /** Only the performance category (the extra runs of `--lighthouse-runs`); no phone measurement. */
  performanceOnly?: boolean;
  /** What the visit saw of the page (a run that is not held: its settings are chosen for it at the start). */
  pageState?: PageState;
  /** Called with the hold's verdict (see `mobile.before`). */
  onVerdict?: (verdict: HoldVerdict) => void;
}

/**
 * The status Lighthouse logs when it starts its CPU benchmark (core/gather/driver/environment.js): about a
 * second of script in its own tab, after its configuration and before it prepares the page. The result only
 * feeds a "slow machine" warning, so other work may run meanwhile; Node is idle then.
 */
export const LIGHTHOUSE_BENCHMARK_STATUS = 'Benchmarking machine';

/** One artifact's Lighthouse result, with how its measured phase went (MeasureStats). */
export interface LighthouseRun extends MeasureStats {
  evidence: LighthouseEvidence;
  /** The mobile measurement when asked for, or why it is missing. */
  mobile?: { ok: true; value: MobileArtifact } | { ok: false; reason: string };
  /** The requests its tab's targets made (page-requests.ts `requestKey`), from its DevTools log. */
  requests?: string[];
}

export class LighthouseTimeout extends Error {}

/** Reduce an LHR to the evidence metrics read (keeping the full report in `lhr`). */
export function lighthouseEvidence(lhr: LhrLike): LighthouseEvidence & { blockedRequests?: string[] } {
  const categories: LighthouseEvidence['categories'] = {};
  for (const [id, c] of Object.entries(lhr.categories)) categories[id] = { score: c.score, title: c.title };
  const audits: LighthouseEvidence['audits'] = {};
  for (const [id, a] of Object.entries(lhr.audits)) {
    audits[id] = { score: a.score, scoreDisplayMode: a.scoreDisplayMode, title: a.title };
    if (a.displayValue) audits[id]!.displayValue = a.displayValue;
    if (a.errorMessage) audits[id]!.errorMessage = a.errorMessage.split('\n')[0]!.slice(0, 300);
  }
  const out: LighthouseEvidence & { blockedRequests?: string[] } = {
    lighthouseVersion: lhr.lighthouseVersion,
    categories,
    audits,
    runWarnings: lhr.runWarnings ?? [],
    lhr,
  };
  if (lhr.runtimeError?.code) out.runtimeError = `${lhr.runtimeError.code}: ${lhr.runtimeError.message}`;
  const items = lhr.audits['network-requests']?.details?.items ?? [];
  const failed = items
    .filter((i) => typeof i.url === 'string' && !/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(i.url as string) && !/^data:/.test(i.url as string))
    .map((i) => String(i.url));
  if (failed.length) out.blockedRequests = failed;
  return out;
}

function mobileFrom(artifact: unknown, lhr: LhrLike): NonNullable<LighthouseRun['mobile']> {
  const a = artifact as Partial<MobileArtifact> | Error | undefined;
  if (a && !(a instanceof Error) && a.measure) return { ok: true, value: a as MobileArtifact };
  if (lhr.runtimeError?.code) return { ok: false, reason: `the Lighthouse run failed (${lhr.runtimeError.code})` };
  return { ok: false, reason: `the Lighthouse run did not measure it${a instanceof Error ? ` (${a.message})` : ''}` };
}

/**
 * One evidence from several runs of one page (`--lighthouse-runs`; the Lighthouse team's advice for variance:
 * run several times and take the median). `runs[0]` is the full run (every category, the phone measurement);
 * the others measured performance only. The performance category and its audits are taken from the run whose
 * performance score is the median of the scored runs (the lower median for an even count: the more cautious
 * score), so that the score and its details agree; the other categories from the full run. Runs without a
 * performance score (e.g. NO_LCP) are left out of the median and kept in `performanceRuns` as null; when no run
 * has one, the full run stands as it is.
 */
export function medianPerformance(runs: readonly LighthouseEvidence[]): LighthouseEvidence {
  const full = runs[0]!;
  if (runs.length < 2) return full;
  const scores = runs.map((r) => r.categories.performance?.score ?? null);
  const scored = scores
    .map((s, i) => ({ s, i }))
    .filter((x): x is { s: number; i: number } => x.s !== null)
    .sort((a, b) => a.s - b.s || a.i - b.i);
  const out: LighthouseEvidence = { ...full, performanceRuns: scores };
  if (scored.length === 0) return out;
  const m = scored[Math.floor((scored.length - 1) / 2)]!.i;
  out.performanceRun = m;
  if (m === 0) return out;
  const chosen = runs[m]!;
  const refs = (chosen.lhr as { categories?: Record<string, { auditRefs?: Array<{ id: string }> }> } | undefined)?.categories?.performance?.auditRefs ?? [];
  const audits = { ...full.audits };
  for (const r of refs) if (chosen.audits[r.id]) audits[r.id] = chosen.audits[r.id]!;
  out.categories = { ...full.categories, performance: chosen.categories.performance! };
  out.audits = audits;
  return out;
}

/**
 * Lighthouse's errors that say its trace of the load was incomplete, not that the page did something: the trace
 * has no metadata for the renderer the page committed in ("Unable to determine tid for renderer process", seen on
 * a page of one heading on CI under load, 2026-11-27: best-practices and performance unscorable in one run of
 * two), or no start or navigation event (LighthouseError NO_TRACING_STARTED, NO_NAVSTART, NO_RESOURCE_REQUEST).
 */
const TRACE_FAULTS = /^(NO_TRACING_STARTED|NO_NAVSTART|NO_RESOURCE_REQUEST)\b|Unable to determine tid for renderer process/;

/**
 * Why a run's trace could not be read (its runtime error or the first audit error that says so), or undefined:
 * such a run measured Chrome's tracing, not the page, and is made again once when time allows
 * (lighthouse-thread-worker.ts).
 */
export function traceFault(e: LighthouseEvidence): string | undefined {
  if (e.runtimeError && TRACE_FAULTS.test(e.runtimeError)) return e.runtimeError;
  for (const [id, a] of Object.entries(e.audits)) if (a.errorMessage && TRACE_FAULTS.test(a.errorMessage)) return `${id}: ${a.errorMessage}`;
  return undefined;
}

/** Run Lighthouse on `url` over Chrome's debugging `port`; rejects with LighthouseTimeout when over time. */
export async function runLighthouse(url: string, opts: LighthouseRunOptions): Promise<LighthouseEvidence> {
  return (await runLighthouseWith(url, opts)).evidence;
}

/** `runLighthouse`, also returning the mobile measurement when `opts.mobile` asks for it. */
export async function runLighthouseWith(url: string, opts: LighthouseRunOptions): Promise<LighthouseRun> {
  let release!: () => void;
  const slot = new Promise<void>((r) => (release = r));
  const prev = queue;
  queue = prev.then(() => slot);
  await prev;
  let job: ReturnType<LighthouseFn> | undefined;
  let releaseLock: (() => Promise<void> | undefined) | undefined;
  // Lighthouse's logger emits every status, whatever the log level; runs are serialised, so the one
  // listener hears this run only.
  const onStatus = ([, message]: unknown[]) => {
    if (message === LIGHTHOUSE_BENCHMARK_STATUS) opts.onBenchmark?.();
  };
  if (opts.onBenchmark) lighthouseLog.events.on('status', onStatus);
  try {
    const lighthouse = await loadLighthouse();
    const categories = opts.performanceOnly ? ['performance'] : [...LIGHTHOUSE_CATEGORIES];
    const flags = { port: opts.port, output: 'json', logLevel: 'silent', onlyCategories: categories };
    const base = lighthouseSettingsFor(opts.pageState);
    const settings = opts.defaults
      ? { onlyCategories: categories }
      : {
          ...base,
          maxWaitForLoad: Math.max(Math.min(5000, base.maxWaitForLoad), Math.min(base.maxWaitForLoad, opts.timeoutMs - 5000)),
          onlyCategories: categories,
        };
    const config: Record<string, unknown> = { extends: 'lighthouse:default', settings };
    const stats: MeasureStats = {};
    const lock = opts.lock ? { timeoutMs: Math.max(1000, opts.timeoutMs - 2000), release: {} as { fn?: () => Promise<void> } } : undefined;
    releaseLock = () => lock?.release.fn?.();
    // The gatherer also holds a never-idle page's frames after the trace (lighthouse-mobile.ts `holdFrames`).
    if (opts.mobile || lock || opts.pageState?.neverIdle) {
      const gatherer = mobileGatherer({
        neverIdle: !!opts.pageState?.neverIdle,
        screenshot: opts.mobile?.screenshot ?? false,
        measure: !!opts.mobile && !opts.performanceOnly,
        ...(opts.mobile?.before ? { before: opts.mobile.before } : {}),
        ...(lock ? { lock } : {}),
        stats,
        onVerdict: (verdict, runSettings) => {
          if (verdict !== 'skip') applyPageState(runSettings, verdict);
          opts.onVerdict?.(verdict);
        },
      });
      config.artifacts = [{ id: MOBILE_ARTIFACT, gatherer: { implementation: gatherer } }];
      config.audits = [{ implementation: WebgradeMobileAudit }];
      (settings as Record<string, unknown>).onlyAudits = [MOBILE_AUDIT];
    }
    job = opts.page ? navigateWithResolvedConfig(url, flags, config, opts.page) : lighthouse(url, flags, config);
    job.catch(() => undefined);
    const result = await pTimeout(job, {
      milliseconds: Math.max(0, opts.timeoutMs),
      message: new LighthouseTimeout(`Lighthouse did not finish within ${Math.round(opts.timeoutMs / 1000)} s`),
    });
    if (!result?.lhr) throw new Error('Lighthouse returned no report');
    await reuseBenchmarkIndex(result.lhr);
    const run: LighthouseRun = { evidence: lighthouseEvidence(result.lhr) };
    if (opts.mobile && !opts.performanceOnly) run.mobile = mobileFrom(result.artifacts?.[MOBILE_ARTIFACT], result.lhr);
    run.requests = requestKeysFromDevtoolsLog(result.artifacts?.DevtoolsLog);
    copyMeasureStats(stats, run);
    return run;
  } catch (err) {
    if (err instanceof LighthouseTimeout) throw err;
    throw new Error(`Lighthouse failed: ${errorMessage(err)}`);
  } finally {
    await releaseLock?.();
    lighthouseLog.events.off('status', onStatus);
    // An abandoned run keeps the queue until it settles (the caller kills Chrome, which ends it), at most 20 s.
    if (job) {
      const j = job;
      const settled = j.then(
        () => undefined,
        () => undefined,
      );
      void pTimeout(settled, { milliseconds: 20_000, fallback: () => undefined, customTimers: unrefTimers }).then(release);
    } else release();
  }
}
