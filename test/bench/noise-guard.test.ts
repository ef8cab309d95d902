/** bench/noise-guard.ts on synthetic repeats: it runs, and what it prints follows from the data. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, tempDir } from '../helpers.js';
import { repeatRow } from '../weights/synthetic.js';

const script = join(repoRoot, 'dist', 'bench', 'noise-guard.js');

describe('bench/noise-guard', () => {
  it('shows the guard shrinking page moves and steadying the ranking as k grows (one file with repeats)', () => {
    // 80 pages of one source: performance 100 on most, noisy by a point between repeats; two noiseless metrics.
    const rows = [];
    for (let i = 0; i < 80; i++) {
      for (const rep of [1, 2]) {
        const perf = 100 - (i % 13 === 0 ? 3 : 0) - ((i * 13 + rep * 5) % 3 === 0 ? 1 : 0);
        rows.push(repeatRow('corpus', `p${i}`, rep, { performance: perf, 'comment-rate': 40 + ((i * 17) % 50), accessibility: 70 + ((i * 7) % 30) }));
      }
    }
    const file = join(tempDir(), 'rep.jsonl');
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = spawnSync(process.execPath, [script, file, '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { models: string; ks: Array<{ k: number; raised: string[]; moveP90: number; tauMean: number; tauVsStudy: number }> };
    assert.equal(out.models, '10 pseudo-models');
    assert.deepEqual(
      out.ks.map((x) => x.k),
      [0, 1, 2, 3, 5],
    );
    const k0 = out.ks[0]!;
    const k5 = out.ks[4]!;
    assert.deepEqual(k0.raised, []);
    assert.deepEqual(k5.raised, ['performance']);
    assert.ok(k5.moveP90 < k0.moveP90 / 2, `p90 move ${k5.moveP90} vs ${k0.moveP90}`);
    assert.ok(k5.tauMean > k0.tauMean, `τ ${k5.tauMean} vs ${k0.tauMean}`);
    assert.equal(k0.tauVsStudy, 1);
  });

  it('needs two runs', () => {
    const file = join(tempDir(), 'one.jsonl');
    writeFileSync(file, JSON.stringify(repeatRow('m', 'p', 1, { performance: 1 })) + '\n');
    const r = spawnSync(process.execPath, [script, file], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /need at least two runs/);
  });
});
