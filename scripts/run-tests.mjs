#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with Node's built-in test runner.
// Usage: node scripts/run-tests.mjs [filter-substring ...]
// Browser tests share one machine's two cores, so files run with bounded concurrency.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testRoot = join(root, 'dist', 'test');
if (!existsSync(testRoot)) {
  console.error('no compiled tests: run `npm run build` first');
  process.exit(2);
}

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
// A compiled test whose TypeScript source is gone (moved or deleted) is stale output of an incremental build.
const hasSource = (f) => existsSync(join(root, relative(join(root, 'dist'), f)).replace(/\.js$/, '.ts'));
const files = walk(testRoot)
  .filter(hasSource)
  .filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(2);
}

// Which browser the browser tests ran on: a Chrome release can change what a page asks for and shows.
const { browserVersion } = await import(join(root, 'dist', 'gather', 'chrome.js'));
console.log(`# browser: ${browserVersion() ?? 'none found (browser tests will report it)'}; node ${process.version}`);

const args = ['--test', `--test-concurrency=${process.env.WEBGRADE_TEST_CONCURRENCY ?? 2}`];
if (!process.stdout.isTTY) args.push('--test-reporter=spec');
const r = spawnSync(process.execPath, [...args, ...files], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
