#!/usr/bin/env node
// Removes compiled files whose TypeScript source is gone (an incremental build never deletes the output of a moved
// or deleted source), so that `npm pack` ships only what the sources compile to. Run by `prepack`.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
let removed = 0;
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      walk(p);
      if (readdirSync(p).length === 0) rmSync(p, { recursive: true });
      continue;
    }
    const m = name.match(/^(.*)\.js(\.map)?$/);
    if (!m) continue;
    const source = join(root, relative(dist, dirname(p)), `${m[1]}.ts`);
    if (!existsSync(source)) {
      rmSync(p);
      removed++;
    }
  }
};
if (existsSync(dist)) walk(dist);
console.log(`prune-dist: ${removed} compiled file${removed === 1 ? '' : 's'} without a source removed`);
