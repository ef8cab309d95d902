/**
 * Projects through the work queue (issue 48): a real redis-server and a real worker take a runs folder holding a
 * Vite React app and a failing build, install and build each in the sandbox on the worker's side, and give the rows
 * `batch` gives for the same folder: the app built and scored, the failing build's page metrics 0 with the build's
 * reason, its source metrics scored.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { cliPath, fixture, killOwnChildren, ownChild, repoRoot, runCli, tempDir } from '../helpers.js';
import { redisServerBinary, startRedis, type RedisServer } from '../queue/redis-server.js';
import { sandboxSkip, TEST_STORE } from './tools.js';

const binary = redisServerBinary();
const skip = sandboxSkip() ?? ('skip' in binary ? binary.skip : undefined);
const env = { ...process.env, WEBGRADE_PROJECT_STORE: TEST_STORE };
const ONLY = 'comment-rate,console-errors';

interface Row {
  model: string;
  status: string;
  metrics: Array<{ id: string; score: number | null; reason?: string }>;
  project?: { status: string; reason?: string };
}

const rowsOf = (p: string): Row[] =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

/** Each model's project status and its scores (reasons of unscorable or zero page metrics included). */
const outcome = (rows: Row[]) =>
  Object.fromEntries(
    rows.map((r) => [r.model, { status: r.status, project: r.project?.status, metrics: Object.fromEntries(r.metrics.map((m) => [m.id, m.score])) }]),
  );

describe('projects through the work queue (real redis-server, a real worker)', { skip }, () => {
  let redis: RedisServer;
  const dir = tempDir('webgrade-queue-project-');
  const runs = join(dir, 'runs');

  before(async () => {
    redis = await startRedis((binary as { path: string }).path);
    cpSync(fixture('projects', 'react-app'), join(runs, 'react', 'app'), { recursive: true });
    cpSync(fixture('projects', 'build-fails'), join(runs, 'fails', 'app'), { recursive: true });
  });

  after(async () => {
    killOwnChildren();
    await redis?.stop();
  });

  it('a worker installs, builds and scores each project as batch does', { timeout: 900_000 }, async () => {
    const reference = join(dir, 'batch.jsonl');
    const b = await runCli(['batch', runs, '--out', reference, '--only', ONLY], { env, timeoutMs: 600_000 });
    assert.equal(b.code, 0, b.stderr);

    const add = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'projects', '--only', ONLY], { env });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /2 jobs added/);

    const worker = ownChild(
      spawn(process.execPath, [cliPath, 'worker', '--redis', redis.url, '--queue', 'projects'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'], env }),
    );
    let err = '';
    worker.stderr!.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => worker.once('exit', (c) => r(c)));
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('projects', { connection: client });
    try {
      const end = Date.now() + 600_000;
      const done = async () => {
        const n = await queue.getJobCounts('completed', 'failed');
        return (n.completed ?? 0) + (n.failed ?? 0);
      };
      while ((await done()) < 2) {
        assert.ok(Date.now() < end, `the worker did not finish both jobs: ${err}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal((await queue.getJobCounts('failed')).failed, 0, err);
    } finally {
      await queue.close();
      client.disconnect();
    }
    worker.kill('SIGTERM');
    assert.equal(await exited, 0, err);

    const out = join(dir, 'queue.jsonl');
    const c = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'projects', '--out', out], { env });
    assert.equal(c.code, 0, c.stderr);
    const rows = rowsOf(out);
    assert.equal(rows.length, 2);
    const got = outcome(rows);
    assert.deepEqual(got, outcome(rowsOf(reference)));
    assert.equal(got.react!.project, 'built');
    assert.equal(got.fails!.project, 'failed');
    assert.equal(got.fails!.metrics['console-errors'], 0);
    assert.equal(typeof got.fails!.metrics['comment-rate'], 'number');
    const failed = rows.find((r) => r.model === 'fails')!;
    assert.match(JSON.stringify(failed.metrics.find((m) => m.id === 'console-errors')), /build failed/);
  });
});
