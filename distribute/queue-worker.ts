/** A queue worker: takes jobs, scores them with the batch's worker pool, and stops on request (see distribute/queue.ts). */
import { realpathSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { sep } from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { InputError, errorMessage } from '../core/errors.js';
import type { ResultRow } from '../core/results.js';
import { DEFAULT_NETWORK_MODE, type NetworkSettings } from '../core/network.js';
import { judgeSlotsFor, startWorkerPool, type WorkerPool } from './worker-pool.js';
import { selectMetrics } from '../runner/score.js';
import { DEFAULT_STAGE_JUDGE_CONCURRENCY } from './judge-stage.js';
import type { JudgeSettings } from '../judges/settings.js';
import { DEFAULT_QUEUE, DEFAULT_STALL_SECONDS, JOB_ATTEMPTS, readQueueSettings, type QueueSettings } from './queue.js';
import { materialise } from './queue-jobs.js';
import { RefusedPayload, validateJobData, type ValidJob } from './queue-trust.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packEvidence } from './evidence-transfer.js';

export interface WorkerEvents {
  onJob?: (e: { data: ValidJob; row?: ResultRow; error?: string; ms: number }) => void;
  /** A job refused before scoring (bad payload, refused settings, a shared path not allowed): failed, no retry. */
  onRefused?: (e: { jobId: string; reason: string }) => void;
  onLog?: (line: string) => void;
}

export interface QueueWorkerOptions extends WorkerEvents {
  queue?: string;
  concurrency?: number;
  /** Stall timeout (s): the lock's lifetime and the stalled-job check's period. */
  stallSeconds?: number;
  /** The network mode and CDN cache this worker's pages get (`worker --network/--cdn-cache/--allow-host`); default cdn. */
  network?: NetworkSettings;
  /** Check remote URLs over the network (`worker --check-network`). */
  checkNetwork?: boolean;
  /** The folder inside which `shared` jobs may name artifacts (`worker --shared-root`); without it none are taken. */
  sharedRoot?: string;
  /** Cap on a job's decoded files (`worker --max-job-mb`). */
  maxJobBytes?: number;
  /** The judges' endpoint and limits (the worker's own flags and environment; the stance comes from the queue). */
  judge?: JudgeSettings;
  /** The scoring process's module, from the worker's own environment (tests); never from Redis. */
  workerModule?: string;
  /** False: return rows without pictures (`worker --no-evidence`); else they ride in the row (evidence-transfer.ts). */
  evidence?: boolean;
}

export interface QueueWorker {
  /** Resolves when the worker has stopped (after `stop`). */
  closed: Promise<void>;
  /** Finish the jobs in hand, then stop. */
  stop(): Promise<void>;
}

/** Run a worker: takes jobs until `stop` (see distribute/queue.ts). */
export async function startQueueWorker(redis: Redis, opts: QueueWorkerOptions): Promise<QueueWorker> {
  const name = opts.queue ?? DEFAULT_QUEUE;
  const concurrency = opts.concurrency ?? 1;
  const stallMs = (opts.stallSeconds ?? DEFAULT_STALL_SECONDS) * 1000;
  const network: NetworkSettings = opts.network ?? { mode: DEFAULT_NETWORK_MODE };
  const checkNetwork = opts.checkNetwork ?? false;
  const sharedRoot = opts.sharedRoot ? checkSharedRoot(opts.sharedRoot) : undefined;
  let pool: { id: string; pool: WorkerPool } | null = null;
  let poolSwitch: Promise<void> = Promise.resolve();
  const warned = new Set<string>();
  const keepDir = opts.evidence === false ? undefined : mkdtempSync(join(tmpdir(), 'webgrade-evidence-'));
  const keep = keepDir ? { root: keepDir, base: keepDir } : undefined;

  const poolFor = async (settingsId: string): Promise<WorkerPool> => {
    await poolSwitch;
    if (pool?.id === settingsId) return pool.pool;
    let settings: QueueSettings | null;
    try {
      settings = await readQueueSettings(redis, name);
    } catch (err) {
      throw new UnrecoverableError(errorMessage(err));
    }
    if (!settings || settings.id !== settingsId) throw new Error(`queue ${name}: the settings this job was added with are gone (queue removed?)`);
    // The queue's network choice is a request: pages get what this worker was started with, and rows say so.
    const asked = settings.pool.network?.mode ?? DEFAULT_NETWORK_MODE;
    const askedCheck = settings.pool.checkNetwork ?? false;
    if ((asked !== network.mode || askedCheck !== checkNetwork) && !warned.has(settingsId)) {
      warned.add(settingsId);
      opts.onLog?.(
        `queue ${name}: its settings ask for --network ${asked}${askedCheck ? ' --check-network' : ''}; this worker scores with --network ${network.mode}${checkNetwork ? ' --check-network' : ''}, its own command line (rows record it)`,
      );
    }
    const { network: _asked, checkNetwork: _askedCheck, ...scoring } = settings.pool;
    const old = pool;
    let next: WorkerPool;
    try {
      const judge = opts.judge ? { judge: { ...opts.judge, alignment: scoring.alignment ?? opts.judge.alignment } } : {};
      next = startWorkerPool({
        ...scoring,
        network,
        checkNetwork,
        concurrency,
        ...judge,
        ...(opts.workerModule ? { workerModule: opts.workerModule } : {}),
        ...(keep ? { evidence: keep } : {}),
      });
    } catch (err) {
      // Settings this webgrade cannot score with (an unknown metric id) fail every job alike: no retry.
      if (err instanceof InputError) throw new UnrecoverableError(`queue ${name}: ${err.message}`);
      throw err;
    }
    pool = { id: settingsId, pool: next };
    worker.concurrency = concurrency + next.judgeSlots; // see where the worker is made
    if (old) poolSwitch = old.pool.close();
    return next;
  };

  const processor = async (job: Job<unknown, ResultRow>): Promise<ResultRow> => {
    const t = Date.now();
    let data: ValidJob;
    let art: { path: string; cleanup: () => void };
    try {
      data = validateJobData(job.data, opts.maxJobBytes ? { maxBytes: opts.maxJobBytes } : {});
      art = materialise(data, sharedRoot ? { sharedRoot } : {});
    } catch (err) {
      if (!(err instanceof RefusedPayload)) throw err;
      // A bad payload is refused at once and never retried: the same bytes would be refused again.
      // The job id is chosen by whoever added the job: no control character of it reaches a log line.
      opts.onRefused?.({ jobId: String(job.id).replace(/[\u0000-\u001f\u007f]/g, '?'), reason: err.message });
      throw new UnrecoverableError(`job refused: ${err.message}`);
    }
    try {
      const p = await poolFor(data.settingsId);
      const run: Parameters<WorkerPool['run']>[0] = { id: String(job.id), model: data.model, requirement: data.requirement, path: art.path };
      if (data.repeat) run.repeat = data.repeat;
      if (data.req) run.req = data.req;
      const outcome = await p.run(run);
      if (!outcome) throw new Error('the worker stopped before the artifact was scored');
      if (outcome.crashed) {
        opts.onJob?.({ data, error: outcome.row.error ?? 'crashed', ms: Date.now() - t });
        throw new Error(outcome.row.error ?? 'scoring process crashed');
      }
      const row = relocate(keep ? packEvidence(outcome.row, keep) : outcome.row, art.path, data.artifact);
      opts.onJob?.({ data, row, ms: Date.now() - t });
      return row;
    } finally {
      art.cleanup();
    }
  };

  // With judges, jobs whose browser work is done wait for them in the pool while the browsers take more: the
  // worker holds that many more jobs. BullMQ applies a changed concurrency only once a job in hand finishes, so
  // it is set from the queue's settings when they are there at the start (and raised by poolFor otherwise).
  const initial = await readQueueSettings(redis, name).catch(() => null);
  let initialConcurrency = concurrency;
  try {
    if (initial && selectMetrics(initial.pool.only, initial.pool.suite).some((m) => m.kind === 'judge')) {
      initialConcurrency += judgeSlotsFor(opts.judge?.concurrency ?? DEFAULT_STAGE_JUDGE_CONCURRENCY);
    }
  } catch {
    /* settings this webgrade cannot score with: every job says so */
  }
  const worker = new Worker<unknown, ResultRow>(name, processor, {
    connection: redis,
    concurrency: initialConcurrency,
    lockDuration: stallMs,
    stalledInterval: stallMs,
    maxStalledCount: JOB_ATTEMPTS - 1,
    autorun: true,
    name: workerName(),
  });
  worker.on('error', (err) => opts.onLog?.(`queue worker: ${errorMessage(err).split('\n')[0]}`));
  await worker.waitUntilReady();
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  return {
    closed,
    stop() {
      closing ??= (async () => {
        await worker.close(); // waits for the jobs in hand
        await poolSwitch;
        await pool?.pool.close();
        if (keepDir) rmSync(keepDir, { recursive: true, force: true });
        resolveClosed();
      })();
      return closing;
    },
  };
}

/** `--shared-root`: an existing folder, by its real path (shared paths are compared with real paths). */
export function checkSharedRoot(dir: string): string {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    throw new InputError(`--shared-root ${dir}: no such folder`);
  }
  if (!statSync(real).isDirectory()) throw new InputError(`--shared-root ${dir}: not a folder`);
  if (real === sep) throw new InputError('--shared-root /: give the folder the runs are mounted in, not the whole file system');
  return real;
}

/** How jobs name the worker that took them (`processedBy`): host and pid. */
export function workerName(pid = process.pid): string {
  return `${hostname()}:${pid}`;
}

/** A row scored from a copy names the artifact where it was added, as a batch row would. */
function relocate(row: ResultRow, copy: string, original: string): ResultRow {
  if (copy === original) return row;
  const map = (p: string | undefined) => (p && (p === copy || p.startsWith(copy + sep)) ? original + p.slice(copy.length) : p);
  const out: ResultRow = { ...row, artifact: map(row.artifact) ?? original };
  if (row.entry !== undefined) out.entry = map(row.entry)!;
  return out;
}
