/** `batch --repeats`: one job and one row per repeat; resume and dedupe key on (model, requirement, repeat). */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBatch, withRepeats, type BatchJob } from '../../distribute/batch.js';
import { dedupeRows, parseResults, rowKey, type ResultRow } from '../../store/results-file.js';
import { mkdirSync } from 'node:fs';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const fakeWorker = join(repoRoot, 'dist', 'test', 'runner', 'fixtures', 'fake-worker.js');
const jobs = (names: string[]): BatchJob[] => names.map((n) => ({ model: 'm', requirement: n, path: `/nowhere/${n}.html` }));
const r = (requirement: string, repeat?: number, status: 'ok' | 'failed' = 'ok'): ResultRow => ({
  model: 'm',
  requirement,
  ...(repeat ? { repeat } : {}),
  status,
  artifact: 'x',
  metrics: [],
});
const rowsOf = (p: string) => parseResults(readFileSync(p)).rows;
const keys = (rows: ResultRow[]) => rows.map((x) => `${x.requirement}#${x.repeat ?? '-'}`);

describe('repeats in the results file', () => {
  it('keys rows by repeat, with a row without one as repeat 1', () => {
    assert.equal(rowKey('m', 'a'), rowKey('m', 'a', 1));
    assert.notEqual(rowKey('m', 'a', 1), rowKey('m', 'a', 2));
    const { rows, duplicates } = dedupeRows([r('a'), r('a', 2), r('a', 1, 'failed'), r('b', 2)]);
    assert.equal(duplicates, 1);
    assert.deepEqual(keys(rows), ['a#1', 'a#2', 'b#2']);
    assert.equal(rows[0]!.status, 'failed', 'the last row of a key counts');
  });

  it('treats a row whose repeat is not a whole number ≥ 1 as unreadable', () => {
    const lines = [r('a', 1), { ...r('a'), repeat: 0 }, { ...r('a'), repeat: 1.5 }, { ...r('a'), repeat: '2' }, r('a', 3)].map((x) => JSON.stringify(x) + '\n');
    const res = parseResults(Buffer.from(lines.join('')));
    assert.deepEqual(keys(res.rows), ['a#1', 'a#3']);
    assert.deepEqual(res.badLines, [2, 3, 4]);
  });
});

describe('batch --repeats', () => {
  it('orders jobs repeat-major and leaves single runs unmarked', () => {
    assert.deepEqual(
      withRepeats(jobs(['a', 'b']), 1).map((j) => j.repeat),
      [undefined, undefined],
    );
    assert.deepEqual(
      withRepeats(jobs(['a', 'b']), 2).map((j) => `${j.requirement}#${j.repeat}`),
      ['a#1', 'b#1', 'a#2', 'b#2'],
    );
  });

  it('scores each artifact once per repeat, each a separate job, one row per repeat marked 1..n', async () => {
    const out = join(tempDir(), 'r.jsonl');
    const s = await runBatch(jobs(['a1', 'a2']), { out, concurrency: 1, budgetMs: 5000, workerModule: fakeWorker, repeats: 3 });
    assert.equal(s.total, 6);
    assert.equal(s.scored, 6);
    assert.deepEqual(keys(rowsOf(out)), ['a1#1', 'a2#1', 'a1#2', 'a2#2', 'a1#3', 'a2#3']);
    assert.equal(rowsOf(out)[0]!.requirement, 'a1');
  });

  it('resumes per repeat: rows without repeat count as repeat 1, raising --repeats adds only the new repeats', async () => {
    const out = join(tempDir(), 'r.jsonl');
    await runBatch(jobs(['a1', 'a2']), { out, concurrency: 1, budgetMs: 5000, workerModule: fakeWorker });
    assert.deepEqual(keys(rowsOf(out)), ['a1#-', 'a2#-']);
    const s = await runBatch(jobs(['a1', 'a2']), { out, concurrency: 1, budgetMs: 5000, workerModule: fakeWorker, repeats: 2 });
    assert.equal(s.alreadyDone, 2);
    assert.equal(s.scored, 2);
    assert.deepEqual(keys(rowsOf(out)), ['a1#-', 'a2#-', 'a1#2', 'a2#2']);
    // A torn or partial third repeat: only what is missing is scored again.
    const text = readFileSync(out, 'utf8');
    writeFileSync(out, text + JSON.stringify({ ...rowsOf(out)[0], repeat: 3 }) + '\n');
    const again = await runBatch(jobs(['a1', 'a2']), { out, concurrency: 1, budgetMs: 5000, workerModule: fakeWorker, repeats: 3 });
    assert.equal(again.alreadyDone, 5);
    assert.equal(again.scored, 1);
    assert.deepEqual(keys(rowsOf(out)).sort(), ['a1#-', 'a1#2', 'a1#3', 'a2#-', 'a2#2', 'a2#3']);
  });
});

describe('webgrade batch --repeats (CLI, real workers)', () => {
  it('writes a row per repeat, shows the repeat in the progress, and the leaderboard counts each artifact once', async () => {
    const runs = tempDir();
    for (const m of ['m1', 'm2']) {
      mkdirSync(join(runs, m));
      for (const i of [0, 1])
        writeFileSync(
          join(runs, m, `req-${i}.html`),
          `<!doctype html><html><body>\n${'<!-- c -->\n'.repeat(i + (m === 'm1' ? 1 : 0))}<p>x</p>\n</body></html>\n`,
        );
    }
    const out = join(tempDir(), 'results.jsonl');
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate', '--repeats', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /done: 8 scored, 0 failed, 0 already done \(of 8\)/);
    assert.match(r.stderr, /m1\/req-0 #2 ok/);
    assert.deepEqual(
      rowsOf(out).map((x) => x.repeat),
      [1, 1, 1, 1, 2, 2, 2, 2],
    );
    const lb = await runCli(['leaderboard', out, '--bootstrap', '0']);
    assert.equal(lb.code, 0, lb.stderr);
    assert.match(lb.stdout, /2 models, 4 artifacts \(0 failed\) scored up to 2 times \(8 rows;/);
    const bad = await runCli(['batch', runs, '--out', out, '--repeats', '0']);
    assert.equal(bad.code, 2);
  });
});
