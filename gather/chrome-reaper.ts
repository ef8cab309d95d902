/**
 * Chrome processes and profiles left behind by a process that died without cleaning up (SIGKILL from a batch's
 * hard limit or the OOM killer, a crash): chrome-launcher starts Chrome detached, so it outlives its Node
 * process (reparented to PID 1) together with its `/tmp/webgrade-chrome-*` profile.
 *
 * Ownership: every profile our Chrome uses holds an owner marker (OWNER_MARKER: the pid of the Node process that
 * made it and that process's start time, which tells a reused pid apart). Only folders with a marker are ever
 * touched, and only when their owner is dead (or, `reapOwnedBy`, when the caller knows the owner is dead: a batch
 * parent whose worker exited). A Chrome belongs to a profile when its command line names that folder as
 * `--user-data-dir` (read from /proc, so a reused pid is never killed); it is killed with its process group.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export const PROFILE_PREFIX = 'webgrade-chrome-';
export const OWNER_MARKER = 'webgrade-owner.json';

interface Owner {
  pid: number;
  /** Start time of the owner process (clock ticks since boot, /proc/<pid>/stat field 22), when known. */
  start?: string;
}

/** Start time of a process from /proc (undefined when it does not exist or /proc is not there). */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Is the owner still running (the same process: a reused pid has another start time)? */
function alive(owner: Owner): boolean {
  const start = startTime(owner.pid);
  if (start !== undefined) return owner.start === undefined || owner.start === start;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Write the owner marker of this process into a new profile folder. */
export function markProfile(dir: string): void {
  const owner: Owner = { pid: process.pid };
  const start = startTime(process.pid);
  if (start !== undefined) owner.start = start;
  writeFileSync(join(dir, OWNER_MARKER), JSON.stringify(owner));
}

function readOwner(dir: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(join(dir, OWNER_MARKER), 'utf8')) as Owner;
    return typeof o.pid === 'number' ? o : undefined;
  } catch {
    return undefined;
  }
}

/** Pids of the Chrome processes whose command line names `dir` as their `--user-data-dir`. */
export function processesUsing(dir: string): number[] {
  const flag = `--user-data-dir=${dir}`;
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // A Chrome (browser or one of its subprocesses), not a tool that merely names the folder (grep, ps).
      if (args.includes(flag) && /chrom|headless_shell/i.test(basename(args[0] ?? ''))) out.push(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

/** SIGKILL a Chrome and its process group (chrome-launcher makes the browser a group leader). */
export function killTree(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* not a group leader, or gone */
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/** Kill every process using `dir` as its profile and remove the folder; returns the pids killed. */
export function reapProfile(dir: string): number[] {
  const pids = processesUsing(dir);
  for (const pid of pids) killTree(pid);
  // A killed Chrome may still write into its profile until it is gone (a file made while the folder is being
  // removed leaves it behind, ENOTEMPTY): wait for them (at most 2 s), then remove with retries.
  const until = Date.now() + 2000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (pids.length && processesUsing(dir).length && Date.now() < until) Atomics.wait(pause, 0, 0, 25);
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  } catch {
    /* left for the next start's reapDeadProfiles */
  }
  return pids;
}

export interface Reaped {
  /** Profile folders removed. */
  profiles: string[];
  /** Chrome pids killed. */
  pids: number[];
}

function reap(select: (owner: Owner) => boolean, root = tmpdir()): Reaped {
  const out: Reaped = { profiles: [], pids: [] };
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!name.startsWith(PROFILE_PREFIX)) continue;
    const dir = join(root, name);
    const owner = readOwner(dir);
    if (!owner || !select(owner)) continue;
    out.pids.push(...reapProfile(dir));
    out.profiles.push(dir);
  }
  return out;
}

/** Clean up the profiles (and their Chrome) of runs that died: owner marker present, owner process gone. */
export function reapDeadProfiles(root?: string): Reaped {
  return reap((o) => o.pid !== process.pid && !alive(o), root);
}

/** Clean up the profiles (and their Chrome) made by `pid`, a process the caller knows has exited. */
export function reapOwnedBy(pid: number, root?: string): Reaped {
  return reap((o) => o.pid === pid, root);
}
