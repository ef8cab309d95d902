/**
 * A queue may hold two jobs of one model, requirement and repeat: the artifact added, changed, and added again
 * (a new content hash, a new job). A worker that holds both must not let them share the pending screenshot its
 * judges read, nor the folder its pictures are kept in (distribute/pending-evidence.ts, store/evidence-keep.ts: both
 * keyed by the job id). Real redis-server and `webgrade worker`; the scoring process is
 * test/queue/fixtures/echo-worker.ts, which reports where it was told to save and keep them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { ResultRow } from '../../core/results.js';
import { PendingEvidence } from '../../distribute/pending-evidence.js';
import { cliPath, killOwnChildren, ownChild, repoRoot, runCli, tempDir } from '../helpers.js';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';

const binary = redisServerBinary();
const skip = 'skip' in binary ? binary.skip : false;
const echoWorker = join(repoRoot, 'dist', 'test', 'queue', 'fixtures', 'echo-worker.js');

describe('pending evidence', () => {
  it('pending records are keyed by the job id when there is one', () => {
    const dir = new PendingEvidence(tempDir());
    const a = { model: 'm', requirement: 'r', path: '/tmp/x/a', id: 'job-a' };
    const b = { ...a, id: 'job-b' };
    assert.notEqual(dir.shotPath(a), dir.shotPath(b));
    const doc = { artifact: a.path, entry: a.path, suite: 'study' as const, metrics: [], perspectives: {}, overall: null, timings: {} };
    dir.save({ version: 1, model: 'm', requirement: 'r', repeat: 1, id: 'job-a', path: a.path, doc, shot: { reason: 'none' }, browserMs: 1 });
    assert.ok(dir.load(a));
    assert.equal(dir.load(b), null, "job b does not read job a's record");
    dir.remove(b);
    assert.ok(dir.load(a), "removing job b's leaves job a's");
  });
});

describe('two queue jobs of one model, requirement and repeat', { skip }, () => {
  let redis: RedisServer | undefined;
  after(async () => {
    killOwnChildren();
    await redis?.stop();
  });

  it("each job's scoring process saves its screenshot and keeps its pictures in a place of its own", async () => {
    redis = await startRedis((binary as { path: string }).path);
    const dir = tempDir();
    const runs = join(dir, 'runs');
    mkdirSync(join(runs, 'm'), { recursive: true });
    const page = join(runs, 'm', 'p.html');
    // visual-experience is a judge metric: the worker's pool then has a pending-evidence folder (no judge is
    // configured here, so it is unscorable; the echo process answers comment-rate).
    const add = () => runCli(['queue', 'add', runs, '--redis', redis!.url, '--queue', 'same', '--only', 'comment-rate,visual-experience']);
    writeFileSync(page, '<!doctype html><title>one</title><p>one</p>');
    assert.equal((await add()).code, 0);
    writeFileSync(page, '<!doctype html><title>two</title><p>two</p>');
    const second = await add();
    assert.equal(second.code, 0, second.stderr);
    const env: NodeJS.ProcessEnv = { ...process.env, WEBGRADE_QUEUE_WORKER_MODULE: echoWorker, WEBGRADE_CACHE_DIR: tempDir() };
    for (const k of Object.keys(env)) if (/^(OPENAI_|WEBGRADE_JUDGE_)/.test(k)) delete env[k];
    const worker = ownChild(
      spawn(process.execPath, [cliPath, 'worker', '--redis', redis.url, '--queue', 'same', '--concurrency', '2', '--quiet'], {
        cwd: repoRoot,
        env,
        stdio: 'ignore',
      }),
    );
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('same', { connection: client });
    const end = Date.now() + 120_000;
    while ((await queue.getJobCounts('completed')).completed < 2) {
      assert.ok(Date.now() < end, 'both jobs complete');
      assert.equal((await queue.getJobCounts('failed')).failed, 0);
      await new Promise((r) => setTimeout(r, 200));
    }
    const jobs = await queue.getJobs(['completed']);
    await queue.close();
    client.disconnect();
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    assert.equal(jobs.length, 2);
    const told = jobs.map((j) => {
      const row = j.returnvalue as ResultRow;
      assert.equal(`${row.model}/${row.requirement}/${row.repeat ?? 1}`, 'm/p/1');
      const details = row.metrics.find((m) => m.id === 'comment-rate')!.details as { shotPath: string | null; key: { job?: string } | null };
      return { shotPath: details.shotPath, job: details.key?.job, id: j.id };
    });
    assert.ok(told[0]!.shotPath && told[1]!.shotPath, 'both were told where to save a screenshot');
    assert.notEqual(told[0]!.shotPath, told[1]!.shotPath, 'two jobs, two pending screenshots');
    assert.deepEqual(told.map((t) => t.job).sort(), told.map((t) => t.id).sort(), "each job's pictures are kept under its own id");
  });
});
