/**
 * The metric pages are current: `scripts/metric-pages.mjs --check` renders every page again (registry, doc
 * comment, test table, mutation operators) and fails naming a page that differs; `webgrade metrics --explain`
 * prints the page.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const script = join(repoRoot, 'scripts', 'metric-pages.mjs');
const check = (...args: string[]) => spawnSync(process.execPath, [script, '--check', ...args], { cwd: repoRoot, encoding: 'utf8' });

describe('metric pages', () => {
  // One render (it scores every example again, 20-40 s on a loaded machine) checks both directions: every page
  // but the one edited in a copy of docs/metrics/ is current, and the edited one is named as stale.
  it('docs/metrics/ is what the generator writes, and a page edited by hand is named as stale', () => {
    const dir = tempDir();
    cpSync(join(repoRoot, 'docs', 'metrics'), dir, { recursive: true });
    const page = join(dir, 'lint.md');
    writeFileSync(page, readFileSync(page, 'utf8').replace('## How it is scored', '## How it was scored'));
    const r = check('--pages', dir);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^stale metric pages \(run `npm run build && npm run docs:metrics`\): docs\/metrics\/lint\.md$/m);
  });

  it('`webgrade metrics --explain <id>` prints the page; an unknown id is a one-line usage error', async () => {
    const r = await runCli(['metrics', '--explain', 'comment-rate']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, readFileSync(join(repoRoot, 'docs', 'metrics', 'comment-rate.md'), 'utf8'));
    const bad = await runCli(['metrics', '--explain', 'no-such-metric']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
  });
});
