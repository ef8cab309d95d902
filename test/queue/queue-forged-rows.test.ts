/**
 * Whoever can write to a queue's Redis can put any return value on a finished job (docs/many-machines.md "Security: the work
 * queue's trust model"). `queue collect` writes a returned row only when it is a results row and the row of its
 * job (distribute/queue-collect.ts `checkReturnedRow`), so a forged row is refused with a note and the results file
 * stays readable for every later collect. Real redis-server; the rows are returned by a BullMQ worker in this
 * test, as anyone with access to Redis could.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { ResultRow, ScoringSettings } from '../../core/results.js';
import { parseResults } from '../../store/results-file.js';
import { runCli, tempDir } from '../helpers.js';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';

const binary = redisServerBinary();
const skip = 'skip' in binary ? binary.skip : false;

interface JobData {
  model: string;
  requirement: string;
  repeat?: number;
  artifact: string;
  req?: { labels?: Record<string, string> };
}

/** What each page's job returns: its genuine row, or a forgery of it. */
const FORGE: Record<string, (genuine: ResultRow) => unknown> = {
  good: (g) => g,
  'other-model': (g) => ({ ...g, model: 'evil' }),
  junk: () => ({ model: 'x' }),
  'bad-metrics': (g) => ({ ...g, metrics: 'x' }),
  'bad-score': (g) => ({ ...g, metrics: [{ ...g.metrics[0], score: '100' }] }),
  repeat: (g) => ({ ...g, repeat: 2 }),
  artifact: (g) => ({ ...g, artifact: '/etc/passwd' }),
  labels: (g) => ({ ...g, labels: { category: 'forged' } }),
  'extra-metric': (g) => ({ ...g, metrics: [...g.metrics, { ...g.metrics[0], id: 'performance', score: 100 }] }),
  suite: (g) => ({ ...g, settings: { ...g.settings, suite: 'extended' } }),
};

describe('queue collect refuses a returned row that is not the row of its job (real redis-server)', { skip }, () => {
  let redis: RedisServer;
  let client: Redis;
  before(async () => {
    redis = await startRedis((binary as { path: string }).path);
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
  });
  after(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it('writes the genuine row only, names each refused one, and a later collect reads the file', async () => {
    const dir = tempDir();
    const runs = join(dir, 'runs');
    mkdirSync(join(runs, 'm'), { recursive: true });
    for (const id of Object.keys(FORGE)) writeFileSync(join(runs, 'm', `${id}.html`), `<!doctype html><title>${id}</title><p>${id}</p>`);
    const reqs = join(dir, 'reqs.jsonl');
    writeFileSync(
      reqs,
      Object.keys(FORGE)
        .map((id) => JSON.stringify({ id, requirement: `page ${id}`, labels: { category: 'tools' } }))
        .join('\n') + '\n',
    );
    const add = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'forged', '--only', 'comment-rate', '--requirements', reqs]);
    assert.equal(add.code, 0, add.stderr);
    const scoring = (JSON.parse((await client.get('webgrade:forged:settings'))!) as { scoring: ScoringSettings }).scoring;

    const genuine = (d: JobData): ResultRow => ({
      model: d.model,
      requirement: d.requirement,
      ...(d.repeat ? { repeat: d.repeat } : {}),
      ...(d.req?.labels ? { labels: d.req.labels } : {}),
      settings: { ...scoring, network: 'cdn', checkNetwork: false },
      status: 'ok',
      artifact: d.artifact,
      metrics: [{ id: 'comment-rate', perspective: 'maintainability', kind: 'rule', title: 'Comment rate', score: 42, details: {}, ms: 1 }],
    });
    const workerConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const worker = new Worker('forged', async (job: Job<JobData>) => FORGE[job.data.requirement]!(genuine(job.data)), { connection: workerConnection });
    const queue = new Queue('forged', { connection: client });
    const end = Date.now() + 60_000;
    while ((await queue.getJobCounts('completed')).completed < Object.keys(FORGE).length) {
      assert.ok(Date.now() < end, 'every job completes');
      await new Promise((r) => setTimeout(r, 100));
    }
    await worker.close();
    workerConnection.disconnect();
    await queue.close();

    const out = join(dir, 'results.jsonl');
    const c = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'forged', '--out', out]);
    assert.equal(c.code, 0, c.stderr);
    const read = parseResults(readFileSync(out));
    assert.deepEqual(read.badLines, []);
    assert.deepEqual(
      read.rows.map((r) => `${r.model}/${r.requirement}`),
      ['m/good'],
    );
    assert.match(c.stdout, /collected 1 rows/);
    const refused = /^(\d+) returned rows refused \(not the row of their job\): not written; (.*)$/m.exec(c.stderr);
    assert.ok(refused, c.stderr);
    assert.equal(Number(refused[1]), Object.keys(FORGE).length - 1);
    assert.match(refused[2]!, /^job \S+: (model|not a results row|repeat|artifact|labels|metric|settings)/);

    // Each forgery is refused for its own reason (the line above names the first three).
    const { checkReturnedRow } = await import('../../distribute/queue-collect.js');
    const data = (requirement: string) => ({
      model: 'm',
      requirement,
      hash: 'a'.repeat(64),
      settingsId: 'b'.repeat(16),
      artifact: join(runs, 'm', `${requirement}.html`),
      kind: 'file' as const,
      req: { id: requirement, requirement: `page ${requirement}`, labels: { category: 'tools' } },
    });
    const reasons: Record<string, RegExp> = {
      'other-model': /^model "evil" is not the job's "m"$/,
      junk: /^not a results row \(requirement: expected a non-empty string\)$/,
      'bad-metrics': /^not a results row \(metrics: expected a list\)$/,
      'bad-score': /^not a results row \(metrics\[0\]\.score: expected a number or null\)$/,
      repeat: /^repeat 2 is not the job's 1$/,
      artifact: /^artifact "\/etc\/passwd" is not the job's /,
      labels: /^labels .*forged.* is not the job's /,
      'extra-metric': /^metric "performance" is not among the queue's$/,
      suite: /^settings\.suite "extended" is not the job's "study"$/,
    };
    for (const [id, why] of Object.entries(reasons)) {
      const d = data(id);
      const r = checkReturnedRow(FORGE[id]!(genuine(d)), d, scoring);
      assert.ok('problem' in r && why.test(r.problem), `${id}: ${JSON.stringify(r).slice(0, 200)}`);
    }
    assert.ok('row' in checkReturnedRow(genuine(data('good')), data('good'), scoring));

    // The file is whole: collecting again reads it, adds nothing, and exits 0.
    const again = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'forged', '--out', out]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /collected 0 rows into .* \(1 already there/);
  });
});
