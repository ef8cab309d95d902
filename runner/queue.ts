/**
 * A work queue for leaderboards past one machine (`webgrade queue add|status|collect|remove`, `webgrade worker`),
 * on BullMQ over Redis.
 *
 * - **Jobs**: one per artifact (and per repeat), id = a hash of model, requirement, repeat and the artifact's
 *   content hash (every file's relative path and bytes), so adding the same runs twice adds nothing and a changed
 *   artifact is a new job. The artifact's files travel in the job (base64; at most `maxJobBytes` of files per
 *   artifact, default 8 MB: an artifact over the cap refuses the whole `add`), or, with `shared`, the job names
 *   an absolute path every worker can read.
 * - **Settings**: the scoring settings (suite, --only, network, Lighthouse runs, budget, alignment, ...) are
 *   stored once per queue, in `webgrade:<queue>:settings`; an `add` with other settings is refused; every job
 *   names the settings' id and every worker scores with exactly them.
 * - **Workers** score each job with the batch's worker pool (runner/batch.ts `startWorkerPool`): the same worker
 *   processes, Chrome restarts, hard limit and row construction as `webgrade batch`. A page's own failure
 *   (unscorable metrics, a load error, its hard limit) is the job's result. A crash of a scoring process is an
 *   error BullMQ retries (3 attempts, then failed with the reason); a killed worker leaves its job's lock to
 *   expire (the stall timeout, `lockDuration`), and the stalled-job check (every `stalledInterval`, the same
 *   value) gives it to another worker; a job stalled 3 times is failed. A dead worker's late answer cannot
 *   count: completing a job needs its lock token, which the reassignment replaced.
 * - **Collect** writes one results row per (model, requirement, repeat): the completed job's row, or a failed row
 *   with the reason; when a changed artifact left two jobs for one key, the finished one added last wins.
 * - **Trust**: whoever can write to Redis can fail jobs or add work, never run code or write files on a worker
 *   (README "Security"): every job and the settings record are checked (runner/queue-trust.ts) before use, a job's
 *   files are written only inside its own fresh folder, `shared` paths only inside the worker's `--shared-root`,
 *   and the program forked, the network mode and the CDN cache folder come from the worker's own command line.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { InputError, errorMessage } from '../core/errors.js';
import { listArtifact, readArtifactFile } from '../core/artifact/load.js';
import type { Requirement } from '../core/requirements.js';
import type { ResultRow, ScoringSettings } from '../core/results.js';
import { DEFAULT_NETWORK_MODE, type NetworkSettings } from '../core/network.js';
import { startWorkerPool, withRepeats, type BatchJob, type WorkerPool } from './batch.js';
import { artifactName, RefusedPayload, validateJobData, validateQueueSettings, type QueuePoolSettings, type ValidJob } from './queue-trust.js';
import { openResultsForAppend, rowKey } from './results-file.js';
import { scoringSettings, settingsDifference } from './scoring-settings.js';

export const DEFAULT_QUEUE = 'webgrade';
export const DEFAULT_MAX_JOB_BYTES = 8 * 1024 * 1024;
/** Tries of a job whose scoring process crashes (and the most times a job may stall before it is failed). */
export const JOB_ATTEMPTS = 3;
/** Default stall timeout: see README "Work queue" (the lock is renewed by an idle event loop every half of it). */
export const DEFAULT_STALL_SECONDS = 30;

/** What a queue stores once: the pool settings every worker uses, and their id. */
export interface QueueSettings {
  id: string;
  /** Scoring choices only (runner/queue-trust.ts): never a program, a folder or a network to reach. */
  pool: QueuePoolSettings;
  /** What results rows record (runner/scoring-settings.ts). */
  scoring: ScoringSettings;
}

export interface JobData {
  model: string;
  requirement: string;
  repeat?: number;
  /** Content hash of the artifact. */
  hash: string;
  settingsId: string;
  /** The artifact's path where it was added (rows name it, as batch rows do). */
  artifact: string;
  /** One file (`<name>.html`) or a folder with index.html. */
  kind: 'file' | 'dir';
  /** Relative path and base64 bytes of every file; absent with a shared path. */
  files?: Array<[string, string]>;
  /** The artifact is read from `artifact` itself (`--shared`). */
  shared?: boolean;
  req?: Requirement;
}

/** A Redis URL, checked (redis:// or rediss://); bad ones are an InputError. */
export function checkRedisUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError(`--redis ${url}: not a URL (expected redis://host:port)`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new InputError(`--redis ${url}: expected a redis:// or rediss:// URL`);
  if (!u.hostname) throw new InputError(`--redis ${url}: no host`);
  return url;
}

function shownUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

export class RedisUnreachable extends Error {}

/** A connection to Redis, checked with PING (fails fast with one clear line when Redis cannot be reached). */
export async function connectRedis(url: string, opts: { forWorker?: boolean } = {}): Promise<Redis> {
  checkRedisUrl(url);
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000, retryStrategy: () => null, enableOfflineQueue: false });
  let cause: unknown;
  probe.on('error', (err) => (cause ??= err));
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    probe.disconnect();
    throw new RedisUnreachable(`cannot reach Redis at ${shownUrl(url)}: ${errorMessage(cause ?? err).split('\n')[0]}`);
  }
  probe.disconnect();
  // The connection BullMQ uses keeps reconnecting (a Redis restart must not kill a worker).
  const client = new Redis(url, { maxRetriesPerRequest: null, ...(opts.forWorker ? {} : { enableOfflineQueue: true }) });
  client.on('error', () => undefined);
  return client;
}

const settingsKey = (queue: string) => `webgrade:${queue}:settings`;

export function makeQueueSettings(pool: QueueSettings['pool']): QueueSettings {
  const scoring = scoringSettings(pool);
  const body = { pool, scoring };
  const id = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);
  return { id, ...body };
}

/** The queue's stored settings, checked field by field (runner/queue-trust.ts); a refused record is an InputError. */
export async function readQueueSettings(redis: Redis, queue: string): Promise<QueueSettings | null> {
  const raw = await redis.get(settingsKey(queue));
  if (raw === null) return null;
  try {
    return validateQueueSettings(JSON.parse(raw));
  } catch (err) {
    const why = err instanceof RefusedPayload ? err.message : 'not JSON';
    throw new InputError(`queue ${queue}: its stored settings are refused (${why}): \`webgrade queue remove\` it and add the jobs again`);
  }
}

/** Store the queue's settings, or check them against the stored ones (other settings: InputError). */
export async function storeQueueSettings(redis: Redis, queue: string, settings: QueueSettings): Promise<void> {
  const ok = await redis.set(settingsKey(queue), JSON.stringify(settings), 'NX');
  if (ok) return;
  const stored = await readQueueSettings(redis, queue);
  if (!stored || stored.id === settings.id) return;
  const diff = settingsDifference(stored.scoring, settings.scoring) ?? `pool settings: ${JSON.stringify(stored.pool)} vs ${JSON.stringify(settings.pool)}`;
  throw new InputError(`queue ${queue} holds jobs scored with other settings (${diff}): use another --queue, or \`webgrade queue remove\` it first`);
}

/** Every file of an artifact, relative path → bytes, in path order. */
export function artifactFiles(path: string): Array<[string, Buffer]> {
  // The artifact's files by the same rule as loading it (core/artifact/load.ts): links that leave the folder, devices
  // and FIFOs are never read, so a job carries nothing a page could not be served.
  return listArtifact(path).files.map((f) => [f.rel, readArtifactFile({ absPath: f.real })] as [string, Buffer]);
}

export function contentHash(files: ReadonlyArray<[string, Buffer]>): string {
  const h = createHash('sha256');
  for (const [rel, buf] of files) {
    h.update(`${rel}\0${buf.length}\0`);
    h.update(buf);
  }
  return h.digest('hex');
}

/** The job id: model, requirement, repeat and content hash (BullMQ ids may not hold ':'). */
export function jobIdOf(model: string, requirement: string, repeat: number, hash: string): string {
  return 'a' + createHash('sha256').update(`${model}\0${requirement}\0${repeat}\0${hash}`).digest('hex').slice(0, 40);
}

function newQueue(redis: Redis, name: string): Queue {
  return new Queue(name, { connection: redis });
}

export interface AddOptions {
  queue?: string;
  shared?: boolean;
  maxJobBytes?: number;
  repeats?: number;
  requirements?: Requirement[];
  settings: QueueSettings;
}

export interface AddSummary {
  artifacts: number;
  added: number;
  alreadyQueued: number;
}

export async function addJobs(redis: Redis, jobs: readonly BatchJob[], opts: AddOptions): Promise<AddSummary> {
  const name = opts.queue ?? DEFAULT_QUEUE;
  const cap = opts.maxJobBytes ?? DEFAULT_MAX_JOB_BYTES;
  const reqById = new Map((opts.requirements ?? []).map((r) => [r.id, r]));
  // Check every artifact's size before adding anything (an over-cap artifact refuses the whole add).
  if (!opts.shared) {
    const over: string[] = [];
    for (const j of jobs) {
      const size = artifactFiles(j.path).reduce((n, [, b]) => n + b.length, 0);
      if (size > cap) over.push(`${j.model}/${j.requirement} (${(size / 1e6).toFixed(1)} MB)`);
    }
    if (over.length) throw new InputError(`${over.length} artifact(s) larger than the job size cap of ${(cap / 1e6).toFixed(1)} MB, first ${over[0]}: raise --max-job-mb, or use --shared with a path every worker reads`);
  }
  await storeQueueSettings(redis, name, opts.settings);
  const queue = newQueue(redis, name);
  try {
    const before = await countAll(queue);
    const all = withRepeats(jobs, opts.repeats ?? 1);
    for (let i = 0; i < all.length; i += 100) {
      const chunk = all.slice(i, i + 100).map((j) => {
        const files = artifactFiles(j.path);
        const hash = contentHash(files);
        const data: JobData = {
          model: j.model,
          requirement: j.requirement,
          hash,
          settingsId: opts.settings.id,
          artifact: resolve(j.path),
          kind: statSync(j.path).isFile() ? 'file' : 'dir',
        };
        if (j.repeat) data.repeat = j.repeat;
        if (opts.shared) data.shared = true;
        else data.files = files.map(([rel, b]) => [rel, b.toString('base64')]);
        const req = reqById.get(j.requirement);
        if (req) data.req = req;
        return {
          name: 'score',
          data,
          opts: { jobId: jobIdOf(j.model, j.requirement, j.repeat ?? 1, hash), attempts: JOB_ATTEMPTS, removeOnComplete: false, removeOnFail: false },
        };
      });
      await queue.addBulk(chunk);
    }
    const after = await countAll(queue);
    return { artifacts: all.length, added: after - before, alreadyQueued: all.length - (after - before) };
  } finally {
    await queue.close();
  }
}

async function countAll(queue: Queue): Promise<number> {
  const c = await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children');
  return Object.values(c).reduce((a, b) => a + b, 0);
}

/** True when `p` is `root` itself or below it. */
function inside(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The artifact of a checked job, ready to score: a shared path (only with the worker's `--shared-root`, and only
 * inside it, by real path), or the job's files written into a fresh folder under the system temp folder, keeping
 * the artifact's name (a page's URL path is its file name). Every write is checked to stay inside the job's
 * folder, by resolved and by real path, and creates a new file (never follows or overwrites anything); on any
 * failure the folder is removed before the error is thrown.
 */
export function materialise(data: ValidJob, opts: { sharedRoot?: string } = {}): { path: string; cleanup: () => void } {
  if (data.shared) {
    if (!opts.sharedRoot) throw new RefusedPayload(`${data.artifact}: a shared job, and this worker takes none (start it with --shared-root <dir> to allow paths inside <dir>)`);
    let real: string;
    try {
      real = realpathSync(data.artifact);
    } catch {
      throw new RefusedPayload(`${data.artifact}: not found on this worker (--shared needs a path every worker can read)`);
    }
    const root = realpathSync(opts.sharedRoot);
    if (real === root || !inside(real, root)) throw new RefusedPayload(`${data.artifact}: outside this worker's --shared-root ${opts.sharedRoot}`);
    return { path: real, cleanup: () => undefined };
  }
  const root = mkdtempSync(join(tmpdir(), 'webgrade-job-'));
  const cleanup = () => rmSync(root, { recursive: true, force: true });
  try {
    const realRoot = realpathSync(root);
    const base = join(realRoot, artifactName(data.artifact));
    const files = data.files ?? [];
    if (contentHash(files) !== data.hash) throw new RefusedPayload('hash: not the hash of the job\'s files');
    if (data.kind === 'file') {
      // Exactly one file, written as the artifact itself (validateJobData checked its name).
      if (files.length !== 1) throw new RefusedPayload('files: a file artifact carries exactly one file');
      writeFileSync(base, files[0]![1], { flag: 'wx' });
      return { path: base, cleanup };
    }
    mkdirSync(base);
    for (const [rel, bytes] of files) {
      const p = resolve(base, ...rel.split('/'));
      if (!inside(p, base + sep)) throw new RefusedPayload(`files: ${rel} leaves the job's folder`);
      mkdirSync(dirname(p), { recursive: true });
      // The real folder too: nothing in a fresh folder should be a link, and if something were, no write follows it.
      if (!inside(realpathSync(dirname(p)), base)) throw new RefusedPayload(`files: ${rel} leaves the job's folder`);
      writeFileSync(p, bytes, { flag: 'wx' });
    }
    return { path: base, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

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
  /** The scoring process's module, from the worker's own environment (tests); never from Redis. */
  workerModule?: string;
}

export interface QueueWorker {
  /** Resolves when the worker has stopped (after `stop`). */
  closed: Promise<void>;
  /** Finish the jobs in hand, then stop. */
  stop(): Promise<void>;
}

/** Run a worker: takes jobs until `stop` (see the module comment). */
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
      next = startWorkerPool({ ...scoring, network, checkNetwork, concurrency, ...(opts.workerModule ? { workerModule: opts.workerModule } : {}) });
    } catch (err) {
      // Settings this webgrade cannot score with (an unknown metric id) fail every job alike: no retry.
      if (err instanceof InputError) throw new UnrecoverableError(`queue ${name}: ${err.message}`);
      throw err;
    }
    pool = { id: settingsId, pool: next };
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
      const run: Parameters<WorkerPool['run']>[0] = { model: data.model, requirement: data.requirement, path: art.path };
      if (data.repeat) run.repeat = data.repeat;
      if (data.req) run.req = data.req;
      const outcome = await p.run(run);
      if (!outcome) throw new Error('the worker stopped before the artifact was scored');
      if (outcome.crashed) {
        opts.onJob?.({ data, error: outcome.row.error ?? 'crashed', ms: Date.now() - t });
        throw new Error(outcome.row.error ?? 'scoring process crashed');
      }
      const row = relocate(outcome.row, art.path, data.artifact);
      opts.onJob?.({ data, row, ms: Date.now() - t });
      return row;
    } finally {
      art.cleanup();
    }
  };

  const worker = new Worker<unknown, ResultRow>(name, processor, {
    connection: redis,
    concurrency,
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

export interface QueueStatus {
  waiting: number;
  active: number;
  done: number;
  failed: number;
  delayed: number;
  /** Jobs finished per minute over the last `windowMinutes` (null with none). */
  perMinute: number | null;
  windowMinutes: number;
  /** Milliseconds until the queue is empty at that rate (null when unknown). */
  etaMs: number | null;
  settings: QueueSettings | null;
  /** Why the stored settings were refused (runner/queue-trust.ts), when they were. */
  settingsError?: string;
}

/** The stored settings for status and collect, which must work even when a worker would refuse them. */
async function settingsOrError(redis: Redis, name: string): Promise<{ settings: QueueSettings | null; error?: string }> {
  try {
    return { settings: await readQueueSettings(redis, name) };
  } catch (err) {
    return { settings: null, error: errorMessage(err) };
  }
}

export async function queueStatus(redis: Redis, name = DEFAULT_QUEUE, windowMinutes = 10): Promise<QueueStatus> {
  const queue = newQueue(redis, name);
  try {
    const c = await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized');
    const now = Date.now();
    const since = now - windowMinutes * 60_000;
    let recent = 0;
    let first = now;
    // Newest first: stop at the first page that reaches past the window.
    for (const type of ['completed', 'failed'] as const) {
      for (let start = 0; ; start += 200) {
        const jobs = await queue.getJobs([type], start, start + 199, false);
        let older = false;
        for (const j of jobs) {
          if (j.finishedOn && j.finishedOn >= since) {
            recent++;
            first = Math.min(first, j.finishedOn);
          } else older = true;
        }
        if (older || jobs.length < 200) break;
      }
    }
    const spanMin = Math.max((now - first) / 60_000, 1 / 60);
    const perMinute = recent > 0 ? recent / Math.min(windowMinutes, Math.max(spanMin, 0.5)) : null;
    const left = (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
    const stored = await settingsOrError(redis, name);
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      done: c.completed ?? 0,
      failed: c.failed ?? 0,
      delayed: c.delayed ?? 0,
      perMinute,
      windowMinutes,
      etaMs: perMinute ? (left / perMinute) * 60_000 : left === 0 ? 0 : null,
      settings: stored.settings,
      ...(stored.error ? { settingsError: stored.error } : {}),
    };
  } finally {
    await queue.close();
  }
}

export interface CollectSummary {
  appended: number;
  alreadyInFile: number;
  /** Jobs not finished yet (waiting, active, delayed). */
  unfinished: number;
  failed: number;
  /** Jobs whose payload is refused (runner/queue-trust.ts): no row is written for them. */
  refused: number;
  tornTail: boolean;
}

export async function collect(redis: Redis, out: string, name = DEFAULT_QUEUE): Promise<CollectSummary> {
  const queue = newQueue(redis, name);
  try {
    const best = new Map<string, { row: ResultRow; ok: boolean; ts: number; id: string }>();
    const { settings } = await settingsOrError(redis, name);
    let failed = 0;
    let refused = 0;
    for (const type of ['completed', 'failed'] as const) {
      for (let start = 0; ; start += 500) {
        const jobs = await queue.getJobs([type], start, start + 499, true);
        for (const j of jobs) {
          let data: ValidJob;
          try {
            // Not decoded: collect only needs the names, and a refused payload yields no row (it names nothing trustworthy).
            data = validateJobData(j.data, { decode: false, maxBytes: Number.MAX_SAFE_INTEGER });
          } catch {
            refused++;
            continue;
          }
          let row: ResultRow;
          if (type === 'completed') row = j.returnvalue as ResultRow;
          else {
            failed++;
            row = {
              model: data.model,
              requirement: data.requirement,
              ...(data.repeat ? { repeat: data.repeat } : {}),
              ...(settings?.id === data.settingsId ? { settings: settings.scoring } : {}),
              status: 'failed',
              error: `${j.failedReason} (after ${j.attemptsMade} attempts, ${j.stalledCounter} stalls)`,
              artifact: data.artifact,
              metrics: [],
              ...(j.finishedOn ? { finishedAt: new Date(j.finishedOn).toISOString() } : {}),
            };
            const labels = data.req?.labels;
            if (labels) row.labels = Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'));
          }
          if (!row || typeof row !== 'object') continue;
          const key = rowKey(data.model, data.requirement, data.repeat ?? 1);
          const cand = { row, ok: type === 'completed', ts: j.timestamp, id: String(j.id) };
          const cur = best.get(key);
          const better = !cur || (cand.ok !== cur.ok ? cand.ok : cand.ts !== cur.ts ? cand.ts > cur.ts : cand.id > cur.id);
          if (better) best.set(key, cand);
        }
        if (jobs.length < 500) break;
      }
    }
    const { existing, writer } = openResultsForAppend(out);
    const done = new Set(existing.rows.map((r) => rowKey(r.model, r.requirement, r.repeat ?? 1)));
    let appended = 0;
    let alreadyInFile = 0;
    try {
      const keys = [...best.keys()].sort();
      for (const k of keys) {
        if (done.has(k)) {
          alreadyInFile++;
          continue;
        }
        writer.append(best.get(k)!.row);
        appended++;
      }
    } finally {
      writer.close();
    }
    const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return { appended, alreadyInFile, unfinished: Object.values(c).reduce((a, b) => a + b, 0), failed, refused, tornTail: existing.tornTail };
  } finally {
    await queue.close();
  }
}

/** Delete a queue: its jobs (results included) and settings. */
export async function removeQueue(redis: Redis, name = DEFAULT_QUEUE): Promise<void> {
  const queue = newQueue(redis, name);
  try {
    await queue.obliterate({ force: true });
    await redis.del(settingsKey(name));
  } finally {
    await queue.close();
  }
}
