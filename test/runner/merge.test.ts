import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ResultRow } from '../../store/results-file.js';
import { parseResults } from '../../store/results-file.js';
import { inShard, parseShard, shardOf } from '../../distribute/shard.js';
import { scoringSettings } from '../../runner/scoring-settings.js';
import { runCli, tempDir } from '../helpers.js';

function row(model: string, requirement: string, score: number, over: Partial<ResultRow> = {}): ResultRow {
  return {
    model,
    requirement,
    settings: scoringSettings({ only: ['comment-rate'], budgetMs: 60_000 }),
    status: 'ok',
    artifact: `/runs/${model}/${requirement}.html`,
    metrics: [{ id: 'comment-rate', perspective: 'maintainability', kind: 'rule', title: 'Comment rate', score, details: {}, ms: 1 }],
    ...over,
  };
}

function file(rows: ResultRow[]): string {
  const p = join(tempDir(), 'r.jsonl');
  writeFileSync(p, rows.map((r) => JSON.stringify(r) + '\n').join(''));
  return p;
}

describe('shards', () => {
  it('split artifacts by model and requirement only: every artifact in exactly one shard, the same one whatever else is there', () => {
    const items = Array.from({ length: 200 }, (_, i) => ({ model: `m${i % 3}`, requirement: `r${i}` }));
    const parts = [1, 2, 3, 4].map((index) => inShard(items, { index, count: 4 }));
    assert.equal(
      parts.reduce((n, p) => n + p.length, 0),
      200,
    );
    for (const p of parts) assert.ok(p.length > 20, 'roughly even');
    assert.deepEqual(
      inShard(items.slice(50), { index: 2, count: 4 }),
      parts[1]!.filter((x) => items.indexOf(x) >= 50),
    );
    assert.equal(shardOf('m0', 'r0', 4), shardOf('m0', 'r0', 4));
  });

  it('reject malformed --shard values', () => {
    assert.deepEqual(parseShard('2/5'), { index: 2, count: 5 });
    for (const bad of ['0/2', '3/2', '1', 'a/b', '1/0']) assert.throws(() => parseShard(bad), /--shard/);
  });
});

describe('webgrade merge', () => {
  it('merges files into one sorted row per artifact; an ok row beats a failed one, then the later file', async () => {
    const a = file([row('m2', 'r1', 10), row('m1', 'r1', 20), row('m1', 'r2', 0, { status: 'failed', error: 'x', metrics: [] })]);
    const b = file([row('m1', 'r1', 25), row('m1', 'r2', 30), row('m1', 'r3', 40, { status: 'failed', error: 'y', metrics: [] })]);
    const out = join(tempDir(), 'all.jsonl');
    const r = await runCli(['merge', a, b, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /3 rows|4 rows/);
    const rows = parseResults(readFileSync(out)).rows;
    assert.deepEqual(
      rows.map((x) => `${x.model}/${x.requirement}:${x.status}:${x.metrics[0]?.score ?? '-'}`),
      ['m1/r1:ok:25', 'm1/r2:ok:30', 'm1/r3:failed:-', 'm2/r1:ok:10'],
    );
    assert.match(r.stdout, /2 duplicates dropped, 1 of them with other scores/);
    // The other order: the later file still wins among ok rows, and the ok row still beats the failed one.
    const out2 = join(tempDir(), 'all.jsonl');
    await runCli(['merge', b, a, '--out', out2]);
    assert.deepEqual(
      parseResults(readFileSync(out2)).rows.map((x) => `${x.requirement}:${x.metrics[0]?.score ?? '-'}`),
      ['r1:20', 'r2:30', 'r3:-', 'r1:10'],
    );
  });

  it('refuses files scored with different settings, in one line with exit 2, and writes nothing', async () => {
    const a = file([row('m1', 'r1', 20)]);
    const b = file([row('m1', 'r2', 20, { settings: scoringSettings({ only: ['comment-rate'], budgetMs: 60_000, suite: 'extended' }) })]);
    const out = join(tempDir(), 'all.jsonl');
    const r = await runCli(['merge', a, b, '--out', out]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^webgrade: .* were scored with different settings \(suite: study vs extended\)/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    // Older rows without `settings`: what they show (their metric ids) is compared.
    const old1 = file([{ ...row('m1', 'r1', 20), settings: undefined } as ResultRow]);
    const old2 = file([
      {
        ...row('m1', 'r2', 20, { metrics: [{ id: 'lint', perspective: 'code', kind: 'rule', title: 'Lint', score: 1, details: {}, ms: 1 }] }),
        settings: undefined,
      } as ResultRow,
    ]);
    const r2 = await runCli(['merge', old1, old2, '--out', join(tempDir(), 'o.jsonl')]);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /metrics: comment-rate vs lint/);
  });

  it('refuses to merge rows visited on the page clock with rows visited on real time (the default)', async () => {
    const real = scoringSettings({ only: ['comment-rate'], budgetMs: 60_000 });
    assert.equal(real.visitClock, 'real');
    const page = scoringSettings({ only: ['comment-rate'], budgetMs: 60_000, visitClock: 'page' });
    assert.equal(page.visitClock, 'page');
    const r = await runCli([
      'merge',
      file([row('m1', 'r1', 20, { settings: real })]),
      file([row('m1', 'r2', 20, { settings: page })]),
      '--out',
      join(tempDir(), 'o.jsonl'),
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /visitClock: real vs page/);
  });

  it('merges rows scored with different browsers, with a one-line warning naming them (a warning, not a refusal)', async () => {
    const settings = scoringSettings({ only: ['comment-rate'], budgetMs: 60_000 });
    const a = file([row('m1', 'r1', 10, { settings: { ...settings, browser: 'Chromium 150.0.7871.100' } })]);
    const b = file([row('m1', 'r2', 20, { settings: { ...settings, browser: 'Chromium 156.0.8078.73' } })]);
    const out = join(tempDir(), 'all.jsonl');
    const r = await runCli(['merge', a, b, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(parseResults(readFileSync(out)).rows.length, 2);
    assert.match(r.stderr, /^warning: the rows were scored with 2 browsers \(Chromium 150\.0\.7871\.100, Chromium 156\.0\.8078\.73\)/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    // One browser: no warning.
    const c = file([row('m2', 'r1', 10, { settings: { ...settings, browser: 'Chromium 150.0.7871.100' } })]);
    const same = await runCli(['merge', a, c, '--out', join(tempDir(), 'same.jsonl')]);
    assert.equal(same.stderr, '');
  });

  it('refuses to overwrite an existing --out that is not an input', async () => {
    const a = file([row('m1', 'r1', 20)]);
    const out = file([row('m9', 'r9', 1)]);
    const r = await runCli(['merge', a, '--out', out]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /exists/);
    assert.equal(parseResults(readFileSync(out)).rows[0]!.model, 'm9');
    const r2 = await runCli(['merge', out, a, '--out', out]);
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(parseResults(readFileSync(out)).rows.length, 2);
  });
});
