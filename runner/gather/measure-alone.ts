/**
 * The other scoring processes of the machine stopped while a page that keeps computing after its load is measured
 * (issue "Numbers that hold still", item 4). The machine-wide lock (measure-lock.ts) keeps two measurements apart
 * and the measuring process runs at a raised priority (measure-priority.ts), but the other workers keep working
 * meanwhile, and on a 2-core machine that alone slowed such a page: with one busy loop on the other core, even at
 * nice 19, a canvas animation's Lighthouse score fell from 63–71 to 56–61 (its main-thread tasks got longer: the
 * two cores share more than the scheduler hands out, e.g. cache and the host's physical core), and at concurrency
 * 2 `performance` moved by up to 28 points on that page against at most 10 between two runs at concurrency 1.
 * Priority cannot fix that; only an idle other core can.
 *
 * So every scoring process that runs Chrome joins a group (a file per process in a folder beside the lock: its
 * pid and its start time, so that a reused pid is never taken for it), and a process that holds the lock for a
 * page `measureAlone` picks stops every other member's process tree (the worker and its Chrome: SIGSTOP) for the
 * measured phase and continues them (SIGCONT) before it gives the lock back. Nothing of theirs is lost: a stopped
 * process resumes where it was, with its sockets' data waiting. What it does notice is wall-clock time; so the
 * holder adds the pause to a per-member count before continuing it (`pausedMs`), and the member's waits on its page
 * (session.ts `withTimeout`, `sleep` and the visit's budget, the interaction probe's budget) add that back: a
 * pause costs a stopped worker time, never a timeout. The pause is capped (PAUSE_CAP_MS); a page whose measured
 * phase runs longer is measured beside running workers from then on.
 *
 * A holder that dies while others are stopped must not leave them stopped: before stopping anyone it writes what
 * it stops into a record file, and a small guardian process (measure-guardian.ts, one per holding process,
 * started at its first pause, never itself stopped) continues them when the holder is gone or the record is
 * older than the cap. `WEBGRADE_MEASURE_ALONE=off` turns stopping and lowering the others off (the lock and our own priority stay). Linux only
 * (/proc); processes of other users are out of reach (and use another lock).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureLockPath } from './measure-lock.js';
import { MEASURE_RAISE, processTree, raisePriority, type PriorityBoost } from './measure-priority.js';

/** The longest a measured phase keeps the other workers stopped (measured at concurrency 1: median 0.7 s, p90 1.0 s, a Pyodide page 3.7 s). */
export const PAUSE_CAP_MS = 8_000;

/** Marks the guardian's command line, so that no holder ever stops a guardian. */
export const GUARDIAN_MARK = 'webgrade-measure-guardian';

/** The group folder (beside the lock, one per user). */
export function groupDir(lockPath = measureLockPath()): string {
  return `${lockPath}-group`;
}

/** A process's start time (clock ticks since boot, /proc/<pid>/stat field 22), or undefined when it is gone. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** One process as the group knows it: pid plus start time (a pid alone may be reused). */
export interface ProcessId {
  pid: number;
  start: string;
}

/** What a holder stopped, written before it stops anyone (the guardian's and a crashed holder's way back). */
export interface PauseRecord {
  holder: ProcessId;
  /** Date.now() when the pause began. */
  at: number;
  capMs: number;
  stopped: ProcessId[];
}

const enabled = () => process.env.WEBGRADE_MEASURE_ALONE !== 'off' && process.platform === 'linux';

let joinedAs: string | undefined;

/** Join the group of processes that are paused while another measures (idempotent; left at exit). */
export function joinMeasureGroup(dir = groupDir()): void {
  if (!enabled() || joinedAs) return;
  const start = startTimeOf(process.pid);
  if (!start) return;
  try {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, String(process.pid));
    rmSync(`${file}.paused`, { force: true }); // of an earlier process with this pid
    writeAtomically(file, JSON.stringify({ pid: process.pid, start } satisfies ProcessId));
    joinedAs = file;
    process.on('exit', () => {
      rmSync(file, { force: true });
      rmSync(`${file}.paused`, { force: true });
    });
  } catch {
    /* an unwritable temp folder: this process simply is not paused by others */
  }
}

/** The other live members (stale files of dead or reused pids are removed). */
export function otherMembers(dir = groupDir()): ProcessId[] {
  let all: string[];
  try {
    all = readdirSync(dir);
  } catch {
    return [];
  }
  const names = all.filter((n) => /^\d+$/.test(n));
  const out: ProcessId[] = [];
  // A count of a member that is gone (written by a holder after the member ended) goes with it.
  for (const name of all.filter((n) => /^\d+\.paused$/.test(n))) {
    if (!names.includes(name.slice(0, -'.paused'.length))) rmSync(join(dir, name), { force: true });
  }
  for (const name of names) {
    const file = join(dir, name);
    let member: ProcessId;
    try {
      member = JSON.parse(readFileSync(file, 'utf8')) as ProcessId;
    } catch {
      continue; // being written
    }
    if (member.pid === process.pid) continue;
    if (startTimeOf(member.pid) !== member.start) {
      rmSync(file, { force: true });
      rmSync(`${file}.paused`, { force: true });
      continue;
    }
    out.push(member);
  }
  return out;
}

export interface Pause {
  /** Processes stopped (workers and their Chromes). */
  stopped: number;
  /** Why nobody was stopped, when nobody was. */
  reason?: string;
  /** Continue every stopped process (idempotent; also done by the cap's timer). */
  resume(): void;
}

const noPause = (reason: string): Pause => ({ stopped: 0, reason, resume() {} });

function isGuardian(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(GUARDIAN_MARK); // a whole argument
  } catch {
    return true; // gone: nothing to stop
  }
}

/** Continue the processes of a record that are still the same processes. */
export function continueAll(stopped: ProcessId[]): void {
  for (const p of stopped) {
    if (startTimeOf(p.pid) !== p.start) continue;
    try {
      process.kill(p.pid, 'SIGCONT');
    } catch {
      /* ended */
    }
  }
}

/**
 * Stop every other member's process tree (see the module comment) until `resume`, at most `capMs`. Never throws;
 * returns how many processes it stopped.
 */
export function pauseOthers(capMs = PAUSE_CAP_MS, dir = groupDir()): Pause {
  if (process.env.WEBGRADE_MEASURE_ALONE === 'off') return noPause('turned off (WEBGRADE_MEASURE_ALONE=off)');
  if (process.platform !== 'linux') return noPause('not on Linux');
  const holderStart = startTimeOf(process.pid);
  if (!holderStart) return noPause('no /proc');
  const members = otherMembers(dir);
  if (!members.length) return noPause('no other scoring process');
  const ours = new Set(processTree(process.pid));
  const stopped: ProcessId[] = [];
  const stoppedMembers: ProcessId[] = [];
  for (const m of members) {
    const tree = processTree(m.pid);
    if (tree.some((p) => ours.has(p)) || tree.includes(process.pid)) continue; // never ourselves or our own
    stoppedMembers.push(m);
    // The worker first (it cannot then react to its Chrome stopping), then everything it started but guardians.
    for (const pid of tree) {
      if (isGuardian(pid)) continue;
      const start = startTimeOf(pid);
      if (start) stopped.push({ pid, start });
    }
  }
  if (!stopped.length) return noPause('no other scoring process');
  const record = recordPath(dir);
  try {
    ensureGuardian(dir, holderStart, ours);
    writeAtomically(record, JSON.stringify({ holder: { pid: process.pid, start: holderStart }, at: Date.now(), capMs, stopped } satisfies PauseRecord));
  } catch (err) {
    return noPause(`could not record the pause: ${(err as Error).message}`);
  }
  let count = 0;
  const t0 = performance.now();
  for (const p of stopped) {
    try {
      process.kill(p.pid, 'SIGSTOP');
      count++;
    } catch {
      /* ended meanwhile */
    }
  }
  let resumed = false;
  const resume = () => {
    if (resumed) return;
    resumed = true;
    clearTimeout(timer);
    // Each member learns how long it was stopped before it runs again (pausedMs), so that its time limits
    // do not count the pause.
    const ms = performance.now() - t0;
    for (const m of stoppedMembers) addPaused(dir, m.pid, ms);
    continueAll(stopped);
    rmSync(record, { force: true });
  };
  const timer = setTimeout(resume, capMs);
  timer.unref();
  return { stopped: count, resume };
}

/** The file in which holders add up how long a member was stopped (ms). */
function pausedPath(dir: string, pid: number): string {
  return join(dir, `${pid}.paused`);
}

function addPaused(dir: string, pid: number, ms: number): void {
  try {
    const file = pausedPath(dir, pid);
    let was = 0;
    try {
      was = Number(readFileSync(file, 'utf8')) || 0;
    } catch {
      /* first pause */
    }
    writeAtomically(file, String(Math.round(was + ms)));
  } catch {
    /* the member then counts the pause in its time limits, as it counts a slow CPU */
  }
}

/**
 * How many ms other processes' measurements have kept this process stopped so far (0 when it never was, or has
 * not joined a group). Time limits that wait for the page (session.ts `withTimeout`, the visit's and the
 * interaction probe's budgets) add this back, so that a pause costs time but never turns into a timeout.
 */
export function pausedMs(): number {
  if (!joinedAs) return 0;
  try {
    return Number(readFileSync(`${joinedAs}.paused`, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** A clock of this process's stopped time from now on: returns how many ms it has been stopped since it was made. */
export function pausedSince(): () => number {
  const start = pausedMs();
  return () => pausedMs() - start;
}

export function recordPath(dir: string, pid = process.pid): string {
  return join(dir, `paused-by-${pid}.json`);
}

function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/**
 * Start this process's guardian (measure-guardian.ts) unless one of our children is one already (a Lighthouse
 * thread that was restarted finds the guardian its predecessor started).
 */
function ensureGuardian(dir: string, holderStart: string, ours: Set<number>): void {
  for (const pid of ours) if (pid !== process.pid && isGuardian(pid)) return;
  const script = fileURLToPath(new URL('./measure-guardian.js', import.meta.url));
  if (!existsSync(script)) throw new Error(`the guardian ${script} is missing`);
  const child = spawn(process.execPath, [script, GUARDIAN_MARK, String(process.pid), holderStart, recordPath(dir)], {
    stdio: 'ignore',
    detached: true, // its own process group: a Ctrl-C that ends the holder leaves the guardian to continue the others
  });
  child.unref();
}

/**
 * For a page measured beside the others (not alone): every thread of every other member lowered by MEASURE_RAISE
 * nice steps (their own order kept) until `restore`, so that while the measured page has work, theirs waits. Only
 * call it where raising our own priority worked: putting a priority back up needs the same right.
 */
export function lowerOthers(dir = groupDir()): PriorityBoost {
  if (process.env.WEBGRADE_MEASURE_ALONE === 'off') return { raised: 0, reason: 'turned off (WEBGRADE_MEASURE_ALONE=off)', restore() {} };
  const boosts = otherMembers(dir).map((m) => raisePriority(m.pid, -MEASURE_RAISE));
  const out: PriorityBoost = {
    raised: boosts.reduce((n, b) => n + b.raised, 0),
    restore: () => boosts.forEach((b) => b.restore()),
  };
  const reason = boosts.find((b) => b.reason)?.reason;
  if (reason) out.reason = reason;
  return out;
}

/**
 * A page whose main thread was busy at least this share of the settle after its load (BrowserEvidence
 * `busyAfterLoad`: an animation loop, a runtime starting up) is measured with the others stopped; any other page
 * beside them. See `measureAlone`.
 */
export const ALONE_BUSY_SHARE = 0.5;

/**
 * Whether a page's measurement stops the other workers. Stopping them for every page cost a third of the
 * throughput at concurrency 2 (20.4 → 14.8 pages per minute on the stability benchmark): the measured phase is
 * mostly computing for every page, so a pause for only its busy moments saved little. But the pages whose score
 * a neighbour moved beyond the run-to-run noise were the ones that keep computing after their load (a canvas
 * animation: 28 points; pages that are quiet after their load moved no more than between two runs at
 * concurrency 1), so only those are measured alone. Without a visit (no evidence) a page is measured beside them.
 */
export function measureAlone(busyAfterLoad: number | undefined): boolean {
  return busyAfterLoad !== undefined && busyAfterLoad >= ALONE_BUSY_SHARE;
}
