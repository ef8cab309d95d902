/**
 * How the queue treats failures, with a real redis-server and the stand-in scoring process of the batch pool
 * tests (test/runner/fixtures/fake-worker.ts: it crashes on "crash" pages and answers an error on "bad" ones):
 * a page's own failure is a result on the first try, a crash is retried and failed with its reason after 3;
 * bad --redis URLs, an unreachable Redis and other settings on an existing queue are one line each.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parseResults } from '../../store/results-file.js';
import { cliPath, killOwnChildren, ownChild, repoRoot, runCli, tempDir } from '../helpers.js';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';
import { workerName } from '../../distribute/queue-worker.js';

const binary = redisServerBinary();
const skip = 'skip' in binary ? binary.skip : false;
const fakeWorker = join(repoRoot, 'dist', 'test', 'runner', 'fixtures', 'fake-worker.js');

describe('work queue failures (real redis-server)', { skip }, () => {
  let redis: RedisServer;
  let client: Redis;
  before(async () => {
    redis = await startRedis((binary as { path: string }).path);
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
  });
  after(async () => {
    killOwnChildren();
    client?.disconnect();
    await redis?.stop();
  });

  it("records a page's own failure as a result at once, and fails a job that crashes its worker 3 times with the reason", async () => {
    const runs = join(tempDir(), 'runs');
    mkdirSync(join(runs, 'm'), { recursive: true });
    for (const n of ['good', 'bad', 'crash']) writeFileSync(join(runs, 'm', `${n}.html`), `<!doctype html><title>${n}</title><p>${n}</p>`);
    assert.equal((await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'f', '--only', 'comment-rate'])).code, 0);
    const w = spawn(process.execPath, [cliPath, 'worker', '--redis', redis.url, '--queue', 'f'], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, WEBGRADE_QUEUE_WORKER_MODULE: fakeWorker },
    });
    ownChild(w);
    let err = '';
    w.stderr.on('data', (d) => (err += d));
    const queue = new Queue('f', { connection: client });
    const end = Date.now() + 120_000;
    for (;;) {
      const c = await queue.getJobCounts('completed', 'failed');
      if (c.completed === 2 && c.failed === 1) break;
      assert.ok(Date.now() < end, `timed out: ${JSON.stringify(c)}\n${err}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const exited = new Promise((r) => w.once('exit', r));
    w.kill('SIGTERM');
    assert.equal(await exited, 0);
    const jobs = await queue.getJobs(['completed', 'failed']);
    const byName = new Map(jobs.map((j) => [(j.data as { requirement: string }).requirement, j]));
    assert.equal(byName.get('bad')!.attemptsMade, 1, 'a page that cannot be scored is not retried');
    assert.equal(byName.get('crash')!.attemptsMade, 3, 'a crash is tried 3 times');
    assert.match(byName.get('crash')!.failedReason, /worker crashed \(exit 3\)/);
    await queue.close();

    const out = join(tempDir(), 'r.jsonl');
    const c = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'f', '--out', out]);
    assert.equal(c.code, 0, c.stderr);
    const rows = new Map(parseResults(readFileSync(out)).rows.map((r) => [r.requirement, r]));
    assert.equal(rows.size, 3);
    assert.equal(rows.get('good')!.status, 'ok');
    assert.equal(rows.get('bad')!.status, 'failed');
    assert.equal(rows.get('bad')!.error, 'cannot load artifact');
    assert.equal(rows.get('crash')!.status, 'failed');
    assert.match(rows.get('crash')!.error!, /worker crashed \(exit 3\).*after 3 attempts/);
  });

  it("ignores the late answer of a worker that lost its job's lock (stopped past the stall timeout): the job counts once", async () => {
    const runs = join(tempDir(), 'runs');
    mkdirSync(join(runs, 'm'), { recursive: true });
    writeFileSync(join(runs, 'm', 'slow.html'), '<!doctype html><title>slow</title>');
    assert.equal((await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'late', '--only', 'comment-rate'])).code, 0);
    const queue = new Queue('late', { connection: client });
    const start = (extra: string[] = []) => {
      const w = spawn(process.execPath, [cliPath, 'worker', '--redis', redis.url, '--queue', 'late', '--stall-timeout', '1', ...extra], {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, WEBGRADE_QUEUE_WORKER_MODULE: fakeWorker },
      });
      let err = '';
      w.stderr.on('data', (d) => (err += d));
      process.once('exit', () => w.kill('SIGKILL'));
      ownChild(w);
      return { w, err: () => err, exited: new Promise<number | null>((r) => w.once('exit', (c) => r(c))) };
    };
    const waitUntil = async (what: string, cond: () => Promise<boolean>) => {
      const end = Date.now() + 120_000;
      while (!(await cond())) {
        assert.ok(Date.now() < end, `timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const a = start();
    await waitUntil('worker A to take the job', async () => (await queue.getJobs(['active'])).some((j) => j.processedBy === workerName(a.w.pid)));
    a.w.kill('SIGSTOP'); // A's scoring process still answers; A cannot renew its lock
    const b = start();
    await waitUntil('worker B to finish the job', async () => (await queue.getJobCounts('completed')).completed === 1);
    const [job] = await queue.getJobs(['completed']);
    assert.equal(job!.processedBy, workerName(b.w.pid));
    assert.ok(job!.stalledCounter >= 1);
    const finishedOn = job!.finishedOn;
    a.w.kill('SIGCONT'); // A now holds a finished answer with a lock token that is no longer the job's
    await new Promise((r) => setTimeout(r, 5000));
    const after = (await queue.getJob(String(job!.id)))!;
    assert.equal(after.finishedOn, finishedOn, 'the late answer did not finish the job again');
    assert.equal(after.processedBy, workerName(b.w.pid));
    assert.deepEqual(await queue.getJobCounts('completed', 'failed', 'active', 'waiting'), { completed: 1, failed: 0, active: 0, waiting: 0 });
    for (const p of [a, b]) p.w.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
    await queue.close();
  });

  it('refuses jobs with other settings on a queue that has some, with one line and exit 2', async () => {
    const runs = join(tempDir(), 'runs');
    mkdirSync(join(runs, 'm'), { recursive: true });
    writeFileSync(join(runs, 'm', 'p.html'), '<!doctype html><title>p</title>');
    assert.equal((await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 's', '--only', 'comment-rate'])).code, 0);
    const r = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 's', '--only', 'lint']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /queue s holds jobs scored with other settings \(metrics: comment-rate vs lint\)/);
  });

  it('says in one line when the Redis URL is bad (exit 2) or Redis cannot be reached (exit 1)', async () => {
    const bad = await runCli(['queue', 'status', '--redis', 'http://127.0.0.1:6379']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^webgrade: --redis http:\/\/127\.0\.0\.1:6379: expected a redis:\/\/ or rediss:\/\/ URL\n$/);
    const down = await runCli(['worker', '--redis', `redis://127.0.0.1:${redis.port === 1 ? 2 : 1}`]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /^webgrade: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: connect ECONNREFUSED/);
    assert.equal(down.stderr.trim().split('\n').length, 1);
  });
});
