/**
 * Judge pipeline benchmark (issue 32): does a batch with LLM judges score pages as fast as one without?
 *
 * A local chat-completions server (test/judges/protocol-judge.ts) answers every judge call validly after
 * `--delay` seconds. Over `--pages` corpus pages (each with a requirement and checklist items, so all five judges
 * are asked), through the real CLI at the default browser concurrency, one after the other in one run (the
 * machine's load is printed with each, since it is shared):
 *   1. `batch` without judges (the study suite minus its five judge metrics);
 *   2. `batch` with them (the whole study suite), judge calls in flight sampled every second;
 *   3. the same again from the judge cache (a new results file): its time and whether its scores are identical;
 *   4. without judges again: the first run also warms what every later run reuses (Chrome's files, the CDN
 *      cache), so the ratio is taken against the mean of both runs without judges;
 *   5. with `--queue` (and redis-server installed): one queue worker with and without judges.
 * Prints pages/min of each, the ratio with/without (goal ≥ 0.9), and the calls in flight over time.
 *
 *   node dist/bench/judge-pipeline.js [--pages 8] [--delay 15] [--dir DIR] [--judge-concurrency N] [--visit-clock real|page] [--queue]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { suiteMetrics } from '../metrics/registry.js';
import { startProtocolJudge } from '../test/judges/protocol-judge.js';
import { redisServerBinary, startRedis } from '../test/queue/redis-server.js';
import { benchArgs, corpusDir, inputDir, usageError } from './common.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'bin', 'webgrade.js');
const USAGE = 'usage: node dist/bench/judge-pipeline.js [--pages 8] [--delay 15] [--dir DIR] [--judge-concurrency N] [--visit-clock real|page] [--queue]';
const { values: args } = benchArgs(USAGE, {
  pages: { type: 'number', default: 8 },
  delay: { type: 'number', default: 15 },
  dir: { type: 'string' },
  'judge-concurrency': { type: 'number' },
  'visit-clock': { type: 'string' },
  queue: { type: 'boolean' },
});
const count = args.pages;
const delayS = args.delay;
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
/** Handed to `webgrade batch` and `worker` as given (they check it); absent, theirs is the default. */
const judgeConcurrency = args['judge-concurrency'] === undefined ? undefined : String(args['judge-concurrency']);
const withQueue = args.queue;
/** Handed to `webgrade batch` as given (it checks it). */
const visitClock = args['visit-clock'];
if (!(count >= 1) || !(delayS >= 0)) usageError(USAGE, '--pages must be ≥ 1 and --delay ≥ 0');

const work = mkdtempSync(join(tmpdir(), 'webgrade-bench-judges-'));
const runs = join(work, 'runs');
mkdirSync(join(runs, 'corpus'), { recursive: true });
const pages = readdirSync(dir)
  .filter((f) => /\.html?$/i.test(f))
  .sort()
  .slice(0, count);
for (const p of pages) symlinkSync(join(dir, p), join(runs, 'corpus', p));
const reqs = join(work, 'reqs.jsonl');
const checklist = {
  functional: ['The main action works', 'Inputs are validated'],
  visual: ['A clear, tidy layout'],
  content: ['A heading says what the tool does'],
};
writeFileSync(reqs, pages.map((p) => JSON.stringify({ id: p.replace(/\.html?$/i, ''), requirement: `A single-page tool: ${p}`, checklist })).join('\n') + '\n');
const judgeIds = suiteMetrics('study')
  .filter((m) => m.kind === 'judge')
  .map((m) => m.id);
const ruleOnly = suiteMetrics('study')
  .filter((m) => m.kind !== 'judge')
  .map((m) => m.id)
  .join(',');

const server = await startProtocolJudge({ delayMs: delayS * 1000 });
const cacheDir = join(work, 'cache');
const env = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'bench', WEBGRADE_JUDGE_MODEL: 'bench-judge', WEBGRADE_CACHE_DIR: cacheDir };
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

interface Row {
  requirement: string;
  status: string;
  metrics: Array<{ id: string; kind: string; score: number | null; reason?: string }>;
}
const rowsOf = (out: string): Row[] =>
  readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

/** Sample the judge calls in flight every second while `run` goes. */
async function sampled<T>(run: () => Promise<T>): Promise<{ value: T; inFlight: number[] }> {
  const inFlight: number[] = [];
  const t = setInterval(() => inFlight.push(server.inFlight), 1000);
  try {
    return { value: await run(), inFlight };
  } finally {
    clearInterval(t);
  }
}

function childDone(child: ChildProcess, what: string): Promise<void> {
  return new Promise((res, rej) => child.once('exit', (code) => (code === 0 ? res() : rej(new Error(`${what} exited ${code}`)))));
}

async function batch(name: string, only?: string): Promise<{ seconds: number; rows: Row[] }> {
  const out = join(work, `${name}.jsonl`);
  const args = [
    cli,
    'batch',
    runs,
    '--out',
    out,
    '--requirements',
    reqs,
    ...(only ? ['--only', only] : []),
    ...(judgeConcurrency ? ['--judge-concurrency', judgeConcurrency] : []),
    ...(visitClock ? ['--visit-clock', visitClock] : []),
  ];
  const t = performance.now();
  await childDone(spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] }), `batch (${name})`);
  const seconds = (performance.now() - t) / 1000;
  const rows = rowsOf(out);
  if (!rows.some((r) => r.status === 'ok')) throw new Error(`batch (${name}) scored no page`);
  return { seconds, rows };
}

const perMin = (s: number) => (pages.length * 60) / s;
const judgeScores = (rows: Row[]) => JSON.stringify(rows.map((r) => [r.requirement, r.metrics.filter((m) => m.kind === 'judge').map((m) => m.score)]).sort());
const unscorableJudges = (rows: Row[]) => rows.flatMap((r) => r.metrics.filter((m) => m.kind === 'judge' && m.score === null)).length;
/** The (page, judge metric) pairs whose scores differ between two runs. */
function differing(a: Row[], b: Row[]): string[] {
  const score = (rows: Row[], req: string, id: string) => rows.find((r) => r.requirement === req)?.metrics.find((m) => m.id === id)?.score;
  return a.flatMap((r) => r.metrics.filter((m) => m.kind === 'judge' && score(b, r.requirement, m.id) !== m.score).map((m) => `${r.requirement} ${m.id}`));
}
const series = (xs: number[]) => xs.filter((_, i) => i % 5 === 0).join(' ');

async function viaQueue(redisUrl: string, name: string, only?: string): Promise<number> {
  const add = spawnSync(
    process.execPath,
    [cli, 'queue', 'add', runs, '--redis', redisUrl, '--queue', name, '--requirements', reqs, ...(only ? ['--only', only] : [])],
    { stdio: 'ignore', env },
  );
  if (add.status !== 0) throw new Error('queue add failed');
  const client = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const q = new Queue(name, { connection: client });
  const t = performance.now();
  const w = spawn(
    process.execPath,
    [cli, 'worker', '--redis', redisUrl, '--queue', name, '--quiet', ...(judgeConcurrency ? ['--judge-concurrency', judgeConcurrency] : [])],
    { stdio: 'ignore', env },
  );
  while ((await q.getJobCounts('completed')).completed < pages.length) await new Promise((r) => setTimeout(r, 200));
  const seconds = (performance.now() - t) / 1000;
  await new Promise((r) => {
    w.once('exit', r);
    w.kill('SIGTERM');
  });
  await q.close();
  client.disconnect();
  return seconds;
}

try {
  console.log(`judge pipeline bench: ${pages.length} pages, judges answer after ${delayS} s, ${cpus().length} cores, load at start ${load()}`);
  const bare = await batch('without-judges', ruleOnly);
  console.log(`batch without judges: ${bare.seconds.toFixed(1)} s, ${perMin(bare.seconds).toFixed(2)} pages/min (load ${load()})`);
  const judged = await sampled(() => batch('with-judges'));
  const j = judged.value;
  console.log(
    `batch with judges:    ${j.seconds.toFixed(1)} s, ${perMin(j.seconds).toFixed(2)} pages/min (load ${load()}); ${server.requests.length} judge calls, ${unscorableJudges(j.rows)} judge metrics unscorable`,
  );
  console.log(`ratio with/without judges: ${(bare.seconds / j.seconds).toFixed(2)} (goal ≥ 0.9)`);
  console.log(`judge calls in flight, every 5 s: ${series(judged.inFlight)} (most at once: ${server.maxInFlight})`);
  const calls = server.requests.length;
  const cached = await batch('from-cache');
  const same = judgeScores(cached.rows) === judgeScores(j.rows);
  console.log(
    `batch again from the judge cache: ${cached.seconds.toFixed(1)} s, ${perMin(cached.seconds).toFixed(2)} pages/min (load ${load()}); ${server.requests.length - calls} judge calls; judge scores identical: ${same}`,
  );
  // A screenshot judge is asked again when the page's screenshot differs from the first run's (its cache key is its input).
  if (!same) console.log(`judge scores that differ: ${differing(j.rows, cached.rows).join(', ')}`);
  const bare2 = await batch('without-judges-again', ruleOnly);
  const bareMean = (bare.seconds + bare2.seconds) / 2;
  console.log(`batch without judges, again: ${bare2.seconds.toFixed(1)} s, ${perMin(bare2.seconds).toFixed(2)} pages/min (load ${load()})`);
  console.log(`ratio with judges / mean of both without: ${(bareMean / j.seconds).toFixed(2)} (goal ≥ 0.9)`);
  if (withQueue) {
    const bin = redisServerBinary();
    if ('skip' in bin) console.log(`queue: not measured (${bin.skip})`);
    else {
      const redis = await startRedis(bin.path);
      try {
        const qBare = await viaQueue(redis.url, 'bench-bare', ruleOnly);
        rmSync(cacheDir, { recursive: true, force: true }); // the queue's judges start from a cold cache too
        const qJudged = await viaQueue(redis.url, 'bench-judged');
        console.log(
          `queue, 1 worker: without judges ${perMin(qBare).toFixed(2)} pages/min, with judges ${perMin(qJudged).toFixed(2)} pages/min; ratio ${(qBare / qJudged).toFixed(2)} (goal ≥ 0.9; load ${load()})`,
        );
      } finally {
        await redis.stop();
      }
    }
  }
  console.log(`judge metrics: ${judgeIds.join(', ')}`);
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
