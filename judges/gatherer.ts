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
 *   repeats, and the prompt context (truncation, items, screenshot or not).
 */
import { JudgeCache } from './cache.js';
import { JudgeClient } from './client.js';
import type { PromptSpec } from './prompts/common.js';
import { alignmentPrompt, type AlignmentKind } from './prompts/alignment.js';
import { functionalityPrompt } from './prompts/functionality.js';
import { visualExperiencePrompt } from './prompts/visual-experience.js';
import { askRepeated, type JudgeContext } from './run.js';
import { CHECKLIST_TASK, modelFor, notConfiguredReason, resolveJudgeSettings, type AlignmentStance, type JudgeSettings } from './settings.js';
import { NO_REQUIREMENT_REASON, noChecklistReason, type JudgePayload } from '../core/judge-answer.js';
import type { JudgeSpec } from '../core/metric.js';
import { gathered, missing, type Evidence, type Gathered, type JudgeAnswer } from '../core/evidence.js';
import type { Gatherer, GatherRequest, GathererOptions } from '../core/gatherer.js';
import { errorMessage } from '../core/errors.js';


function desktopScreenshot(evidence: Evidence): { ok: true; png: Buffer; width: number; height: number } | { ok: false; reason: string } {
  const b = evidence.browser;
  if (!b) return { ok: false, reason: 'no screenshot: the browser did not run' };
  if (!b.ok) return { ok: false, reason: `no screenshot: ${b.reason}` };
  const shot = b.value.screenshots.desktop;
  if (!shot) return { ok: false, reason: 'no screenshot: the browser session took no desktop screenshot' };
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
  readonly name = 'judge';
  readonly provides = ['judge'] as const;
  private settings: JudgeSettings | undefined;
  private settingsError: string | undefined;
  private client: JudgeClient | undefined;
  private cache: JudgeCache | undefined;
  /** Ids of the judge metrics of the current artifact (those `fail` marks). */
  private asked: string[] = [];

  constructor(private readonly options: GathererOptions & JudgeGathererOptions) {}

  private setup(tasks: readonly string[]): void {
    if (this.settings || this.settingsError) return;
    try {
      this.settings = this.options.judge ?? resolveJudgeSettings(this.options.alignment ? { alignment: this.options.alignment } : {}, process.env, [...tasks, CHECKLIST_TASK]);
    } catch (err) {
      this.settingsError = `judge settings: ${errorMessage(err)}`;
    }
  }

  /** Build the prompt for one metric (its declared `judge` spec), or say why it cannot be asked. */
  private prompt(id: string, judge: JudgeSpec, evidence: Evidence, settings: JudgeSettings): PromptSpec<unknown> | string {
    const req = evidence.requirement;
    const kind = judge.prompt === 'alignment' ? judge.items : undefined;
    if (judge.prompt === 'visual-experience') {
      const shot = desktopScreenshot(evidence);
      if (!shot.ok) return shot.reason;
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
    const shot = kind === 'visual' ? desktopScreenshot(evidence) : undefined;
    return alignmentPrompt(kind!, evidence.artifact, req, req.checklist![kind!], settings.maxSourceChars, shot?.ok ? shot : undefined, settings.alignment) as PromptSpec<unknown>;
  }

  async gather(evidence: Evidence, request: GatherRequest): Promise<void> {
    const asked = request.metrics.filter((m): m is typeof m & { judge: JudgeSpec } => m.kind === 'judge' && !!m.judge);
    evidence.judges ??= {};
    this.asked = asked.map((m) => m.id);
    if (asked.length === 0) return;
    this.setup(this.asked);
    if (!this.settings) {
      for (const m of asked) evidence.judges[m.id] = missing(this.settingsError ?? 'no judge configured');
      return;
    }
    const settings = this.settings;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), settings.deadlineMs);
    timer.unref?.();
    try {
      await Promise.all(asked.map(async (m) => {
        evidence.judges![m.id] = await this.judgeOne(m.id, m.judge, evidence, settings, controller.signal);
      }));
    } finally {
      clearTimeout(timer);
    }
  }

  private async judgeOne(id: string, judge: JudgeSpec, evidence: Evidence, settings: JudgeSettings, signal: AbortSignal): Promise<Gathered<JudgeAnswer>> {
    const spec = this.prompt(id, judge, evidence, settings);
    if (typeof spec === 'string') return missing(spec);
    this.client ??= new JudgeClient(settings);
    this.cache ??= new JudgeCache(settings.cacheDir);
    const ctx: JudgeContext = { client: this.client, cache: this.cache, settings, signal };
    const model = modelFor(settings, id)!;
    const t0 = performance.now();
    const r = await askRepeated(ctx, spec, model, settings.repeats);
    const wallMs = Math.round(performance.now() - t0);
    if (!r.ok) {
      const why = signal.aborted ? `judge deadline of ${settings.deadlineMs / 1000} s reached: ${r.reason}` : r.reason;
      return missing(why);
    }
    const payload: JudgePayload = { repeats: r.answer.values, failedRepeats: r.answer.failures, context: spec.context };
    const usage: Record<string, unknown> = { ...r.answer.usage, wallMs, repeatsAsked: settings.repeats };
    if (this.cache.writeErrors.length) usage.cacheWriteErrors = [...this.cache.writeErrors];
    return gathered({ model, promptVersion: spec.promptVersion, payload, usage });
  }

  fail(evidence: Evidence, reason: string): void {
    evidence.judges ??= {};
    for (const id of this.asked) if (!evidence.judges[id]) evidence.judges[id] = missing(reason);
  }

  async close(): Promise<void> {
    this.client = undefined;
  }
}

export function judgeGathererFactory(options: GathererOptions & JudgeGathererOptions): Gatherer {
  return new JudgeGatherer(options);
}
