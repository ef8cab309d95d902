/**
 * Where the CPU goes while webgrade scores pages (issue 45: heavy pages at concurrency 2 on two cores). Runs
 * `webgrade batch` over a folder of pages in a child process and, every SAMPLE_MS, reads the CPU time of every
 * process under it from /proc (webgrade's node with its threads, Chrome's browser, renderers, GPU process and
 * utilities), and the machine's idle share from /proc/stat. Prints CPU seconds per process kind and per page, the
 * machine's idle share over the run (near 0 %: the run is bound by the cores, and a shorter wall time needs less
 * CPU per page, not more overlap), and the pages' wall times from the rows.
 *
 *   node dist/bench/cpu.js [--dir fixtures/heavy] [--suite extended] [--concurrency 2] [--pages N] [--only ids]
 *
 * `--only` passes metric ids to the batch (`webgrade batch --only`): only the gatherers those metrics need run, so
 * runs with a gatherer's metrics alone say what each gatherer costs (the visit runs under most of them).
 *
 * A process that ends between two samples loses the CPU it used since the last one (at most SAMPLE_MS each: a few
 * renderers per page), so the figures are slightly low. (The parent's reaped-children total cannot stand in: Chrome's
 * processes are not reaped up to it.) A process's kind is read again at every sample: a renderer starts under the
 * zygote's name. The total includes the batch's start (Chrome's launch, the workers' warm-up) and end. Linux only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quantile } from 'simple-statistics';
import { benchArgs, cannotRun, inputDir } from './common.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'bin', 'webgrade.js');
const USAGE = 'usage: node dist/bench/cpu.js [--dir fixtures/heavy] [--suite extended] [--concurrency 2] [--pages N] [--only ids]';
const { values: args } = benchArgs(USAGE, {
  dir: { type: 'string', default: join(here, '..', '..', 'fixtures', 'heavy') },
  suite: { type: 'string', default: 'extended' },
  concurrency: { type: 'number', default: 2 },
  pages: { type: 'number', default: 100 },
  only: { type: 'string' },
});
/** How often the processes are read (ms). */
const SAMPLE_MS = 250;
const TICK = 100; // USER_HZ: Linux reports process and machine CPU times in 1/100 s

/** A process's kind from its command line (Chrome rewrites its children's into one string with spaces). */
function processKind(cmdline: string): string {
  const argv = cmdline.split(/[\0 ]/).filter(Boolean);
  const exe = argv[0] ?? '';
  if (/chrom/i.test(exe)) {
    const type = argv.find((a) => a.startsWith('--type='))?.slice(7);
    if (!type) return /\.sh$|^\/usr\/bin\/chromium$/.test(exe) ? 'chrome launcher' : 'chrome browser';
    if (type === 'utility')
      return `chrome utility ${
        argv
          .find((a) => a.startsWith('--utility-sub-type='))
          ?.split('.')
          .pop() ?? ''
      }`.trim();
    return `chrome ${type}`;
  }
  if (/node$/.test(exe)) return 'webgrade (node)';
  return exe.split('/').pop() || 'other';
}

interface Stat {
  ppid: number;
  start: string;
  /** utime + stime, in ticks. */
  cpu: number;
}

function readStat(pid: string): Stat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), start: f[19]!, cpu: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined;
  }
}

function exeOf(pid: string): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '/proc/self/exe';
  }
}

/** The machine's CPU ticks (all, idle) from /proc/stat's first line. */
function machineTicks(): { all: number; idle: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { all: f.reduce((a, b) => a + b, 0), idle: (f[3] ?? 0) + (f[4] ?? 0) };
}

class Sampler {
  /** Last CPU seen per process (pid and start time), with its kind. */
  private seen = new Map<string, { kind: string; cpu: number }>();
  readonly byKind = new Map<string, number>();

  constructor(private readonly root: number) {}

  sample(): void {
    const stats = new Map<number, Stat & { pid: string }>();
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const s = readStat(pid);
      if (s) stats.set(Number(pid), { ...s, pid });
    }
    const under = (pid: number): boolean => {
      for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
        if (p === this.root) return true;
        p = stats.get(p)?.ppid ?? 0;
      }
      return false;
    };
    for (const [pid, s] of stats) {
      if (!under(pid)) continue;
      const key = `${s.pid}/${s.start}`;
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${s.pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      // Chrome starts some helpers as /proc/self/exe: named by their binary then.
      if (/^\/proc\/self\/exe\b/.test(cmd)) cmd = cmd.replace(/^\/proc\/self\/exe/, exeOf(s.pid));
      let e = this.seen.get(key);
      if (!e) this.seen.set(key, (e = { kind: '', cpu: 0 }));
      // Read again every time: a renderer forked by the zygote carries the zygote's name until it renames itself.
      e.kind = processKind(cmd);
      const d = s.cpu - e.cpu;
      e.cpu = s.cpu;
      if (d > 0) this.byKind.set(e.kind, (this.byKind.get(e.kind) ?? 0) + d / TICK);
    }
  }
}

async function main(): Promise<void> {
  if (!existsSync('/proc/stat')) cannotRun('this benchmark reads /proc (Linux only)');
  const dir = inputDir(args.dir);
  const pages = readdirSync(dir)
    .filter((f) => /\.html?$/i.test(f))
    .sort()
    .slice(0, args.pages);
  if (!pages.length) cannotRun(`no .html page in ${dir}`);
  const work = mkdtempSync(join(tmpdir(), 'webgrade-bench-cpu-'));
  mkdirSync(join(work, 'runs', 'pages'), { recursive: true });
  for (const p of pages) symlinkSync(join(dir, p), join(work, 'runs', 'pages', p));
  const out = join(work, 'rows.jsonl');
  const load0 = loadavg()[0]!;
  const started = new Date().toISOString();
  const m0 = machineTicks();
  const t0 = performance.now();
  const batchArgs = [cli, 'batch', join(work, 'runs'), '--suite', args.suite, '--concurrency', String(args.concurrency), '--out', out];
  if (args.only) batchArgs.push('--only', args.only);
  const child = spawn(process.execPath, batchArgs, {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const sampler = new Sampler(child.pid!);
  const timer = setInterval(() => sampler.sample(), SAMPLE_MS);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearInterval(timer);
  const wall = (performance.now() - t0) / 1000;
  const m1 = machineTicks();
  try {
    if (code !== 0) throw new Error(`webgrade batch exited ${code}: ${stderr.trim().split('\n').pop()}`);
    const rows = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { requirement: string; status: string; ms?: number });
    const sampled = [...sampler.byKind.values()].reduce((a, b) => a + b, 0);
    const idle = (100 * (m1.idle - m0.idle)) / Math.max(1, m1.all - m0.all);
    const ms = rows.map((r) => r.ms ?? 0);
    const q = (p: number) => (ms.length ? quantile(ms, p) / 1000 : NaN);
    console.log(
      `cpu benchmark: ${pages.length} pages from ${dir}, suite ${args.suite}${args.only ? ` (only ${args.only})` : ''}, concurrency ${args.concurrency}; ${cpus().length} cores; started ${started}`,
    );
    console.log(`wall ${wall.toFixed(1)} s; machine idle ${idle.toFixed(1)} %; load average ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`);
    console.log(
      `pages: ${rows.filter((r) => r.status === 'ok').length} scored of ${rows.length}; wall per page median ${q(0.5).toFixed(1)} s, p90 ${q(0.9).toFixed(1)} s`,
    );
    console.log(
      `CPU seconds: ${sampled.toFixed(1)} in all (${(sampled / pages.length).toFixed(1)} per page, the batch's start and end included); by process, sampled every ${SAMPLE_MS} ms:`,
    );
    for (const [kind, s] of [...sampler.byKind].sort((a, b) => b[1] - a[1]))
      console.log(
        `  ${kind.padEnd(34)} ${s.toFixed(1).padStart(7)} s  ${((100 * s) / Math.max(sampled, 1e-9)).toFixed(0).padStart(3)} %  ${(s / pages.length).toFixed(1)} s/page`,
      );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
