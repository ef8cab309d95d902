/**
 * The package installs and runs: `npm pack` (the `files` list of package.json) ships the compiled program, its
 * data and the docs, but no tests, fixtures, benchmarks, TypeScript sources or source maps; the tarball installed
 * into an empty folder (dependencies from the npm cache or registry) scores a page there with `npx webgrade
 * score`, with the system's Chromium as in the quick start, and prints a metric page.
 *
 * Slow by nature (an install of the dependencies, then a browser run): minutes on a loaded machine.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixture, repoRoot, tempDir } from '../helpers.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (cmd: string, args: string[], cwd: string, timeout: number): SpawnSyncReturns<string> =>
  spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, npm_config_update_notifier: 'false' } });
const must = (r: SpawnSyncReturns<string>, what: string) => assert.equal(r.status, 0, `${what}: ${r.error ?? ''}${r.stderr.slice(-2000)}`);

describe('the npm package', { timeout: 20 * 60_000 }, () => {
  const dir = tempDir('webgrade-pack-');
  let tarball = '';

  it('ships what a user runs: the compiled program, its data, README and docs; no tests, fixtures or sources', () => {
    // --ignore-scripts: pack the dist/ this test run was built with (`prepare` would compile again).
    const r = run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], repoRoot, 5 * 60_000);
    must(r, 'npm pack');
    const [info] = JSON.parse(r.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(dir, info!.filename);
    const files = info!.files.map((f) => f.path);
    const unwanted = files.filter((f) => /^(test|fixtures|bench|scripts)\/|^dist\/(test|bench)\/|\.ts$|\.map$|tsbuildinfo/.test(f));
    assert.deepEqual(unwanted, []);
    for (const f of [
      'package.json',
      'README.md',
      'dist/bin/webgrade.js',
      'weights/default-norms.json',
      'cdn/data/cdnjs.json',
      'core/requirement-tests.schema.json',
      'docs/metrics/lint.md',
    ])
      assert.ok(files.includes(f), `${f} is in the package`);
  });

  it('installs into an empty folder and scores a page there with `npx webgrade score`', () => {
    assert.ok(existsSync(tarball), 'the previous test packed the tarball');
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'try-webgrade', version: '1.0.0', private: true }));
    must(run(npm, ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], app, 15 * 60_000), 'npm install');
    assert.ok(!existsSync(join(app, 'node_modules', 'webgrade', 'test')), 'no tests installed');
    cpSync(fixture('example'), join(app, 'page'), { recursive: true });

    const score = run('npx', ['--no-install', 'webgrade', 'score', 'page', '--only', 'lint,console-errors', '--json'], app, 5 * 60_000);
    must(score, 'npx webgrade score');
    const doc = JSON.parse(score.stdout) as { metrics: Array<{ id: string; score: number | null }> };
    const scores = Object.fromEntries(doc.metrics.map((m) => [m.id, m.score]));
    assert.equal(typeof scores['lint'], 'number');
    assert.equal(typeof scores['console-errors'], 'number', 'the browser ran (console-errors needs it)');

    const page = run('npx', ['--no-install', 'webgrade', 'metrics', '--explain', 'lint'], app, 2 * 60_000);
    must(page, 'npx webgrade metrics --explain');
    assert.equal(page.stdout, readFileSync(join(repoRoot, 'docs', 'metrics', 'lint.md'), 'utf8'));
  });
});
