/**
 * The judge stage of a batch (and of a queue worker): every judge call of every artifact goes through ONE shared
 * queue in the parent process, while the browser workers go on to the next artifact.
 *
 * - `begin(job)`, when a browser worker takes the artifact: the parent loads the artifact itself (it only reads
 *   the files) and starts the judges that read only the source (judges/gatherer.ts). `screenshotReady`, when the
 *   worker reports the visit's screenshot saved to a file: the screenshot judges start. `finish(handle, doc, shot)`,
 *   when the worker reports the browser/static result: the screenshot judges start if they have not; when every judge has answered, the judge metrics are scored (their pure functions) and put
 *   in place of the worker's placeholders, and the perspectives are summed again.
 * - One client (judges/client.ts): `--judge-concurrency` calls in flight (default 48, config key `concurrency`),
 *   a 429 pauses them all for its `retry-after`. One cache and one ledger (judges/ledger.ts): tokens, money and
 *   the budget of the whole run.
 * - Interpretation: the judge deadline (`deadlineSeconds`) counts from `begin`, so a page's judges share it with
 *   their wait for a slot; the batch caps the pages waiting for judges so that wait stays short.
 * - A page whose browser work failed gets no judges: `cancel` aborts the ones started.
 */
import { readFileSync } from 'node:fs';
import { loadArtifact } from '../lib/artifact/load.js';
import { InputError, errorMessage } from '../core/errors.js';
import type { Evidence } from '../core/evidence.js';
import type { MetricDefinition } from '../core/metric.js';
import type { Requirement } from '../core/requirements.js';
import type { MetricResult, ScoreDocument } from '../core/results.js';
import { DEFAULT_NETWORK_MODE } from '../core/network.js';
import { JudgeGatherer, createJudgeRuntime, type JudgeRun, type JudgeRuntime, type ScreenshotInput } from '../judges/gatherer.js';
import { JudgeLedger } from '../judges/ledger.js';
import { CHECKLIST_TASK, modelFor, resolveJudgeSettings, type AlignmentStance, type JudgeSettings } from '../judges/settings.js';
import { judgeCostOf } from '../runner/judge-cost.js';
import { runMetric } from '../runner/run-metric.js';
import { summarisePerspectives } from '../runner/score.js';

/**
 * Judge calls in flight at once in a batch's judge stage, unless `--judge-concurrency` or the config says.
 * Calls needed in flight = pages/min ÷ 60 × calls per page × latency: a browser at 19 pages/min (one worker on
 * two cores, docs/benchmarks.md) with five judges answering in 30 s needs 47.5; 16 capped a batch at 12.8 pages/min with
 * 15 s judges (bench/judge-pipeline.ts, 2026-11-25). A provider that cannot take as many answers 429, which
 * pauses the stage for its `retry-after` (judges/client.ts).
 */
export const DEFAULT_STAGE_JUDGE_CONCURRENCY = 48;

/** The screenshot a worker saved for the judges: its file, or why there is none. */
export type SavedShot = { path: string; width: number; height: number } | { reason: string };

export interface JudgeStageOptions {
  metrics: readonly MetricDefinition[];
  /** Resolved settings; absent: from the environment (with `alignment`), at the stage's default concurrency. */
  judge?: JudgeSettings;
  alignment?: AlignmentStance;
  /** Stop issuing judge calls once this much money is spent (needs a price for every judge model). */
  budgetUsd?: number;
}

export interface JudgeHandle {
  evidence: Evidence;
  run: JudgeRun;
}

/** The judge settings of a batch: flags and config as given, else the environment, at the stage's default concurrency. */
export function stageJudgeSettings(judgeIds: readonly string[], alignment: AlignmentStance | undefined, env: NodeJS.ProcessEnv = process.env): JudgeSettings {
  return resolveJudgeSettings(alignment ? { alignment } : {}, env, [...judgeIds, CHECKLIST_TASK], { concurrency: DEFAULT_STAGE_JUDGE_CONCURRENCY });
}

/** A budget counts money, so every judge model needs a price; say which has none (InputError). */
export function checkBudgetPrices(settings: JudgeSettings, judgeIds: readonly string[], budgetUsd: number | undefined): void {
  if (budgetUsd === undefined) return;
  const unpriced = [...new Set(judgeIds.map((id) => modelFor(settings, id)).filter((m): m is string => !!m && !settings.prices[m]))];
  if (unpriced.length) {
    throw new InputError(
      `--judge-budget counts money, but model ${unpriced.join(', ')} has no price: add "prices": {"${unpriced[0]}": {"input": <USD per 1M tokens>, "output": <USD per 1M tokens>}} to --judge-config`,
    );
  }
}

export class JudgeStage {
  readonly runtime: JudgeRuntime;
  readonly ledger: JudgeLedger;
  private readonly gatherer: JudgeGatherer;
  private readonly judgeMetrics: MetricDefinition[];
  /** Pages whose browser work is done and whose judges are not. */
  awaiting = 0;
  /** Pages whose judges are done. */
  done = 0;

  constructor(private readonly opts: JudgeStageOptions) {
    this.judgeMetrics = opts.metrics.filter((m) => m.kind === 'judge');
    const settings =
      opts.judge ??
      stageJudgeSettings(
        this.judgeMetrics.map((m) => m.id),
        opts.alignment,
      );
    checkBudgetPrices(
      settings,
      this.judgeMetrics.map((m) => m.id),
      opts.budgetUsd,
    );
    this.ledger = new JudgeLedger(opts.budgetUsd);
    this.runtime = createJudgeRuntime(settings, this.ledger);
    this.gatherer = new JudgeGatherer({ checkNetwork: false, budgetMs: settings.deadlineMs, runtime: this.runtime });
  }

  get callsInFlight(): number {
    return this.runtime.client.inFlight;
  }

  get callsWaiting(): number {
    return this.runtime.client.waiting;
  }

  /** Load the artifact and start its source-only judges; null when the parent cannot load it (the worker will say why). */
  begin(path: string, requirement: Requirement | undefined): JudgeHandle | null {
    let evidence: Evidence;
    try {
      evidence = { artifact: loadArtifact(path), options: { checkNetwork: false, network: DEFAULT_NETWORK_MODE } };
    } catch {
      return null;
    }
    if (requirement) evidence.requirement = requirement;
    return { evidence, run: this.gatherer.begin(evidence, this.judgeMetrics) };
  }

  /** Abort a page's judges (its browser work failed). */
  cancel(h: JudgeHandle | null, reason: string): void {
    h?.run.cancel(reason);
    void h?.run.done.catch(() => undefined);
  }

  /** The worker saved the visit's screenshot: start the page's screenshot judges now (finish would too, later). */
  screenshotReady(h: JudgeHandle | null, shot: SavedShot): void {
    h?.run.withScreenshot(readShot(shot));
  }

  /**
   * Finish a page: start its screenshot judges (unless `screenshotReady` did), wait for every judge, and return `doc` with the judge metrics
   * scored. `h` null (the parent could not load the artifact): the judge metrics keep the worker's results.
   */
  async finish(h: JudgeHandle | null, doc: ScoreDocument, shot: SavedShot): Promise<ScoreDocument> {
    this.awaiting++;
    try {
      if (!h) return doc;
      h.run.withScreenshot(readShot(shot));
      await h.run.done;
      const scored = new Map<string, MetricResult>();
      for (const m of this.judgeMetrics) scored.set(m.id, await runMetric(m, h.evidence));
      const metrics = doc.metrics.map((r) => scored.get(r.id) ?? r);
      const out: ScoreDocument = { ...doc, metrics, perspectives: summarisePerspectives(metrics) };
      const cost = judgeCostOf(metrics);
      if (cost) out.judgeCost = cost;
      return out;
    } finally {
      this.awaiting--;
      this.done++;
    }
  }
}

function readShot(shot: SavedShot): ScreenshotInput {
  if ('reason' in shot) return { ok: false, reason: shot.reason };
  try {
    return { ok: true, png: readFileSync(shot.path), width: shot.width, height: shot.height };
  } catch (err) {
    return { ok: false, reason: `no screenshot: the saved screenshot cannot be read (${errorMessage(err)})` };
  }
}
