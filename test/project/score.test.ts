/**
 * The three framework fixtures (React, Vue, Svelte under Vite) and the failing build, end to end through the CLI:
 * `batch` over runs/<model>/app/ and `score` of each project. Two metrics keep it short: comment-rate (static: read
 * from the sources) and console-errors (needs the built page). A built project scores both; the failing build
 * scores console-errors 0 with the build's reason (UI2App's rule) and comment-rate from its sources.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixture, runCli, tempDir } from '../helpers.js';
import { sandboxSkip, TEST_STORE } from './tools.js';

const skip = sandboxSkip();
const env = { ...process.env, WEBGRADE_PROJECT_STORE: TEST_STORE };
const ONLY = 'comment-rate,console-errors';

interface Row {
  model: string;
  status: string;
  metrics: Array<{ id: string; score: number | null; reason?: string; detail?: string }>;
  project?: { status: string; reason?: string; build?: { ms: number }; output?: { folder: string; jsBytes: number } };
}

describe('projects scored end to end', { skip }, () => {
  it('batch: the React, Vue and Svelte apps are built and scored; the failing build scores its page metrics 0', { timeout: 900_000 }, async () => {
    const runs = join(tempDir('webgrade-project-batch-'), 'runs');
    for (const [model, name] of [
      ['react', 'react-app'],
      ['vue', 'vue-app'],
      ['svelte', 'svelte-app'],
      ['fails', 'build-fails'],
    ] as const)
      cpSync(fixture('projects', name), join(runs, model, 'app'), { recursive: true });
    const out = join(runs, '..', 'results.jsonl');
    const r = await runCli(['batch', runs, '--out', out, '--only', ONLY], { env, timeoutMs: 900_000 });
    assert.equal(r.code, 0, r.stderr);
    const rows = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row);
    const by = new Map(rows.map((row) => [row.model, row]));
    for (const model of ['react', 'vue', 'svelte']) {
      const row = by.get(model)!;
      assert.equal(row.project?.status, 'built', `${model}: ${row.project?.reason}`);
      assert.equal(row.project?.output?.folder, 'dist');
      assert.ok(row.project!.output!.jsBytes > 1000);
      for (const id of ['comment-rate', 'console-errors']) {
        const m = row.metrics.find((x) => x.id === id)!;
        assert.equal(typeof m.score, 'number', `${model} ${id}: ${JSON.stringify(m)}`);
      }
    }
    const failed = by.get('fails')!;
    assert.equal(failed.project?.status, 'failed');
    const page = failed.metrics.find((x) => x.id === 'console-errors')!;
    assert.equal(page.score, 0);
    assert.match(JSON.stringify(page), /build failed/);
    assert.equal(typeof failed.metrics.find((x) => x.id === 'comment-rate')!.score, 'number');
  });

  for (const name of ['react-app', 'vue-app', 'svelte-app'])
    it(`score: ${name} is built and scored as a JSON document`, { timeout: 600_000 }, async () => {
      const r = await runCli(['score', fixture('projects', name), '--json', '--only', ONLY], { env, timeoutMs: 600_000 });
      assert.equal(r.code, 0, r.stderr);
      const doc = JSON.parse(r.stdout) as Row;
      assert.equal(doc.project?.status, 'built', doc.project?.reason);
      for (const id of ['comment-rate', 'console-errors']) {
        const m = doc.metrics.find((x) => x.id === id)!;
        assert.equal(typeof m.score, 'number', `${name} ${id}: ${JSON.stringify(m)}`);
      }
    });

  it('score: the failing build as a JSON document', { timeout: 600_000 }, async () => {
    const r = await runCli(['score', fixture('projects', 'build-fails'), '--json', '--only', ONLY], { env, timeoutMs: 600_000 });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as Row;
    assert.equal(doc.project?.status, 'failed');
    assert.equal(doc.metrics.find((x) => x.id === 'console-errors')!.score, 0);
  });
});
