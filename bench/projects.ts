/**
 * Projects benchmark (issue 48): N copies of the React fixture (fixtures/projects/react-app) as N models, prepared
 * one after the other through project/build.ts against a store that starts empty. Prints the first project's
 * install (the store filled: downloads, registry bytes, seconds), then for the N warm installs and the N builds
 * the median and the largest seconds, and the downloads of all warm installs together (0 when the store was filled
 * once), and the store's size before and after the N projects.
 *
 * Then the alternative the issue asks to measure: npm's own cache (`npm install --ignore-scripts --prefer-offline
 * --cache DIR`, a content-addressed cache too), filled by one install and then used by `--npm` fresh copies:
 * seconds per warm install and the bytes each project's `node_modules` takes on disk (npm unpacks a full copy per
 * project; pnpm hard-links the store's files, so a project costs its links only, which the pnpm lines show as the
 * bytes its `node_modules` adds beyond the store).
 *
 *   node dist/bench/projects.js [--copies 20] [--npm 3]
 *
 * Needs bubblewrap and the npm registry; exits with CANNOT_RUN when either is missing.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Projects } from '../project/build.js';
import { sandboxTools } from '../project/sandbox.js';
import { benchArgs, cannotRun } from './common.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, '..', '..', 'fixtures', 'projects', 'react-app');
const { values: args } = benchArgs('usage: node dist/bench/projects.js [--copies 20] [--npm 3]', {
  copies: { type: 'number', default: 20 },
  npm: { type: 'number', default: 3 },
});
const copies = args.copies;
const npmCopies = args.npm;

/** Bytes of the files under `dir`, a file with several links counted once (by inode), as `du` does. */
function diskBytes(dir: string, seen = new Set<string>()): number {
  let total = 0;
  const walk = (p: string) => {
    const st = lstatSync(p);
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
    else total += st.blocks * 512;
  };
  walk(dir);
  return total;
}

const mb = (b: number) => `${(b / 1024 ** 2).toFixed(1)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function pnpmRuns(work: string): Promise<void> {
  const storeDir = join(work, 'store');
  const projects = new Projects({ storeDir });
  try {
    const first = await projects.prepare(cpCopy(work, 'model-0'));
    first.cleanup();
    if (first.evidence.status !== 'built') throw new Error(`the first project was not built: ${first.evidence.reason}`);
    const fi = first.evidence.install!;
    const filled = diskBytes(storeDir);
    console.log(
      `pnpm store, filled by the first project: ${fi.downloads} tarballs, ${mb(fi.registryBytes)} from the registry, install ${s(fi.ms)}, build ${s(first.evidence.build!.ms)}; store ${mb(filled)}`,
    );
    const installs: number[] = [];
    const builds: number[] = [];
    let downloads = 0;
    let linkBytes = 0;
    for (let i = 1; i <= copies; i++) {
      const p = await projects.prepare(cpCopy(work, `model-${i}`));
      if (p.evidence.status !== 'built') throw new Error(`model-${i} was not built: ${p.evidence.reason}`);
      if (i === 1 && p.outputDir) {
        // The project's node_modules beyond the store: the work folder is the output's grandparent's parent.
        const seen = new Set<string>();
        diskBytes(storeDir, seen);
        linkBytes = diskBytes(join(p.outputDir, '..', '..', 'install'), seen);
      }
      p.cleanup();
      installs.push(p.evidence.install!.ms);
      builds.push(p.evidence.build!.ms);
      downloads += p.evidence.install!.downloads;
    }
    console.log(
      `pnpm, ${copies} warm projects: install median ${s(median(installs))}, max ${s(Math.max(...installs))}; build median ${s(median(builds))}, max ${s(Math.max(...builds))}; downloads ${downloads}; store ${mb(diskBytes(storeDir))} (was ${mb(filled)}); a project's node_modules beyond the store ${mb(linkBytes)}`,
    );
  } finally {
    await projects.close();
  }
}

function cpCopy(work: string, name: string): string {
  const dir = join(work, 'runs', name, 'app');
  cpSync(fixture, dir, { recursive: true });
  return dir;
}

function npmRuns(work: string): void {
  if (npmCopies <= 0) return;
  const cache = join(work, 'npm-cache');
  const install = (dir: string) => {
    const t = performance.now();
    const r = spawnSync('npm', ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--cache', cache], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`npm install failed: ${r.stderr.trim().split('\n').pop()}`);
    return performance.now() - t;
  };
  const cold = install(cpCopy(work, 'npm-0'));
  const times: number[] = [];
  let bytes = 0;
  for (let i = 1; i <= npmCopies; i++) {
    const dir = cpCopy(work, `npm-${i}`);
    times.push(install(dir));
    bytes = diskBytes(join(dir, 'node_modules'));
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `npm cache: cold install ${s(cold)}, cache ${mb(diskBytes(cache))}; ${npmCopies} warm projects: install median ${s(median(times))}, max ${s(Math.max(...times))}; a project's node_modules ${mb(bytes)} on disk (a full copy each)`,
  );
}

async function main(): Promise<void> {
  const tools = sandboxTools();
  if (!tools.ok) cannotRun(tools.reason);
  if (!statSync(fixture).isDirectory()) cannotRun(`the React fixture ${fixture} is absent`);
  const work = mkdtempSync(join(tmpdir(), 'webgrade-bench-projects-'));
  console.log(
    `projects benchmark: ${copies} copies of the React fixture; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}; ${new Date().toISOString()}`,
  );
  try {
    await pnpmRuns(work);
    npmRuns(work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`load at the end ${loadavg()[0]!.toFixed(2)}`);
}

main().catch((err: unknown) => {
  const msg = (err as Error).message;
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|registry/i.test(msg) && /fetch|connect|resolve/i.test(msg)) cannotRun(`the npm registry is not reachable (${msg})`);
  process.stderr.write(`${msg}\n`);
  process.exit(1);
});
