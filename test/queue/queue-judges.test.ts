/**
 * Queue workers run the judge stage as `batch` does (distribute/worker-pool.ts): a worker with one browser takes
 * more jobs while earlier ones wait for their judges. Real redis-server, real worker, real Chromium; judges
 * answered by a local chat-completions server (test/judges/protocol-judge.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parseResults } from '../../store/results-file.js';
import { cliPath, fixture, killOwnChildren, ownChild, repoRoot, runCli, tempDir } from '../helpers.js';
import { startProtocolJudge } from '../judges/protocol-judge.js';
import type { ChatServer } from '../judges/chat-server.js';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';

const JUDGES = 'functionality-correctness,visual-experience,functional-alignment,visual-alignment,content-alignment';
const PAGES = ['icons-consistent', 'no-dead-css', 'hover-css'];
const binary = redisServerBinary();
const skip = 'skip' in binary ? binary.skip : false;

describe('queue workers: judges as a second stage', { skip }, () => {
  let redis: RedisServer | undefined;
  let server: ChatServer | undefined;
  after(async () => {
    killOwnChildren();
    await server?.close();
    await redis?.stop();
  });

  it('a one-browser worker gets every page to the judges before any judge answers, and the rows are complete', async () => {
    redis = await startRedis((binary as { path: string }).path);
    // Nothing is answered until all 15 calls (3 pages × 5 judges) are in: a worker that held one job at a time,
    // judges included, would never get there.
    server = await startProtocolJudge({ holdUntilRequests: 15 });
    const dir = tempDir();
    const runs = join(dir, 'runs');
    mkdirSync(join(runs, 'm'), { recursive: true });
    for (const p of PAGES) copyFileSync(fixture('browser', `${p}.html`), join(runs, 'm', `${p}.html`));
    const reqs = join(dir, 'reqs.jsonl');
    writeFileSync(
      reqs,
      PAGES.map((id) =>
        JSON.stringify({ id, requirement: `A page called ${id}`, checklist: { functional: ['It works'], visual: ['Tidy'], content: ['A heading'] } }),
      ).join('\n') + '\n',
    );
    const add = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'judged', '--only', JUDGES, '--requirements', reqs]);
    assert.equal(add.code, 0, add.stderr);
    const env = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'k', WEBGRADE_JUDGE_MODEL: 'judge-test', WEBGRADE_CACHE_DIR: tempDir() };
    // Held calls must not time out (and be sent again) while the browser works through the pages on a loaded machine.
    const config = join(dir, 'judges.json');
    writeFileSync(config, JSON.stringify({ timeoutSeconds: 900, deadlineSeconds: 900 }));
    const worker = ownChild(
      spawn(process.execPath, [cliPath, 'worker', '--redis', redis.url, '--queue', 'judged', '--quiet', '--judge-config', config], {
        cwd: repoRoot,
        env,
        stdio: 'ignore',
      }),
    );
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('judged', { connection: client });
    const end = Date.now() + 900_000; // generous: a loaded shared machine is many times slower
    while ((await queue.getJobCounts('completed')).completed < PAGES.length) {
      assert.ok(Date.now() < end, 'every job completes');
      assert.equal((await queue.getJobCounts('failed')).failed, 0);
      await new Promise((r) => setTimeout(r, 300));
    }
    await queue.close();
    client.disconnect();
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    assert.equal(server.requests.length, 15);
    const out = join(dir, 'rows.jsonl');
    const c = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'judged', '--out', out]);
    assert.equal(c.code, 0, c.stderr);
    const rows = parseResults(readFileSync(out)).rows;
    assert.equal(rows.length, 3);
    for (const r of rows) {
      for (const m of r.metrics) assert.notEqual(m.score, null, `${r.requirement} ${m.id}: ${m.reason}`);
      assert.equal(r.judgeCost?.calls, 5);
    }
  });
});
