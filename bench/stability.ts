/**
 * Stability benchmark (issue "Numbers that hold still"): the same corpus pages scored twice at concurrency 1 (runs
 * A and B) and once at concurrency 2 (run C), all through `batch` (distribute/batch.ts, the product's own path), in
 * the default network mode. Prints:
 *
 * 1. per metric: between-page sd, test–retest sd (A vs B, over pages scorable in both) and their ratio (goal:
 *    retest ≤ 1/5 of between, or the metric's weight is guarded), the pages whose score changed A→B, and the
 *    largest change A→B and A→C (goal: no metric changes more between concurrency 1 and 2 than between two runs at
 *    concurrency 1);
 * 2. the per-page overall (persona all, population z over A ∪ B, the leaderboard's arithmetic) difference between
 *    A and B: median and p90 in % of one SD (goal p90 ≤ 2%);
 * 3. a leaderboard of the pages split into pseudo-models (by a hash of the page name), from A and from B: whether
 *    every pair of models the bootstrap calls apart in A keeps its order in B;
 * 4. throughput: pages per minute at concurrency 1 (A) and 2 (C) (goal C ≥ 18 pages/min); the median Lighthouse
 *    lock wait at concurrency 2;
 * 5. pictures (issue "Evidence that does not depend on the wall clock"): the share of pages whose kept pictures
 *    (`<run>.evidence/`, WebP of the screenshots and metric pictures) are byte-identical between A and B, for the
 *    visit's desktop screenshot alone and for every picture; and the pages on which `performance` moved (goal ≤ 2).
 *    Identical WebP bytes mean identical pixels (the encoder is deterministic); a difference can be one pixel.
 *
 *   node dist/bench/stability.js [--pages 60] [--dir DIR] [--out DIR] [--models 6] [--lighthouse-runs N] [--visit-clock real|page] [--heavy] [--reuse DIR | --reuse-all DIR]
 *
 * Pages: the first N in name order of the corpus, but every page with a CSS animation, requestAnimationFrame or a
 * canvas is put first (so that animated and canvas pages are always in the sample).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantile, sampleStandardDeviation } from 'simple-statistics';
import { runBatch, type BatchJob } from '../distribute/batch.js';
import { readResults } from '../store/results-file.js';
import type { ResultRow } from '../core/results.js';
import { populationFromRows } from '../weights/aggregate.js';
import { leaderboardFromPopulation } from '../weights/leaderboard.js';
import { presetWeights } from '../weights/personas.js';
import { benchArgs, corpusDir, inputDir, usageError } from './common.js';
import { DEFAULT_VISIT_CLOCK, VISIT_CLOCKS, type VisitClockMode } from '../core/visit-clock.js';

const USAGE =
  'usage: node dist/bench/stability.js [--pages 60] [--dir DIR] [--out DIR] [--models 6] [--lighthouse-runs N] [--visit-clock real|page] [--heavy] [--reuse DIR | --reuse-all DIR]';
const { values: args } = benchArgs(USAGE, {
  pages: { type: 'number', default: 60 },
  dir: { type: 'string' },
  out: { type: 'string' },
  models: { type: 'number', default: 6 },
  'lighthouse-runs': { type: 'number' },
  'visit-clock': { type: 'string' },
  heavy: { type: 'boolean' },
  reuse: { type: 'string' },
  'reuse-all': { type: 'string' },
});
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const n = args.pages;
const models = args.models;
const out = args.out ?? mkdtempSync(join(tmpdir(), 'webgrade-stability-'));
const lighthouseRuns = args['lighthouse-runs'];
const visitClock = args['visit-clock'];
if (visitClock !== undefined && !(VISIT_CLOCKS as readonly string[]).includes(visitClock))
  usageError(USAGE, `--visit-clock ${visitClock}: expected one of ${VISIT_CLOCKS.join(', ')}`);
mkdirSync(out, { recursive: true });

const all = readdirSync(dir)
  .filter((f) => f.endsWith('.html'))
  .sort();
const moving = all.filter((f) => /@keyframes|requestAnimationFrame|<canvas/.test(readFileSync(join(dir, f), 'utf8')));
const pages = [...moving.slice(0, Math.floor(n / 3)), ...all.filter((f) => !moving.includes(f))].slice(0, n);
const modelOf = (f: string) => `pseudo-${createHash('sha1').update(f).digest()[0]! % models}`;
/** The pages by key (`heavy-<name>` for the heavy fixtures `--heavy` adds). */
const entries = pages.map((f) => ({ key: f.replace(/\.html$/, ''), path: join(dir, f) }));
if (args.heavy) {
  const heavy = join(import.meta.dirname, '..', '..', 'fixtures', 'heavy');
  for (const f of readdirSync(heavy)
    .filter((x) => x.endsWith('.html'))
    .sort())
    entries.push({ key: `heavy-${f.replace(/\.html$/, '')}`, path: join(heavy, f) });
}
const keys = entries.map((e) => e.key);
const jobs: BatchJob[] = entries.map((e) => ({ model: modelOf(`${e.key}.html`), requirement: e.key, path: e.path }));

/**
 * `--reuse DIR`: the two runs at concurrency 1 are read from an earlier run's folder (to try a change that only
 * acts at concurrency 2); `--reuse-all DIR`: all three (to analyse a finished run again). A reused run's minutes
 * are its rows' span: from the first row's start (its `finishedAt` less its `ms`) to the last row's `finishedAt`,
 * which leaves out the workers' start-up.
 */
const reuseAll = args['reuse-all'];
const reuse = args.reuse ?? reuseAll;

/** The minutes a results file's rows span (see `--reuse`). */
function spanMinutes(rows: ResultRow[]): number {
  const ends = rows.map((r) => Date.parse(r.finishedAt ?? ''));
  const starts = rows.map((r, i) => ends[i]! - (r.ms ?? 0));
  return (Math.max(...ends) - Math.min(...starts)) / 60_000;
}

async function run(name: string, concurrency: number): Promise<{ rows: ResultRow[]; minutes: number }> {
  if (reuse && (concurrency === 1 || reuseAll)) {
    const rows = readResults(join(reuse, `${name}.jsonl`)).rows;
    return { rows, minutes: spanMinutes(rows) };
  }
  const file = join(out, `${name}.jsonl`);
  const t = Date.now();
  await runBatch(jobs, {
    out: file,
    evidence: { root: join(out, `${name}.evidence`), base: out },
    concurrency,
    budgetMs: 60_000,
    ...(lighthouseRuns ? { lighthouseRuns } : {}),
    ...(visitClock ? { visitClock: visitClock as VisitClockMode } : {}),
    onProgress: (p) => process.stderr.write(`${name} ${p.done}/${p.total}\r`),
  });
  return { rows: readResults(file).rows, minutes: (Date.now() - t) / 60_000 };
}

const A = await run('a-c1', 1);
const B = await run('b-c1', 1);
const C = await run('c-c2', 2);
const byKey = (rows: ResultRow[]) => new Map(rows.filter((r) => r.status === 'ok').map((r) => [r.requirement, r]));
const [a, b, c] = [byKey(A.rows), byKey(B.rows), byKey(C.rows)];
const score = (r: ResultRow | undefined, id: string) => r?.metrics.find((m) => m.id === id)?.score ?? null;
const ids = [...new Set(A.rows.flatMap((r) => r.metrics.map((m) => m.id)))];

const lines: string[] = [];
lines.push(
  `${entries.length} pages (${moving.filter((f) => pages.includes(f)).length} animated or canvas, ${entries.length - pages.length} heavy fixtures), ${models} pseudo-models, visit clock ${visitClock ?? DEFAULT_VISIT_CLOCK}; results in ${out}`,
);
lines.push('');
lines.push('metric                      between sd  retest sd  ratio   changed A→B  max |A−B|  max |A−C|');
for (const id of ids) {
  const pairs = keys.map((k) => [score(a.get(k), id), score(b.get(k), id), score(c.get(k), id)] as const);
  const ab = pairs.filter((p): p is readonly [number, number, number | null] => p[0] !== null && p[1] !== null);
  if (ab.length < 3) {
    lines.push(`${id.padEnd(27)} n/a (scorable on ${ab.length} pages)`);
    continue;
  }
  const between = sampleStandardDeviation(ab.map((p) => (p[0] + p[1]) / 2));
  // Test–retest sd from pairs: sqrt(mean((a−b)²) / 2).
  const retest = Math.sqrt(ab.reduce((s, p) => s + (p[0] - p[1]) ** 2, 0) / ab.length / 2);
  const changed = ab.filter((p) => p[0] !== p[1]).length;
  const maxAB = Math.max(...ab.map((p) => Math.abs(p[0] - p[1])));
  const ac = ab.filter((p) => p[2] !== null).map((p) => Math.abs(p[0] - (p[2] as number)));
  lines.push(
    `${id.padEnd(27)} ${between.toFixed(2).padStart(10)} ${retest.toFixed(2).padStart(10)} ${(between > 0 ? retest / between : 0).toFixed(3).padStart(6)}   ${`${changed}/${ab.length}`.padStart(11)}  ${maxAB.toFixed(1).padStart(9)}  ${(ac.length ? Math.max(...ac) : 0).toFixed(1).padStart(9)}`,
  );
}

// Per-page overall: population z over A ∪ B (each run's rows as one "model" per page so that every page keeps its own overall).
const weights = presetWeights('all');
const perPage = (rows: ResultRow[], tag: string) => rows.map((r) => ({ ...r, model: `${tag}:${r.requirement}` }));
const pop = populationFromRows([...perPage(A.rows, 'A'), ...perPage(B.rows, 'B')], new Set(Object.keys(weights.metrics)));
const doc = leaderboardFromPopulation(pop, weights, { iterations: 0 });
const overall = new Map(doc.models.map((m) => [m.model, m.overall]));
const diffs = keys.map((k) => Math.abs((overall.get(`A:${k}`) ?? NaN) - (overall.get(`B:${k}`) ?? NaN))).filter((d) => Number.isFinite(d));
lines.push('');
lines.push(
  `per-page overall A vs B (% of one SD): median ${(100 * quantile(diffs, 0.5)).toFixed(2)}, p90 ${(100 * quantile(diffs, 0.9)).toFixed(2)} (goal ≤ 0.5), max ${(100 * Math.max(...diffs)).toFixed(2)}`,
);

// Pseudo-model leaderboards from A and from B.
const board = (rows: ResultRow[]) =>
  leaderboardFromPopulation(populationFromRows(rows, new Set(Object.keys(weights.metrics))), weights, { iterations: 1000, seed: 1 });
const la = board(A.rows);
const lb = board(B.rows);
const rankB = new Map(lb.models.map((m) => [m.model, m.rank]));
let apart = 0;
let kept = 0;
for (const [i, x] of la.models.entries()) {
  for (const y of la.models.slice(i + 1)) {
    const p = la.bootstrap?.pAhead[x.model]?.[y.model] ?? 0;
    if (p < 0.95) continue;
    apart++;
    if ((rankB.get(x.model) ?? 0) < (rankB.get(y.model) ?? 0)) kept++;
  }
}
lines.push(`pseudo-model order A: ${la.models.map((m) => m.model).join(' > ')}`);
lines.push(`pseudo-model order B: ${lb.models.map((m) => m.model).join(' > ')}`);
lines.push(`pairs apart in A (bootstrap ≥ 95%): ${apart}; of those in the same order in B: ${kept}`);

const lockWaits = C.rows.map((r) => r.timings?.lighthouseLockWait).filter((x): x is number => typeof x === 'number');
lines.push('');
lines.push(
  `pages per minute: concurrency 1 ${(entries.length / A.minutes).toFixed(1)} and ${(entries.length / B.minutes).toFixed(1)}, concurrency 2 ${(entries.length / C.minutes).toFixed(1)} (goal ≥ 18)`,
);
if (lockWaits.length)
  lines.push(
    `Lighthouse lock wait at concurrency 2 (s): median ${(quantile(lockWaits, 0.5) / 1000).toFixed(2)}, p90 ${(quantile(lockWaits, 0.9) / 1000).toFixed(2)}`,
  );
lines.push('');
lines.push(...pictureIdentity(reuse ?? out));
const perf = keys.filter((k) => {
  const [x, y] = [score(a.get(k), 'performance'), score(b.get(k), 'performance')];
  return x !== null && y !== null && x !== y;
});
lines.push(`performance moved A→B on ${perf.length} pages (goal ≤ 2)${perf.length ? `: ${perf.join(', ')}` : ''}`);
process.stdout.write(lines.join('\n') + '\n');

/** Lines on the pictures kept by runs A and B (folders `a-c1.evidence` and `b-c1.evidence` in `dir`). */
function pictureIdentity(dir: string): string[] {
  const rootA = join(dir, 'a-c1.evidence');
  const rootB = join(dir, 'b-c1.evidence');
  if (!existsSync(rootA) || !existsSync(rootB)) return ['pictures: no evidence folders (a run reused from before they were kept)'];
  let pagesBoth = 0;
  let desktopSame = 0;
  let allSame = 0;
  const differing: string[] = [];
  for (const job of jobs) {
    const da = join(rootA, job.model, job.requirement);
    const db = join(rootB, job.model, job.requirement);
    if (!existsSync(join(da, 'desktop.webp')) || !existsSync(join(db, 'desktop.webp'))) continue;
    pagesBoth++;
    const same = (f: string) => existsSync(join(db, f)) && readFileSync(join(da, f)).equals(readFileSync(join(db, f)));
    if (same('desktop.webp')) desktopSame++;
    const files = new Set([...readdirSync(da), ...readdirSync(db)]);
    const moved = [...files].filter((f) => !existsSync(join(da, f)) || !same(f));
    if (moved.length === 0) allSame++;
    else differing.push(`${job.requirement} (${moved.map((f) => f.replace(/\.webp$/, '')).join(', ')})`);
  }
  const pct = (x: number) => (pagesBoth ? ((100 * x) / pagesBoth).toFixed(1) : 'n/a');
  return [
    `pictures byte-identical A vs B, of ${pagesBoth} pages with a desktop screenshot in both: desktop screenshot ${desktopSame} (${pct(desktopSame)} %), every picture ${allSame} (${pct(allSame)} %) (goal ≥ 95 %)`,
    ...differing.slice(0, 40).map((d) => `  differs: ${d}`),
  ];
}
