/**
 * `webgrade batch` with references (real workers, real browser): `--references <dir>` and a requirement's own
 * `reference`, the reference recorded in each row, the reference rendered once per worker and reused from the
 * cache for the next model, and the leaderboard weighing the fidelity perspective only with a reference.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseResults } from '../../store/results-file.js';
import { fixture, runCli, tempDir } from '../helpers.js';

describe('webgrade batch with references (CLI, real workers)', { timeout: 240_000 }, () => {
  it('scores each model against the reference of its requirement; the reference is rendered once and cached', async () => {
    const root = tempDir();
    const runs = join(root, 'runs');
    for (const [model, page] of [
      ['m1', 'landing'],
      ['m2', 'landing-shuffled'],
      ['m3', 'empty'],
    ] as const) {
      mkdirSync(join(runs, model), { recursive: true });
      copyFileSync(fixture('fidelity', `${page}.html`), join(runs, model, 'home.html'));
      copyFileSync(fixture('fidelity', 'landing-inverted.html'), join(runs, model, 'other.html'));
    }
    const refs = join(root, 'designs');
    mkdirSync(refs);
    copyFileSync(fixture('fidelity', 'landing.html'), join(refs, 'home.html'));
    // `other` has no file in --references: its requirement line names its reference, relative to the file
    mkdirSync(join(root, 'reqs', 'own'), { recursive: true });
    copyFileSync(fixture('fidelity', 'landing.html'), join(root, 'reqs', 'own', 'landing.html'));
    writeFileSync(join(root, 'reqs', 'reqs.jsonl'), `${JSON.stringify({ id: 'other', requirement: 'a landing page', reference: 'own/landing.html' })}\n`);
    const out = join(root, 'results.jsonl');
    const r = await runCli(
      [
        'batch',
        runs,
        '--out',
        out,
        '--suite',
        'extended',
        '--only',
        'visual-fidelity',
        '--references',
        refs,
        '--requirements',
        join(root, 'reqs', 'reqs.jsonl'),
        '--network',
        'offline',
      ],
      {
        env: { WEBGRADE_FIDELITY_CACHE: join(root, 'cache') },
        timeoutMs: 200_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const rows = parseResults(readFileSync(out)).rows;
    assert.equal(rows.length, 6);
    const score = (model: string, req: string) => rows.find((x) => x.model === model && x.requirement === req)!.metrics[0]!.score;
    assert.equal(score('m1', 'home'), 100);
    assert.ok(score('m2', 'home')! < 95);
    assert.equal(score('m3', 'home'), 0);
    assert.ok(score('m1', 'other')! < 95); // colours inverted against its own reference
    const caches = rows.filter((x) => x.requirement === 'home').map((x) => (x.reference && 'cache' in x.reference ? x.reference.cache : '?'));
    assert.deepEqual(caches, ['rendered', 'memory', 'memory']);
    const other = rows.find((x) => x.requirement === 'other')!.reference!;
    assert.equal(other.input, join(root, 'reqs', 'own', 'landing.html'));
    const board = await runCli(['leaderboard', out, '--json', '--bootstrap', '0']);
    assert.equal(board.code, 0, board.stderr);
    assert.ok('fidelity' in (JSON.parse(board.stdout) as { weights: { perspectives: Record<string, number> } }).weights.perspectives);
  });

  it('refuses --references outside the extended suite and a missing folder (exit 2)', async () => {
    const runs = tempDir();
    mkdirSync(join(runs, 'm'));
    writeFileSync(join(runs, 'm', 'a.html'), '<p>a</p>');
    const a = await runCli(['batch', runs, '--out', join(tempDir(), 'r.jsonl'), '--references', runs]);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /extended suite/);
    const b = await runCli(['batch', runs, '--out', join(tempDir(), 'r.jsonl'), '--suite', 'extended', '--references', join(runs, 'nope')]);
    assert.equal(b.code, 2);
    assert.match(b.stderr, /no such folder/);
  });
});
