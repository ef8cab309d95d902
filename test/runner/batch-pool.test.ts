import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { discoverRuns, runBatch, type BatchJob } from '../../distribute/batch.js';
import { parseResults } from '../../store/results-file.js';
import { repoRoot, tempDir } from '../helpers.js';

const fakeWorker = join(repoRoot, 'dist', 'test', 'runner', 'fixtures', 'fake-worker.js');

function jobs(names: string[]): BatchJob[] {
  return names.map((n) => ({ model: 'm', requirement: n, path: `/nowhere/${n}.html` }));
}

describe('batch worker pool', () => {
  it("records a crashed worker's artifact as failed, restarts the worker and finishes the rest", async () => {
    const out = join(tempDir(), 'r.jsonl');
    const s = await runBatch(jobs(['a1', 'crash1', 'a2', 'a3', 'crash2', 'a4']), { out, concurrency: 2, budgetMs: 5000, workerModule: fakeWorker });
    assert.equal(s.scored, 4);
    assert.equal(s.failed, 2);
    const rows = parseResults(readFileSync(out)).rows;
    assert.equal(rows.length, 6);
    const crashed = rows.filter((r) => r.status === 'failed');
    assert.deepEqual(crashed.map((r) => r.requirement).sort(), ['crash1', 'crash2']);
    assert.match(crashed[0]!.error!, /worker crashed \(exit 3\)/);
  });

  it('fails an artifact that passes its hard time limit and goes on with a fresh worker', async () => {
    const out = join(tempDir(), 'r.jsonl');
    const s = await runBatch(jobs(['a1', 'hang1', 'a2']), { out, concurrency: 1, budgetMs: 500, hardLimitMs: 800, workerModule: fakeWorker });
    assert.equal(s.scored, 2);
    assert.equal(s.failed, 1);
    const rows = parseResults(readFileSync(out)).rows;
    const hung = rows.find((r) => r.requirement === 'hang1')!;
    assert.equal(hung.status, 'failed');
    assert.match(hung.error!, /time budget exceeded/);
    const pids = rows.filter((r) => r.status === 'ok').map((r) => (r as unknown as { pid: number }).pid);
    assert.notEqual(pids[0], pids[1], 'a2 ran in a new worker');
  });

  it('records a scoring error as failed with its message', async () => {
    const out = join(tempDir(), 'r.jsonl');
    await runBatch(jobs(['bad1']), { out, concurrency: 1, budgetMs: 5000, workerModule: fakeWorker });
    const [row] = parseResults(readFileSync(out)).rows;
    assert.equal(row!.status, 'failed');
    assert.equal(row!.error, 'cannot load artifact');
  });

  it('skips (model, requirement) pairs already in the results file, ok or failed', async () => {
    const out = join(tempDir(), 'r.jsonl');
    await runBatch(jobs(['a1', 'bad1']), { out, concurrency: 1, budgetMs: 5000, workerModule: fakeWorker });
    const s = await runBatch(jobs(['a1', 'bad1', 'a2']), { out, concurrency: 1, budgetMs: 5000, workerModule: fakeWorker });
    assert.equal(s.alreadyDone, 2);
    assert.equal(s.scored, 1);
    assert.deepEqual(
      parseResults(readFileSync(out)).rows.map((r) => r.requirement),
      ['a1', 'bad1', 'a2'],
    );
  });

  it('adds requirement labels to the rows', async () => {
    const out = join(tempDir(), 'r.jsonl');
    await runBatch(jobs(['a1']), {
      out,
      concurrency: 1,
      budgetMs: 5000,
      workerModule: fakeWorker,
      requirements: [{ id: 'a1', requirement: 'x', labels: { style: 'minimal' } }],
    });
    assert.deepEqual(parseResults(readFileSync(out)).rows[0]!.labels, { style: 'minimal' });
  });

  it('discovers both runs layouts and skips folders without index.html', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'm1', 'r2'), { recursive: true });
    mkdirSync(join(dir, 'm1', 'r3'), { recursive: true });
    mkdirSync(join(dir, 'm2'), { recursive: true });
    writeFileSync(join(dir, 'm1', 'r1.html'), '<p>');
    writeFileSync(join(dir, 'm1', 'r2', 'index.html'), '<p>');
    writeFileSync(join(dir, 'm1', 'notes.txt'), 'x');
    writeFileSync(join(dir, 'm2', 'r1.html'), '<p>');
    const d = discoverRuns(dir);
    assert.deepEqual(
      d.jobs.map((j) => `${j.model}/${j.requirement}`),
      ['m1/r1', 'm1/r2', 'm2/r1'],
    );
    assert.deepEqual(d.skipped, ['m1/r3/ (no index.html)']);
    assert.throws(() => discoverRuns(join(dir, 'm2')), /no artifacts found/);
  });
});
