#!/usr/bin/env node
// Rewrites the metric tables of docs/scoring.md (between <!-- metrics:study --> and <!-- metrics:added --> markers)
// from the registry, i.e. `webgrade metrics --markdown`. Run after `npm run build`: `npm run readme:metrics`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { metricsMarkdown } = await import(join(root, 'dist', 'bin', 'commands', 'metrics.js'));
const path = join(root, 'docs', 'scoring.md');
let text = readFileSync(path, 'utf8');
for (const name of ['study', 'added']) {
  const re = new RegExp(`(<!-- metrics:${name} -->\\n)[\\s\\S]*?(\\n<!-- /metrics:${name} -->)`);
  if (!re.test(text)) throw new Error(`docs/scoring.md has no <!-- metrics:${name} --> section`);
  text = text.replace(re, (_, a, b) => a + metricsMarkdown(name) + b);
}
writeFileSync(path, text);
