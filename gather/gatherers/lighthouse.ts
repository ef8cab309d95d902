/**
 * The Lighthouse gatherer: provides `lighthouse`, one Lighthouse run (lighthouse.ts) on the kit's Chrome, in the
 * kit's worker thread (lighthouse-thread.ts). The iPhone 12 Pro measurement (mobile-compat) is taken inside that
 * run, which loads the page under the same emulation (lighthouse-mobile.ts); the phone gatherer
 * (gatherers/phone.ts) takes it from here.
 *
 * It `requires` the visit's evidence: what the visit saw (a page that never rests, a page that painted nothing, a
 * page that never loaded) sets how long Lighthouse watches the page or whether it runs at all, so the visit runs
 * whenever Lighthouse does, even when no selected metric needs it (`--only performance`): without it a page that
 * never rests was watched for the whole 30 s `maxWaitForLoad` (43–66 s per heavy fixture against 6–11 s) and
 * scored over another window than in the whole suite.
 *
 * Overlap (bench/browser-suite.ts measures it): Lighthouse starts with the visit (`prepare`).
 * Before it measures anything it resolves its configuration and benchmarks the CPU for about a second (the
 * result only feeds a "slow machine" warning); our work runs meanwhile: the visit, the probe, and the scoring
 * of the metrics whose evidence is complete. Lighthouse is held just before it starts tracing and loads the page
 * (lighthouse-mobile.ts) until its own turn comes: it is `exclusive`, so the runner waits for the scoring asked
 * for so far and starts none while it measures, and the earlier gatherers' contexts are closed by then. If the
 * visit shows that Lighthouse must not run (the page never finished loading, or stopped answering: the
 * Lighthouse metrics are then unscorable with that reason) or Chrome had to be killed under the held run, the
 * held run is told to skip and ends at once; in the second case the run is made again now, on a new Chrome.
 *
 * Budget: it reserves LIGHTHOUSE_RESERVE_MS (or 45% of the budget if less) for itself and the gatherers after it:
 * a slow visit or probe cannot starve it. A run over its time gets the thread and Chrome stopped; both restart on
 * demand.
 */
import { gathered, missing } from '../../core/evidence.js';
import type { Evidence, LighthouseEvidence } from '../../core/evidence.js';
import { errorMessage } from '../../core/errors.js';
import type { GatherContext, Gatherer, GatheredParts } from '../../core/gatherer.js';
import { LighthouseTimeout, type LighthouseRun, type PageState } from '../lighthouse.js';
import { isNeverIdle } from '../collectors/busy-after-load.js';
import { MEASURE_TIMINGS, copyMeasureStats, type HoldVerdict, type MeasureStats } from '../lighthouse-mobile.js';
import type { BrowserKit } from '../browser-kit.js';

export const LIGHTHOUSE_RESERVE_MS = 25_000;

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

export interface LighthouseOutcome extends MeasureStats {
  evidence: NonNullable<Evidence['lighthouse']>;
  mobile?: LighthouseRun['mobile'];
}

/** A run started with the visit, held until its verdict. */
interface EarlyRun {
  started: number;
  run: Promise<LighthouseOutcome>;
  decide: (verdict: HoldVerdict) => void;
  /** Chrome's kill count when it started: a kill since means the run died with that Chrome. */
  kills: number;
}

export class LighthouseGatherer implements Gatherer {
  readonly meta;
  private readonly early = new WeakMap<Evidence, EarlyRun>();
  /** Per artifact, the run's phone measurement (gatherers/phone.ts reads it). */
  readonly mobile = new WeakMap<Evidence, LighthouseRun['mobile']>();

  constructor(
    private readonly kit: BrowserKit,
    private readonly options: { lighthouseRuns?: number } = {},
  ) {
    this.meta = {
      id: 'lighthouse',
      provides: ['lighthouse'],
      fills: ['lighthouse'],
      amends: ['browser'],
      requires: ['browser'],
      exclusive: true,
      reserve: { ms: LIGHTHOUSE_RESERVE_MS, share: 0.45 },
      scope: kit,
    } as const;
  }

  /** With the visit: start the run now, held before it measures. */
  prepare(ctx: GatherContext): void {
    if (!ctx.active.has('visit')) return;
    let decide!: (verdict: HoldVerdict) => void;
    const hold = new Promise<HoldVerdict>((r) => (decide = r));
    const started = performance.now();
    const kills = this.kit.chrome.kills;
    const run = this.kit
      .within(ctx.evidence, () => this.run(ctx.evidence, ctx.deadline, { screenshot: this.phonePicture(ctx), before: hold }))
      .catch((err: unknown) => notRun(`Lighthouse failed: ${errorMessage(err)}`));
    this.early.set(ctx.evidence, { started, run, decide, kills });
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence } = ctx;
    const early = this.early.get(evidence);
    this.early.delete(evidence);
    const skip = lighthouseSkipReason(evidence.browser);
    // Measure unless the visit showed the page never loads or does not answer, or Chrome had to be killed under
    // the held run (then the run is made again below, on a new Chrome).
    const measure = !!early && !skip && this.kit.chrome.kills === early.kills;
    early?.decide(measure ? pageState(evidence.browser) : 'skip');
    const t = measure ? early!.started : performance.now();
    const measured = early ? await early.run : undefined;
    const visited = ctx.active.has('visit');
    const run: LighthouseOutcome =
      measure && measured
        ? measured
        : skip
          ? notRun(skip)
          : await this.run(evidence, ctx.deadline, visited ? { screenshot: this.phonePicture(ctx) } : undefined, pageState(evidence.browser));
    this.mobile.set(evidence, run.mobile);
    const b = evidence.browser;
    if (b?.ok) {
      b.value.timings.lighthouse = Math.round(performance.now() - t);
      for (const [k, name] of Object.entries(MEASURE_TIMINGS)) {
        const v = run[k as keyof MeasureStats];
        if (v !== undefined) b.value.timings[name] = v;
      }
    }
    return { lighthouse: run.evidence };
  }

  /**
   * Whether the run takes the phone picture: when screenshots are needed, on real time only. On the visit's page
   * clock the visit takes it in its own phone page on that clock (visit.ts `phone`): this run's page is on real
   * time, and its picture of a page drawn in animation frames differed between runs.
   */
  private phonePicture(ctx: GatherContext): boolean {
    return ctx.needs.has('screenshot') && this.kit.options.visitClock !== 'page';
  }

  /** One Lighthouse run on the kit's Chrome within `deadline`, in the Lighthouse thread; never throws. */
  private async run(
    evidence: Evidence,
    deadline: number,
    mobile?: { screenshot: boolean; before?: Promise<HoldVerdict> },
    page?: PageState,
  ): Promise<LighthouseOutcome> {
    const timeoutMs = deadline - performance.now();
    if (timeoutMs < 3000) return notRun('Lighthouse not run: no time left in the artifact budget');
    const kit = this.kit;
    let port: number;
    try {
      await kit.chrome.browser();
      port = kit.chrome.port!;
    } catch (err) {
      return notRun(`could not start Chrome for Lighthouse: ${errorMessage(err)}`);
    }
    try {
      const site = await kit.site(evidence);
      const run = await kit.thread.run(site.entryUrl, {
        port,
        proxyServer: await site.endpoint('lighthouse'),
        timeoutMs,
        runs: this.options.lighthouseRuns ?? DEFAULT_LIGHTHOUSE_RUNS,
        ...(mobile ? { mobile } : {}),
        ...(page ? { page } : {}),
      });
      const out: LighthouseOutcome = { evidence: gathered(run.evidence) };
      if (run.mobile) out.mobile = run.mobile;
      for (const k of run.requests ?? []) kit.requestsOf(evidence, 'lighthouse').add(k);
      copyMeasureStats(run, out);
      return out;
    } catch (err) {
      // An abandoned run is ended by stopping its thread and the Chrome it drives; both restart on demand.
      if (err instanceof LighthouseTimeout || !kit.chrome.alive) {
        await kit.thread.terminate();
        await kit.chrome.kill();
      }
      return { evidence: missing(errorMessage(err)), mobile: { ok: false, reason: `the Lighthouse run failed: ${errorMessage(err)}` } };
    }
  }

  async close(): Promise<void> {
    /* the kit is closed by its owner */
  }
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
