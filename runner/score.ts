/**
 * Score artifacts: load the artifact model, run the gatherers the selected metrics need, then every selected
 * metric's pure `score` function. A metric that throws becomes unscorable with the error as its reason; it
 * never takes the run down.
 *
 * The static metrics (needs only `source`/`dom`) are scored in the scorer's static worker thread
 * (static-thread.ts), under the artifact's deadline, while the gatherers run (runner/gathering.ts says when);
 * the rest on this thread. The artifact this thread loads
 * only reads the files: the page is parsed in the static thread, whose blocks and references this thread
 * adopts (so a page that cannot be parsed in time is never parsed here either).
 */
import { loadArtifact } from '../lib/artifact/load.js';
import { adoptArtifactParse, failArtifactDom, failArtifactParse, isLoadedArtifact } from '../lib/artifact/loaded.js';
import type { Artifact } from '../core/artifact/model.js';
import { resolve } from 'node:path';
import { InputError, errorMessage } from '../core/errors.js';
import type { Evidence } from '../core/evidence.js';
import type { GatherScope } from '../core/gatherer.js';
import { closeGatherers, productGatherers, type Gatherer, type ScorerGathererOptions as GathererOptions } from './gatherers.js';
import { gatherEvidence } from './gathering.js';
import type { Requirement } from '../core/requirements.js';
import type { ReferenceInput, ViewportSpec } from '../core/fidelity.js';
import { DEFAULT_NETWORK_MODE, type NetworkSettings } from '../core/network.js';
import type { CdnOptions } from '../cdn/index.js';
import type { AlignmentStance, JudgeSettings } from '../judges/settings.js';
import { findMetric, suiteMetrics } from '../metrics/registry.js';
import type { MetricResult, PerspectiveSummary, ScoreDocument } from '../core/results.js';

export type { MetricResult, PerspectiveSummary, ScoreDocument };
import {
  DEFAULT_SUITE,
  PERSPECTIVES,
  allNeeds,
  type EvidenceNeed,
  type MetricDefinition,
  type MetricDetails,
  type MetricKind,
  type PerspectiveId,
  type SuiteId,
} from '../core/metric.js';
import { round2 } from '../metrics/lib/formula.js';
import { isStaticMetric, metricBase, runMetric } from './run-metric.js';
import { StaticThread } from './static-thread.js';
import { MEASURE_TIMINGS } from '../gather/lighthouse-mobile.js';
import { browserVersion } from '../gather/chrome.js';
import type { VisitClockMode } from '../core/visit-clock.js';
import { judgeCostOf } from './judge-cost.js';
import { Projects } from '../project/build.js';
import { isProjectFolder } from '../project/manifest.js';
import { openProject, type OpenedProject } from '../project/open.js';
import { needsPage, unbuiltOutcome } from '../project/page-metrics.js';
import { ProjectSourceArtifact } from '../project/source-view.js';

export { isStaticMetric, runMetric };

export const DEFAULT_BUDGET_MS = 60_000;

export interface ScorerOptions {
  /** The suite (default `study`): its metrics are the ones run. */
  suite?: SuiteId;
  /** Metric ids to run (all of the suite's when absent); each must be in the suite. */
  only?: string[];
  checkNetwork?: boolean;
  budgetMs?: number;
  /** Override the gatherers (tests, `--from-evidence`). */
  gatherers?: Gatherer[];
  /** LLM judge settings (judges/settings.ts), passed to the gatherers. */
  judge?: JudgeSettings;
  /** What pages may reach (core/network.ts; default `cdn`). */
  network?: NetworkSettings;
  /** Options of the CDN cache (cdn/: its folder, another registry); default: from `network` and npm's config. */
  cdn?: CdnOptions;
  /** Lighthouse runs per artifact; the performance score is their median (gather/gatherers/lighthouse.ts). */
  lighthouseRuns?: number;
  /** The visit's page clock (gather/visit.ts VisitOptions `clock`; default DEFAULT_VISIT_CLOCK). */
  visitClock?: VisitClockMode;
  /** Alignment judges' stance when `judge` is absent (settings from the environment, e.g. batch workers). */
  alignment?: AlignmentStance;
  /** The fidelity viewports (default desktop, tablet, phone; core/fidelity.ts). */
  viewports?: ViewportSpec[];
  /** The rendered-reference cache folder; false = memory only (gather/fidelity/reference-cache.ts). */
  fidelityCache?: string | false;
  /** Score the static metrics in a worker thread under the budget (default true; see the module comment). */
  staticThread?: boolean;
  /**
   * Leave the judges out (their metrics unscorable for want of a judge gatherer): a batch worker whose parent asks
   * them in its judge stage (distribute/judge-stage.ts) and replaces those results.
   */
  deferJudges?: boolean;
  /** The shared install store of projects (project/store.ts; default `$WEBGRADE_PROJECT_STORE` or the user's cache). */
  projectStore?: string;
}

/** Per artifact being scored: its deadline (performance.now()) and timings. */
interface ArtifactRun {
  deadline: number;
  timings: Record<string, number>;
}

/** Told as an artifact's evidence fills in (the batch worker hands the screenshot to its parent's judges). */
export interface ScoreHooks {
  /** Called once per need, as soon as that part of the evidence is complete; must not throw. */
  ready?(evidence: Evidence, done: readonly EvidenceNeed[]): void;
}

/** What one artifact is scored against besides itself: the user's requirement, the design it should reproduce. */
export interface ScoreExtra {
  requirement?: Requirement | undefined;
  reference?: ReferenceInput | undefined;
}

/** The metrics of `suite`, limited to the `--only` ids; an unknown id, or one outside the suite, is bad input. */
export function selectMetrics(only?: string[], suite: SuiteId = DEFAULT_SUITE): MetricDefinition[] {
  const metrics = suiteMetrics(suite);
  if (!only || only.length === 0) return [...metrics];
  const out: MetricDefinition[] = [];
  for (const raw of only) {
    const id = raw.trim();
    if (!id) continue;
    const m = metrics.find((x) => x.id === id);
    if (!m) {
      if (findMetric(id)) throw new InputError(`metric ${id} is not in the ${suite} suite (it is in the extended suite: add --suite extended)`);
      throw new InputError(`unknown metric ${JSON.stringify(id)} (known: ${metrics.map((x) => x.id).join(', ')})`);
    }
    if (!out.includes(m)) out.push(m);
  }
  if (out.length === 0) throw new InputError('--only names no metric');
  return out;
}

export function summarisePerspectives(results: readonly MetricResult[]): Partial<Record<PerspectiveId, PerspectiveSummary>> {
  const out: Partial<Record<PerspectiveId, PerspectiveSummary>> = {};
  for (const p of PERSPECTIVES) {
    const rs = results.filter((r) => r.perspective === p);
    if (rs.length === 0) continue;
    const scores = rs.map((r) => r.score).filter((s): s is number => s !== null);
    out[p] = {
      meanScore: scores.length ? round2(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
      scored: scores.length,
      unscorable: rs.length - scores.length,
    };
  }
  return out;
}

export class Scorer {
  readonly metrics: MetricDefinition[];
  readonly suite: SuiteId;
  private readonly gatherers: Gatherer[];
  private readonly options: GathererOptions;
  /** The static worker thread, when static metrics are selected (and not turned off). */
  private readonly staticThread?: StaticThread;
  private readonly runs = new WeakMap<Evidence, ArtifactRun>();
  /** Installs and builds projects (project/), made for the first one. */
  private projects?: Projects;
  private readonly projectStore: string | undefined;

  constructor(opts: ScorerOptions = {}) {
    this.suite = opts.suite ?? DEFAULT_SUITE;
    this.metrics = selectMetrics(opts.only, this.suite);
    this.options = { checkNetwork: opts.checkNetwork ?? false, budgetMs: opts.budgetMs ?? DEFAULT_BUDGET_MS };
    if (opts.judge) this.options.judge = opts.judge;
    if (opts.network) this.options.network = opts.network;
    if (opts.cdn) this.options.cdn = opts.cdn;
    if (opts.lighthouseRuns) this.options.lighthouseRuns = opts.lighthouseRuns;
    if (opts.visitClock) this.options.visitClock = opts.visitClock;
    if (opts.alignment) this.options.alignment = opts.alignment;
    if (opts.viewports) this.options.viewports = opts.viewports;
    if (opts.fidelityCache !== undefined) this.options.fidelityCache = opts.fidelityCache;
    this.projectStore = opts.projectStore;
    this.gatherers = (opts.gatherers ?? productGatherers(this.options)).filter((g) => !(opts.deferJudges && g.meta.id === 'judge'));
    if (opts.staticThread !== false && this.metrics.some(isStaticMetric)) {
      this.staticThread = new StaticThread();
      this.staticThread.start();
    }
  }

  private run(evidence: Evidence, start = performance.now(), timings: Record<string, number> = {}): ArtifactRun {
    let r = this.runs.get(evidence);
    if (!r) {
      r = { deadline: start + this.options.budgetMs, timings };
      this.runs.set(evidence, r);
    }
    return r;
  }

  get needs(): Set<EvidenceNeed> {
    return new Set(this.metrics.flatMap(allNeeds));
  }

  /** Gather and score one artifact (a path, or an already loaded model). */
  async score(input: string | Artifact, extra: ScoreExtra = {}): Promise<ScoreDocument> {
    return (await this.scoreWithEvidence(input, extra)).doc;
  }

  /** Like `score`, and also returns the gathered evidence (for `--save-evidence`). */
  async scoreWithEvidence(input: string | Artifact, extra: ScoreExtra = {}, hooks: ScoreHooks = {}): Promise<{ doc: ScoreDocument; evidence: Evidence }> {
    const timings: Record<string, number> = {};
    // A project is installed and built first, on its own time (project/build.ts); the budget starts after.
    let project: OpenedProject | undefined;
    if (typeof input === 'string' && isProjectFolder(input)) {
      const t = performance.now();
      project = await openProject((this.projects ??= new Projects(this.projectStore ? { storeDir: this.projectStore } : {})), input);
      timings.project = round2(performance.now() - t);
    }
    try {
      const start = performance.now();
      const artifact = project?.artifact ?? (typeof input === 'string' ? loadArtifact(input) : input);
      timings.load = round2(performance.now() - start);
      const evidence: Evidence = {
        artifact,
        options: { checkNetwork: this.options.checkNetwork, network: this.options.network?.mode ?? DEFAULT_NETWORK_MODE },
      };
      if (extra.requirement) evidence.requirement = extra.requirement;
      if (extra.reference) evidence.reference = extra.reference;
      if (project) evidence.project = project.evidence;
      this.run(evidence, start, timings);
      const results = this.unbuiltResults(evidence);
      await this.gather(evidence, timings, start, results, hooks);
      return { doc: await this.scoreEvidence(evidence, timings, results), evidence };
    } finally {
      project?.close();
    }
  }

  /** A project that was not built: its page metrics' results, before anything is gathered (project/page-metrics.ts). */
  private unbuiltResults(evidence: Evidence): Map<string, MetricResult> {
    const results = new Map<string, MetricResult>();
    const project = evidence.project;
    if (!project || project.status === 'built') return results;
    const details = { project: { status: project.status, ...(project.phase ? { phase: project.phase } : {}), reason: project.reason } };
    for (const m of this.metrics.filter(needsPage)) {
      const o = unbuiltOutcome(project);
      results.set(m.id, { ...metricBase(m), ...(o.score === null ? { score: null, reason: o.reason } : { score: 0, summary: o.summary }), details, ms: 0 });
    }
    return results;
  }

  /**
   * Run the gatherers the selected metrics need (the runner, gathering.ts, orders them from their declarations
   * and gives each its deadline). While they run, the metrics whose evidence is complete are scored: the static
   * ones from the start, the others as soon as the gatherers providing their needs are over, never while a
   * gatherer that measures time runs. Results land in `results`, keyed by metric id. Each need is announced once,
   * when complete, to the other gatherers' `ready` and to `hooks.ready`.
   */
  async gather(
    evidence: Evidence,
    timings: Record<string, number>,
    start = performance.now(),
    results = new Map<string, MetricResult>(),
    hooks: ScoreHooks = {},
  ): Promise<void> {
    this.run(evidence, start, timings);
    // What is still to be scored (a project that was not built has its page metrics already: unbuiltResults).
    const metrics = this.metrics.filter((m) => !results.has(m.id));
    const needs = new Set(metrics.flatMap(allNeeds));
    const report = await gatherEvidence(this.gatherers, evidence, {
      needs,
      metrics,
      budgetMs: Math.max(0, this.options.budgetMs - (performance.now() - start)),
      score: async (complete) => {
        const ready = metrics.filter((m) => !results.has(m.id) && allNeeds(m).every((n) => complete.has(n)));
        if (ready.length) await this.scoreInto(ready, evidence, results);
      },
      ...(hooks.ready ? { onReady: hooks.ready } : {}),
    });
    for (const [id, ms] of Object.entries(report.timings)) timings[`gather.${id}`] = ms;
    if (report.scoredWhileGatheringMs) timings.scoreWhileGathering = round2(report.scoredWhileGatheringMs);
  }

  /**
   * Score `metrics`, skipping those already scored: the static ones in one job of the static thread, then the
   * others one after another on this thread (yielding to the event loop between them).
   */
  private async scoreInto(metrics: readonly MetricDefinition[], evidence: Evidence, results: Map<string, MetricResult>): Promise<void> {
    await this.scoreStatic(
      metrics.filter((m) => !results.has(m.id)),
      evidence,
      results,
    );
    for (const m of metrics) {
      if (results.has(m.id)) continue;
      await new Promise<void>((r) => setImmediate(r));
      results.set(m.id, await runMetric(m, evidence));
    }
  }

  /** The static ones among `metrics`, in the static thread (when there is one and the artifact is loaded from disk). */
  private async scoreStatic(metrics: readonly MetricDefinition[], evidence: Evidence, results: Map<string, MetricResult>): Promise<void> {
    const artifact = evidence.artifact;
    const statics = metrics.filter(isStaticMetric);
    if (!this.staticThread || statics.length === 0 || !isLoadedArtifact(artifact)) return;
    const run = this.run(evidence);
    // A linked page's entry is the link's name, which need not exist beside its target: load it as it was given.
    const path = artifact.kind === 'file' ? resolve(artifact.input) : artifact.root;
    const out = await this.staticThread.run({
      path,
      ...(evidence.project ? { project: artifact instanceof ProjectSourceArtifact ? { ...(artifact.output ? { output: artifact.output } : {}) } : {} } : {}),
      metrics: statics,
      checkNetwork: this.options.checkNetwork,
      deadline: run.deadline,
      budgetMs: this.options.budgetMs,
    });
    if (out.parse) adoptArtifactParse(artifact, out.parse);
    else if (out.parseError !== undefined) failArtifactParse(artifact, out.parseError);
    if (out.domError !== undefined) failArtifactDom(artifact, out.domError);
    for (const m of statics) results.set(m.id, out.results.get(m.id)!);
    run.timings.static = round2((run.timings.static ?? 0) + out.ms);
  }

  async scoreEvidence(evidence: Evidence, timings: Record<string, number> = {}, results = new Map<string, MetricResult>()): Promise<ScoreDocument> {
    const t = performance.now();
    this.run(evidence, t, timings);
    await this.scoreStatic(
      this.metrics.filter((m) => !results.has(m.id)),
      evidence,
      results,
    );
    const metrics: MetricResult[] = [];
    for (const m of this.metrics) {
      const done = results.get(m.id);
      if (done) {
        metrics.push(done);
        continue;
      }
      metrics.push(await runMetric(m, evidence));
    }
    timings.score = round2(performance.now() - t);
    const doc: ScoreDocument = {
      artifact: evidence.artifact.input,
      entry: evidence.artifact.entry,
      suite: this.suite,
      metrics,
      perspectives: summarisePerspectives(metrics),
      overall: null,
      timings,
    };
    if (evidence.requirement) doc.requirement = evidence.requirement.id;
    const cost = evidence.judges ? judgeCostOf(metrics) : undefined;
    if (cost) doc.judgeCost = cost;
    if (evidence.network) doc.network = evidence.network;
    if (evidence.project) doc.project = evidence.project;
    const browser = evidence.browser || evidence.lighthouse || evidence.interaction ? browserVersion() : null;
    if (browser) doc.browser = browser;
    if (evidence.fidelity?.ok) doc.reference = evidence.fidelity.value.reference;
    else if (evidence.reference)
      doc.reference = {
        input: evidence.reference.path,
        kind: evidence.reference.kind,
        unavailable: evidence.fidelity ? evidence.fidelity.reason : 'not rendered (no fidelity metric selected)',
      };
    // The phases that explain a row's time: the visit, Lighthouse's whole run, its hold for our visit, its wait for
    // the machine-wide measurement lock (gather/measure-lock.ts) and the time it held it (the measured
    // phase), the interaction probe, the fallback phone visit, the time the step gate held our steps while another
    // page was measured (gather/step-gate.ts).
    const bt = evidence.browser?.ok ? evidence.browser.value.timings : undefined;
    if (bt?.total !== undefined) timings.visit = bt.total;
    for (const k of ['lighthouse', ...Object.values(MEASURE_TIMINGS), 'interaction', 'mobile', 'gateHeld']) if (bt?.[k] !== undefined) timings[k] = bt[k]!;
    // The visit's own phases (gather/visit.ts marks them: setup, load, settle, the clock's pause or run-on, each
    // collector's step), as `visit.<phase>`: a phase that grows (a browser release that stalls in set-up) shows in
    // `webgrade analyse`.
    const copied = new Set(['total', 'lighthouse', ...Object.values(MEASURE_TIMINGS), 'interaction', 'mobile', 'gateHeld']);
    for (const [k, v] of Object.entries(bt ?? {}))
      if (!copied.has(k) && k !== 'loads' && !k.startsWith('loads.') && typeof v === 'number') timings[`visit.${k.replace(/\s+/g, '-')}`] = v;
    // How many times the page was loaded, in all and per phase (gather/loads.ts).
    for (const [k, v] of Object.entries(bt ?? {})) if (k === 'loads' || k.startsWith('loads.')) timings[k] = v;
    // The page's main-thread busy share after load, in %: a page that never goes idle shows here.
    if (evidence.browser?.ok && evidence.browser.value.busyAfterLoad !== undefined)
      timings.busyAfterLoadPct = Math.round(evidence.browser.value.busyAfterLoad * 100);
    return doc;
  }

  /**
   * Start now what the first artifact would otherwise start inside its budget: the static thread's first job (on
   * a page of our own), Chrome and the other processes and threads of the scopes of the gatherers the selected
   * metrics need (GatherScope `warm`). A batch
   * worker warms up before it takes a job: measured 2026-11-29 (batch --concurrency 2, extended suite, a 2-core VM),
   * the first two artifacts took 24–46 s where the same pages took 16–18 s after two others, and a heavy page lost
   * its probe to the budget. Resolves with the real ms it took; never rejects.
   */
  async warmUp(): Promise<number> {
    const t = performance.now();
    // The scopes of the gatherers the selected metrics' needs make active (a static-only run starts no browser).
    const needs = this.needs;
    const scopes = new Set<GatherScope>();
    for (const g of this.gatherers) if (g.meta.scope && g.meta.provides.some((n) => needs.has(n))) scopes.add(g.meta.scope);
    await Promise.allSettled([this.staticThread?.warm(this.metrics.filter(isStaticMetric)), ...[...scopes].map((s) => s.warm?.())]);
    return Math.round(performance.now() - t);
  }

  async close(): Promise<void> {
    await Promise.allSettled([closeGatherers(this.gatherers), this.staticThread?.terminate(), this.projects?.close()]);
  }
}
