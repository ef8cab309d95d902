import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CdnCache, defaultCacheDir } from '../../cdn/index.js';
import { CacheStore } from '../../cdn/store.js';
import { served, setup, type Env } from './fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
let env: Env;
before(async () => {
  env = await setup();
});
after(() => env.close());

async function child(args: string[]): Promise<unknown> {
  const p = spawn(process.execPath, [join(here, 'cache-child.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d: Buffer) => (out += d));
  p.stderr.on('data', (d: Buffer) => (err += d));
  const timer = setTimeout(() => p.kill(), 60_000);
  const code = await new Promise<number | null>((r) => p.on('close', r));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`child failed (${code}): ${err}`);
  return JSON.parse(out);
}

const URLS = [
  'https://cdn.jsdelivr.net/npm/tiny@1/dist/tiny.js',
  'https://unpkg.com/tiny@1.0.0/style.css',
  'https://esm.sh/plugin-a@1',
  'https://esm.sh/plugin-b@1.0.0/es2022/plugin-b.mjs',
  'https://cdn.jsdelivr.net/npm/cjs-lib@1.0.0/+esm',
  'https://fonts.googleapis.com/css2?family=Inter:wght@400;700',
  'https://cdnjs.cloudflare.com/ajax/libs/Chart.js/3.7.1/chart.min.js',
  'https://cdn.tailwindcss.com',
];

describe('one cache folder shared by several processes', () => {
  it('gives two processes answering at once the same bytes, with no temp files left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-cdn-conc-'));
    try {
      const [x, y] = (await Promise.all([
        child(['answer', dir, env.registry.url, JSON.stringify(URLS)]),
        child(['answer', dir, env.registry.url, JSON.stringify(URLS)]),
      ])) as Array<Record<string, { kind: string }>>;
      for (const u of URLS) assert.equal(x[u]!.kind, 'served', `${u}: ${JSON.stringify(x[u])}`);
      assert.deepEqual(x, y);
      assert.deepEqual(readdirSync(join(dir, 'tmp')), []);
      // and a third process, later, agrees
      assert.deepEqual(await child(['answer', dir, env.registry.url, JSON.stringify(URLS)]), x);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets exactly one process win each pin when two race', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-cdn-pins-'));
    try {
      const [p, q] = (await Promise.all([child(['pins', dir, 'p', '200']), child(['pins', dir, 'q', '200'])])) as string[][];
      const store = new CacheStore(dir, 1e12);
      for (let i = 0; i < 200; i++) {
        const pin = store.getPin(`race-${i}`, '^1')!;
        assert.ok('version' in pin);
        assert.equal(p![i], pin.version);
        assert.equal(q![i], pin.version);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('size cap and eviction', () => {
  it('evicts least recently used packages under a small cap and brings them back byte-identical', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-cdn-evict-'));
    try {
      const cdn = () => new CdnCache({ dir, registry: env.registry.url, maxBytes: 6000, evictionGraceMs: 0 });
      const first = served(await cdn().answer(new URL('https://cdn.jsdelivr.net/npm/tiny@1.0.0/dist/tiny.js')));
      await new Promise((r) => setTimeout(r, 20));
      for (const u of [
        'https://cdn.jsdelivr.net/npm/nomin@1.0.0/lib/a.js',
        'https://cdn.jsdelivr.net/npm/foo-lib@1.0.0/a/x.js',
        'https://cdn.jsdelivr.net/npm/esm-pkg@1.0.0/sub.js',
        'https://cdn.jsdelivr.net/npm/@fontsource/inter@5.0.0/metadata.json',
        'https://cdn.jsdelivr.net/npm/tailwindcss-cdn@3.4.10/tailwindcss.js',
      ]) {
        served(await cdn().answer(new URL(u)));
        await new Promise((r) => setTimeout(r, 20));
      }
      const store = new CacheStore(dir, 6000);
      const stats = store.stats();
      assert.ok(stats.bytes <= 6000, `cache holds ${stats.bytes} bytes`);
      assert.equal(store.getManifest('tiny', '1.0.0'), null, 'the least recently used package was evicted');
      assert.notEqual(store.getManifest('tailwindcss-cdn', '3.4.10'), null, 'the newest stays');
      const again = served(await cdn().answer(new URL('https://cdn.jsdelivr.net/npm/tiny@1.0.0/dist/tiny.js')));
      assert.ok(again.body.equals(first.body));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never evicts pins', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-cdn-evict-pins-'));
    try {
      const c = new CdnCache({ dir, registry: env.registry.url, maxBytes: 1, evictionGraceMs: 0 });
      served(await c.answer(new URL('https://cdn.jsdelivr.net/npm/tiny@1/dist/tiny.js')));
      served(await c.answer(new URL('https://cdn.jsdelivr.net/npm/nomin/lib/a.js')));
      assert.equal(c.store.pins().length, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('registry access off', () => {
  it('serves a filled cache without the registry (also after copying it elsewhere), and says what is not cached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-cdn-offline-'));
    const copy = mkdtempSync(join(tmpdir(), 'webgrade-cdn-copy-'));
    try {
      const online = new CdnCache({ dir, registry: env.registry.url });
      const bodies: Buffer[] = [];
      for (const u of URLS) bodies.push(served(await online.answer(new URL(u))).body);
      cpSync(dir, copy, { recursive: true });
      for (const d of [dir, copy]) {
        // a registry that does not exist: any request would fail
        const offline = new CdnCache({ dir: d, registry: 'http://127.0.0.1:9/', registryAccess: false });
        for (let i = 0; i < URLS.length; i++) assert.ok(served(await offline.answer(new URL(URLS[i]!))).body.equals(bodies[i]!), URLS[i]);
        const miss = await offline.answer(new URL('https://cdn.jsdelivr.net/npm/browserish@2/browser.js'));
        assert.deepEqual(miss, { kind: 'unavailable', status: 503, reason: 'jsdelivr: browserish@2 is not in the cache (registry access is off)' });
        assert.equal(offline.registry.requests, 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('default cache folder', () => {
  it('is under XDG_CACHE_HOME, else ~/.cache', () => {
    assert.equal(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache' }), '/x/cache/webgrade/cdn');
    assert.match(defaultCacheDir({ HOME: '/home/u' }), /\.cache\/webgrade\/cdn$/);
    assert.equal(defaultCacheDir({ WEBGRADE_CDN_CACHE: '/y' }), '/y');
  });
});
