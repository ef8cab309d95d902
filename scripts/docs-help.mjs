#!/usr/bin/env node
// Refreshes the `webgrade <command> --help` blocks of README.md and docs/**/*.md (<!-- help:<command> --> ...
// <!-- /help:<command> -->, test/docs/docs-check.ts) from the built CLI, and names every command that no page
// holds a block for. Run after `npm run build`: `npm run docs:help`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { allHelp, docFiles, helpBlocks, withHelp } = await import(join(root, 'dist', 'test', 'docs', 'docs-check.js'));
const help = await allHelp();
const covered = new Set();
for (const file of docFiles()) {
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  for (const k of helpBlocks(text).keys()) covered.add(k);
  const next = withHelp(text, help);
  if (next !== text) {
    writeFileSync(path, next);
    console.log(`updated ${file}`);
  }
}
const missing = [...help.keys()].filter((k) => !covered.has(k));
if (missing.length) {
  console.error(`commands without a help block on any page: ${missing.join(', ')}`);
  process.exit(1);
}
