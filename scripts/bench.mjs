#!/usr/bin/env node
// Runs every benchmark of bench/ (compiled to dist/bench/) on its default inputs, one after the other, cheapest
// first so that a broken benchmark shows early and the hour-long mutation run comes last; each prints its own
// figures. A benchmark that cannot run here (its corpus or a tool it needs is absent: exit code 3, see
// bench/common.ts) is reported as skipped with its reason; the others' failures make the run fail at the end.
// Usage: node scripts/bench.mjs [name ...]   (only those benchmarks, in this order)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CANNOT_RUN = 3;
// noise-guard has no inputs of its own: it reads stability's two runs at concurrency 1, written here.
const work = mkdtempSync(join(tmpdir(), 'webgrade-bench-'));
const stabilityOut = join(work, 'stability');

const BENCHMARKS = [
  ['static-metrics', []],
  ['cdn-coverage', []],
  ['vision', []],
  ['bare-lighthouse', []],
  ['browser-suite', []],
  ['hostile', []],
  ['heavy-pages', []],
  ['interaction', []],
  ['first-view', []],
  ['virtual-time', []],
  ['runtime', []],
  ['requirement-tests', []],
  ['fidelity', []],
  ['fidelity-checks', []],
  ['fidelity-ocr', []],
  ['projects', []],
  ['batch', []],
  ['judge-pipeline', []],
  ['stability', ['--out', stabilityOut]],
  ['noise-guard', [join(stabilityOut, 'a-c1.jsonl'), join(stabilityOut, 'b-c1.jsonl')]],
  ['network-modes', []],
  ['arena-pairs', []],
  ['queue', []],
  ['mutate', []],
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !BENCHMARKS.some(([name]) => name === w));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')} (known: ${BENCHMARKS.map(([n]) => n).join(', ')})`);
  process.exit(2);
}
/** Run one benchmark; its stderr is passed through as it comes (progress) and its last line kept (why it could not run). */
function run(script, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] });
    let tail = '';
    child.stderr.on('data', (d) => {
      process.stderr.write(d);
      tail = (tail + d).slice(-4000);
    });
    child.on('close', (code, signal) => resolve({ code, signal, lastError: tail.trim().split('\n').pop() ?? '' }));
  });
}

const outcomes = [];
try {
  for (const [name, args] of BENCHMARKS) {
    if (wanted.length && !wanted.includes(name)) continue;
    if (name === 'noise-guard' && !existsSync(join(stabilityOut, 'b-c1.jsonl'))) {
      outcomes.push([name, 'skipped', 'needs the results of stability, which did not run here']);
      continue;
    }
    console.log(`\n=== ${name}: node dist/bench/${name}.js ${args.join(' ')}`);
    const t = Date.now();
    const r = await run(join(root, 'dist', 'bench', `${name}.js`), args);
    const minutes = ((Date.now() - t) / 60_000).toFixed(1);
    if (r.code === 0) outcomes.push([name, 'ok', `${minutes} min`]);
    else if (r.code === CANNOT_RUN) outcomes.push([name, 'skipped', r.lastError]);
    else outcomes.push([name, 'FAILED', `exit ${r.code ?? r.signal} after ${minutes} min`]);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log('\n=== summary');
for (const [name, status, note] of outcomes) console.log(`${name.padEnd(16)} ${status.padEnd(8)} ${note}`);
process.exit(outcomes.some(([, status]) => status === 'FAILED') ? 1 : 0);
