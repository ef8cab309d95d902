/**
 * The work queue and shards end to end, with a real redis-server and real workers (real Chromium): 20 synthetic
 * pages, scored by `batch` as the reference; through the queue with two workers, one SIGKILLed mid-job; and as
 * two shards merged. Cheap, deterministic metrics (comment-rate from the source, mobile-compat from a browser
 * run) keep it short.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parseResults, rowKey, type ResultRow } from '../../store/results-file.js';
import { cliPath, killOwnChildren, ownChild, repoRoot, runCli, tempDir } from '../helpers.js';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';
import { workerName } from '../../distribute/queue-worker.js';

const ONLY = 'comment-rate,mobile-compat';
const binary = redisServerBinary();
const skip = 'skip' in binary ? binary.skip : false;
if (skip) process.stderr.write(`[queue tests] ${skip}\n`);

function page(model: string, i: number): string {
  // Comment lines and an element wider than the phone viewport vary by page: distinct, deterministic scores.
  return `<!doctype html><html><head><meta name="viewport" content="width=device-width"><title>${model} ${i}</title></head><body>
${'<!-- a comment line -->\n'.repeat(i % 4)}<h1>${model}: page ${i}</h1>
<div style="width:${360 + 10 * i}px;height:20px;background:#ddd"></div>
<p>Some text for page ${i}.</p>
</body></html>
`;
}

function makeRuns(): string {
  const runs = join(tempDir(), 'runs');
  for (const m of ['model-a', 'model-b']) {
    mkdirSync(join(runs, m), { recursive: true });
    for (let i = 0; i < 10; i++) writeFileSync(join(runs, m, `req-${String(i).padStart(2, '0')}.html`), page(m, i));
  }
  return runs;
}

const rowsOf = (p: string): ResultRow[] => parseResults(readFileSync(p)).rows;
const scores = (r: ResultRow) => Object.fromEntries(r.metrics.map((m) => [m.id, m.score]));

function assertSameScores(rows: ResultRow[], reference: ResultRow[]): void {
  const keys = rows.map((r) => rowKey(r.model, r.requirement, r.repeat ?? 1));
  assert.equal(new Set(keys).size, rows.length, 'one row per artifact');
  assert.equal(rows.length, reference.length, 'every artifact');
  const ref = new Map(reference.map((r) => [rowKey(r.model, r.requirement, r.repeat ?? 1), r]));
  for (const r of rows) {
    const want = ref.get(rowKey(r.model, r.requirement, r.repeat ?? 1));
    assert.ok(want, `${r.model}/${r.requirement} is a batch artifact`);
    assert.equal(r.status, 'ok', `${r.model}/${r.requirement}: ${r.error ?? ''}`);
    assert.deepEqual(scores(r), scores(want), `${r.model}/${r.requirement} scores as batch does`);
    assert.equal(r.artifact, want.artifact);
    assert.deepEqual(r.settings, want.settings);
  }
}

interface Proc {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startWorker(url: string, queue: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(process.execPath, [cliPath, 'worker', '--redis', url, '--queue', queue, '--stall-timeout', '4', ...extra], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  process.once('exit', () => child.kill('SIGKILL'));
  ownChild(child);
  return { child, stderr: () => err, exited };
}

async function waitFor(what: string, cond: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('work queue and shards (real redis-server, real workers)', { skip }, () => {
  let redis: RedisServer;
  let client: Redis;
  let runs: string;
  let reference: ResultRow[];
  const dir = tempDir();

  before(async () => {
    redis = await startRedis((binary as { path: string }).path);
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
    runs = makeRuns();
    const ref = join(dir, 'batch.jsonl');
    const r = await runCli(['batch', runs, '--out', ref, '--only', ONLY], { timeoutMs: 600_000 });
    assert.equal(r.code, 0, r.stderr);
    reference = rowsOf(ref);
    assert.equal(reference.length, 20);
    assert.ok(new Set(reference.map((x) => JSON.stringify(scores(x)))).size > 5, 'the pages score differently');
  });

  after(async () => {
    killOwnChildren();
    client?.disconnect();
    await redis?.stop();
  });

  it('scores every artifact exactly once, with the scores batch gives, when a worker is SIGKILLed mid-job', async () => {
    const add = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'kill', '--only', ONLY]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /20 jobs added, 0 already queued/);
    const again = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'kill', '--only', ONLY]);
    assert.match(again.stdout, /0 jobs added, 20 already queued/, 'adding the same runs twice adds nothing');

    const queue = new Queue('kill', { connection: client });
    const a = startWorker(redis.url, 'kill');
    // Let A warm up (its Chrome started) and take a job; then start B and kill A while it holds a job.
    await waitFor('worker A to score 2 jobs', () => (a.stderr().match(/ ok /g) ?? []).length >= 2, 300_000);
    const b = startWorker(redis.url, 'kill');
    let killedJob = '';
    await waitFor(
      'worker A to hold a job',
      async () => {
        const active = await queue.getJobs(['active']);
        const mine = active.find((j) => j.processedBy === workerName(a.child.pid));
        if (mine) killedJob = String(mine.id);
        return Boolean(mine);
      },
      120_000,
    );
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    await a.exited;
    await waitFor('the killed job to be done by worker B', async () => (await queue.getJob(killedJob))?.finishedOn !== undefined, 180_000);
    const recovered = (await queue.getJob(killedJob))!;
    assert.ok(recovered.stalledCounter >= 1, 'the killed job was detected as stalled and given out again');
    assert.equal(recovered.processedBy, workerName(b.child.pid));
    process.stderr.write(`[queue tests] killed job done ${((recovered.finishedOn! - killedAt) / 1000).toFixed(1)} s after the SIGKILL\n`);
    await waitFor('all 20 jobs to be done', async () => (await queue.getJobCounts('completed')).completed === 20, 300_000);
    assert.equal((await queue.getJobCounts('failed')).failed, 0);

    b.child.kill('SIGTERM');
    assert.equal(await b.exited, 0, b.stderr());
    assert.match(b.stderr(), /SIGTERM: finishing the jobs in hand/);
    await queue.close();

    const out = join(dir, 'queue.jsonl');
    const c = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'kill', '--out', out]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /collected 20 rows/);
    assertSameScores(rowsOf(out), reference);
    const c2 = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'kill', '--out', out]);
    assert.match(c2.stdout, /collected 0 rows .*20 already there/, 'collect again appends nothing');
    assert.equal(rowsOf(out).length, 20);
  });

  it('gives the same rows through two shards merged as batch gives in one run', async () => {
    const outs = [];
    for (const s of ['1/2', '2/2']) {
      const out = join(dir, `shard-${s.replace('/', '-of-')}.jsonl`);
      const r = await runCli(['batch', runs, '--out', out, '--only', ONLY, '--shard', s], { timeoutMs: 600_000 });
      assert.equal(r.code, 0, r.stderr);
      outs.push(out);
    }
    const n1 = rowsOf(outs[0]!).length;
    assert.ok(n1 > 0 && n1 < 20, `shard 1 holds part of the artifacts (${n1})`);
    assert.equal(n1 + rowsOf(outs[1]!).length, 20, 'shards do not overlap');
    const all = join(dir, 'merged.jsonl');
    const m = await runCli(['merge', ...outs, '--out', all]);
    assert.equal(m.code, 0, m.stderr);
    assertSameScores(rowsOf(all), reference);
    // The same split every time: shard 1 again scores nothing new.
    const again = await runCli(['batch', runs, '--out', outs[0]!, '--only', ONLY, '--shard', '1/2']);
    assert.match(again.stdout, new RegExp(`0 scored, 0 failed, ${n1} already done`));
    // Duplicates (the batch reference overlaps both shards) are settled the same way whatever the order.
    const x = join(dir, 'x.jsonl');
    const y = join(dir, 'y.jsonl');
    assert.equal((await runCli(['merge', join(dir, 'batch.jsonl'), ...outs, '--out', x])).code, 0);
    assert.equal((await runCli(['merge', ...outs, join(dir, 'batch.jsonl'), '--out', y])).code, 0);
    assert.equal(rowsOf(x).length, 20);
    assertSameScores(rowsOf(x), reference);
    assert.deepEqual(
      rowsOf(x).map((r) => rowKey(r.model, r.requirement)),
      rowsOf(y).map((r) => rowKey(r.model, r.requirement)),
    );
  });
});
