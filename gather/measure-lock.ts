/**
 * The machine-wide lock around Lighthouse's measured phase (issue "Numbers that hold still", item 4). Several
 * scoring processes on one machine (batch `--concurrency 2`, queue workers) each run Lighthouse; two
 * measurements at once share the CPU, and a page's performance score drops (measured: 14 of 58 pages changed by
 * up to 9 points at concurrency 2). Only the measured phase is serialised: from the moment Lighthouse would start
 * loading the page (our gatherer's `startInstrumentation`, after its configuration and CPU benchmark) until the
 * page's trace is taken (our gatherer's `stopInstrumentation`); everything else (visits, static and vision
 * metrics, Lighthouse's configuration and audits) overlaps. Lighthouse's own advice (docs/variability.md) is one
 * measured run at a time per machine: the default concurrency is 1, and more processes share only this lock.
 *
 * A lock directory in the OS temp folder, one per user (proper-lockfile: atomic mkdir, kept fresh by its holder,
 * taken over when stale, so a holder killed by SIGKILL blocks the others for at most STALE_MS).
 *
 * Its holder writes a marker inside the lock directory (`holder`: process id and thread id) so that the step gate
 * (step-gate.ts) can tell a page's own measurement from another's. proper-lockfile removes its directory with
 * rmdir and takes a lock as compromised when the directory's mtime is not the one it set, so the marker is
 * written with the mtime put back, and every removal (release, stale takeover, exit) deletes the marker first.
 */
import fs from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import lockfile from 'proper-lockfile';

/** A lock whose holder stopped refreshing it this long ago is taken over (its process died). */
export const STALE_MS = 10_000;

export function measureLockPath(): string {
  let user = 'user';
  try {
    user = String(userInfo().uid);
  } catch {
    /* no user database */
  }
  return join(tmpdir(), `webgrade-lighthouse-measure-${user}`);
}

/** The directory proper-lockfile makes for the lock at `path`. */
export function lockDirectory(path: string): string {
  return `${path}.lock`;
}

/** The marker inside the lock directory: `<pid> <threadId>` of the holder. */
export const HOLDER_FILE = 'holder';

/** node:fs, with removals of a lock directory that take its marker first (rmdir would fail on it). */
const lockFs = {
  ...fs,
  rmdir(dir: string, cb: (err: NodeJS.ErrnoException | null) => void) {
    fs.rm(join(dir, HOLDER_FILE), { force: true }, () => fs.rmdir(dir, cb));
  },
  rmdirSync(dir: string) {
    fs.rmSync(join(dir, HOLDER_FILE), { force: true });
    fs.rmdirSync(dir);
  },
};

/** How often a waiter tries the lock again (ms). */
const POLL_MS = 25;

/** Write the holder marker into a lock directory just taken, keeping the mtime proper-lockfile checks. */
function markHolder(dir: string): void {
  try {
    const { atime, mtime } = fs.statSync(dir);
    fs.writeFileSync(join(dir, HOLDER_FILE), `${process.pid} ${threadId}\n`);
    fs.utimesSync(dir, atime, mtime);
  } catch {
    /* without a marker the gate treats the holder as another page's: safe, only slower */
  }
}

/**
 * Wait for the lock (at most `timeoutMs`); resolves to its release function. Rejects when the wait runs out, so
 * that a run never hangs on another process.
 */
export async function acquireMeasureLock(timeoutMs: number, path = measureLockPath()): Promise<() => Promise<void>> {
  // proper-lockfile retries through `retry`: every POLL_MS, until the wait has lasted timeoutMs.
  const retries = { retries: Math.ceil(timeoutMs / POLL_MS) + 1, factor: 1, minTimeout: POLL_MS, maxTimeout: POLL_MS, maxRetryTime: timeoutMs };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(path, { realpath: false, stale: STALE_MS, update: STALE_MS / 4, fs: lockFs, retries });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    throw new Error(`another webgrade process held the Lighthouse measurement lock for more than ${Math.round(timeoutMs / 1000)} s`);
  }
  markHolder(lockDirectory(path));
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await release().catch(() => undefined);
  };
}
