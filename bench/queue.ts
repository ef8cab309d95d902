/**
 * Work-queue benchmark (issue 21): the same pages scored by `webgrade batch` (--concurrency 1 and 2) and through
 * the queue by 1 and then 2 `webgrade worker` processes, with a real redis-server on a loopback port. Prints pages
 * per minute for each, the queue's overhead per job, and the recovery time after a SIGKILL.
 *
 *   node dist/bench/queue.js [--pages 10] [--dir DIR] [--only ids] [--stall-timeout 30]
 *
 * - Overhead per job, from BullMQ's own timestamps and the rows: (finishedOn − processedOn − the row's `ms`, the
 *   time the batch pool spent on the artifact) + the gap before a worker's next job (previous finishedOn → next
 *   processedOn): fetching the job, writing the artifact's files, storing the row, taking the next job.
 * - Recovery: two workers (default stall timeout); one is SIGKILLed while it holds a job; printed are the time
 *   until another worker took that job and until it was done.
 * Pages: the first N corpus pages (symlinked as runs/corpus/<id>.html); metrics: a cheap set with one browser
 * visit (no Lighthouse), so the figures are about the queue rather than about Lighthouse.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { redisServerBinary, startRedis } from '../test/queue/redis-server.js';
import { workerName } from '../distribute/queue-worker.js';
import { benchArgs, cannotRun, corpusDir, inputDir } from './common.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'bin', 'webgrade.js');
const { values: args } = benchArgs('usage: node dist/bench/queue.js [--pages 10] [--dir DIR] [--only ids] [--stall-timeout 30]', {
  pages: { type: 'number', default: 10 },
  dir: { type: 'string' },
  only: { type: 'string', default: 'comment-rate,lint,console-errors,mobile-compat' },
  'stall-timeout': { type: 'number', default: 30 },
});
const count = args.pages;
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const only = args.only;
/** Seconds, handed to `webgrade worker --stall-timeout` (which checks it further). */
const stall = String(args['stall-timeout']);

const bin = redisServerBinary();
if ('skip' in bin) cannotRun(bin.skip);

const work = mkdtempSync(join(tmpdir(), 'webgrade-bench-queue-'));
const runs = join(work, 'runs');
mkdirSync(join(runs, 'corpus'), { recursive: true });
const pages = readdirSync(dir)
  .filter((n) => n.endsWith('.html'))
  .sort()
  .slice(0, count);
for (const p of pages) symlinkSync(join(dir, p), join(runs, 'corpus', p));
// The recovery measurement waits for one job done while the worker it kills holds another: with one page it never ends.
if (pages.length < 2) {
  console.error(`queue needs at least 2 pages (found ${pages.length} in ${dir})`);
  rmSync(work, { recursive: true, force: true });
  process.exit(2);
}

const redis = await startRedis(bin.path);
const client = new Redis(redis.url, { maxRetriesPerRequest: null });
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
console.log(`queue bench: ${pages.length} pages, --only ${only}, ${cpus().length} cores, load at start ${load()}`);

function batch(concurrency: number): number {
  const t = performance.now();
  const r = spawnSync(
    process.execPath,
    [cli, 'batch', runs, '--out', join(work, `batch-${concurrency}.jsonl`), '--only', only, '--concurrency', String(concurrency)],
    { stdio: 'ignore' },
  );
  if (r.status !== 0) throw new Error(`batch exited ${r.status}`);
  return (performance.now() - t) / 1000;
}

function worker(queue: string): ChildProcess {
  return spawn(process.execPath, [cli, 'worker', '--redis', redis.url, '--queue', queue, '--stall-timeout', stall, '--quiet'], { stdio: 'ignore' });
}

async function until(cond: () => Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 100));
}

async function viaQueue(name: string, workers: number): Promise<{ seconds: number; overheadMs: number[] }> {
  const add = spawnSync(process.execPath, [cli, 'queue', 'add', runs, '--redis', redis.url, '--queue', name, '--only', only], { stdio: 'ignore' });
  if (add.status !== 0) throw new Error('queue add failed');
  const q = new Queue(name, { connection: client });
  const t = performance.now();
  const ws = Array.from({ length: workers }, () => worker(name));
  await until(async () => (await q.getJobCounts('completed')).completed === pages.length);
  const seconds = (performance.now() - t) / 1000;
  await Promise.all(
    ws.map(
      (w) =>
        new Promise((r) => {
          w.once('exit', r);
          w.kill('SIGTERM');
        }),
    ),
  );
  const jobs = (await q.getJobs(['completed'])) as Job[];
  const overheadMs: number[] = [];
  const byWorker = new Map<string, Job[]>();
  for (const j of jobs) byWorker.set(j.processedBy ?? '', [...(byWorker.get(j.processedBy ?? '') ?? []), j]);
  for (const list of byWorker.values()) {
    list.sort((a, b) => a.processedOn! - b.processedOn!);
    list.forEach((j, i) => {
      const inside = j.finishedOn! - j.processedOn! - ((j.returnvalue as { ms?: number }).ms ?? 0);
      const gap = i > 0 ? j.processedOn! - list[i - 1]!.finishedOn! : 0;
      if (i > 0) overheadMs.push(inside + gap); // the first job of a worker also waits for its start
    });
  }
  await q.close();
  return { seconds, overheadMs };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
const perMin = (s: number) => ((pages.length / s) * 60).toFixed(1);

const b1 = batch(1);
console.log(`batch --concurrency 1: ${b1.toFixed(1)} s, ${perMin(b1)} pages/min (load ${load()})`);
const q1 = await viaQueue('bench-1', 1);
console.log(`queue, 1 worker:       ${q1.seconds.toFixed(1)} s, ${perMin(q1.seconds)} pages/min (load ${load()})`);
const b2 = batch(2);
console.log(`batch --concurrency 2: ${b2.toFixed(1)} s, ${perMin(b2)} pages/min (load ${load()})`);
const q2 = await viaQueue('bench-2', 2);
console.log(`queue, 2 workers:      ${q2.seconds.toFixed(1)} s, ${perMin(q2.seconds)} pages/min (load ${load()})`);
const oh = [...q1.overheadMs, ...q2.overheadMs];
console.log(`queue overhead per job: median ${median(oh).toFixed(0)} ms, max ${Math.max(...oh).toFixed(0)} ms over ${oh.length} jobs (goal ≤ 50 ms)`);

// Recovery after a SIGKILL.
{
  const name = 'bench-kill';
  spawnSync(process.execPath, [cli, 'queue', 'add', runs, '--redis', redis.url, '--queue', name, '--only', only], { stdio: 'ignore' });
  const q = new Queue(name, { connection: client });
  const a = worker(name);
  let held: Job | undefined;
  await until(async () => {
    const done = (await q.getJobCounts('completed')).completed;
    held = (await q.getJobs(['active'])).find((j) => j.processedBy === workerName(a.pid));
    return done >= 1 && held !== undefined;
  });
  const b = worker(name);
  await new Promise((r) => setTimeout(r, 2000));
  held = (await q.getJobs(['active'])).find((j) => j.processedBy === workerName(a.pid)) ?? held;
  a.kill('SIGKILL');
  const killedAt = Date.now();
  const id = held!.id!;
  await until(async () => (await q.getJob(id))?.finishedOn !== undefined);
  const j = (await q.getJob(id))!;
  console.log(
    `recovery after SIGKILL (stall timeout ${stall} s): job taken by another worker after ${((j.processedOn! - killedAt) / 1000).toFixed(1)} s, done after ${((j.finishedOn! - killedAt) / 1000).toFixed(1)} s (stalled ${j.stalledCounter}×)`,
  );
  await until(async () => (await q.getJobCounts('completed')).completed === pages.length);
  await new Promise((r) => {
    b.once('exit', r);
    b.kill('SIGTERM');
  });
  await q.close();
}
client.disconnect();
await redis.stop();
rmSync(work, { recursive: true, force: true });
