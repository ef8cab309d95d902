/**
 * The worker pool of `batch` and of the queue's workers (distribute/queue-worker.ts), so that both score every
 * artifact the same way: two stages run as a pipeline.
 *
 * - Browser stage: up to `concurrency` long-lived batch-worker processes (distribute/batch-worker.ts), each with its
 *   own Scorer and Chrome, started when jobs arrive; the hard limit per artifact (budget × 2 + 30 s): past it the
 *   worker is killed (SIGTERM, SIGKILL after 5 s), the artifact recorded as failed, and a fresh worker takes
 *   over; a worker that crashes is replaced the same way.
 * - Judge stage (when judge metrics are selected; distribute/judge-stage.ts): the workers leave the judges out and
 *   report the browser/static result with the desktop screenshot saved to the pending-evidence folder
 *   (distribute/pending-evidence.ts); the parent asks every judge through one shared queue while the worker takes the
 *   next artifact. The source-only judges start when a worker takes the artifact, the screenshot judges when the
 *   worker reports the visit's screenshot (before Lighthouse measures). An artifact's outcome is
 *   settled when its judges are done.
 * - Interpretation of "pages waiting for judges are capped": a worker takes no new artifact while
 *   `maxAwaitingJudges` pages (default: the judge concurrency, at least 4) have finished their browser work and
 *   wait for judges, so held screenshots cannot pile up when the judges are slower than the browser.
 * - Resume: an artifact with a complete pending record (its browser work done by an earlier, interrupted run)
 *   goes straight to the judge stage.
 * Rows carry the scoring settings (runner/scoring-settings.ts).
 */
import { isProjectFolder } from '../project/manifest.js';
import { PROJECT_EXTRA_MS } from '../project/build.js';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Requirement } from '../core/requirements.js';
import type { ResultRow, MetricResult, ScoreDocument } from '../core/results.js';
import type { SuiteId } from '../core/metric.js';
import type { NetworkSettings } from '../core/network.js';
import type { AlignmentStance } from '../core/judge-answer.js';
import type { ReferenceInput, ViewportSpec } from '../core/fidelity.js';
import type { JudgeSettings } from '../judges/settings.js';
import type { FromWorker, ToWorker } from './batch-worker.js';
import { selectMetrics } from '../runner/score.js';
import { scoringSettings } from '../runner/scoring-settings.js';
import { reapOwnedBy, reapProfile } from '../gather/chrome-reaper.js';
import type { VisitClockMode } from '../core/visit-clock.js';
import { JudgeStage, type JudgeHandle, type SavedShot } from './judge-stage.js';
import { PendingEvidence } from './pending-evidence.js';
import type { EvidenceTarget } from '../store/evidence-keep.js';
import type { LedgerTotals } from '../judges/ledger.js';

export interface BatchJob {
  model: string;
  requirement: string;
  path: string;
  /** Which scoring of the artifact (set by `repeats`); absent = 1, written without `repeat`. */
  repeat?: number;
  /**
   * Set when the entry cannot be an artifact (a dangling symbolic link, a link loop): the job is not run and is
   * recorded at once as a failed row with this reason.
   */
  broken?: string;
}

export interface PoolOptions {
  suite?: SuiteId;
  network?: NetworkSettings;
  lighthouseRuns?: number;
  visitClock?: VisitClockMode;
  only?: string[];
  concurrency: number;
  budgetMs: number;
  checkNetwork?: boolean;
  alignment?: AlignmentStance;
  viewports?: ViewportSpec[];
  /** Hard limit per artifact in ms (default: see the module comment). */
  hardLimitMs?: number;
  /** Compiled worker module (tests may point to another). */
  workerModule?: string;
  /** Extra argv for the worker (tests). */
  workerArgs?: string[];
  /** Called whenever a worker starts a Chrome. */
  onChromeLaunch?: () => void;
  /** The judges' settings (flags and config); absent: from the environment, at the judge stage's default concurrency. */
  judge?: JudgeSettings;
  /** `--judge-budget`: stop issuing judge calls once this many USD are spent. */
  judgeBudgetUsd?: number;
  /** The pending-evidence folder (a batch's `<results>.pending`); absent: a temporary one. */
  pendingDir?: string;
  /** Pages that may wait for judges before the browser pauses (default: see the module comment). */
  maxAwaitingJudges?: number;
  /** Keep each row's pictures there (store/evidence-keep.ts); absent = none. */
  evidence?: EvidenceTarget;
}

/** One artifact for the pool: a batch job, its requirement (text, checklists, labels) and its reference, when there are. */
export interface PoolJob extends BatchJob {
  /**
   * The queue job's id. A queue may hold two jobs of one model, requirement and repeat (the artifact added again
   * after it changed), and one worker may hold both: their pending screenshots and kept pictures are keyed by it.
   */
  id?: string;
  req?: Requirement;
  /** The design the page should reproduce (fidelity metrics), resolved by the caller. */
  reference?: ReferenceInput;
}

/**
 * What the pool made of a job: its results row (ok, or failed with the reason), and whether the failure was a
 * crash of the worker process (`crashed`: the page may not be to blame; the queue retries those) rather than the
 * page's own (it could not be loaded, or it ran past its hard time limit).
 */
export interface PoolOutcome {
  row: ResultRow;
  crashed: boolean;
}

/** The two stages at one moment (progress lines, the summary). */
export interface PipelineStats {
  browser: { done: number; inFlight: number; waiting: number };
  /** Null when no judge metric is selected. */
  /** The ledger's totals, with pages whose judges are done or waiting, and calls in flight or waiting for a slot. */
  judges:
    | null
    | (LedgerTotals & {
        pagesDone: number;
        pagesWaiting: number;
        callsInFlight: number;
        callsWaiting: number;
        budgetUsd?: number;
        rateLimited: number;
      });
}

export interface WorkerPool {
  /** Score one artifact; resolves with its outcome, or null when the pool closed before it finished. */
  run(job: PoolJob): Promise<PoolOutcome | null>;
  /** Stop the workers (and their Chromes); jobs not finished resolve with null. */
  close(): Promise<void>;
  /** Where the two stages stand. */
  stats(): PipelineStats;
  /**
   * Artifacts beyond `concurrency` worth handing to the pool at once (pages that may wait for judges while the
   * browsers go on); 0 without judges. A queue worker takes that many more jobs.
   */
  readonly judgeSlots: number;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  job: { jobId: number; job: PoolJob; started: number; timer: NodeJS.Timeout; judges: JudgeHandle | null } | null;
  dead: boolean;
  /** Profiles of the Chromes it reported starting (reaped when it exits). */
  chromes: Set<string>;
}

/**
 * After a worker exits (killed at its hard limit, by the OOM killer, crashed, or done): its Chromes, which
 * chrome-launcher started detached and which outlive it, are killed and their profiles removed: the ones it
 * reported, and any other profile whose owner marker names it (a Chrome it was still starting).
 */
function reapWorker(w: Worker): void {
  for (const profile of w.chromes) reapProfile(profile);
  w.chromes.clear();
  if (w.child.pid !== undefined) reapOwnedBy(w.child.pid);
}

const WORKER_URL = new URL('./batch-worker.js', import.meta.url);

type BaseRow = Pick<ResultRow, 'model' | 'requirement' | 'repeat' | 'labels' | 'settings'>;

/** How many pages may wait for judges before the browser pauses, for a judge concurrency (see the module comment). */
export function judgeSlotsFor(judgeConcurrency: number): number {
  return Math.max(4, judgeConcurrency);
}

export function startWorkerPool(opts: PoolOptions): WorkerPool {
  return new Pool(opts);
}

class Pool implements WorkerPool {
  private readonly hardLimitMs: number;
  private readonly settings: ReturnType<typeof scoringSettings>;
  private readonly modulePath: string;
  private readonly workers: Worker[] = [];
  private readonly pending: PoolJob[] = [];
  private readonly settle = new Map<PoolJob, { resolve: (o: PoolOutcome | null) => void; reject: (err: Error) => void }>();
  private readonly stage: JudgeStage | null;
  private readonly evidenceDir: PendingEvidence | null;
  private readonly ownsEvidenceDir: boolean;
  private readonly maxAwaiting: number;
  private jobSeq = 0;
  private stopping = false;
  private initFailures = 0;
  private fatal: Error | null = null;
  private browserDone = 0;
  readonly judgeSlots: number;

  constructor(private readonly opts: PoolOptions) {
    const metrics = selectMetrics(opts.only, opts.suite); // bad --only is an InputError before anything starts
    this.hardLimitMs = opts.hardLimitMs ?? opts.budgetMs * 2 + 30_000;
    this.settings = scoringSettings(opts);
    this.modulePath = opts.workerModule ?? fileURLToPath(WORKER_URL);
    const hasJudge = metrics.some((m) => m.kind === 'judge');
    this.stage = hasJudge
      ? new JudgeStage({
          metrics,
          ...(opts.judge ? { judge: opts.judge } : {}),
          ...(opts.alignment ? { alignment: opts.alignment } : {}),
          ...(opts.judgeBudgetUsd !== undefined ? { budgetUsd: opts.judgeBudgetUsd } : {}),
        })
      : null;
    this.ownsEvidenceDir = hasJudge && !opts.pendingDir;
    this.evidenceDir = hasJudge ? new PendingEvidence(opts.pendingDir ?? mkdtempSync(join(tmpdir(), 'webgrade-pending-'))) : null;
    this.maxAwaiting = opts.maxAwaitingJudges ?? judgeSlotsFor(this.stage?.runtime.settings.concurrency ?? 4);
    this.judgeSlots = this.stage ? this.maxAwaiting : 0;
  }

  private record(job: PoolJob, row: ResultRow, crashed = false): void {
    this.settle.get(job)?.resolve({ row, crashed });
    this.settle.delete(job);
  }

  private baseRow(job: PoolJob): BaseRow {
    const out: BaseRow = { model: job.model, requirement: job.requirement };
    if (job.repeat) out.repeat = job.repeat;
    const labels = job.req?.labels;
    if (labels) {
      const l: Record<string, string> = {};
      for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') l[k] = v;
      out.labels = l;
    }
    out.settings = this.settings;
    return out;
  }

  private failRow(job: PoolJob, error: string, ms: number): ResultRow {
    return { ...this.baseRow(job), status: 'failed', error, artifact: job.path, metrics: [] as MetricResult[], ms, finishedAt: new Date().toISOString() };
  }

  private okRow(job: PoolJob, doc: ScoreDocument, ms: number): ResultRow {
    return { ...this.baseRow(job), status: 'ok', ...doc, ms, finishedAt: new Date().toISOString() } as ResultRow;
  }

  /** Whether the browser may take another artifact (the judge stage is not holding too many pages). */
  private browserMayTake(): boolean {
    return !this.stage || this.stage.awaiting < this.maxAwaiting;
  }

  private dispatchIdle(): void {
    for (const w of this.workers) this.dispatch(w);
  }

  private dispatch(w: Worker): void {
    if (this.stopping || w.dead || !w.ready || w.job || !this.browserMayTake()) return;
    const job = this.pending.shift();
    if (!job) return;
    const jobId = ++this.jobSeq;
    const timer = setTimeout(
      () => {
        if (w.job?.jobId !== jobId) return;
        const ms = Date.now() - w.job.started;
        this.stage?.cancel(w.job.judges, 'the browser work failed');
        w.job = null;
        this.record(
          job,
          this.failRow(job, `time budget exceeded: no result after ${Math.round(ms / 1000)} s (budget ${Math.round(this.opts.budgetMs / 1000)} s)`, ms),
        );
        this.retire(w);
        this.spawnWorker();
      },
      this.hardLimitMs + (isProjectFolder(job.path) ? PROJECT_EXTRA_MS : 0),
    ); // a project's install and build have their own caps
    const judges = this.stage?.begin(job.path, job.req) ?? null;
    w.job = { jobId, job, started: Date.now(), timer, judges };
    const msg: ToWorker = { type: 'job', jobId, path: job.path };
    if (job.req) msg.requirement = job.req;
    if (job.reference) msg.reference = job.reference;
    if (this.evidenceDir) msg.shotPath = this.evidenceDir.shotPath(job);
    if (this.opts.evidence)
      msg.key = {
        model: job.model,
        requirement: job.requirement,
        ...(job.repeat ? { repeat: job.repeat } : {}),
        ...(job.id !== undefined ? { job: job.id } : {}),
      };
    w.child.send(msg);
  }

  /** The worker reported `doc` for `job`: without judges, the row; with them, through the judge stage. */
  private browserFinished(job: PoolJob, doc: ScoreDocument, shot: SavedShot | undefined, judges: JudgeHandle | null, started: number): void {
    this.browserDone++;
    const stage = this.stage;
    if (!stage || !this.evidenceDir) {
      this.record(job, this.okRow(job, doc, Date.now() - started));
      return;
    }
    const browserMs = Date.now() - started;
    const savedShot = shot ?? { reason: 'no screenshot: the browser worker saved none' };
    try {
      this.evidenceDir.save({
        version: 1,
        model: job.model,
        requirement: job.requirement,
        repeat: job.repeat ?? 1,
        ...(job.id !== undefined ? { id: job.id } : {}),
        path: job.path,
        doc,
        shot: savedShot,
        browserMs,
      });
    } catch {
      /* without the record, an interrupted run redoes this page from scratch: slower, never wrong */
    }
    this.judge(job, doc, savedShot, judges, started);
  }

  private judge(job: PoolJob, doc: ScoreDocument, shot: SavedShot, judges: JudgeHandle | null, started: number): void {
    const stage = this.stage!;
    stage.finish(judges, doc, shot).then(
      (full) => {
        if (this.stopping) return; // interrupted: the pending record stays for the next run
        this.record(job, this.okRow(job, full, Date.now() - started));
        this.evidenceDir!.remove(job);
        this.dispatchIdle();
      },
      (err: unknown) => {
        this.record(job, this.failRow(job, `judge stage failed: ${err instanceof Error ? err.message : String(err)}`, Date.now() - started));
        this.dispatchIdle();
      },
    );
  }

  private retire(w: Worker): void {
    if (w.dead) return;
    w.dead = true;
    if (w.job) clearTimeout(w.job.timer);
    const child = w.child;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, 5000);
      child.once('exit', () => clearTimeout(t));
    }
  }

  private failAll(err: Error): void {
    this.fatal = err;
    this.stopping = true;
    for (const [, s] of this.settle) s.reject(err);
    this.settle.clear();
    this.pending.length = 0;
  }

  private onMessage(w: Worker, msg: FromWorker): void {
    if (msg.type === 'chrome') {
      w.chromes.add(msg.profile);
      this.opts.onChromeLaunch?.();
      return;
    }
    if (w.dead) return;
    if (msg.type === 'ready') {
      w.ready = true;
      this.initFailures = 0;
      this.dispatch(w);
      return;
    }
    const cur = w.job;
    if (!cur || cur.jobId !== msg.jobId) return;
    if (msg.type === 'shot') {
      this.stage?.screenshotReady(cur.judges, msg.shot);
      return;
    }
    clearTimeout(cur.timer);
    w.job = null;
    if (msg.type === 'done') this.browserFinished(cur.job, msg.doc as ScoreDocument, msg.shot, cur.judges, cur.started);
    else {
      this.stage?.cancel(cur.judges, 'the browser work failed');
      this.record(cur.job, this.failRow(cur.job, msg.message, Date.now() - cur.started));
    }
    this.dispatch(w);
  }

  private onExit(w: Worker, code: number | null, signal: NodeJS.Signals | null, stderrTail: string): void {
    reapWorker(w);
    const cur = w.job;
    const wasDead = w.dead;
    w.dead = true;
    const last = stderrTail.trim().split('\n').pop() ?? '';
    if (cur) {
      clearTimeout(cur.timer);
      w.job = null;
      this.stage?.cancel(cur.judges, 'the browser worker crashed');
      // Stopped by close(): not a failure of the artifact; it stays unrecorded.
      if (!this.stopping)
        this.record(cur.job, this.failRow(cur.job, `worker crashed (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}`, Date.now() - cur.started), true);
    }
    if (!w.ready && !wasDead && ++this.initFailures >= 3) {
      this.failAll(new Error(`batch workers fail to start (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}`));
      return;
    }
    if (!wasDead && !this.stopping) this.spawnWorker();
  }

  private spawnWorker(): void {
    if (this.stopping || this.pending.length === 0) return;
    const opts = this.opts;
    const child = fork(this.modulePath, opts.workerArgs ?? [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const w: Worker = { child, ready: false, job: null, dead: false, chromes: new Set() };
    this.workers.push(w);
    let stderrTail = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString()).slice(-2000);
    });
    child.on('message', (msg: FromWorker) => this.onMessage(w, msg));
    child.on('error', () => undefined);
    child.on('exit', (code, signal) => this.onExit(w, code, signal, stderrTail));
    const init: ToWorker = { type: 'init', budgetMs: opts.budgetMs, checkNetwork: opts.checkNetwork ?? false };
    if (opts.only) init.only = opts.only;
    if (opts.suite) init.suite = opts.suite;
    if (opts.network) init.network = opts.network;
    if (opts.lighthouseRuns) init.lighthouseRuns = opts.lighthouseRuns;
    if (opts.visitClock) init.visitClock = opts.visitClock;
    if (opts.alignment) init.alignment = opts.alignment;
    if (opts.viewports) init.viewports = opts.viewports;
    if (opts.evidence) init.evidence = opts.evidence;
    if (this.stage) init.deferJudges = true;
    if (opts.judge) init.judge = opts.judge;
    child.send(init);
  }

  private live(): number {
    return this.workers.filter((w) => !w.dead).length;
  }

  run(job: PoolJob): Promise<PoolOutcome | null> {
    if (this.fatal) return Promise.reject(this.fatal);
    if (this.stopping) return Promise.resolve(null);
    // A broken entry (dangling link, link loop) is a failed row at once; it never reaches a worker.
    if (job.broken !== undefined) return Promise.resolve({ row: this.failRow(job, job.broken, 0), crashed: false });
    const own: PoolJob = { ...job };
    return new Promise<PoolOutcome | null>((resolve, reject) => {
      this.settle.set(own, { resolve, reject });
      const saved = this.stage && this.evidenceDir?.load(own);
      if (saved) {
        // Its browser work was done by an interrupted run: only its judges are left.
        this.judge(own, saved.doc, saved.shot, this.stage!.begin(own.path, own.req), Date.now() - saved.browserMs);
        return;
      }
      this.pending.push(own);
      const idle = this.workers.find((w) => !w.dead && w.ready && !w.job);
      if (idle) this.dispatch(idle);
      else if (this.live() < Math.max(1, this.opts.concurrency)) this.spawnWorker();
    });
  }

  stats(): PipelineStats {
    const inFlight = this.workers.filter((w) => !w.dead && w.job).length;
    const out: PipelineStats = { browser: { done: this.browserDone, inFlight, waiting: this.pending.length }, judges: null };
    const s = this.stage;
    if (s) {
      const t = s.ledger.totals;
      out.judges = {
        pagesDone: s.done,
        pagesWaiting: s.awaiting,
        callsInFlight: s.callsInFlight,
        callsWaiting: s.callsWaiting,
        calls: t.calls,
        promptTokens: t.promptTokens,
        completionTokens: t.completionTokens,
        costUsd: t.costUsd,
        unpricedCalls: t.unpricedCalls,
        refusedCalls: t.refusedCalls,
        rateLimited: s.runtime.client.rateLimited,
        ...(s.ledger.budgetUsd !== undefined ? { budgetUsd: s.ledger.budgetUsd } : {}),
      };
    }
    return out;
  }

  async close(): Promise<void> {
    this.stopping = true;
    this.pending.length = 0;
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((res) => {
            const c = w.child;
            if (c.exitCode !== null || c.signalCode !== null) return res();
            c.once('exit', () => res());
            if (w.job) clearTimeout(w.job.timer);
            if (c.connected) c.disconnect(); // the worker closes its Chrome and exits
            const t = setTimeout(() => c.kill('SIGKILL'), 6_000); // an interrupt stops the run promptly
            c.once('exit', () => clearTimeout(t));
          }),
      ),
    );
    for (const [, s] of this.settle) s.resolve(null);
    this.settle.clear();
    if (this.ownsEvidenceDir) this.evidenceDir?.removeAll();
  }
}
