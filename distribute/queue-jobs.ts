/**
 * Queue jobs: one per artifact and repeat, named by a hash of what it scores (see distribute/queue.ts), added in bulk,
 * and turned back into an artifact on disk by a worker.
 */
import { isProjectFolder } from '../project/manifest.js';
import { listProjectFiles } from '../project/source-view.js';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { InputError } from '../core/errors.js';
import { listArtifact, readArtifactFile } from '../lib/artifact/load.js';
import type { Requirement } from '../core/requirements.js';
import { withRepeats, type BatchJob } from './batch.js';
import { DEFAULT_MAX_JOB_BYTES, DEFAULT_QUEUE, JOB_ATTEMPTS, newQueue, storeQueueSettings, type QueueSettings } from './queue.js';
import { artifactName, RefusedPayload, type JobFields, type ValidJob } from './queue-trust.js';
import { insideTree } from '../lib/paths.js';

export interface JobData extends JobFields {
  /** Relative path and base64 bytes of every file; absent with a shared path. */
  files?: Array<[string, string]>;
  /** The artifact is read from `artifact` itself (`--shared`). */
  shared?: boolean;
}

/** Every file of an artifact, relative path → bytes, in path order. */
export function artifactFiles(path: string): Array<[string, Buffer]> {
  // The artifact's files by the same rule as loading it (lib/artifact/load.ts): links that leave the folder, devices
  // and FIFOs are never read, so a job carries nothing a page could not be served.
  // A project travels as its files without node_modules and .git (the worker installs and builds it).
  const listed = isProjectFolder(path) ? listProjectFiles(path) : listArtifact(path).files;
  return listed.map((f) => [f.rel, readArtifactFile({ absPath: f.real })] as [string, Buffer]);
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
    if (over.length)
      throw new InputError(
        `${over.length} artifact(s) larger than the job size cap of ${(cap / 1e6).toFixed(1)} MB, first ${over[0]}: raise --max-job-mb, or use --shared with a path every worker reads`,
      );
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

/**
 * The artifact of a checked job, ready to score: a shared path (only with the worker's `--shared-root`, and only
 * inside it, by real path), or the job's files written into a fresh folder under the system temp folder, keeping
 * the artifact's name (a page's URL path is its file name). Every write is checked to stay inside the job's
 * folder, by resolved and by real path, and creates a new file (never follows or overwrites anything); on any
 * failure the folder is removed before the error is thrown.
 */
export function materialise(data: ValidJob, opts: { sharedRoot?: string } = {}): { path: string; cleanup: () => void } {
  if (data.shared) {
    if (!opts.sharedRoot)
      throw new RefusedPayload(`${data.artifact}: a shared job, and this worker takes none (start it with --shared-root <dir> to allow paths inside <dir>)`);
    let real: string;
    try {
      real = realpathSync(data.artifact);
    } catch {
      throw new RefusedPayload(`${data.artifact}: not found on this worker (--shared needs a path every worker can read)`);
    }
    const root = realpathSync(opts.sharedRoot);
    if (real === root || !insideTree(real, root)) throw new RefusedPayload(`${data.artifact}: outside this worker's --shared-root ${opts.sharedRoot}`);
    return { path: real, cleanup: () => undefined };
  }
  const root = mkdtempSync(join(tmpdir(), 'webgrade-job-'));
  const cleanup = () => rmSync(root, { recursive: true, force: true });
  try {
    const realRoot = realpathSync(root);
    const base = join(realRoot, artifactName(data.artifact));
    const files = data.files ?? [];
    if (contentHash(files) !== data.hash) throw new RefusedPayload("hash: not the hash of the job's files");
    if (data.kind === 'file') {
      // Exactly one file, written as the artifact itself (validateJobData checked its name).
      if (files.length !== 1) throw new RefusedPayload('files: a file artifact carries exactly one file');
      writeFileSync(base, files[0]![1], { flag: 'wx' });
      return { path: base, cleanup };
    }
    mkdirSync(base);
    for (const [rel, bytes] of files) {
      const p = resolve(base, ...rel.split('/'));
      if (!insideTree(p, base + sep)) throw new RefusedPayload(`files: ${rel} leaves the job's folder`);
      mkdirSync(dirname(p), { recursive: true });
      // The real folder too: nothing in a fresh folder should be a link, and if something were, no write follows it.
      if (!insideTree(realpathSync(dirname(p)), base)) throw new RefusedPayload(`files: ${rel} leaves the job's folder`);
      writeFileSync(p, bytes, { flag: 'wx' });
    }
    return { path: base, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}
