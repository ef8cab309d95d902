/**
 * A work queue for leaderboards past one machine (`webgrade queue add|status|collect|remove`, `webgrade worker`),
 * on BullMQ over Redis. This file holds the connection and the queue's settings; jobs are in `queue-jobs.ts`,
 * the worker in `queue-worker.ts`, status and collect in `queue-collect.ts`, payload checks in `queue-trust.ts`.
 *
 * - **Jobs**: one per artifact (and per repeat), id = a hash of model, requirement, repeat and the artifact's
 *   content hash (every file's relative path and bytes), so adding the same runs twice adds nothing and a changed
 *   artifact is a new job. The artifact's files travel in the job (base64; at most `maxJobBytes` of files per
 *   artifact, default 8 MB: an artifact over the cap refuses the whole `add`), or, with `shared`, the job names
 *   an absolute path every worker can read.
 * - **Settings**: the scoring settings (suite, --only, network, Lighthouse runs, budget, alignment, ...) are
 *   stored once per queue, in `webgrade:<queue>:settings`; an `add` with other settings is refused; every job
 *   names the settings' id and every worker scores with exactly them.
 * - **Workers** score each job with the batch's worker pool (distribute/batch.ts `startWorkerPool`): the same worker
 *   processes, Chrome restarts, hard limit and row construction as `webgrade batch`. A page's own failure
 *   (unscorable metrics, a load error, its hard limit) is the job's result. A crash of a scoring process is an
 *   error BullMQ retries (3 attempts, then failed with the reason); a killed worker leaves its job's lock to
 *   expire (the stall timeout, `lockDuration`), and the stalled-job check (every `stalledInterval`, the same
 *   value) gives it to another worker; a job stalled 3 times is failed. A dead worker's late answer cannot
 *   count: completing a job needs its lock token, which the reassignment replaced.
 * - **Collect** writes one results row per (model, requirement, repeat): the completed job's row, or a failed row
 *   with the reason; when a changed artifact left two jobs for one key, the finished one added last wins.
 * - **Trust**: whoever can write to Redis can fail jobs or add work, never run code or write files on a worker
 *   (docs/security.md): every job and the settings record are checked (distribute/queue-trust.ts) before use, a job's
 *   files are written only inside its own fresh folder, `shared` paths only inside the worker's `--shared-root`,
 *   and the program forked, the network mode and the CDN cache folder come from the worker's own command line.
 */
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { InputError, errorMessage } from '../core/errors.js';
import type { ScoringSettings } from '../core/results.js';
import { RefusedPayload, validateQueueSettings, type QueuePoolSettings } from './queue-trust.js';
import { scoringSettings, settingsDifference } from '../runner/scoring-settings.js';

export const DEFAULT_QUEUE = 'webgrade';
export const DEFAULT_MAX_JOB_BYTES = 8 * 1024 * 1024;
/** Tries of a job whose scoring process crashes (and the most times a job may stall before it is failed). */
export const JOB_ATTEMPTS = 3;
/** Default stall timeout: see docs/many-machines.md (the lock is renewed by an idle event loop every half of it). */
export const DEFAULT_STALL_SECONDS = 30;

/** What a queue stores once: the pool settings every worker uses, and their id. */
export interface QueueSettings {
  id: string;
  /** Scoring choices only (distribute/queue-trust.ts): never a program, a folder or a network to reach. */
  pool: QueuePoolSettings;
  /** What results rows record (runner/scoring-settings.ts). */
  scoring: ScoringSettings;
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

/** The queue's stored settings, checked field by field (distribute/queue-trust.ts); a refused record is an InputError. */
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

/** A BullMQ queue handle on `redis` (close it after use). */
export function newQueue(redis: Redis, name: string): Queue {
  return new Queue(name, { connection: redis });
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
