/**
 * Whoever can write to a queue's Redis must not run code or write files on its workers (docs/security.md): with
 * a real redis-server and real `webgrade worker` processes, hostile jobs are added and the stored settings are
 * overwritten straight in Redis, as anyone with access could, and the tests look at the worker's disk afterwards.
 * The scoring process is test/queue/fixtures/echo-worker.ts (set through the worker's own environment), which
 * reports what it was given: the network settings and the files of the artifact.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parseResults, type ResultRow } from '../../store/results-file.js';
import { cliPath, killOwnChildren, ownChild, repoRoot, runCli, tempDir } from '../helpers.js';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';

const binary = redisServerBinary();
const skip = 'skip' in binary ? binary.skip : false;
const echoWorker = join(repoRoot, 'dist', 'test', 'queue', 'fixtures', 'echo-worker.js');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const PAGE = '<!doctype html><title>good</title><p>good</p>';

interface Proc {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** A `webgrade worker` whose temp folder is `tmp` (so a test sees every job folder it makes). */
function startWorker(url: string, queue: string, opts: { tmp: string; extra?: string[]; echo?: boolean }): Proc {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: opts.tmp };
  delete env.WEBGRADE_QUEUE_WORKER_MODULE;
  if (opts.echo !== false) env.WEBGRADE_QUEUE_WORKER_MODULE = echoWorker;
  const child = spawn(process.execPath, [cliPath, 'worker', '--redis', url, '--queue', queue, ...(opts.extra ?? [])], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  process.once('exit', () => child.kill('SIGKILL'));
  ownChild(child);
  return { child, stderr: () => err, exited };
}

async function stop(p: Proc): Promise<void> {
  p.child.kill('SIGTERM');
  assert.equal(await p.exited, 0, p.stderr());
}

async function waitCounts(queue: Queue, want: { completed: number; failed: number }, p: Proc): Promise<void> {
  const end = Date.now() + 120_000;
  for (;;) {
    const c = await queue.getJobCounts('completed', 'failed');
    if (c.completed === want.completed && c.failed === want.failed) return;
    assert.ok(Date.now() < end, `timed out: ${JSON.stringify(c)}\n${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A runs folder with one page, m/good.html, inside `root`. */
function goodRuns(root = tempDir()): string {
  const runs = join(root, 'runs');
  mkdirSync(join(runs, 'm'), { recursive: true });
  writeFileSync(join(runs, 'm', 'good.html'), PAGE);
  return runs;
}

describe("a queue's Redis cannot run code or write files on workers (real redis-server, real workers)", { skip }, () => {
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

  const settingsOf = async (queue: string) =>
    JSON.parse((await client.get(`webgrade:${queue}:settings`))!) as { id: string; pool: Record<string, unknown>; scoring: Record<string, unknown> };

  it("refuses hostile job payloads without retry: nothing is written outside the job's folder, and no job folder is left", async () => {
    const runs = goodRuns();
    const add = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'hj', '--only', 'comment-rate']);
    assert.equal(add.code, 0, add.stderr);
    const { id: settingsId } = await settingsOf('hj');
    const jobTmp = tempDir();
    // Escapes aim at a canary folder beside the worker's temp folder: ../../../ from <tmp>/webgrade-job-x/<name>.
    const canaries = tempDir();
    const up = `../../../${basename(canaries)}`;
    assert.equal(join(jobTmp, 'webgrade-job-x', 'n', up), canaries);
    const secret = join(canaries, 'secret.html');
    writeFileSync(secret, '<p>secret</p>');
    const base = { model: 'evil', hash: 'a'.repeat(64), settingsId, artifact: '/runs/evil/x' };
    const hostile: Record<string, Record<string, unknown>> = {
      'no-kind': { ...base, requirement: 'no-kind', files: [[`${up}/canary-no-kind`, b64('pwned')]] },
      'dir-escape': {
        ...base,
        requirement: 'dir-escape',
        kind: 'dir',
        files: [
          ['index.html', b64(PAGE)],
          [`${up}/canary-dir`, b64('pwned')],
        ],
      },
      absolute: { ...base, requirement: 'absolute', kind: 'dir', files: [[join(canaries, 'canary-absolute'), b64('pwned')]] },
      backslash: { ...base, requirement: 'backslash', kind: 'dir', files: [[`..\\..\\..\\${basename(canaries)}\\canary-backslash`, b64('pwned')]] },
      'dotdot-artifact': { ...base, requirement: 'dotdot-artifact', artifact: '/runs/evil/..', kind: 'dir', files: [['canary-dotdot.html', b64('pwned')]] },
      'files-42': { ...base, requirement: 'files-42', kind: 'dir', files: 42 },
      'file-two': {
        ...base,
        requirement: 'file-two',
        artifact: '/runs/evil/x.html',
        kind: 'file',
        files: [
          ['x.html', b64(PAGE)],
          ['y.html', b64('pwned')],
        ],
      },
      shared: { ...base, requirement: 'shared', artifact: secret, kind: 'file', shared: true },
      'wrong-hash': { ...base, requirement: 'wrong-hash', kind: 'dir', files: [['index.html', b64(PAGE)]] },
    };
    const queue = new Queue('hj', { connection: client });
    for (const [id, data] of Object.entries(hostile)) await queue.add('score', data, { jobId: id, attempts: 3 });
    const w = startWorker(redis.url, 'hj', { tmp: jobTmp });
    await waitCounts(queue, { completed: 1, failed: Object.keys(hostile).length }, w);
    await stop(w);

    const reasons: Record<string, RegExp> = {
      'no-kind': /^job refused: kind: expected one of file, dir/,
      'dir-escape': /^job refused: files\[1\] path: .* is not a plain relative path/,
      absolute: /^job refused: files\[0\] path: is absolute/,
      backslash: /^job refused: files\[0\] path: holds a backslash/,
      'dotdot-artifact': /^job refused: artifact: .* does not end in a plain file or folder name/,
      'files-42': /^job refused: files: expected a list/,
      'file-two': /^job refused: files: a file artifact carries exactly one file/,
      shared: /^job refused: .*secret\.html: a shared job, and this worker takes none \(start it with --shared-root/,
      'wrong-hash': /^job refused: hash: not the hash of the job's files/,
    };
    for (const [id, reason] of Object.entries(reasons)) {
      const job = (await queue.getJob(id))!;
      assert.match(job.failedReason, reason, id);
      assert.equal(job.attemptsMade, 1, `${id} is not retried`);
      assert.match(w.stderr(), new RegExp(`job ${id} refused: `));
    }
    assert.deepEqual(readdirSync(canaries), ['secret.html'], 'no canary was written');
    assert.deepEqual(readdirSync(jobTmp), [], "no file in the worker's temp folder, and every job folder removed");
    assert.ok(!existsSync(join(tmpdir(), 'canary-dotdot.html')));
    await queue.close();

    // Collect writes rows for the jobs it can name (the good one, and refused ones of a valid shape) and counts the rest.
    const out = join(tempDir(), 'r.jsonl');
    const c = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'hj', '--out', out]);
    assert.equal(c.code, 0, c.stderr);
    const rows = parseResults(readFileSync(out)).rows;
    assert.deepEqual(rows.map((r) => `${r.requirement}:${r.status}`).sort(), ['good:ok', 'shared:failed', 'wrong-hash:failed']);
    assert.match(c.stderr, /^7 jobs with a refused payload \(not written by `webgrade queue add`\): no rows for them$/m);
  });

  it('refuses stored settings that name a program to fork: the program never runs', async () => {
    const runs = goodRuns();
    assert.equal((await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'hs', '--only', 'comment-rate'])).code, 0);
    const dir = tempDir();
    const marker = join(dir, 'marker');
    const evil = join(dir, 'evil.mjs');
    writeFileSync(evil, `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], 'ran');\n`);
    const settings = await settingsOf('hs');
    settings.pool.workerModule = evil;
    settings.pool.workerArgs = [marker];
    await client.set('webgrade:hs:settings', JSON.stringify(settings));
    // No worker module from the environment: the stored one is all that could choose the program.
    const w = startWorker(redis.url, 'hs', { tmp: tempDir(), echo: false });
    const queue = new Queue('hs', { connection: client });
    await waitCounts(queue, { completed: 0, failed: 1 }, w);
    await stop(w);
    const [job] = await queue.getJobs(['failed']);
    assert.match(job!.failedReason, /queue hs: its stored settings are refused \(settings\.pool: unknown field "workerModule"\)/);
    assert.equal(job!.attemptsMade, 1, 'refused settings are not retried');
    assert.ok(!existsSync(marker), 'the program named in Redis never ran');
    await queue.close();
    const s = await runCli(['queue', 'status', '--redis', redis.url, '--queue', 'hs']);
    assert.match(s.stdout, /its stored settings are refused \(settings\.pool: unknown field "workerModule"\)/);
  });

  it("scores with the network mode and CDN cache folder of the worker's command line, whatever the stored settings ask", async () => {
    const runs = goodRuns();
    assert.equal((await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'hn', '--only', 'comment-rate'])).code, 0);
    const settings = await settingsOf('hn');
    settings.pool.network = { mode: 'live' };
    settings.pool.checkNetwork = true;
    await client.set('webgrade:hn:settings', JSON.stringify(settings));
    const cache = tempDir();
    const w = startWorker(redis.url, 'hn', { tmp: tempDir(), extra: ['--network', 'offline', '--cdn-cache', cache] });
    const queue = new Queue('hn', { connection: client });
    await waitCounts(queue, { completed: 1, failed: 0 }, w);
    await stop(w);
    const [job] = await queue.getJobs(['completed']);
    const row = job!.returnvalue as ResultRow;
    assert.deepEqual(row.metrics[0]!.details, { network: { mode: 'offline', cdnCache: cache }, checkNetwork: false, files: ['.'] });
    assert.equal(row.settings?.network, 'offline', 'the row records what the worker used');
    assert.equal(row.settings?.checkNetwork, false);
    assert.match(w.stderr(), /queue hn: its settings ask for --network live --check-network; this worker scores with --network offline, its own command line/);
    await queue.close();

    // And `queue add` stores no folder or host list for workers to use.
    for (const flags of [
      ['--cdn-cache', cache],
      ['--network', 'live', '--allow-host', '10.0.0.1'],
      ['--network', `record:${cache}`],
    ]) {
      const r = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'hn2', ...flags]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /worker/);
    }
  });

  it('takes shared jobs only with --shared-root, and only for artifacts inside it by real path', async () => {
    const root = tempDir();
    const runs = goodRuns(root);
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.html'), '<p>secret</p>');
    assert.equal((await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'hr', '--only', 'comment-rate', '--shared'])).code, 0);
    symlinkSync(outside, join(runs, 'link')); // after the add: a link inside the root that leads out of it
    const { id: settingsId } = await settingsOf('hr');
    const queue = new Queue('hr', { connection: client });
    const base = { model: 'evil', hash: 'a'.repeat(64), settingsId, kind: 'file', shared: true };
    await queue.add('score', { ...base, requirement: 'outside', artifact: join(outside, 'secret.html') }, { jobId: 'outside' });
    await queue.add('score', { ...base, requirement: 'link', artifact: join(runs, 'link', 'secret.html') }, { jobId: 'link' });
    const bad = await runCli(['worker', '--redis', redis.url, '--queue', 'hr', '--shared-root', join(root, 'nowhere')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^webgrade: --shared-root .*nowhere: no such folder\n$/);
    const w = startWorker(redis.url, 'hr', { tmp: tempDir(), extra: ['--shared-root', runs] });
    await waitCounts(queue, { completed: 1, failed: 2 }, w);
    await stop(w);
    for (const id of ['outside', 'link']) assert.match((await queue.getJob(id))!.failedReason, /outside this worker's --shared-root/, id);
    const [done] = await queue.getJobs(['completed']);
    assert.equal((done!.returnvalue as ResultRow).artifact, join(runs, 'm', 'good.html'));
    await queue.close();
  });
});
