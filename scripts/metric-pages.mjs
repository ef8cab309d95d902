#!/usr/bin/env node
// Writes docs/metrics/<id>.md and docs/metrics/README.md (test/docs/metric-pages.ts), or with --check exits 1
// naming every page that differs from what would be written. Run after `npm run build`: `npm run docs:metrics`.
// `--pages <dir>` reads and writes the pages in another folder than docs/metrics (the staleness test's copy).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

process.setMaxListeners(0); // every test artifact is a temporary folder removed at exit
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
register(pathToFileURL(join(root, 'dist', 'test', 'docs', 'quiet-tests-hooks.js')).href);
const { renderMetricPages } = await import(join(root, 'dist', 'test', 'docs', 'metric-pages.js'));
const check = process.argv.includes('--check');
const at = process.argv.indexOf('--pages');
const pagesDir = at > 0 ? process.argv[at + 1] : null;
const pages = await renderMetricPages();
const stale = [];
for (const [rel, text] of pages) {
  const path = pagesDir ? join(pagesDir, rel.replace(/^docs\/metrics\//, '')) : join(root, rel);
  const now = existsSync(path) ? readFileSync(path, 'utf8') : null;
  if (now === text) continue;
  stale.push(rel);
  if (!check) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}
if (check && stale.length) {
  console.error(`stale metric pages (run \`npm run build && npm run docs:metrics\`): ${stale.join(', ')}`);
  process.exit(1);
}
console.log(check ? `${pages.size} metric pages up to date` : `${stale.length} of ${pages.size} metric pages written`);
