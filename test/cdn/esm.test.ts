import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { served, setup, text, type Env } from './fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
let env: Env;
before(async () => {
  env = await setup();
});
after(() => env.close());

const ask = (u: string) => env.cdn().answer(new URL(u));

/**
 * Evaluate CDN module URLs in a child Node process through the cache (as a browser would link them). Async: the
 * test registry lives in this process and must keep answering.
 */
async function evaluate(
  urls: string[],
): Promise<{ exports: string[][]; oneCore: boolean; cores: number; values: Array<Record<string, unknown>>; defaults: string[] }> {
  const child = spawn(process.execPath, [join(here, 'esm-child.js'), JSON.stringify(urls), env.dir, env.registry.url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const timer = setTimeout(() => child.kill(), 60_000);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`child failed (${code}): ${err}`);
  return JSON.parse(out);
}

describe('ES module builds', () => {
  it('gives a CommonJS package (with re-exports) its named exports, production branch taken', async () => {
    const out = await evaluate(['https://cdn.jsdelivr.net/npm/cjs-lib@1.0.0/+esm']);
    assert.deepEqual(out.exports[0], ['add', 'default', 'odd-name', 'version']);
    assert.equal(out.values[0]!.version, 'prod');
    assert.equal(out.defaults[0], 'object');
  });

  it('answers a range with a stub re-exporting the canonical exact-version build', async () => {
    const s = text(await ask('https://cdn.jsdelivr.net/npm/cjs-lib@1/+esm'));
    assert.match(s, /export \* from "\/npm\/cjs-lib@1\.0\.0\/\+esm";/);
    assert.match(s, /export \{ default \} from "\/npm\/cjs-lib@1\.0\.0\/\+esm";/);
    const run = text(await ask('https://esm.run/cjs-lib'));
    assert.match(run, /export \* from "https:\/\/cdn\.jsdelivr\.net\/npm\/cjs-lib@1\.0\.0\/\+esm";/);
  });

  it('imports dependencies by canonical pinned URLs: two packages sharing one dependency get ONE instance (esm.sh)', async () => {
    const a = text(await ask('https://esm.sh/plugin-a@1.0.0/es2022/plugin-a.mjs'));
    const b = text(await ask('https://esm.sh/plugin-b@1.0.0/es2022/plugin-b.mjs'));
    assert.match(a, /"\/shared-core@1\.2\.0\/es2022\/shared-core\.mjs"/);
    assert.match(b, /"\/shared-core@1\.2\.0\/es2022\/shared-core\.mjs"/);
    const out = await evaluate(['https://esm.sh/plugin-a@1', 'https://esm.sh/plugin-b@1', 'https://esm.sh/shared-core@^1.0.0']);
    assert.equal(out.cores, 3);
    assert.equal(out.oneCore, true, 'plugin-a (ESM import), plugin-b (CJS require) and the page share one shared-core');
    assert.equal(out.values[0]!.coreName, 'shared-core@1.2.0');
  });

  it('imports the package itself by its canonical URL from another of its entry points (preact/hooks → preact): one instance', async () => {
    const hooks = text(await ask('https://esm.sh/selfref@1.0.0/es2022/hooks.mjs'));
    assert.match(hooks, /from\s*"\/selfref@1\.0\.0\/es2022\/selfref\.mjs"/, hooks);
    assert.doesNotMatch(hooks, /made: "once"/, 'the main entry was bundled into the hooks build: two instances');
  });

  it('shares one instance through jsDelivr +esm and unpkg ?module too', async () => {
    const j = await evaluate([
      'https://cdn.jsdelivr.net/npm/plugin-a@1/+esm',
      'https://cdn.jsdelivr.net/npm/plugin-b@1.0.0/+esm',
      'https://cdn.jsdelivr.net/npm/shared-core@^1.0.0/+esm',
    ]);
    assert.equal(j.oneCore, true);
    const u = await evaluate(['https://unpkg.com/plugin-a@1?module', 'https://unpkg.com/plugin-b@1.0.0?module', 'https://unpkg.com/shared-core@^1.0.0?module']);
    assert.equal(u.oneCore, true);
    assert.match(text(await ask('https://unpkg.com/plugin-a@1.0.0?module')), /"\/shared-core@1\.2\.0\?module"/);
  });

  it('honours ?deps= on esm.sh (the dependency version is overridden in the canonical build)', async () => {
    const stub = text(await ask('https://esm.sh/plugin-a@1?deps=shared-core@1.0.0'));
    const m = /export \* from "([^"]+)"/.exec(stub);
    assert.ok(m && m[1]!.includes('/X-'), stub);
    const build = text(await ask(`https://esm.sh${m![1]}`));
    assert.match(build, /"\/shared-core@1\.0\.0\/es2022\/shared-core\.mjs"/);
    const out = await evaluate(['https://esm.sh/plugin-a@1?deps=shared-core@1.0.0']);
    assert.equal(out.values[0]!.coreName, 'shared-core@1.0.0');
  });

  it('uses the exports map with the browser condition, subpaths, and serves non-JS subpaths raw', async () => {
    const out = await evaluate(['https://esm.sh/esm-pkg@1.0.0', 'https://esm.sh/esm-pkg@1.0.0/sub', 'https://cdn.skypack.dev/esm-pkg@1']);
    assert.equal(out.values[0]!.where, 'browser');
    assert.equal(out.defaults[0], 'function');
    assert.deepEqual(out.exports[1], ['sub']);
    assert.equal(out.values[2]!.where, 'browser');
    const css = served(await ask('https://esm.sh/esm-pkg@1.0.0/style.css'));
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.body.toString(), '.x{}');
    const missing = await ask('https://esm.sh/esm-pkg@1.0.0/nope');
    assert.equal(missing.kind, 'not-found');
  });

  it('rebuilds byte-identically (a build evicted or lost comes back the same)', async () => {
    const first = served(await ask('https://cdn.jsdelivr.net/npm/plugin-b@1.0.0/+esm')).body;
    rmSync(join(env.dir, 'builds'), { recursive: true, force: true });
    const second = served(await ask('https://cdn.jsdelivr.net/npm/plugin-b@1.0.0/+esm')).body;
    assert.ok(first.equals(second));
    assert.match(first.toString(), /esbuild \d+\.\d+\.\d+/);
  });
});
