import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadProjectSource, listProjectFiles } from '../../project/source-view.js';
import { lintArtifact } from '../../metrics/lib/lint/lint-artifact.js';
import { parseJs } from '../../lib/js-parse.js';
import { fixture } from '../helpers.js';
import { writeProject } from './tools.js';

const pkg = JSON.stringify({ scripts: { build: 'vite build' } });

describe("a project's sources as the artifact the metrics read", () => {
  it('holds the sources and not node_modules, lockfiles or the old output; components count as code', () => {
    const dir = writeProject({
      'package.json': pkg,
      'index.html': '<!doctype html><div id="root"></div><script type="module" src="/src/main.jsx"></script>',
      'src/main.jsx': 'export const x = <p/>;\n',
      'src/App.vue': '<template><p/></template>\n',
      'node_modules/react/index.js': 'x',
      'dist/index.html': '<p>old build</p>',
      'package-lock.json': '{}',
    });
    const a = loadProjectSource(dir);
    assert.deepEqual(
      a.files.map((f) => `${f.path}:${f.kind}`),
      ['index.html:html', 'package.json:data', 'src/App.vue:html', 'src/main.jsx:js'],
    );
    assert.equal(a.entry, 'index.html');
    assert.equal(a.physicalLines, 1 + 1 + 1);
  });

  it('reads JSX and TSX as JavaScript with every line where it was (Sucrase), parseable by acorn', () => {
    const dir = writeProject({
      'package.json': pkg,
      'src/App.tsx':
        "import { useState } from 'react';\ninterface P { n: number }\n// state\nexport function App(p: P) {\n  const [v] = useState<number>(p.n);\n  return <div onClick={async () => { await fetch('/x'); }}>{v}</div>;\n}\n",
    });
    const a = loadProjectSource(dir);
    const block = a.sources.find((b) => b.file === 'src/App.tsx')!;
    const parsed = parseJs(block);
    assert.equal(parsed.recovered, false);
    const fetchLine = block.text.split('\n').findIndex((l) => l.includes("fetch('/x')"));
    assert.equal(fetchLine + 1, 6);
    assert.equal(a.entry, 'index.html');
    assert.match(a.files[0]!.notes![0]!, /no index\.html/);
  });

  it("finds a Vue component's scripts and plain CSS styles with Vue's parser, and leaves SCSS out with a note", () => {
    const dir = writeProject({
      'package.json': pkg,
      'index.html': '<div id="app"></div>',
      'src/A.vue':
        '<script setup lang="ts">\nconst n: number = 1;\n</script>\n\n<template><p>{{ n }}</p></template>\n\n<style scoped>\np { color: red; }\n</style>\n<style lang="scss">\n$x: 1;\n</style>\n',
    });
    const a = loadProjectSource(dir);
    const blocks = a.sources.filter((b) => b.file === 'src/A.vue').map((b) => `${b.language}@${b.line}: ${b.text.trim()}`);
    assert.deepEqual(blocks, ['js@1: const n = 1;', 'css@7: p { color: red; }']);
    assert.match(a.files.find((f) => f.path === 'src/A.vue')!.notes!.join(), /lang="scss"/);
  });

  it("finds a Svelte component's script and style with Svelte's parser", () => {
    const dir = writeProject({
      'package.json': pkg,
      'index.html': '<div id="app"></div>',
      'src/A.svelte': '<script>\n  let n = $state(0);\n</script>\n\n<button onclick={() => n++}>{n}</button>\n\n<style>\n  button { color: red; }\n</style>\n',
    });
    const blocks = loadProjectSource(dir)
      .sources.filter((b) => b.file === 'src/A.svelte')
      .map((b) => `${b.language}@${b.line}: ${b.text.trim()}`);
    assert.deepEqual(blocks, ['js@1: let n = $state(0);', 'css@7: button { color: red; }']);
  });

  it('finds files under public/ at the root, as Vite serves them', () => {
    const a = loadProjectSource(fixture('projects', 'react-app'));
    const icon = a.resources.find((r) => r.url === '/check.svg')!;
    assert.equal(icon.exists, true);
  });

  it('lists hidden files for a queue job, but not .git or node_modules', () => {
    const dir = writeProject({ 'package.json': pkg, '.babelrc': '{}', '.git/HEAD': 'x', 'node_modules/a/index.js': '' });
    assert.deepEqual(
      listProjectFiles(dir).map((f) => f.rel),
      ['.babelrc', 'package.json'],
    );
  });
});

describe('lint reads components with their frameworks’ parsers and plugins', () => {
  it('finds an undefined component in JSX, a Vue v-for without a key and duplicate keys, and an undefined name in Svelte', async () => {
    const dir = writeProject({
      'package.json': pkg,
      'index.html': '<!doctype html><html lang="en"><head><title>x</title></head><body></body></html>',
      'src/App.jsx': "import Card from './Card.jsx';\nexport default function App() {\n  return <main><Card /><Missing /></main>;\n}\n",
      'src/Typed.tsx': 'type P = { a: JSX.Element };\nexport const T = (p: P) => <div>{p.a}</div>;\n',
      'src/List.vue':
        '<script>\nexport default { data() { return { a: 1, a: 2 }; } };\n</script>\n<template>\n  <ul><li v-for="x in xs">{{ x }}</li></ul>\n</template>\n',
      'src/Count.svelte': '<script>\n  let n = $state(0);\n</script>\n\n<button onclick={() => n++}>{n} {missing}</button>\n',
    });
    const r = await lintArtifact(loadProjectSource(dir));
    const found = r.findings.map((f) => `${f.file}:${f.line} ${f.rule}`).sort();
    assert.deepEqual(found, [
      'src/App.jsx:3 no-undef',
      'src/Count.svelte:5 no-undef',
      'src/List.vue:2 no-dupe-keys',
      'src/List.vue:2 vue/no-dupe-keys',
      'src/List.vue:5 vue/require-v-for-key',
    ]);
  });

  it('finds nothing in the three framework fixtures', async () => {
    for (const name of ['react-app', 'vue-app', 'svelte-app']) {
      const r = await lintArtifact(loadProjectSource(fixture('projects', name)));
      assert.deepEqual(r.findings, [], name);
      assert.deepEqual(r.skipped, [], name);
    }
  });
});
