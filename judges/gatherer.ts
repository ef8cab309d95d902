/**
 * The judge gatherer (provides 'judge'): asks the LLM judges of the selected judge metrics and fills
 * `evidence.judges[metricId]` with `gathered(JudgeAnswer)` or `missing(reason)`. The five metric modules are pure
 * functions of those answers.
 *
 * - Settings: `GathererOptions.judge` (CLI flags/config/env resolved by the score command); when absent (a
 *   library user or a batch worker that passes none), they are resolved from the environment alone.
 * - Preconditions are checked before any call, in this order: requirement (functionality-correctness and the
 *   alignment metrics), checklist items (alignment), screenshot (visual-experience), judge configured.
 * - All judge metrics of an artifact are asked concurrently through one client queue, under one deadline
 *   (`deadlineMs`, default 10 min, independent of the page's time budget: a slow judge is not the page's fault);
 *   when the deadline passes, calls in flight are aborted and their metrics become unscorable.
 * - The payload of a JudgeAnswer is `JudgePayload<T>`: the valid answers of every repeat, the reasons of failed
 *   repeats, and the prompt context (truncation, items, screenshot or not). Its `pin` says what judged: the
 *   model asked, the models the provider says it served, their system fingerprints, the provider's host and the
 *   prompt version.
 * - Two steps (`begin`): the judges that read only the source (functionality and the functional and content
 *   alignment) start as soon as the artifact is loaded (`prepare`, before the browser runs); those that read the
 *   screenshot (visual experience, visual alignment) start when it is given. The deadline counts from `begin`.
 * - A shared runtime (`runtime`: one client, so one call queue, one cache, one cost ledger) lets a batch's
 *   judge stage (distribute/judge-stage.ts) put the judges of every artifact through one queue.
 */
import { JudgeCache } from './cache.js';
import type { JudgeLedger } from './ledger.js';
import { JudgeClient } from './client.js';
import type { PromptSpec } from './prompts/common.js';
import { alignmentPrompt, type AlignmentKind } from './prompts/alignment.js';
import { functionalityPrompt } from './prompts/functionality.js';
import { visualExperiencePrompt } from './prompts/visual-experience.js';
import { askRepeated, type JudgeContext } from './run.js';
import { CHECKLIST_TASK, modelFor, notConfiguredReason, resolveJudgeSettings, type AlignmentStance, type JudgeSettings } from './settings.js';
import { NO_REQUIREMENT_REASON, noChecklistReason, type JudgePayload } from '../core/judge-answer.js';
import type { EvidenceNeed, JudgeSpec } from '../core/metric.js';
import { gathered, missing, type Evidence, type Gathered, type JudgeAnswer, type JudgePin } from '../core/evidence.js';
import type { MetricDefinition } from '../core/metric.js';
import type { GatherContext, Gatherer, GatheredParts, GathererOptions } from '../core/gatherer.js';
import { errorMessage } from '../core/errors.js';

/** The desktop screenshot a visual judge sees, or why there is none. */
export type ScreenshotInput = { ok: true; png: Buffer; width: number; height: number } | { ok: false; reason: string };

/** Whether a judge reads the page's screenshot (the others read only the source and may start before the browser). */
export function judgeNeedsScreenshot(judge: JudgeSpec): boolean {
  return judge.prompt === 'visual-experience' || (judge.prompt === 'alignment' && judge.items === 'visual');
}

/** One client, cache and ledger shared by many artifacts' judges (a batch's judge stage). */
export interface JudgeRuntime {
  settings: JudgeSettings;
  client: JudgeClient;
  cache: JudgeCache;
  ledger?: JudgeLedger;
}

export function createJudgeRuntime(settings: JudgeSettings, ledger?: JudgeLedger): JudgeRuntime {
  return { settings, client: new JudgeClient(settings), cache: new JudgeCache(settings.cacheDir), ...(ledger ? { ledger } : {}) };
}

/** The judges of one artifact under way (see the module comment). */
export interface JudgeRun {
  /** Start the screenshot judges with the screenshot (or why there is none); later calls are ignored. */
  withScreenshot(shot: ScreenshotInput): void;
  /** Settles when every asked judge has its outcome in `evidence.judges` (after `withScreenshot`). */
  done: Promise<void>;
  /** Abort the calls still in flight (their judges become unscorable with `reason`). */
  cancel(reason: string): void;
}

type JudgeMetric = MetricDefinition & { judge: JudgeSpec };

export function desktopScreenshot(evidence: Evidence): ScreenshotInput {
  const b = evidence.browser;
  if (!b) return { ok: false, reason: 'no screenshot: the browser did not run' };
  if (!b.ok) return { ok: false, reason: `no screenshot: ${b.reason}` };
  const shot = b.value.screenshots.desktop;
  if (!shot) {
    const why = b.value.unavailable?.['screenshots'];
    return { ok: false, reason: `no screenshot: the browser session took no desktop screenshot${why ? ` (${why})` : ''}` };
  }
  return { ok: true, png: shot.png, width: shot.width, height: shot.height };
}

/** The judge gatherer's own settings (GathererOptions extended): resolved from the environment when absent. */
export interface JudgeGathererOptions {
  judge?: JudgeSettings;
  /**
   * The alignment stance when `judge` is absent and the settings come from the environment (a batch worker gets
   * the stance of `batch --alignment` this way); ignored when `judge` is given (it carries its own).
   */
  alignment?: AlignmentStance;
}

export class JudgeGatherer implements Gatherer {
  readonly meta = { id: 'judge', provides: ['judge'], fills: ['judges'], reads: ['screenshot'], last: true } as const;
  private settings: JudgeSettings | undefined;
  private settingsError: string | undefined;
  private runtime: JudgeRuntime | undefined;
  /** Ids of the judge metrics of the current artifact (those `fail` marks). */
  private asked: string[] = [];
  private readonly runs = new WeakMap<Evidence, JudgeRun>();

  constructor(private readonly options: GathererOptions & JudgeGathererOptions & { runtime?: JudgeRuntime }) {
    if (options.runtime) {
      this.runtime = options.runtime;
      this.settings = options.runtime.settings;
    }
  }

  private setup(tasks: readonly string[]): void {
    if (this.settings || this.settingsError) return;
    try {
      this.settings =
        this.options.judge ??
        resolveJudgeSettings(this.options.alignment ? { alignment: this.options.alignment } : {}, process.env, [...tasks, CHECKLIST_TASK]);
    } catch (err) {
      this.settingsError = `judge settings: ${errorMessage(err)}`;
    }
  }

  /** Build the prompt for one metric (its declared `judge` spec), or say why it cannot be asked. */
  private prompt(id: string, judge: JudgeSpec, evidence: Evidence, settings: JudgeSettings, shot: ScreenshotInput | undefined): PromptSpec<unknown> | string {
    const req = evidence.requirement;
    const kind = judge.prompt === 'alignment' ? judge.items : undefined;
    if (judge.prompt === 'visual-experience') {
      if (!shot?.ok) return shot?.reason ?? 'no screenshot';
      const nc = notConfiguredReason(settings, id);
      if (nc) return nc;
      return visualExperiencePrompt(shot.png, req, shot) as PromptSpec<unknown>;
    }
    if (!req) return NO_REQUIREMENT_REASON;
    if (kind) {
      const items = req.checklist?.[kind] ?? [];
      if (items.length === 0) return noChecklistReason(kind);
    }
    const nc = notConfiguredReason(settings, id);
    if (nc) return nc;
    if (judge.prompt === 'functionality') return functionalityPrompt(evidence.artifact, req, settings.maxSourceChars) as PromptSpec<unknown>;
    return alignmentPrompt(
      kind!,
      evidence.artifact,
      req,
      req.checklist![kind!],
      settings.maxSourceChars,
      shot?.ok ? shot : undefined,
      settings.alignment,
    ) as PromptSpec<unknown>;
  }

  /** Start the source-only judges of this artifact now (before the browser runs); `gather` finishes them. */
  prepare(ctx: GatherContext): void {
    if (!this.runs.has(ctx.evidence)) this.runs.set(ctx.evidence, this.begin(ctx.evidence, ctx.metrics));
  }

  /** The visit's screenshot is ready (before Lighthouse measures): the screenshot judges start now, not after the browser's work. */
  ready(evidence: Evidence, done: readonly EvidenceNeed[]): void {
    if (done.includes('screenshot')) this.runs.get(evidence)?.withScreenshot(desktopScreenshot(evidence));
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence } = ctx;
    const run = this.runs.get(evidence) ?? this.begin(evidence, ctx.metrics);
    this.runs.delete(evidence);
    run.withScreenshot(desktopScreenshot(evidence));
    await run.done;
    return { judges: evidence.judges ?? {} };
  }

  /** Begin judging one artifact: the source-only judges start at once, the screenshot ones at `withScreenshot`. */
  begin(evidence: Evidence, metrics: readonly MetricDefinition[]): JudgeRun {
    const asked = metrics.filter((m): m is JudgeMetric => m.kind === 'judge' && !!m.judge);
    evidence.judges ??= {};
    this.asked = asked.map((m) => m.id);
    const idle: JudgeRun = { withScreenshot: () => undefined, done: Promise.resolve(), cancel: () => undefined };
    if (asked.length === 0) return idle;
    this.setup(this.asked);
    if (!this.settings) {
      for (const m of asked) evidence.judges[m.id] = missing(this.settingsError ?? 'no judge configured');
      return idle;
    }
    const settings = this.settings;
    const controller = new AbortController();
    let cancelled: string | undefined;
    const timer = setTimeout(() => controller.abort(), settings.deadlineMs);
    timer.unref?.();
    const ask = (m: JudgeMetric, shot: ScreenshotInput | undefined) =>
      this.judgeOne(m.id, m.judge, evidence, settings, controller.signal, shot).then((g) => {
        evidence.judges![m.id] = cancelled ? missing(cancelled) : g;
      });
    const early = asked.filter((m) => !judgeNeedsScreenshot(m.judge)).map((m) => ask(m, undefined));
    let giveShot!: (shot: ScreenshotInput) => void;
    const late = new Promise<ScreenshotInput>((res) => (giveShot = res)).then((shot) =>
      Promise.all(asked.filter((m) => judgeNeedsScreenshot(m.judge)).map((m) => ask(m, shot))),
    );
    const done = Promise.all([...early, late]).then(
      () => clearTimeout(timer),
      (err: unknown) => {
        clearTimeout(timer);
        throw err;
      },
    );
    return {
      withScreenshot: (shot) => giveShot(shot),
      done,
      cancel: (reason) => {
        cancelled = reason;
        controller.abort();
        giveShot({ ok: false, reason });
      },
    };
  }

  private async judgeOne(
    id: string,
    judge: JudgeSpec,
    evidence: Evidence,
    settings: JudgeSettings,
    signal: AbortSignal,
    shot: ScreenshotInput | undefined,
  ): Promise<Gathered<JudgeAnswer>> {
    const spec = this.prompt(id, judge, evidence, settings, shot);
    if (typeof spec === 'string') return missing(spec);
    this.runtime ??= createJudgeRuntime(settings);
    const { client, cache, ledger } = this.runtime;
    const ctx: JudgeContext = { client, cache, settings, signal, ...(ledger ? { ledger } : {}) };
    const model = modelFor(settings, id)!;
    const t0 = performance.now();
    const r = await askRepeated(ctx, spec, model, settings.repeats);
    const wallMs = Math.round(performance.now() - t0);
    if (!r.ok) {
      const why = signal.aborted ? `judge deadline of ${settings.deadlineMs / 1000} s reached: ${r.reason}` : r.reason;
      return missing(why);
    }
    const payload: JudgePayload = { repeats: r.answer.values, failedRepeats: r.answer.failures, context: spec.context };
    const { servedModels, systemFingerprints, ...rest } = r.answer.usage;
    const usage: Record<string, unknown> = { ...rest, wallMs, repeatsAsked: settings.repeats };
    if (cache.writeErrors.length) usage.cacheWriteErrors = [...cache.writeErrors];
    const pin: JudgePin = { asked: model, served: servedModels, systemFingerprints, host: client.host, promptVersion: spec.promptVersion };
    return gathered({ model, promptVersion: spec.promptVersion, payload, usage, pin });
  }

  fail(evidence: Evidence, reason: string): void {
    evidence.judges ??= {};
    for (const id of this.asked) if (!evidence.judges[id]) evidence.judges[id] = missing(reason);
  }

  async close(): Promise<void> {
    if (!this.options.runtime) this.runtime = undefined;
  }
}

export function judgeGathererFactory(options: GathererOptions & JudgeGathererOptions): Gatherer[] {
  return [new JudgeGatherer(options)];
}
