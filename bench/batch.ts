/**
 * Batch benchmark (issue: leaderboards): `webgrade batch` over N corpus pages with `--concurrency 1` and then
 * `2` (rule metrics only: no judge is reachable here), through the real CLI in a child process. Prints pages
 * per minute for each, and for the Lighthouse-based metrics (performance, accessibility, best-practices) the
 * largest and the mean absolute change of a page's score between the two runs, which tells whether parallel
 * Lighthouse runs skew scores on this machine (Lighthouse warns that they do).
 *
 *   node dist/bench/batch.js [--pages 60] [--dir DIR] [--concurrency 1,2] [--browsers default,/path/to/chromium]
 *
 * `--browsers` runs the whole measurement once per browser, in this one run (`default`: the Chromium webgrade finds
 * itself; a path is given to the batch as CHROME_PATH), so that two Chromium versions are compared on one machine
 * state; `--concurrency` lists the concurrencies measured for each (the score comparison needs 1 and 2).
 *
 * The runs folder is made in the system temp dir (symlinks to the corpus pages as runs/corpus/<id>.html).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, corpusDir, inputDir } from './common.js';
import { findChrome } from '../gather/chrome.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'bin', 'webgrade.js');
const { values: args } = benchArgs('usage: node dist/bench/batch.js [--pages 60] [--dir DIR] [--concurrency 1,2] [--browsers default,PATH]', {
  pages: { type: 'number', default: 60 },
  dir: { type: 'string' },
  concurrency: { type: 'string', default: '1,2' },
  browsers: { type: 'string', default: 'default' },
});
const concurrencies = args.concurrency.split(',').map((c) => {
  const n = Number(c);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--concurrency: "${c}" is not a whole number ≥ 1`);
  return n;
});
const browsers = args.browsers.split(',').filter(Boolean);
const count = args.pages;
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const LH = ['performance', 'accessibility', 'best-practices'];

interface Row {
  requirement: string;
  status: string;
  metrics: Array<{ id: string; score: number | null }>;
}

function run(runs: string, concurrency: number, browser: string): { seconds: number; rows: Row[] } {
  const out = join(runs, '..', `results-c${concurrency}-${browsers.indexOf(browser)}.jsonl`);
  const env = browser === 'default' ? process.env : { ...process.env, CHROME_PATH: browser };
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli, 'batch', runs, '--out', out, '--concurrency', String(concurrency)], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  const seconds = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`batch --concurrency ${concurrency} exited ${r.status}`);
  const rows = readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
  // batch records a page it could not score as a failed row and goes on: pages per minute would then mean nothing.
  if (!rows.some((row) => row.status === 'ok')) throw new Error(`batch --concurrency ${concurrency} scored no page (see its messages above)`);
  return { seconds, rows };
}

function main(): void {
  const work = mkdtempSync(join(tmpdir(), 'webgrade-bench-batch-'));
  const runs = join(work, 'runs');
  mkdirSync(join(runs, 'corpus'), { recursive: true });
  const pages = readdirSync(dir)
    .filter((f) => /\.html?$/i.test(f))
    .sort()
    .slice(0, count);
  for (const p of pages) symlinkSync(join(dir, p), join(runs, 'corpus', p));
  try {
    console.log(
      `${pages.length} pages; ${cpus().length} cores; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}; ${new Date().toISOString()}`,
    );
    for (const browser of browsers) measure(runs, pages.length, browser);
    console.log(
      `load average at the end ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every concurrency on one browser: pages per minute, and how the Lighthouse scores move between 1 and 2. */
function measure(runs: string, pages: number, browser: string): void {
  const bin = browser === 'default' ? (findChrome() ?? 'none found') : browser;
  const version = spawnSync(bin === '/usr/bin/chromium' ? '/usr/lib/chromium/chromium' : bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  console.log(`browser: ${bin} (${version.stdout?.trim() || 'version unknown'})`);
  const byC = new Map<number, { seconds: number; rows: Row[] }>();
  const failed = (rows: Row[]) => rows.filter((r) => r.status !== 'ok').length;
  for (const c of concurrencies) {
    const res = run(runs, c, browser);
    byC.set(c, res);
    console.log(`  --concurrency ${c}: ${res.seconds.toFixed(1)} s, ${((60 * pages) / res.seconds).toFixed(1)} pages/min (${failed(res.rows)} failed)`);
  }
  const one = byC.get(1);
  const two = byC.get(2);
  if (!one || !two) return;
  const byReq = (rows: Row[]) => new Map(rows.map((r) => [r.requirement, r]));
  const a = byReq(one.rows);
  const b = byReq(two.rows);
  for (const id of LH) {
    const diffs: Array<{ page: string; d: number }> = [];
    for (const [req, ra] of a) {
      const sa = ra.metrics.find((m) => m.id === id)?.score;
      const sb = b.get(req)?.metrics.find((m) => m.id === id)?.score;
      if (typeof sa === 'number' && typeof sb === 'number') diffs.push({ page: req, d: sb - sa });
    }
    if (!diffs.length) {
      console.log(`  ${id}: no page scored in both runs`);
      continue;
    }
    const worst = diffs.reduce((x, y) => (Math.abs(y.d) > Math.abs(x.d) ? y : x));
    const mean = diffs.reduce((s, x) => s + Math.abs(x.d), 0) / diffs.length;
    const changed = diffs.filter((x) => x.d !== 0).length;
    console.log(
      `  ${id}: largest change ${worst.d.toFixed(1)} points (${worst.page}); mean |change| ${mean.toFixed(2)}; ${changed} of ${diffs.length} pages changed`,
    );
  }
}

main();
