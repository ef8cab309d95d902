/**
 * The browser gatherer: provides the evidence needs 'browser', 'screenshot', 'mobile' and 'lighthouse' from one
 * Chrome kept alive across artifacts. Per artifact: a loopback server rooted at the artifact, one visit in a
 * fresh browser context (visit.ts) and — only when a selected metric needs it — one Lighthouse run on the
 * same Chrome (lighthouse.ts), in a worker thread (lighthouse-thread.ts). The iPhone 12 Pro measurement
 * (mobile-compat) is taken inside that Lighthouse run, which loads the page under the same emulation
 * (lighthouse-mobile.ts); when Lighthouse is not needed, or its run did not yield the measurement, the session
 * loads the page once more under emulation instead.
 *
 * Overlap (bench/browser-suite.ts measures it): Lighthouse starts together with the visit. Before it measures
 * anything it resolves its configuration and benchmarks the CPU for about a second (the result only feeds a
 * "slow machine" warning); our work runs meanwhile: the visit, the static metrics (scored once the benchmark
 * starts), then the metrics that need only the visit. Lighthouse is held just before it starts tracing and
 * loads the page (lighthouse-mobile.ts) until all of that is over, so nothing of ours competes with its
 * performance measurement, and our visit's context is closed by then. If the visit shows that Lighthouse must
 * not run (see below) or Chrome had to be killed, the held run is told to skip and ends at once.
 *
 * Budget: the artifact's remaining budget is split so that a slow visit cannot starve Lighthouse: when
 * Lighthouse is needed the visit must end LIGHTHOUSE_RESERVE_MS (or 45% of the budget if less) before the
 * deadline; Lighthouse gets whatever is left. Lighthouse is not run when the visit showed that the page never
 * finished loading or stopped responding (it would only burn the budget): the Lighthouse metrics are then
 * unscorable with that reason.
 *
 * Interaction probe (interaction/probe.ts; only when a selected metric needs `interaction`): it runs in a browser
 * context of its own (sandbox phase `interaction`) after the visit, while the metrics that need only the visit
 * are scored, and before Lighthouse is released to measure (Lighthouse waits: nothing of ours competes with its
 * measurement), within the part of the budget the visit may use. `interactionPlacement: 'after-lighthouse'`
 * runs it after Lighthouse's run instead (bench/interaction.ts measures both); the default is before, which adds
 * the same time per page and keeps the probe out of Lighthouse's shortened budget. When the visit found the page
 * unresponsive the probe is not run (its evidence says so, and render-validity scores 0); when the visit's load
 * event never fired, the probe's first load waits at most PROBE_SHORT_LOAD_MS.
 *
 * Faults: a context that cannot be closed in CLOSE_TIMEOUT_MS, a Lighthouse run over its time, or a Chrome that
 * disconnected gets Chrome killed (and the Lighthouse thread stopped); the next artifact starts new ones. A
 * Lighthouse run that died with a Chrome the visit had to kill is made again, after the visit, on a new one.
 */
import type { BrowserContext } from 'puppeteer-core';
import type { Evidence, Gathered } from '../core/evidence.js';
import type { RuntimeEvidence } from '../core/runtime-evidence.js';
import { watchRuntimeIn } from './runtime/index.js';
import { gathered, missing } from '../core/evidence.js';
import { errorMessage } from '../core/errors.js';
import type { Gatherer, GatherRequest, GathererFactory, GathererOptions } from '../core/gatherer.js';
import type { BrowserEvidence, InteractionSettings } from '../core/browser-evidence.js';
import type { LighthouseEvidence } from '../core/evidence.js';
import { LighthouseTimeout, type LighthouseRun, type PageState } from './lighthouse.js';
import { isNeverIdle } from './collectors/busy-after-load.js';
import { LighthouseThread } from './lighthouse-thread.js';
import { MEASURE_TIMINGS, copyMeasureStats, type HoldVerdict, type MeasureStats } from './lighthouse-mobile.js';
import { mobileResult } from './mobile-measure.js';
import { PageFaults } from './collectors/visit-collector.js';
import { mobileScreenshot, visitMobile } from './collectors/mobile-visit.js';
import { visitArtifact } from './visit.js';
import { ChromeProcess, sandboxContext } from './chrome-process.js';
import { SandboxThread, type SiteHandle } from './sandbox/sandbox-thread.js';
import { servedArtifact } from './server.js';
import { FIRST_LOAD_TIMEOUT_MS, probeInteraction, unresponsiveEvidence } from './interaction/probe.js';
import { DEFAULT_NETWORK_MODE, networkRecord, type NetworkEntry, type NetworkSettings, type SandboxPhase } from '../core/network.js';
import { attributeRequests, type SeenRequests } from './page-requests.js';
import type { CdnOptions } from '../cdn/index.js';
import { FidelityRenderer, type FidelityOptions } from './fidelity/gather.js';
import { gatherRequirementTests } from './interaction/tests/gather.js';
import type { JudgeSettings } from '../judges/settings.js';
import { gate } from './step-gate.js';
import { countLoads } from './loads.js';
import { readScreen } from './interaction/probe/screen.js';
import { VIEWPORT } from './interaction/driver.js';

export const LIGHTHOUSE_RESERVE_MS = 25_000;
export const CLOSE_TIMEOUT_MS = 5_000;
/** At most this long for the fallback mobile visit (when the Lighthouse run did not measure mobile). */
export const MOBILE_FALLBACK_MS = 8_000;
/** The probe's first load waits at most this long when the visit's load event never fired. */
export const PROBE_SHORT_LOAD_MS = 3_000;

/** Where the interaction probe runs: before Lighthouse measures (it waits), or after Lighthouse's run. */
export type InteractionPlacement = 'before-lighthouse' | 'after-lighthouse';
export const DEFAULT_INTERACTION_PLACEMENT: InteractionPlacement = 'before-lighthouse';

/** The browser gatherer's own settings (GathererOptions extended): what pages may reach; the fidelity viewports. */
export interface BrowserGathererOptions extends FidelityOptions {
  /** The network mode (default `cdn`). */
  network?: NetworkSettings;
  /** Options of the CDN cache that answers CDN requests in `cdn` mode (cdn/). */
  cdn?: CdnOptions;
  /** Hosts that count as CDNs instead of cdn/'s list (tests). */
  cdnHosts?: readonly string[];
  /** Lighthouse runs per artifact; the performance score is their median (default DEFAULT_LIGHTHOUSE_RUNS). */
  lighthouseRuns?: number;
  /** The interaction probe's settings (default interaction/probe.ts INTERACTION_DEFAULTS). */
  interaction?: Partial<Omit<InteractionSettings, 'restore'>>;
  /** Where the interaction probe runs (default DEFAULT_INTERACTION_PLACEMENT). */
  interactionPlacement?: InteractionPlacement;
  /** The judge settings (the requirement tests' agent); resolved from the environment when absent. */
  judge?: JudgeSettings;
}

/**
 * Lighthouse runs per artifact by default. Measured (bench/stability.ts, 60 corpus pages scored twice at
 * concurrency 1): with one run, performance's test–retest sd was 1.27 points against a spread of 10.0 across pages
 * on 2026-11-23 (load 3–9), and 0.43–1.12 against 8.8–9.3 in four runs on a quiet machine on 2026-11-24 (ratio
 * 0.05–0.12, under the 1/5 the issue "Numbers that hold still" asks for), with Lighthouse's variance advice already
 * followed (simulated throttling, one measurement at a time per machine through the measurement lock, at a raised
 * priority, a settled page). Each extra run costs a full performance pass (about 2 s per page on two cores), so the
 * default stays 1 and `--lighthouse-runs n` takes the median of n where a machine is noisier.
 */
export const DEFAULT_LIGHTHOUSE_RUNS = 1;

export class BrowserGatherer implements Gatherer {
  readonly name = 'browser';
  readonly provides = ['browser', 'screenshot', 'mobile', 'lighthouse', 'interaction', 'requirement-tests', 'reference', 'runtime'] as const;
  readonly sandbox: SandboxThread;
  readonly chrome: ChromeProcess;
  readonly network: NetworkSettings;
  private readonly thread = new LighthouseThread();
  /** The sandbox key the running Chrome accepts (a restarted sandbox thread has a new one). */
  private chromeSpki?: string;
  /** Renders for the fidelity metrics, with the reference cache (made on first use). */
  private fidelity?: FidelityRenderer;
  /** Per artifact in flight, the requests its pages' targets made in each phase (page-requests.ts). */
  private readonly seen = new WeakMap<SiteHandle, SeenRequests>();

  constructor(readonly options: Partial<GathererOptions> & BrowserGathererOptions = {}) {
    this.network = options.network ?? { mode: DEFAULT_NETWORK_MODE };
    const cdn: CdnOptions | undefined = options.cdn ?? (this.network.cdnCache ? { dir: this.network.cdnCache } : undefined);
    this.sandbox = new SandboxThread({ network: this.network, ...(cdn ? { cdn } : {}), ...(options.cdnHosts ? { cdnHosts: options.cdnHosts } : {}) });
    this.chrome = new ChromeProcess({
      spki: async () => {
        this.chromeSpki = await this.sandbox.certificates();
        return this.chromeSpki;
      },
    });
  }

  /**
   * One artifact, its browser steps gated as this page's (step-gate.ts): its own Lighthouse thread's measurement
   * never holds them, another page's does. The time held and the page loads of every phase go into the timings.
   */
  async gather(evidence: Evidence, request: GatherRequest): Promise<void> {
    const held = gate.stats.heldMs;
    try {
      await gate.scope(
        () => this.thread.threadId,
        () => this.gatherPage(evidence, request),
      );
    } finally {
      const b = evidence.browser;
      if (b?.ok && gate.stats.heldMs > held) b.value.timings.gateHeld = gate.stats.heldMs - held;
    }
  }

  private async gatherPage(evidence: Evidence, request: GatherRequest): Promise<void> {
    const needsBrowser = request.needs.has('browser') || request.needs.has('screenshot') || request.needs.has('mobile');
    const needsLighthouse = request.needs.has('lighthouse');
    const needsInteraction = request.needs.has('interaction');
    const placement = this.options.interactionPlacement ?? DEFAULT_INTERACTION_PLACEMENT;
    const screenshots = request.needs.has('screenshot');
    const start = performance.now();
    const deadline = start + request.budgetMs;
    const spki = await this.sandbox.certificates();
    if (this.chromeSpki && this.chromeSpki !== spki) await this.chrome.kill(); // the sandbox thread was restarted
    const site = await this.sandbox.open(servedArtifact(evidence.artifact));
    try {
      let early: EarlyLighthouse | undefined;
      if (needsBrowser) {
        const reserve = needsLighthouse ? Math.min(LIGHTHOUSE_RESERVE_MS, request.budgetMs * 0.45) : 0;
        // The phone check does not ride on the Lighthouse run's fate: a run that overruns ends early enough for the
        // fallback mobile visit (fillMobile). A page that never goes idle has it measured in the run all the same:
        // there its frames are held after the trace (lighthouse-mobile.ts), so it costs nothing, while a mobile
        // visit of such a page took 1.3–7.9 s before Lighthouse could measure (machine at load 20).
        const mobileReserve = request.needs.has('mobile') ? Math.min(MOBILE_FALLBACK_MS, request.budgetMs * 0.15) : 0;
        let decide!: (verdict: HoldVerdict) => void;
        const hold = new Promise<HoldVerdict>((r) => (decide = r));
        let visitOver!: () => void;
        const visited = new Promise<void>((r) => (visitOver = r));
        let staticScoring: Promise<void> | undefined;
        if (needsLighthouse) {
          // Lighthouse starts with the visit, in its worker thread: its set-up (configuration, then a CPU
          // benchmark of about 1 s; nothing measured) overlaps the visit, and it is held before it measures
          // until our work is done. The static metrics are scored while it benchmarks the CPU (its thread is
          // idle then, and the benchmark only feeds a warning), or when the visit is over if that comes first.
          let benchmarking!: () => void;
          const benchmark = new Promise<void>((r) => (benchmarking = r));
          early = {
            started: performance.now(),
            run: this.runLighthouse(site, deadline - mobileReserve, { screenshot: screenshots, before: hold }, benchmarking),
            measure: false,
          };
          staticScoring = Promise.race([benchmark, visited]).then(() => request.background?.());
        }
        const kills = this.chrome.kills;
        try {
          // Without Lighthouse, the static metrics are scored while the page settles: Node is idle then, and
          // nothing in the visit is a timing measurement.
          evidence.browser = await this.visit(
            evidence,
            site,
            deadline - reserve,
            screenshots,
            needsLighthouse ? 'lighthouse' : 'visit',
            early ? undefined : request.background,
          );
          visitOver();
          // The runtime watch (issue 44), on real time, before the probe and before Lighthouse is released: nothing
          // else of this page's runs then, and Chrome keeps one trace at a time.
          if (request.needs.has('runtime')) evidence.runtime = await this.watchRuntime(site, deadline - reserve);
          // The interaction probe, in a context of its own, while the visit's metrics are scored (the probe waits
          // on Chrome; Node is mostly idle), before Lighthouse is released.
          const probing = needsInteraction && placement === 'before-lighthouse' ? this.probe(evidence, site, deadline - reserve) : undefined;
          if (early) {
            // Measure unless the visit showed the page never loads or does not answer, or Chrome had to be
            // killed under the held run (then the run is made again below, on a new Chrome).
            early.measure = this.chrome.kills === kills && !lighthouseSkipReason(evidence.browser);
            // The visit's evidence is complete except the phone measurement, which comes from Lighthouse: score
            // what needs only the visit now, before Lighthouse measures.
            if (early.measure) {
              await staticScoring;
              // Those metrics read the console: mark now the lines about requests the sandbox refused, from its
              // log so far (record() marks them again from the whole log at the end).
              const b = evidence.browser;
              if (b.ok) markWebgradeCaused(b.value, this.attribute(site, (await site.log().catch(() => ({ log: [] as NetworkEntry[] }))).log).page);
              await request.background?.(['browser', 'screenshot']);
            }
          } else if (probing) await request.background?.(['browser', 'screenshot']);
          if (probing) {
            await probing;
            if (early) early.measure &&= this.chrome.kills === kills;
            if (early?.measure) await request.background?.(['browser', 'screenshot', 'interaction']);
          }
        } finally {
          visitOver();
          decide(early?.measure ? pageState(evidence.browser) : 'skip');
        }
      }
      // Without the visit, the watch and the probe run here: before Lighthouse, which has not started.
      if (request.needs.has('runtime') && !evidence.runtime)
        evidence.runtime = await this.watchRuntime(site, deadline - (needsLighthouse ? Math.min(LIGHTHOUSE_RESERVE_MS, request.budgetMs * 0.45) : 0));
      if (needsInteraction && !evidence.interaction && placement === 'before-lighthouse') {
        await this.probe(evidence, site, deadline - (needsLighthouse ? Math.min(LIGHTHOUSE_RESERVE_MS, request.budgetMs * 0.45) : 0));
      }
      // Whatever is still ready runs now. After a held run was released nothing is left (it all ran before the
      // release), so this never competes with Lighthouse's measurement.
      await request.background?.();
      if (needsLighthouse) {
        const t = early?.measure ? early.started : performance.now();
        const measured = early ? await early.run : undefined;
        // A run told to skip has ended at once; then Lighthouse runs now, unless the visit says it must not.
        const run =
          early?.measure && measured ? measured : await this.lighthouse(evidence, site, deadline, needsBrowser ? { screenshot: screenshots } : undefined);
        evidence.lighthouse = run.evidence;
        const b = evidence.browser;
        if (b?.ok) {
          b.value.timings.lighthouse = Math.round(performance.now() - t);
          for (const [k, name] of Object.entries(MEASURE_TIMINGS)) {
            const v = run[k as keyof MeasureStats];
            if (v !== undefined) b.value.timings[name] = v;
          }
          await this.fillMobile(b.value, run.mobile, site, deadline, screenshots);
        }
      }
      if (needsInteraction && !evidence.interaction) await this.probe(evidence, site, deadline);
      // Requirement tests (interaction/tests/), after Lighthouse's measurement, in a context of their own.
      if (request.needs.has('requirement-tests')) {
        const context = async () => sandboxContext(await this.chrome.browser(), await site.endpoint('interaction'), this.requestsOf(site, 'interaction'));
        await gatherRequirementTests(evidence, site, deadline, context, (c) => this.closeContext(c), this.options.judge);
      }
      // Fidelity hook: the page and its reference at the fidelity viewports (gather/fidelity/), after the
      // visit and Lighthouse so that it competes with no measurement.
      if (request.needs.has('reference') && evidence.reference) {
        this.fidelity ??= new FidelityRenderer(this.options);
        evidence.fidelity = await this.fidelity.gather(evidence, evidence.reference, {
          chrome: this.chrome,
          sandbox: this.sandbox,
          site,
          network: this.network,
          deadline,
          requests: this.requestsOf(site, 'fidelity'),
        });
      }
    } finally {
      const { log, dropped } = await site.close().catch(() => ({ log: [] as NetworkEntry[], dropped: 0 }));
      this.record(evidence, site, log, dropped);
    }
  }

  /** The set the requests of `phase` of this artifact's pages are recorded into. */
  private requestsOf(site: SiteHandle, phase: SandboxPhase): Set<string> {
    let m = this.seen.get(site);
    if (!m) this.seen.set(site, (m = new Map()));
    let keys = m.get(phase);
    if (!keys) m.set(phase, (keys = new Set()));
    return keys;
  }

  /** The page's requests in the sandbox's log, the browser's own apart (page-requests.ts). */
  private attribute(site: SiteHandle, log: readonly NetworkEntry[]): { page: NetworkEntry[]; browser: NetworkEntry[] } {
    return attributeRequests(log, this.seen.get(site) ?? new Map(), site.origin);
  }

  /**
   * The sandbox's log into the evidence: every phase's requests of the page (the browser's own kept apart, in
   * `browserNetwork`); faults for navigations away it kept; and a "Failed to load resource" console line about a
   * request the sandbox refused or withheld is marked as webgrade's doing (console-errors does not count it).
   */
  private record(evidence: Evidence, site: SiteHandle, all: NetworkEntry[], dropped: number): void {
    const { page: log, browser } = this.attribute(site, all);
    evidence.network = networkRecord(this.network, log, browser.length);
    const loads = countLoads(all, site.origin);
    if (evidence.interaction?.ok) evidence.interaction.value.network = log.filter((e) => e.phase === 'interaction');
    const b = evidence.browser;
    if (!b?.ok) return;
    b.value.network = log;
    Object.assign(b.value.timings, loads);
    if (browser.length) b.value.browserNetwork = browser;
    const last = markWebgradeCaused(b.value, log);
    for (const e of last.values()) {
      if (!e.navigationKept) continue;
      const f = `navigation away to ${e.url.slice(0, 200)} blocked`;
      if (!b.value.faults.includes(f)) b.value.faults.push(f);
    }
    if (dropped) b.value.faults.push(`${dropped} more requests not logged (log full)`);
  }

  /**
   * Put the Lighthouse run's mobile measurement into the browser evidence; when the run did not yield it (not
   * run, failed, timed out) and the page was responsive, fall back to a mobile visit in a fresh context.
   */
  private async fillMobile(b: BrowserEvidence, mobile: LighthouseRun['mobile'], site: SiteHandle, deadline: number, screenshots: boolean): Promise<void> {
    if (b.mobile || b.unavailable?.mobile) return;
    if (mobile?.ok) {
      b.mobile = mobileResult(mobile.value.measure, 'lighthouse run');
      if (mobile.value.screenshotBase64) b.screenshots.mobile = mobileScreenshot(Buffer.from(mobile.value.screenshotBase64, 'base64'));
      return;
    }
    const why = mobile?.reason ?? 'the Lighthouse run did not measure it';
    // A page Lighthouse could not measure is often one that never finishes loading: cap the fallback visit.
    const end = Math.min(deadline, performance.now() + MOBILE_FALLBACK_MS);
    const left = () => end - performance.now();
    const faults = new PageFaults();
    if (left() < 3000) {
      faults.skip('mobile', `mobile emulation: ${why}, and no time is left in the budget for a mobile visit`);
    } else {
      let context;
      const t = performance.now();
      try {
        const browser = await this.chrome.browser();
        context = await sandboxContext(browser, await site.endpoint('mobile'), this.requestsOf(site, 'mobile'));
        const mob = await visitMobile(context, site.entryUrl, faults, left, screenshots);
        b.mobile = mob.result;
        if (mob.screenshot) b.screenshots.mobile = mob.screenshot;
      } catch (err) {
        faults.add(`mobile emulation: ${errorMessage(err)}`);
        faults.skip('mobile', `mobile emulation failed (${why}; the mobile visit: ${errorMessage(err)})`);
      } finally {
        if (context) await this.closeContext(context);
        b.timings.mobile = Math.round(performance.now() - t);
      }
    }
    for (const x of faults.faults) if (!b.faults.includes(x)) b.faults.push(x);
    if (Object.keys(faults.unavailable).length) b.unavailable = { ...b.unavailable, ...faults.unavailable };
  }

  /**
   * The runtime watch (runtime/index.ts) in a fresh context (phase `runtime`), within `deadline`; never throws.
   * Needs: Chrome, the site's `runtime` endpoint and its entry URL, a deadline. Costs about 2 s of real time.
   */
  private async watchRuntime(site: SiteHandle, deadline: number): Promise<Gathered<RuntimeEvidence>> {
    if (deadline - performance.now() < 4000) return missing('the page was not watched while it runs: no time left in the artifact budget');
    let context: BrowserContext | undefined;
    try {
      await gate.step('runtime watch');
      context = await sandboxContext(await this.chrome.browser(), await site.endpoint('runtime'), this.requestsOf(site, 'runtime'));
      return gathered(await watchRuntimeIn(context, site.entryUrl, { deadline }));
    } catch (err) {
      const dead = !this.chrome.alive;
      if (dead) await this.chrome.kill();
      return missing(`the runtime watch failed: ${errorMessage(err)}`);
    } finally {
      if (context) await this.closeContext(context);
    }
  }

  /**
   * The interaction probe in a fresh context (phase `interaction`), within `deadline`; never throws. Not run when
   * the visit found the page unresponsive; a short first load when the visit's load event never fired.
   */
  private async probe(evidence: Evidence, site: SiteHandle, deadline: number): Promise<void> {
    const b = evidence.browser;
    if (b?.ok && b.value.unavailable?.domHtml) {
      evidence.interaction = gathered(unresponsiveEvidence(`the visit found the page unresponsive (${b.value.unavailable.domHtml}): the probe was not run`));
      return;
    }
    if (deadline - performance.now() < 3000) {
      evidence.interaction = missing('the interaction probe was not run: no time left in the artifact budget');
      return;
    }
    const firstLoadMs = b?.ok && b.value.loaded === false ? PROBE_SHORT_LOAD_MS : FIRST_LOAD_TIMEOUT_MS;
    let context: BrowserContext | undefined;
    let t = performance.now();
    try {
      const browser = await this.chrome.browser();
      // The probe's budget and time count from here: starting Chrome (once for many artifacts) is not the probe's.
      t = performance.now();
      context = await sandboxContext(browser, await site.endpoint('interaction'), this.requestsOf(site, 'interaction'));
      const ev = await probeInteraction(context, evidence.artifact, site.origin, site.entryUrl, {
        deadline,
        started: t,
        firstLoadMs,
        ...(this.options.interaction ? { settings: this.options.interaction } : {}),
      });
      evidence.interaction = gathered(ev);
      await readVisitView(evidence);
    } catch (err) {
      const dead = !this.chrome.alive;
      if (dead) await this.chrome.kill();
      evidence.interaction = missing(
        dead
          ? `Chrome died during the interaction probe (${errorMessage(err)}); it is restarted for the next artifact`
          : `the interaction probe failed: ${errorMessage(err)}`,
      );
    } finally {
      if (context) await this.closeContext(context);
      const ms = Math.round(performance.now() - t);
      if (evidence.browser?.ok) evidence.browser.value.timings.interaction = ms;
      if (evidence.interaction?.ok) evidence.interaction.value.timings.withContext = ms;
    }
  }

  private async visit(
    evidence: Evidence,
    site: SiteHandle,
    deadline: number,
    screenshots: boolean,
    mobile: 'visit' | 'lighthouse',
    idle?: () => Promise<void>,
  ) {
    let browser;
    try {
      browser = await this.chrome.browser();
    } catch (err) {
      return missing<BrowserEvidence>(`could not start Chrome: ${errorMessage(err)}`);
    }
    let context: BrowserContext | undefined;
    let mobileContext: BrowserContext | undefined;
    try {
      context = await sandboxContext(browser, await site.endpoint('visit'), this.requestsOf(site, 'visit'));
      const newMobileContext = async () => (mobileContext = await sandboxContext(browser, await site.endpoint('mobile'), this.requestsOf(site, 'mobile')));
      const ev = await visitArtifact(context, evidence.artifact, site.origin, site.entryUrl, {
        deadline,
        screenshots,
        mobile,
        mobileContext: newMobileContext,
        ...(idle ? { idle } : {}),
      });
      return gathered(ev);
    } catch (err) {
      const dead = !this.chrome.alive;
      if (dead) await this.chrome.kill();
      return missing<BrowserEvidence>(
        dead ? `Chrome died during the visit (${errorMessage(err)}); it is restarted for the next artifact` : `browser session failed: ${errorMessage(err)}`,
      );
    } finally {
      if (context) await this.closeContext(context);
      if (mobileContext) await this.closeContext(mobileContext);
    }
  }

  private async closeContext(context: { close(): Promise<void> }): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([
      context.close().then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), CLOSE_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (!ok) await this.chrome.kill();
  }

  /** Lighthouse after the visit: not run when the visit showed that the page never loads or does not answer. */
  private async lighthouse(evidence: Evidence, site: SiteHandle, deadline: number, mobile?: { screenshot: boolean }): Promise<LighthouseOutcome> {
    const skip = lighthouseSkipReason(evidence.browser);
    return skip ? notRun(skip) : this.runLighthouse(site, deadline, mobile, undefined, pageState(evidence.browser));
  }

  /** One Lighthouse run on our Chrome within `deadline`, in the Lighthouse thread; never throws. */
  private async runLighthouse(
    site: SiteHandle,
    deadline: number,
    mobile?: { screenshot: boolean; before?: Promise<HoldVerdict> },
    onBenchmark?: () => void,
    page?: PageState,
  ): Promise<LighthouseOutcome> {
    const timeoutMs = deadline - performance.now();
    if (timeoutMs < 3000) return notRun('Lighthouse not run: no time left in the artifact budget');
    let port: number;
    try {
      await this.chrome.browser();
      port = this.chrome.port!;
    } catch (err) {
      return notRun(`could not start Chrome for Lighthouse: ${errorMessage(err)}`);
    }
    try {
      const run = await this.thread.run(site.entryUrl, {
        port,
        proxyServer: await site.endpoint('lighthouse'),
        timeoutMs,
        runs: this.options.lighthouseRuns ?? DEFAULT_LIGHTHOUSE_RUNS,
        ...(mobile ? { mobile } : {}),
        ...(onBenchmark ? { onBenchmark } : {}),
        ...(page ? { page } : {}),
      });
      const out: LighthouseOutcome = { evidence: gathered(run.evidence) };
      if (run.mobile) out.mobile = run.mobile;
      for (const k of run.requests ?? []) this.requestsOf(site, 'lighthouse').add(k);
      copyMeasureStats(run, out);
      return out;
    } catch (err) {
      // An abandoned run is ended by stopping its thread and the Chrome it drives; both restart on demand.
      if (err instanceof LighthouseTimeout || !this.chrome.alive) {
        await this.thread.terminate();
        await this.chrome.kill();
      }
      return { evidence: missing(errorMessage(err)), mobile: { ok: false, reason: `the Lighthouse run failed: ${errorMessage(err)}` } };
    }
  }

  fail(evidence: Evidence, reason: string): void {
    evidence.browser ??= missing(reason);
    evidence.lighthouse ??= missing(reason);
    evidence.interaction ??= missing(reason);
    evidence.requirementTests ??= missing(reason);
    evidence.runtime ??= missing(reason);
    if (evidence.reference) evidence.fidelity ??= missing(reason);
  }

  async close(): Promise<void> {
    await this.thread.terminate();
    await this.chrome.kill();
    await this.sandbox.terminate();
  }
}

interface LighthouseOutcome extends MeasureStats {
  evidence: NonNullable<Evidence['lighthouse']>;
  mobile?: LighthouseRun['mobile'];
}

/** A Lighthouse run started with the visit (`started` on performance.now()), held until `measure` is decided. */
interface EarlyLighthouse {
  started: number;
  run: Promise<LighthouseOutcome>;
  measure: boolean;
}

/** What the visit saw of the page that changes how Lighthouse measures it: whether it never goes idle. */
function pageState(b: Evidence['browser']): PageState {
  if (!b?.ok) return {};
  return { neverIdle: isNeverIdle(b.value.busyAfterLoad), noContentfulPaint: b.value.firstContentfulPaintMs === null };
}

/** Why Lighthouse should not run after this visit: the page never finished loading, or stopped answering. */
function lighthouseSkipReason(b: Evidence['browser']): string | undefined {
  if (!b?.ok) return undefined;
  if (b.value.loaded === false) return `Lighthouse not run: the page did not finish loading in the browser session (${b.value.faults.join('; ')})`;
  if (b.value.unavailable?.domHtml) return `Lighthouse not run: ${b.value.unavailable.domHtml}`;
  return undefined;
}

function notRun(reason: string): LighthouseOutcome {
  return { evidence: missing<LighthouseEvidence>(reason), mobile: { ok: false, reason: 'the Lighthouse run was not made' } };
}

export const browserGathererFactory: GathererFactory<GathererOptions & BrowserGathererOptions> = (options) => new BrowserGatherer(options);

/**
 * The URL a browser-made console line about a failed request names: "Failed to load resource" lines carry it as
 * their source URL; Chrome's subresource-integrity and fetch refusals name it in their text (a withheld file is
 * answered with an error body, whose digest then fails the page's `integrity` check).
 */
export function failedRequestUrl(c: Pick<BrowserEvidence['console'][number], 'text' | 'url'>): string | undefined {
  if (c.url && /^Failed to load resource/.test(c.text)) return c.url;
  const m =
    /^Failed to find a valid digest in the 'integrity' attribute for resource '([^']+)'/.exec(c.text) ?? /^Fetch API cannot load (\S+?)\.? /.exec(c.text);
  return m?.[1];
}

/**
 * Mark the console lines about requests the sandbox refused or withheld during the visit ("Failed to load
 * resource", and the integrity and fetch refusals that follow a withheld file) as webgrade's doing
 * (console-errors does not count them). Returns the visit's last log entry per URL.
 */
function markWebgradeCaused(b: BrowserEvidence, log: readonly NetworkEntry[]): Map<string, NetworkEntry> {
  const last = new Map<string, NetworkEntry>();
  for (const e of log) if (e.phase === 'visit') last.set(e.url, e);
  for (const c of b.console) {
    const url = failedRequestUrl(c);
    if (!url) continue;
    const seen = last.get(url);
    if (seen?.disposition !== 'blocked') continue;
    c.webgradeCaused = true;
    delete c.browserMade;
    if (seen.withheld) c.withheld = true;
  }
  return last;
}

/**
 * The visit's desktop screenshot read as the probe reads its first view (interaction/probe/screen.ts), into the
 * first view's evidence: the two must show the same page (render-validity warns when they do not).
 */
async function readVisitView(evidence: Evidence): Promise<void> {
  const desktop = evidence.browser?.ok ? evidence.browser.value.screenshots.desktop : undefined;
  const fv = evidence.interaction?.ok ? evidence.interaction.value.firstView : undefined;
  if (!desktop || !fv?.screen) return;
  try {
    fv.visit = await readScreen(desktop.png, VIEWPORT, fv.visualBoxes ?? []);
  } catch {
    /* no reading: no comparison */
  }
}
