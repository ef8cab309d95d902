/**
 * Batch benchmark (issue: leaderboards): `webgrade batch` over N corpus pages with `--concurrency 1` and then
 * `2` (rule metrics only: no judge is reachable here), through the real CLI in a child process. Prints pages
 * per minute for each, and for the Lighthouse-based metrics (performance, accessibility, best-practices) the
 * largest and the mean absolute change of a page's score between the two runs, which tells whether parallel
 * Lighthouse runs skew scores on this machine (Lighthouse warns that they do).
 *
 *   node dist/bench/batch.js [--pages 60] [--dir DIR]
 *
 * The runs folder is made in the system temp dir (symlinks to the corpus pages as runs/corpus/<id>.html).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, corpusDir, inputDir } from './common.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'bin', 'webgrade.js');
const { values: args } = benchArgs('usage: node dist/bench/batch.js [--pages 60] [--dir DIR]', {
  pages: { type: 'number', default: 60 },
  dir: { type: 'string' },
});
const count = args.pages;
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const LH = ['performance', 'accessibility', 'best-practices'];

interface Row {
  requirement: string;
  status: string;
  metrics: Array<{ id: string; score: number | null }>;
}

function run(runs: string, concurrency: number): { seconds: number; rows: Row[] } {
  const out = join(runs, '..', `results-c${concurrency}.jsonl`);
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli, 'batch', runs, '--out', out, '--concurrency', String(concurrency)], { stdio: ['ignore', 'ignore', 'inherit'] });
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
    const one = run(runs, 1);
    const two = run(runs, 2);
    const byReq = (rows: Row[]) => new Map(rows.map((r) => [r.requirement, r]));
    const a = byReq(one.rows);
    const b = byReq(two.rows);
    console.log(
      `${pages.length} pages; ${cpus().length} cores; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    const failed = (rows: Row[]) => rows.filter((r) => r.status !== 'ok').length;
    console.log(`--concurrency 1: ${one.seconds.toFixed(1)} s, ${((60 * pages.length) / one.seconds).toFixed(1)} pages/min (${failed(one.rows)} failed)`);
    console.log(`--concurrency 2: ${two.seconds.toFixed(1)} s, ${((60 * pages.length) / two.seconds).toFixed(1)} pages/min (${failed(two.rows)} failed)`);
    for (const id of LH) {
      const diffs: Array<{ page: string; d: number }> = [];
      for (const [req, ra] of a) {
        const sa = ra.metrics.find((m) => m.id === id)?.score;
        const sb = b.get(req)?.metrics.find((m) => m.id === id)?.score;
        if (typeof sa === 'number' && typeof sb === 'number') diffs.push({ page: req, d: sb - sa });
      }
      if (!diffs.length) {
        console.log(`${id}: no page scored in both runs`);
        continue;
      }
      const worst = diffs.reduce((x, y) => (Math.abs(y.d) > Math.abs(x.d) ? y : x));
      const mean = diffs.reduce((s, x) => s + Math.abs(x.d), 0) / diffs.length;
      const changed = diffs.filter((x) => x.d !== 0).length;
      console.log(
        `${id}: largest change ${worst.d.toFixed(1)} points (${worst.page}); mean |change| ${mean.toFixed(2)}; ${changed} of ${diffs.length} pages changed`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
