/**
 * `webgrade batch`: score every artifact of a runs folder with N long-lived worker processes, appending one
 * results row per artifact as it finishes (results-file.ts), resuming where an earlier run stopped.
 *
 * Layout (SPEC "runs"): `runs/<model>/<requirement-id>.html` or `runs/<model>/<requirement-id>/index.html`.
 * Hidden entries and other files are ignored; a sub-folder without index.html is reported and skipped.
 *
 * Interpretations:
 * - `--concurrency N` runs N worker processes (batch-worker.ts), each with its own Scorer and Chrome.
 * - The per-artifact time budget goes to the Scorer (gatherers share it). The parent also enforces a hard limit
 *   (budget × 2 + 30 s, plus 10 min when judge metrics are selected, since judges have their own deadline): past
 *   it the worker is killed (SIGTERM, SIGKILL after 5 s), the artifact is recorded as failed, and a fresh worker
 *   takes over. A worker that crashes is replaced the same way; the batch never stops for one artifact.
 * - Artifacts are dispatched in a fixed order (model, then requirement id), so a resumed run continues in order.
 * - References (fidelity metrics): `--references <dir>` (`<id>.html`, `<id>/index.html`, `<id>.png`), else the
 *   requirement's `reference`; each job carries its reference to the worker. The same reference is scored once per
 *   model: its rendered views are cached (runner/gather/fidelity/reference-cache.ts), in the worker's memory and
 *   on disk, so every worker renders it at most once.
 * - `repeats: n` (≥ 2; `batch --repeats`) scores every artifact n times, each a job of its own (evidence gathered
 *   anew), rows marked `repeat: 1..n`. Repeat-major order (every artifact's repeat 1, then every repeat 2, ...):
 *   an interrupted run has whole earlier repeats, and the repeats of one page are apart in time. With n = 1 rows
 *   carry no `repeat` (as before). Resume skips every (model, requirement, repeat) already in the file, and a row
 *   without `repeat` counts as repeat 1, so raising --repeats over an existing file adds only the new repeats.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError, errorMessage } from '../core/errors.js';
import type { Requirement } from '../core/requirements.js';
import { openResultsForAppend, rowKey, type ResultRow } from './results-file.js';
import type { MetricResult, ScoreDocument } from './score.js';
import type { FromWorker, ToWorker } from './batch-worker.js';
import { selectMetrics } from './score.js';
import { scoringSettings } from './scoring-settings.js';
import { reapOwnedBy, reapProfile } from './gather/chrome-reaper.js';
import type { SuiteId } from '../core/metric.js';
import type { NetworkSettings } from '../core/network.js';
import type { AlignmentStance } from '../core/judge-answer.js';
import type { ReferenceInput, ViewportSpec } from '../core/fidelity.js';
import { checkReferencesDir, findReference, resolveReference } from './reference.js';
import type { EvidenceTarget } from './evidence-keep.js';

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

/** The jobs of `repeats` scorings per artifact (see the module comment); the jobs themselves when n = 1. */
export function withRepeats(jobs: readonly BatchJob[], n: number): BatchJob[] {
  if (n <= 1) return [...jobs];
  const out: BatchJob[] = [];
  for (let r = 1; r <= n; r++) for (const j of jobs) out.push({ ...j, repeat: r });
  return out;
}

export interface Discovery {
  jobs: BatchJob[];
  /**
   * Warnings, one per entry: entries that look like artifacts but are not (a folder without index.html) and are
   * left out, and broken entries (dangling links, link loops) that are recorded as failed.
   */
  skipped: string[];
}

function visible(name: string): boolean {
  return !name.startsWith('.');
}

/** What a broken entry is, from the error of `stat` (which follows links) after `lstat` found the entry. */
function brokenReason(p: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  let link = false;
  try {
    link = lstatSync(p).isSymbolicLink();
  } catch {
    /* gone meanwhile */
  }
  if (code === 'ENOENT' && link) return 'a dangling symbolic link (its target does not exist)';
  if (code === 'ELOOP') return 'a symbolic link loop';
  if (code === 'EACCES') return 'not readable (permission denied)';
  return `unreadable (${code ?? errorMessage(err)})`;
}

type Entry = { kind: 'page' | 'folder'; requirement: string; path: string } | { kind: 'broken'; requirement: string; path: string; reason: string } | { kind: 'skip'; why: string } | null;

/** Classify one entry of a model folder (or a pages folder); never throws for one bad entry. */
function classifyEntry(dir: string, name: string): Entry {
  const p = join(dir, name);
  let st;
  try {
    st = statSync(p);
  } catch (err) {
    const reason = brokenReason(p, err);
    // A name that could be an artifact becomes a failed row; anything else is only a warning.
    if (/\.html?$/i.test(name) || extname(name) === '') return { kind: 'broken', requirement: name.replace(/\.html?$/i, ''), path: p, reason };
    return { kind: 'skip', why: `${name} (${reason})` };
  }
  if (st.isFile() && /\.html?$/i.test(name)) return { kind: 'page', requirement: name.replace(/\.html?$/i, ''), path: p };
  if (st.isDirectory()) {
    let index = false;
    try {
      index = statSync(join(p, 'index.html')).isFile();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || lstatExists(join(p, 'index.html'))) {
        return { kind: 'broken', requirement: name, path: p, reason: `its index.html is ${brokenReason(join(p, 'index.html'), err)}` };
      }
    }
    return index ? { kind: 'folder', requirement: name, path: p } : { kind: 'skip', why: `${name}/ (no index.html)` };
  }
  return null;
}

function lstatExists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * The jobs of one folder's entries for `model`. Requirement ids must be unique: `x.html`, `x.htm` and
 * `x/index.html` all name requirement `x`, and two results for one id would silently replace each other (and a
 * resumed run would skip the others), so such a folder is refused, naming the entries.
 */
function folderJobs(dir: string, model: string, label: string, jobs: BatchJob[], skipped: string[]): void {
  const byId = new Map<string, string[]>();
  const mine: BatchJob[] = [];
  for (const name of readdirSync(dir).filter(visible).sort()) {
    const e = classifyEntry(dir, name);
    if (!e) continue;
    if (e.kind === 'skip') {
      skipped.push(`${label}${e.why}`);
      continue;
    }
    const names = byId.get(e.requirement) ?? [];
    names.push(name + (e.kind === 'folder' ? '/' : ''));
    byId.set(e.requirement, names);
    if (e.kind === 'broken') {
      skipped.push(`${label}${name}: ${e.reason} (recorded as failed)`);
      mine.push({ model, requirement: e.requirement, path: e.path, broken: `${label}${name} is ${e.reason}` });
    } else mine.push({ model, requirement: e.requirement, path: e.path });
  }
  const clashes = [...byId].filter(([, names]) => names.length > 1);
  if (clashes.length) {
    const list = clashes.map(([id, names]) => `${names.map((n) => label + n).join(', ')} are all requirement "${id}"`).join('; ');
    throw new InputError(`requirement ids collide: ${list}. Rename or remove all but one of each.`);
  }
  jobs.push(...mine);
}

/** Find the artifacts of a runs folder. */
export function discoverRuns(runsDir: string): Discovery {
  const root = resolve(runsDir);
  if (!existsSync(root)) throw new InputError(`${runsDir}: no such folder`);
  if (!statSync(root).isDirectory()) throw new InputError(`${runsDir}: not a folder (expected runs/<model>/<requirement-id>.html)`);
  const jobs: BatchJob[] = [];
  const skipped: string[] = [];
  for (const model of readdirSync(root).filter(visible).sort()) {
    const mdir = join(root, model);
    let isDir: boolean;
    try {
      isDir = statSync(mdir).isDirectory();
    } catch (err) {
      skipped.push(`${model}: ${brokenReason(mdir, err)} (not a model folder)`);
      continue;
    }
    if (!isDir) continue;
    folderJobs(mdir, model, `${model}/`, jobs, skipped);
  }
  if (jobs.length === 0) throw new InputError(`${runsDir}: no artifacts found (expected runs/<model>/<requirement-id>.html or runs/<model>/<requirement-id>/index.html)`);
  return { jobs, skipped };
}

/** Artifacts of one folder of pages (norms build): every .html file and every sub-folder with index.html. */
export function discoverPages(dir: string, model = 'corpus'): Discovery {
  const root = resolve(dir);
  if (!existsSync(root)) throw new InputError(`${dir}: no such folder`);
  if (!statSync(root).isDirectory()) throw new InputError(`${dir}: not a folder`);
  const jobs: BatchJob[] = [];
  const skipped: string[] = [];
  folderJobs(root, model, '', jobs, skipped);
  if (jobs.length === 0) throw new InputError(`${dir}: no .html pages or folders with index.html`);
  return { jobs, skipped };
}

export interface BatchProgress {
  done: number;
  total: number;
  ok: number;
  failed: number;
  /** The row just written. */
  row: ResultRow;
  elapsedMs: number;
}

export interface BatchOptions {
  out: string;
  /** The suite (default study). */
  suite?: SuiteId;
  /** What pages may reach (default cdn). */
  network?: NetworkSettings;
  /** Lighthouse runs per artifact (the performance score is their median). */
  lighthouseRuns?: number;
  only?: string[];
  /** Scorings per artifact (default 1; see the module comment). */
  repeats?: number;
  concurrency: number;
  budgetMs: number;
  checkNetwork?: boolean;
  /** The alignment judges' stance, passed to every worker (default: the study's). */
  alignment?: AlignmentStance;
  requirements?: Requirement[];
  /**
   * A folder with one reference per requirement id (`<id>.html`, `<id>/index.html` or `<id>.png`) for the fidelity
   * metrics; it takes precedence over a requirement's own `reference`.
   */
  references?: string;
  /** The fidelity viewports (default desktop, tablet, phone). */
  viewports?: ViewportSpec[];
  /** Hard limit per artifact in ms (default: see the module comment). */
  hardLimitMs?: number;
  /** Keep each row's pictures there (runner/evidence-keep.ts); absent = none. */
  evidence?: EvidenceTarget;
  onStart?: (info: { total: number; alreadyDone: number; tornTail: boolean; badLines: number[] }) => void;
  onProgress?: (p: BatchProgress) => void;
  /** Called whenever a worker starts a Chrome. */
  onChromeLaunch?: () => void;
  /** Compiled worker module (tests may point to another). */
  workerModule?: string;
  /** Extra argv for the worker (tests). */
  workerArgs?: string[];
}

export interface BatchSummary {
  total: number;
  alreadyDone: number;
  scored: number;
  failed: number;
  /** Per metric id: how many of this run's ok artifacts were unscorable. */
  unscorable: Record<string, number>;
  /** Failure messages (first 20). */
  failures: Array<{ model: string; requirement: string; repeat?: number; error: string }>;
  missingRequirement: number;
  elapsedMs: number;
  interrupted: boolean;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  job: { jobId: number; job: PoolJob; started: number; timer: NodeJS.Timeout } | null;
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

export async function runBatch(inputJobs: readonly BatchJob[], opts: BatchOptions): Promise<BatchSummary> {
  const allJobs = withRepeats(inputJobs, opts.repeats ?? 1);
  selectMetrics(opts.only, opts.suite); // bad --only is an InputError before anything starts
  const reqById = new Map((opts.requirements ?? []).map((r) => [r.id, r]));
  // References per requirement id, resolved (and checked) before anything starts.
  const refsDir = opts.references ? checkReferencesDir(opts.references) : undefined;
  const refById = new Map<string, ReferenceInput>();
  for (const id of new Set(allJobs.map((j) => j.requirement))) {
    const fromDir = refsDir ? findReference(refsDir, id) : undefined;
    const own = reqById.get(id)?.reference;
    const ref = fromDir ?? (own ? resolveReference(own, `requirement ${id}: reference`) : undefined);
    if (ref) refById.set(id, ref);
  }
  const { existing, writer } = openResultsForAppend(opts.out);
  const done = new Set(existing.rows.map((r) => rowKey(r.model, r.requirement, r.repeat ?? 1)));
  const queue = allJobs.filter((j) => !done.has(rowKey(j.model, j.requirement, j.repeat ?? 1)));
  const alreadyDone = allJobs.length - queue.length;
  opts.onStart?.({ total: allJobs.length, alreadyDone, tornTail: existing.tornTail, badLines: existing.badLines });

  const summary: BatchSummary = {
    total: allJobs.length,
    alreadyDone,
    scored: 0,
    failed: 0,
    unscorable: {},
    failures: [],
    missingRequirement: 0,
    elapsedMs: 0,
    interrupted: false,
  };
  const start = Date.now();
  if (queue.length === 0) {
    writer.close();
    return summary;
  }
  if (opts.requirements) summary.missingRequirement = queue.filter((j) => !reqById.has(j.requirement)).length;

  let finished = 0;
  let resolveAll!: () => void;
  let rejectAll!: (err: Error) => void;
  const allDone = new Promise<void>((res, rej) => {
    resolveAll = res;
    rejectAll = rej;
  });

  const record = (job: BatchJob, row: ResultRow) => {
    writer.append(row);
    finished++;
    if (row.status === 'ok') {
      summary.scored++;
      for (const m of row.metrics) if (m.score === null) summary.unscorable[m.id] = (summary.unscorable[m.id] ?? 0) + 1;
    } else {
      summary.failed++;
      if (summary.failures.length < 20) summary.failures.push({ model: job.model, requirement: job.requirement, ...(job.repeat ? { repeat: job.repeat } : {}), error: row.error ?? '' });
    }
    opts.onProgress?.({ done: alreadyDone + finished, total: allJobs.length, ok: summary.scored, failed: summary.failed, row, elapsedMs: Date.now() - start });
    if (finished === queue.length) resolveAll();
  };

  const pool = startWorkerPool({ ...opts, concurrency: Math.max(1, Math.min(opts.concurrency, queue.length)) });
  const onSignal = () => {
    summary.interrupted = true;
    resolveAll();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const job of queue) {
      const req = reqById.get(job.requirement);
      const reference = refById.get(job.requirement);
      pool.run({ ...job, ...(req ? { req } : {}), ...(reference ? { reference } : {}) }).then((outcome) => {
        if (outcome) record(job, outcome.row); // null: still in flight when the pool closed (interrupted)
      }, rejectAll);
    }
    await allDone;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await pool.close();
    writer.close();
  }
  summary.elapsedMs = Date.now() - start;
  return summary;
}

/** The pool's options: a batch's, without its results file and progress. */
export type PoolOptions = Pick<
  BatchOptions,
  'suite' | 'network' | 'lighthouseRuns' | 'only' | 'concurrency' | 'budgetMs' | 'checkNetwork' | 'alignment' | 'viewports' | 'hardLimitMs' | 'workerModule' | 'workerArgs' | 'onChromeLaunch' | 'evidence'
>;

/** One artifact for the pool: a batch job, its requirement (text, checklists, labels) and its reference, when there are. */
export interface PoolJob extends BatchJob {
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

export interface WorkerPool {
  /** Score one artifact; resolves with its outcome, or null when the pool closed before it finished. */
  run(job: PoolJob): Promise<PoolOutcome | null>;
  /** Stop the workers (and their Chromes); jobs not finished resolve with null. */
  close(): Promise<void>;
}

/**
 * The worker processes that score artifacts, used by `runBatch` and by the queue's worker (runner/queue-worker.ts), so
 * that both score every artifact the same way: up to `concurrency` long-lived batch-worker processes, each with
 * its own Scorer and Chrome, started when jobs arrive; the hard limit per artifact; a crashed or killed worker
 * replaced by a fresh one (see the module comment). Rows carry the scoring settings (runner/scoring-settings.ts).
 */
export function startWorkerPool(opts: PoolOptions): WorkerPool {
  const metrics = selectMetrics(opts.only, opts.suite); // bad --only is an InputError before anything starts
  const hasJudge = metrics.some((m) => m.kind === 'judge');
  const hardLimitMs = opts.hardLimitMs ?? opts.budgetMs * 2 + 30_000 + (hasJudge ? 600_000 : 0);
  const settings = scoringSettings(opts);
  const modulePath = opts.workerModule ?? fileURLToPath(WORKER_URL);
  const workers: Worker[] = [];
  const pending: PoolJob[] = [];
  const settle = new Map<PoolJob, { resolve: (o: PoolOutcome | null) => void; reject: (err: Error) => void }>();
  let jobSeq = 0;
  let stopping = false;
  let initFailures = 0;
  let fatal: Error | null = null;

  const record = (job: PoolJob, row: ResultRow, crashed = false) => {
    settle.get(job)?.resolve({ row, crashed });
    settle.delete(job);
  };

  const baseRow = (job: PoolJob): Pick<ResultRow, 'model' | 'requirement' | 'repeat' | 'labels' | 'settings'> => {
    const out: Pick<ResultRow, 'model' | 'requirement' | 'repeat' | 'labels' | 'settings'> = { model: job.model, requirement: job.requirement };
    if (job.repeat) out.repeat = job.repeat;
    const labels = job.req?.labels;
    if (labels) {
      const l: Record<string, string> = {};
      for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') l[k] = v;
      out.labels = l;
    }
    out.settings = settings;
    return out;
  };

  const failRow = (job: PoolJob, error: string, ms: number): ResultRow => ({
    ...baseRow(job),
    status: 'failed',
    error,
    artifact: job.path,
    metrics: [] as MetricResult[],
    ms,
    finishedAt: new Date().toISOString(),
  });

  const dispatch = (w: Worker) => {
    if (stopping || w.dead || !w.ready || w.job) return;
    const job = pending.shift();
    if (!job) return;
    const jobId = ++jobSeq;
    const timer = setTimeout(() => {
      if (w.job?.jobId !== jobId) return;
      const ms = Date.now() - w.job.started;
      w.job = null;
      record(job, failRow(job, `time budget exceeded: no result after ${Math.round(ms / 1000)} s (budget ${Math.round(opts.budgetMs / 1000)} s)`, ms));
      retire(w);
      spawnWorker();
    }, hardLimitMs);
    w.job = { jobId, job, started: Date.now(), timer };
    const msg: ToWorker = { type: 'job', jobId, path: job.path };
    const req = job.req;
    if (req) msg.requirement = req;
    if (job.reference) msg.reference = job.reference;
    if (opts.evidence) msg.key = { model: job.model, requirement: job.requirement, ...(job.repeat ? { repeat: job.repeat } : {}) };
    w.child.send(msg);
  };

  const retire = (w: Worker) => {
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
  };

  const failAll = (err: Error) => {
    fatal = err;
    stopping = true;
    for (const [, s] of settle) s.reject(err);
    settle.clear();
    pending.length = 0;
  };

  const spawnWorker = () => {
    if (stopping || pending.length === 0) return;
    const child = fork(modulePath, opts.workerArgs ?? [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const w: Worker = { child, ready: false, job: null, dead: false, chromes: new Set() };
    workers.push(w);
    let stderrTail = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString()).slice(-2000);
    });
    child.on('message', (msg: FromWorker) => {
      if (msg.type === 'chrome') {
        w.chromes.add(msg.profile);
        opts.onChromeLaunch?.();
        return;
      }
      if (w.dead) return;
      if (msg.type === 'ready') {
        w.ready = true;
        initFailures = 0;
        dispatch(w);
        return;
      }
      const cur = w.job;
      if (!cur || cur.jobId !== msg.jobId) return;
      clearTimeout(cur.timer);
      w.job = null;
      const ms = Date.now() - cur.started;
      if (msg.type === 'done') {
        const doc = msg.doc as ScoreDocument;
        record(cur.job, { ...baseRow(cur.job), status: 'ok', ...doc, ms, finishedAt: new Date().toISOString() } as ResultRow);
      } else {
        record(cur.job, failRow(cur.job, msg.message, ms));
      }
      dispatch(w);
    });
    child.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      reapWorker(w);
      const cur = w.job;
      const wasDead = w.dead;
      w.dead = true;
      if (cur) {
        clearTimeout(cur.timer);
        w.job = null;
        const last = stderrTail.trim().split('\n').pop() ?? '';
        // Stopped by close(): not a failure of the artifact; it stays unrecorded.
        if (!stopping) record(cur.job, failRow(cur.job, `worker crashed (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}`, Date.now() - cur.started), true);
      }
      if (!w.ready && !wasDead && ++initFailures >= 3) {
        const last = stderrTail.trim().split('\n').pop() ?? '';
        failAll(new Error(`batch workers fail to start (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}`));
        return;
      }
      if (!wasDead && !stopping) spawnWorker();
    });
    const init: ToWorker = { type: 'init', budgetMs: opts.budgetMs, checkNetwork: opts.checkNetwork ?? false };
    if (opts.only) init.only = opts.only;
    if (opts.suite) init.suite = opts.suite;
    if (opts.network) init.network = opts.network;
    if (opts.lighthouseRuns) init.lighthouseRuns = opts.lighthouseRuns;
    if (opts.alignment) init.alignment = opts.alignment;
    if (opts.viewports) init.viewports = opts.viewports;
    if (opts.evidence) init.evidence = opts.evidence;
    child.send(init);
  };

  const live = () => workers.filter((w) => !w.dead).length;

  return {
    run(job: PoolJob): Promise<PoolOutcome | null> {
      if (fatal) return Promise.reject(fatal);
      if (stopping) return Promise.resolve(null);
      // A broken entry (dangling link, link loop) is a failed row at once; it never reaches a worker.
      if (job.broken !== undefined) return Promise.resolve({ row: failRow(job, job.broken, 0), crashed: false });
      const own: PoolJob = { ...job };
      return new Promise<PoolOutcome | null>((resolve, reject) => {
        settle.set(own, { resolve, reject });
        pending.push(own);
        const idle = workers.find((w) => !w.dead && w.ready && !w.job);
        if (idle) dispatch(idle);
        else if (live() < Math.max(1, opts.concurrency)) spawnWorker();
      });
    },
    async close(): Promise<void> {
      stopping = true;
      pending.length = 0;
      await Promise.all(
        workers.map(
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
      for (const [, s] of settle) s.resolve(null);
      settle.clear();
    },
  };
}

export { errorMessage };
