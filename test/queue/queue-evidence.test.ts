/**
 * The pictures of queue rows: a real worker keeps them and returns them in its rows; `queue collect` writes them
 * beside the results where a batch would (and drops them with --no-evidence). A returned row cannot place files
 * outside the evidence folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import { parseResults, type ResultRow } from '../../store/results-file.js';
import { unpackEvidence } from '../../distribute/evidence-transfer.js';
import { cliPath, killOwnChildren, ownChild, repoRoot, runCli, tempDir } from '../helpers.js';
import { redisServerBinary, startRedis, type RedisServer } from './redis-server.js';

const binary = redisServerBinary();
const skip = 'skip' in binary ? binary.skip : false;
const rowsOf = (p: string): ResultRow[] => parseResults(readFileSync(p)).rows;

describe('unpackEvidence: rows from Redis place no file outside the evidence folder', () => {
  it('derives folders and names itself and keeps only WebP bytes', async () => {
    const dir = tempDir();
    const webp = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#f00' } })
      .webp()
      .toBuffer();
    const row: ResultRow = {
      model: '../../evil',
      requirement: 'r1',
      status: 'ok',
      artifact: '/x',
      metrics: [],
      evidence: {
        folder: '../../../etc',
        bytes: 0,
        cap: 1,
        pictures: [
          { file: '../../../../tmp/owned.webp', kind: 'desktop', caption: 'd', width: 4, height: 4, bytes: 1, data: webp.toString('base64') } as never,
          { file: 'x.webp', kind: 'phone', caption: 'p', width: 4, height: 4, bytes: 1, data: Buffer.from('#!/bin/sh').toString('base64') } as never,
        ],
      },
    };
    const out = unpackEvidence(row, { root: join(dir, 'ev'), base: dir });
    assert.equal(out.evidence!.pictures.length, 1);
    const file = out.evidence!.pictures[0]!.file;
    assert.ok(file.startsWith('ev/') && !file.split('/').includes('..'), file);
    assert.ok(resolve(dir, file).startsWith(join(dir, 'ev') + '/'), file);
    assert.ok(existsSync(join(dir, file)));
    assert.match(out.evidence!.dropped!.join(';'), /not a WebP picture/);
    assert.equal(unpackEvidence(row, undefined).evidence, undefined);
  });
});

describe('queue rows carry their pictures to collect (real redis-server, real worker)', { skip, timeout: 600_000 }, () => {
  let redis: RedisServer;
  let client: Redis;
  const dir = tempDir();

  before(async () => {
    redis = await startRedis((binary as { path: string }).path);
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
  });
  after(async () => {
    killOwnChildren();
    client?.disconnect();
    await redis?.stop();
  });

  it('collect writes them beside the results as batch does; --no-evidence drops them', async () => {
    const runs = join(dir, 'runs');
    mkdirSync(join(runs, 'm'), { recursive: true });
    for (const i of [1, 2])
      writeFileSync(
        join(runs, 'm', `r${i}.html`),
        `<!doctype html><html lang="en"><head><title>p${i}</title></head><body><h1>Page ${i}</h1><div style="width:${500 + i * 10}px;height:40px;background:#369"></div></body></html>`,
      );
    const add = await runCli(['queue', 'add', runs, '--redis', redis.url, '--queue', 'ev', '--only', 'mobile-compat,layout-sparsity']);
    assert.equal(add.code, 0, add.stderr);
    const child = ownChild(
      spawn(process.execPath, [cliPath, 'worker', '--redis', redis.url, '--queue', 'ev'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] }),
    );
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const queue = new Queue('ev', { connection: client });
    const end = Date.now() + 400_000;
    while ((await queue.getJobCounts('completed')).completed < 2) {
      assert.ok(Date.now() < end, `jobs not done: ${err}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    await queue.close();
    child.kill('SIGTERM');
    const out = join(dir, 'collected.jsonl');
    const c = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'ev', '--out', out]);
    assert.equal(c.code, 0, c.stderr);
    const rows = rowsOf(out);
    assert.equal(rows.length, 2);
    for (const r of rows) {
      assert.equal(r.evidence?.folder, join('collected.evidence', 'm', r.requirement));
      assert.ok(r.evidence!.pictures.some((p) => p.kind === 'desktop'));
      for (const p of r.evidence!.pictures) {
        assert.equal((p as { data?: string }).data, undefined, 'no bytes in the results file');
        assert.equal(readFileSync(join(dir, p.file)).length, p.bytes);
      }
    }
    const bare = join(dir, 'bare.jsonl');
    const c2 = await runCli(['queue', 'collect', '--redis', redis.url, '--queue', 'ev', '--out', bare, '--no-evidence']);
    assert.equal(c2.code, 0, c2.stderr);
    assert.ok(rowsOf(bare).every((r) => r.evidence === undefined));
    assert.ok(!existsSync(join(dir, 'bare.evidence')));
    assert.deepEqual(readdirSync(join(dir, 'collected.evidence', 'm')).sort(), ['r1', 'r2']);
  });
});
