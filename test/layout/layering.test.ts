/**
 * The import layering of README "Layout", the pipeline's rooms: imports run one way, bin/ (CLI) → report/ (every
 * printed and HTML format) → runner/ (orchestration) → survey/, weights/ (aggregation) → metrics/ → core/ (the
 * contract), with gather/ (artifact serving, browser session, Lighthouse, probe, sandbox) under runner/ and over
 * cdn/ and judges/, project/ (a project's install, sandboxed build and source view) under runner/ and over cdn/,
 * arena/ (people's pairwise votes: a server over a results file) beside report/ and mutate/,
 * and no file imports itself back through a chain (no cycles).
 * Read with TypeScript's own pre-processor over the sources, so `import type` counts too. Inside
 * metrics/, a metric module (one that registry.ts lists) is imported by no other metric file: shared code lives
 * in the library room metrics/lib/, which imports no metric module.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { repoRoot } from '../helpers.js';

/** What each folder may import besides itself (node built-ins and packages are always allowed). */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  lib: ['core'],
  cdn: ['core', 'lib'],
  judges: ['core', 'lib'],
  gather: ['core', 'lib', 'cdn', 'judges'],
  project: ['core', 'lib', 'cdn'],
  metrics: ['core', 'lib'],
  weights: ['core', 'lib', 'metrics'],
  survey: ['core', 'lib', 'metrics', 'weights'],
  store: ['core', 'lib', 'metrics', 'weights'],
  runner: ['core', 'lib', 'cdn', 'gather', 'metrics', 'judges', 'weights', 'store', 'project'],
  distribute: ['core', 'lib', 'cdn', 'gather', 'metrics', 'judges', 'weights', 'store', 'runner', 'project'],
  report: ['core', 'lib', 'metrics', 'weights', 'store'],
  mutate: ['core', 'lib', 'gather', 'metrics', 'store', 'runner'],
  arena: ['core', 'lib', 'cdn', 'gather', 'weights', 'survey', 'store'],
  bin: ['core', 'lib', 'cdn', 'gather', 'metrics', 'judges', 'weights', 'survey', 'store', 'runner', 'distribute', 'report', 'mutate', 'project', 'arena'],
};

function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(relative(repoRoot, p));
    }
  };
  for (const top of Object.keys(ALLOWED)) {
    try {
      walk(join(repoRoot, top));
    } catch {
      /* a layer that does not exist yet */
    }
  }
  return out.sort();
}

/** Repository-relative .ts files that `file` imports (relative specifiers only). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(repoRoot, file), 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) => normalize(join(dirname(file), s)).replace(/\.js$/, '.ts'));
}

const layer = (file: string) => file.split('/')[0]!;

/** May a file of the metrics library room import `dep`? The contract, the shared library and the room itself. */
function libraryMayImport(dep: string): boolean {
  if (layer(dep) !== 'metrics') return layer(dep) === 'core' || layer(dep) === 'lib';
  return dep.startsWith('metrics/lib/');
}

describe('import layering', () => {
  const files = sources();
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it('finds the sources of every layer', () => {
    for (const l of [
      'core',
      'lib',
      'cdn',
      'judges',
      'gather',
      'project',
      'metrics',
      'weights',
      'survey',
      'store',
      'runner',
      'distribute',
      'report',
      'arena',
      'bin',
    ])
      assert.ok(
        files.some((f) => layer(f) === l),
        l,
      );
  });

  it('lets each folder import only the layers below it', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        const from = layer(file);
        const to = layer(dep);
        if (to !== from && !ALLOWED[from]!.includes(to)) wrong.push(`${file} → ${dep}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('keeps metric modules apart: only the registry imports them, and metrics/lib/ imports none', () => {
    // Shared machinery lives in metrics/lib/; every file of metrics/ outside it is a metric module or beside one.
    const modules = new Set((graph.get('metrics/registry.ts') ?? []).filter((d) => layer(d) === 'metrics'));
    assert.ok(modules.size >= 24, `registry lists ${modules.size} metric modules`);
    const crossings: string[] = [];
    const fromLibrary: string[] = [];
    for (const [file, deps] of graph) {
      if (layer(file) !== 'metrics' || file === 'metrics/registry.ts') continue;
      for (const dep of deps) {
        if (modules.has(dep)) crossings.push(`${file} → ${dep}`);
        if (file.startsWith('metrics/lib/') && !libraryMayImport(dep)) fromLibrary.push(`${file} → ${dep}`);
      }
    }
    assert.deepEqual(crossings.sort(), []);
    assert.deepEqual(fromLibrary, []);
    assert.ok(
      files.some((f) => f.startsWith('metrics/lib/')),
      'the library room exists',
    );
  });

  it('has no import cycles', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' → '));
        return;
      }
      state.set(f, 'open');
      for (const d of graph.get(f) ?? []) if (graph.has(d)) visit(d, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of files) visit(f, []);
    assert.deepEqual(cycles, []);
  });
});
