import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPages, prefetchUrls, scanPage } from '../../cdn/prefetch.js';
import { corpusDir, runCli, tempDir, writeArtifact, writeSingleFile } from '../helpers.js';
import { setup, type Env } from './fixtures.js';

const PAGE = `<!doctype html><html><head>
<link rel="preconnect" href="https://fonts.googleapis.com">
<link href="https://fonts.googleapis.com/css2?family=Inter:wght@400;700&amp;display=swap" rel="stylesheet">
<link rel="stylesheet" href="//cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css">
<script src="https://cdn.tailwindcss.com?plugins=forms"></script>
<style>@import url('https://cdn.jsdelivr.net/npm/tiny@1.0.0/style.css');</style>
</head><body>
<script type="module">
  import { add } from "https://cdn.jsdelivr.net/npm/cjs-lib@1/+esm";
  import A from 'https://esm.sh/plugin-a@1';
  const v = '1.0.0';
  const dyn = \`https://cdn.jsdelivr.net/npm/tiny@\${v}/dist/tiny.js\`;
  const cat = 'https://unpkg.com/tiny@' + v + '/x.js';
  fetch("https://example.com/api.json");
</script>
<!-- <script src="https://cdn.jsdelivr.net/npm/tiny@9/gone.js"></script> is a comment, scanned too -->
</body></html>`;

describe('static scan of pages', () => {
  it('finds CDN URLs in attributes, CSS, module imports; decodes &amp;; skips preconnects and other hosts; reports dynamic ones', () => {
    const s = scanPage(writeSingleFile(PAGE));
    assert.deepEqual(s.urls, [
      'https://cdn.jsdelivr.net/npm/cjs-lib@1/+esm',
      'https://cdn.jsdelivr.net/npm/tiny@1.0.0/style.css',
      'https://cdn.jsdelivr.net/npm/tiny@9/gone.js',
      'https://cdn.tailwindcss.com/?plugins=forms',
      'https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css',
      'https://esm.sh/plugin-a@1',
      'https://fonts.googleapis.com/css2?family=Inter:wght@400;700&display=swap',
    ]);
    assert.deepEqual(s.dynamic, ['https://cdn.jsdelivr.net/npm/tiny@${…}', 'https://unpkg.com/tiny@${…}']);
  });

  it('finds pages in files, folders with index.html and runs/<model>/<id>.html; bad input is an InputError', () => {
    const runs = writeArtifact({ 'm1/a.html': '<p>a</p>', 'm1/b/index.html': '<p>b</p>', 'm2/c.html': '<p>c</p>', 'm2/notes.txt': 'x' });
    assert.deepEqual(
      findPages([runs]).map((p) => p.slice(runs.length + 1)),
      ['m1/a.html', 'm1/b', 'm2/c.html'],
    );
    assert.throws(() => findPages([join(runs, 'nope')]), /no such file or folder/);
    assert.throws(() => findPages([join(runs, 'm2', 'notes.txt')]), /not an HTML file/);
  });

  it('reads every CDN URL of the shared corpus pages in full (skips without the corpus)', (t) => {
    const dir = join(corpusDir, 'llm-tools', 'pages');
    if (!existsSync(dir)) return t.skip(`no corpus at ${dir}`);
    const scans = readdirSync(dir)
      .filter((n) => n.endsWith('.html'))
      .map((n) => scanPage(join(dir, n)));
    assert.ok(scans.filter((s) => s.urls.length > 0).length >= 70);
    const fonts = scans.flatMap((s) => s.urls).filter((u) => u.includes('fonts.googleapis.com/css2'));
    assert.ok(fonts.length >= 8 && fonts.every((u) => /display=swap|family=[^&]+$/.test(u)), fonts.join('\n'));
  });
});

describe('prefetch', () => {
  let env: Env;
  before(async () => {
    env = await setup();
  });
  after(() => env.close());

  it('answers the page URLs and follows CSS url()s and module imports into the cache', async () => {
    const s = scanPage(writeSingleFile(PAGE));
    const res = await prefetchUrls(env.cdn(), s.urls);
    const followed = [...res.values()]
      .filter((r) => r.from)
      .map((r) => r.url)
      .sort();
    assert.ok(followed.includes('https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/webfonts/fa-solid-900.woff2'), followed.join('\n'));
    assert.ok(followed.includes('https://cdn.jsdelivr.net/npm/cjs-lib@1.0.0/+esm'));
    assert.ok(followed.includes('https://esm.sh/shared-core@1.2.0/es2022/shared-core.mjs'));
    assert.ok(followed.some((u) => u.startsWith('https://cdn.jsdelivr.net/npm/@fontsource/inter@5.0.0/files/inter-latin-700-normal.woff2')));
    assert.equal(res.get('https://cdn.jsdelivr.net/npm/tiny@9/gone.js')!.answer.kind, 'not-found');
    assert.ok([...res.values()].filter((r) => r.url !== 'https://cdn.jsdelivr.net/npm/tiny@9/gone.js').every((r) => r.answer.kind === 'served'));
  });
});

describe('webgrade cdn', () => {
  let env: Env;
  before(async () => {
    env = await setup();
  });
  after(() => env.close());

  it('prefetch prints a summary with what was not served, and info lists packages and pins', async () => {
    const page = writeSingleFile(PAGE);
    const cache = tempDir('webgrade-cdn-cli-');
    const r = await runCli(['cdn', 'prefetch', page, '--cdn-cache', cache], { env: { npm_config_registry: env.registry.url } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^1 page\(s\) scanned, 1 with CDN URLs; 0 of those fully served$/m);
    assert.match(r.stdout, /page URLs: 7 — served 6, not found 1, unavailable 0, base URLs 0; dynamic \(not fetched\) 2/);
    assert.match(
      r.stdout,
      /https:\/\/cdn\.jsdelivr\.net\/npm\/tiny@9\/gone\.js\n {4}jsdelivr: tiny@9 has no version matching 9 \(latest 1\.1\.0\) \[page\.html\]/,
    );
    const info = await runCli(['cdn', 'info', '--cdn-cache', cache]);
    assert.equal(info.code, 0, info.stderr);
    assert.match(info.stdout, /^packages: \d+$/m);
    assert.match(info.stdout, /^ {2}tiny@9 → not found \(tiny@9 has no version matching 9 \(latest 1\.1\.0\)\)$/m);
    assert.match(info.stdout, /^ {2}cjs-lib@1 → 1\.0\.0$/m);
  });

  it('bad input: one line on stderr, exit 2', async () => {
    const r = await runCli(['cdn', 'prefetch', '/no/such/page.html', '--cdn-cache', tempDir()]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'webgrade: /no/such/page.html: no such file or folder\n');
    const e = await runCli(['cdn', 'prefetch', writeArtifact({ 'a.txt': 'x' })]);
    assert.equal(e.code, 2);
    assert.match(e.stderr, /^webgrade: .*: no \.html pages or folders with index\.html\n$/);
  });
});
