/**
 * The sandbox a project's own build runs in: bubblewrap (Debian's `bubblewrap`, the sandbox Flatpak uses) inside
 * resource limits. Chosen over a container runtime because it needs no daemon and no privileges (it runs as root
 * and as an unprivileged user alike), and over Node's own permission model because that confines only Node:
 * a build runs esbuild, rolldown and shell commands too.
 *
 * What a build can and cannot do (each claim has a test in test/project/sandbox.test.ts, with a hostile project):
 * - **No network**: a network namespace of its own with only its own loopback (`--unshare-all`): no DNS, no
 *   route out, and not even the host's loopback servers (the registry proxy, Redis, a survey server).
 * - **A read-only view of the system**: `/usr` (and the folder Node lives in) read-only; `/etc` is a folder we
 *   write with three files (a `passwd` and `group` naming the build user, `hosts`); no `/root`, `/home`,
 *   `/var`, `/work`, no other artifact, no webgrade file: what is not bound does not exist in the sandbox.
 * - **Writes only inside its copy**: the project copy is the one writable folder (`/project`), besides a
 *   private `/tmp` of at most `tmpBytes`; the installed packages (`node_modules/.pnpm`, hard links into the
 *   shared store) are bound read-only, so a build cannot change a package every other project shares.
 * - **Limits**: wall time (`wallMs`: the whole sandbox is killed, pid namespace and all); CPU time (the sum over
 *   the build's processes, watched, and RLIMIT_CPU per process); memory (the sum of the processes' resident
 *   memory, watched, and RLIMIT_DATA per process); processes (the count of the build's processes, watched, and
 *   RLIMIT_NPROC); one file at most `fileBytes` (RLIMIT_FSIZE). The watch reads `/proc` every WATCH_MS and kills
 *   the whole sandbox, naming the limit, so a sum can pass its limit for that long. The rlimits hold at once but
 *   only per process (or per user), and a process they stop dies without telling which limit stopped it; they
 *   are therefore the backstop, set a margin above the watched limits (NPROC_MARGIN processes, CPU_MARGIN_S
 *   seconds) so that the watch, which names the limit, is what normally stops a build (a loop killed by
 *   RLIMIT_CPU reads as a plain `Killed`). When the backstop does stop a build, the shell's exit code
 *   (128 + SIGXCPU or SIGXFSZ) still names the limit. A process bomb grows faster than any watch: within one
 *   WATCH_MS it can reach RLIMIT_NPROC, and then a fork fails; a bomb whose processes exit (the classic
 *   `:(){ :|:& };:`) churns below the limit and a shell that cannot fork exits, so such a build ends either
 *   stopped by the watch (`processes`) or failed with its own fork error ("Cannot fork"), never above the
 *   limit and never for longer than its time limit. RLIMIT_DATA carries no margin: memory is the one limit a
 *   build cannot pass even for WATCH_MS (the machine's other work would pay for it).
 * - **Its own user**: as root, the build runs as an unprivileged user id of its own (BUILD_UID_BASE + a random
 *   offset), so that RLIMIT_NPROC counts only its processes and it has no capability; as another user it runs
 *   as that user, and RLIMIT_NPROC is set to that user's current process count plus `processes` (the watch
 *   still counts only the build's). Inside, it is user 1000 in a user namespace that cannot make another.
 *
 * cgroups would give exact sums, but CI machines and containers rarely delegate them (this one has a v1 hierarchy
 * that is not ours to change), so the sums are watched instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { lchownSync, lstatSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

const MiB = 1024 ** 2;

export interface SandboxLimits {
  wallMs: number;
  cpuSeconds: number;
  memoryBytes: number;
  processes: number;
  fileBytes: number;
  tmpBytes: number;
}

/** A Vite build of a small app takes 1–3 s and 300 MB; these leave room for large apps on a loaded machine. */
export const DEFAULT_BUILD_LIMITS: SandboxLimits = {
  wallMs: 180_000,
  cpuSeconds: 300,
  memoryBytes: 3 * 1024 * MiB,
  processes: 256,
  fileBytes: 256 * MiB,
  tmpBytes: 512 * MiB,
};

/** How often the sums of the build's processes are read. */
export const WATCH_MS = 200;
/** How far RLIMIT_NPROC sits above the watched process limit (module comment). */
export const NPROC_MARGIN = 16;
/** How far RLIMIT_CPU sits above the watched CPU limit, in seconds (module comment). */
export const CPU_MARGIN_S = 2;
/** Exit codes of a shell whose command died of a signal: 128 + the signal's number (Linux's numbers). */
const SIGNAL_EXIT: Record<number, string> = { [128 + 24]: 'cpu', [128 + 25]: 'file size' };
/** As root, builds run as BUILD_UID_BASE + a random offset below BUILD_UID_SPAN (ids no account uses). */
export const BUILD_UID_BASE = 3_000_000;
const BUILD_UID_SPAN = 1_000_000;
/** Output kept from a build: its tail (warnings are read from it). */
const OUTPUT_KEEP = 512 * 1024;

export interface SandboxMount {
  /** Host path. */
  host: string;
  /** Path inside the sandbox. */
  inside: string;
}

export interface SandboxRun {
  /** The one writable folder, seen as `/project` inside. */
  projectDir: string;
  /** A folder of ours (outside the project) for the sandbox's `/etc`. */
  etcDir: string;
  /** Extra read-only mounts (the installed packages). */
  readOnly: SandboxMount[];
  /** The shell command to run in `/project`. */
  command: string;
  limits: SandboxLimits;
  /** Extra environment variables (the environment is otherwise empty but for HOME, PATH, CI). */
  env?: Record<string, string>;
  /** The user the build runs as (`buildUser()`; the project copy is handed to it first). */
  uid: number;
}

export interface SandboxResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The limit that stopped the build: `time`, `cpu`, `memory`, `processes`, `file size`. */
  limit?: string;
  ms: number;
  /** Standard output and error together, the last OUTPUT_KEEP bytes. */
  output: string;
}

function which(cmd: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

let checked: { ok: true; bwrap: string; prlimit: string } | { ok: false; reason: string } | undefined;

/**
 * bubblewrap and prlimit, and whether a sandbox can be made here (a user namespace: some kernels forbid them to
 * unprivileged users). Checked once per process by running `true` in the sandbox.
 */
export function sandboxTools(): { ok: true; bwrap: string; prlimit: string } | { ok: false; reason: string } {
  if (checked) return checked;
  const bwrap = process.env.WEBGRADE_BWRAP ?? which('bwrap');
  const prlimit = which('prlimit');
  if (!bwrap) return (checked = { ok: false, reason: "no sandbox: bubblewrap is not installed (Debian's `bubblewrap` package)" });
  if (!prlimit) return (checked = { ok: false, reason: 'no sandbox: prlimit (util-linux) is not installed' });
  const probe = spawnSync(bwrap, ['--unshare-all', '--ro-bind', '/usr', '/usr', ...systemLinks(), '--', '/usr/bin/env', 'true'], {
    encoding: 'utf8',
    uid: isRoot() ? BUILD_UID_BASE : undefined,
    gid: isRoot() ? BUILD_UID_BASE : undefined,
    timeout: 10_000,
  });
  if (probe.status !== 0)
    return (checked = {
      ok: false,
      reason: `no sandbox: bubblewrap cannot make one here (${(probe.stderr || probe.error?.message || 'no reason').trim().split('\n')[0]})`,
    });
  return (checked = { ok: true, bwrap, prlimit });
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** `/bin`, `/lib`, `/lib64`, `/sbin`: links into `/usr` on a merged-/usr system, read-only binds otherwise. */
function systemLinks(): string[] {
  const out: string[] = [];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32']) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) out.push('--symlink', readlinkTarget(dir), dir);
    else if (st.isDirectory()) out.push('--ro-bind', dir, dir);
  }
  return out;
}

function readlinkTarget(p: string): string {
  const real = realpathSync(p);
  return real.startsWith('/usr/') ? real.slice(1) : real;
}

/** Node's own install folder, when it is outside `/usr` (nvm, a tarball in /opt): bound read-only at its path. */
function nodeMounts(): string[] {
  const prefix = dirname(dirname(realpathSync(process.execPath)));
  if (prefix === '/usr' || prefix.startsWith('/usr/')) return [];
  return ['--ro-bind', prefix, prefix];
}

/** How many processes `uid` runs now (for RLIMIT_NPROC when we cannot give the build a user of its own). */
function processCount(uid: number): number {
  let n = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'));
      if (m && Number(m[1]) === uid) n++;
    } catch {
      /* gone */
    }
  }
  return n;
}

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  cpuTicks: number;
  rssPages: number;
}

function readProc(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The command name is in parentheses and may hold spaces: fields start after the last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    out.set(Number(name), { ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]), rssPages: Number(f[21]) });
  }
  return out;
}

/** The sums over `root` and its descendants: processes, CPU seconds, resident bytes. */
export function treeUsage(root: number): { processes: number; cpuSeconds: number; rssBytes: number } {
  const procs = readProc();
  const children = new Map<number, number[]>();
  for (const [pid, s] of procs) {
    const list = children.get(s.ppid);
    if (list) list.push(pid);
    else children.set(s.ppid, [pid]);
  }
  let processes = 0;
  let ticks = 0;
  let pages = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    const s = procs.get(pid);
    if (!s) continue;
    processes++;
    ticks += s.cpuTicks;
    pages += s.rssPages;
    stack.push(...(children.get(pid) ?? []));
  }
  return { processes, cpuSeconds: ticks / 100, rssBytes: pages * 4096 };
}

/** The bubblewrap arguments for `run` (exported for the tests that check what is bound). */
export function bwrapArgs(run: SandboxRun): string[] {
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--uid',
    '1000',
    '--gid',
    '1000',
    '--ro-bind',
    '/usr',
    '/usr',
    ...systemLinks(),
    ...nodeMounts(),
    '--ro-bind',
    run.etcDir,
    '/etc',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(run.limits.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--bind',
    run.projectDir,
    '/project',
  ];
  for (const m of run.readOnly) args.push('--ro-bind', m.host, m.inside);
  // The sandbox's own root (a tmpfs holding the mount points) read-only too: `/escape` fails as `/usr/x` does.
  args.push('--remount-ro', '/', '--chdir', '/project', '--clearenv');
  const env: Record<string, string> = {
    HOME: '/tmp',
    PATH: '/project/node_modules/.bin:/usr/local/bin:/usr/bin:/bin',
    CI: 'true',
    LANG: 'C.UTF-8',
    ...run.env,
  };
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--', '/bin/sh', '-c', run.command);
  return args;
}

/** Run `run.command` in the sandbox under its limits; never throws for what the build does. */
export function runSandboxed(run: SandboxRun): Promise<SandboxResult> {
  const tools = sandboxTools();
  if (!tools.ok) return Promise.reject(new Error(tools.reason));
  const root = isRoot();
  const uid = run.uid;
  const nproc = (root ? 0 : processCount(uid)) + run.limits.processes + NPROC_MARGIN;
  const l = run.limits;
  const prlimitArgs = [
    `--cpu=${l.cpuSeconds + CPU_MARGIN_S}`,
    `--data=${l.memoryBytes}`,
    `--nproc=${nproc}`,
    `--fsize=${l.fileBytes}`,
    '--core=0',
    '--nofile=4096',
    '--',
    tools.bwrap,
    ...bwrapArgs(run),
  ];
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn(tools.prlimit, prlimitArgs, {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: {},
      ...(root ? { uid, gid: uid } : {}),
    });
    let output = '';
    const keep = (d: Buffer) => {
      output += d.toString('utf8');
      if (output.length > OUTPUT_KEEP * 2) output = output.slice(-OUTPUT_KEEP);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let limit: string | undefined;
    const kill = (why: string) => {
      limit ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    const wall = setTimeout(() => kill('time'), l.wallMs);
    const watch = setInterval(() => {
      if (child.pid === undefined) return;
      const u = treeUsage(child.pid);
      if (u.processes >= l.processes) kill('processes');
      else if (u.rssBytes > l.memoryBytes) kill('memory');
      else if (u.cpuSeconds > l.cpuSeconds) kill('cpu');
    }, WATCH_MS);
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(wall);
      clearInterval(watch);
      if (!limit && signal === 'SIGXCPU') limit = 'cpu';
      if (!limit && signal === 'SIGXFSZ') limit = 'file size';
      if (!limit && exitCode !== null) limit = SIGNAL_EXIT[exitCode];
      resolve({ exitCode, signal, ...(limit ? { limit } : {}), ms: Math.round(performance.now() - start), output: output.slice(-OUTPUT_KEEP) });
    };
    child.on('error', (err) => {
      output += `\nthe sandbox could not start: ${err.message}`;
      finish(null, null);
    });
    child.on('close', finish);
  });
}

/** The user a build runs as: as root a fresh unprivileged id (module comment), else our own. */
export function buildUser(): number {
  return isRoot() ? BUILD_UID_BASE + 1 + Math.floor(Math.random() * (BUILD_UID_SPAN - 1)) : process.getuid!();
}

/** Give `dir` and everything in it to `uid` (as root; a no-op otherwise), links themselves and not their targets. */
export function handOver(dir: string, uid: number): void {
  if (!isRoot()) return;
  const walk = (p: string) => {
    lchownSync(p, uid, uid);
    if (lstatSync(p).isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  walk(dir);
}
