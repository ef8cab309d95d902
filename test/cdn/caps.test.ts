/**
 * Issue 28: the npm-backed CDN cache trusts nothing from the registry or a page. Each case brings its hostile
 * input: a zip-bomb-like tarball, a page asking for more packages than its budget, a future version named before
 * it is published, a cache folder reached through a symbolic link, a copied cache whose manifest points outside.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CdnCache } from '../../cdn/index.js';
import { readTarball } from '../../cdn/tarball.js';
import { served, setup, type Env } from './fixtures.js';
import { bombTarball } from './registry-server.js';

let env: Env;
let bomb: Buffer;
const MiB = 1024 ** 2;

before(async () => {
  bomb = await bombTarball(600 * MiB);
  env = await setup([{ name: 'bomb', version: '1.0.0', tarball: bomb }]);
});
after(async () => {
  await env.close();
});

describe('a tarball that inflates to far more than it weighs', () => {
  // first in the file: the peak RSS of this process is what the read may add
  it('is read up to the inflated cap and no further, in bounded memory', async () => {
    assert.ok(bomb.length < 2 * MiB, `the bomb is small (${bomb.length} bytes)`);
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const t = Date.now();
    await assert.rejects(readTarball(bomb, 128 * MiB, 'bomb@1.0.0', 32 * MiB), /bomb@1\.0\.0 inflates to more than the per-tarball cap of 32 MiB/);
    // with the default cap (256 MiB) too: the stream is inflated a slice at a time, never held whole
    await assert.rejects(readTarball(bomb, 128 * MiB, 'bomb@1.0.0'), /inflates to more than the per-tarball cap of 256 MiB/);
    const grown = process.resourceUsage().maxRSS * 1024 - peakBefore;
    assert.ok(grown < 96 * MiB, `peak memory grew by ${(grown / MiB).toFixed(0)} MiB reading a 600 MiB stream`);
    assert.ok(Date.now() - t < 20_000);
  });

  it('is unavailable through the cache (our cap, not the page’s defect)', async () => {
    const a = await env.cdn({ maxInflatedBytes: 16 * MiB }).answer(new URL('https://cdn.jsdelivr.net/npm/bomb@1.0.0/index.js'));
    assert.equal(a.kind, 'unavailable');
    assert.match((a as { reason: string }).reason, /inflates to more than the per-tarball cap of 16 MiB/);
  });

  it('refuses a tarball compressed twice (the inner layer would be inflated uncounted)', async () => {
    const { gzipSync } = await import('node:zlib');
    await assert.rejects(readTarball(gzipSync(bomb), 128 * MiB, 'twice@1.0.0'), /compressed twice/);
  });
});

describe('a cache folder reached through a symbolic link', () => {
  it('builds ES modules (esbuild resolves real paths; the cache compares real paths)', async () => {
    const real = mkdtempSync(join(tmpdir(), 'webgrade-cdn-real-'));
    const link = join(tmpdir(), `webgrade-cdn-link-${process.pid}`);
    symlinkSync(real, link);
    try {
      const cdn = new CdnCache({ dir: link, registry: env.registry.url, timeoutMs: 5000 });
      assert.equal(cdn.dir, realpathSync(real));
      assert.match(served(await cdn.answer(new URL('https://cdn.jsdelivr.net/npm/esm-pkg@1.0.0/+esm'))).body.toString(), /browser/);
      assert.match(served(await cdn.answer(new URL('https://esm.sh/cjs-lib@1.0.0/es2022/cjs-lib.mjs'))).body.toString(), /prod/);
      served(await cdn.answer(new URL('https://cdn.jsdelivr.net/npm/tiny@1.0.0/dist/tiny.js')));
    } finally {
      rmSync(link, { force: true });
      rmSync(real, { recursive: true, force: true });
    }
  });
});

describe('a version named before it is published', () => {
  it('is a 404 for a bounded time, then served once published', async () => {
    const url = new URL('https://cdn.jsdelivr.net/npm/tiny@7.0.0/index.js');
    const short = () => env.cdn({ notFoundPinMs: 300 });
    assert.equal((await short().answer(url)).kind, 'not-found');
    await env.registry.publish({ name: 'tiny', version: '7.0.0', json: { main: 'index.js' }, files: { 'index.js': '/* tiny 7 */' } });
    // within the time the answer stands (reruns are byte-identical)...
    assert.equal((await short().answer(url)).kind, 'not-found');
    await new Promise((r) => setTimeout(r, 400));
    // ...then the registry is asked again (a new CdnCache: a later run) and the new answer is pinned
    assert.match(served(await short().answer(url)).body.toString(), /tiny 7/);
    assert.deepEqual({ ...env.cdn().store.getPin('tiny', '7.0.0'), at: '' }, { name: 'tiny', range: '7.0.0', version: '7.0.0', at: '' });
  });

  it('expires after a day by default; a pin dated in the future (copied or hand-made) is not trusted', async () => {
    const store = env.cdn().store;
    const day = 24 * 3600_000;
    await env.registry.publish({ name: 'tiny', version: '8.0.0', json: { main: 'index.js' }, files: { 'index.js': '/* tiny 8 */' } });
    store.putPin({ name: 'tiny', range: '8.0.0', notFound: 'tiny@8.0.0 was never published', at: new Date(Date.now() - day - 60_000).toISOString() });
    store.putPin({ name: 'tiny', range: '^8.0.0', notFound: 'no match', at: new Date(Date.now() + 100 * day).toISOString() });
    store.putPin({ name: 'tiny', range: '~8.0.0', notFound: 'no match', at: new Date(Date.now() - day + 600_000).toISOString() });
    assert.match(served(await env.cdn().answer(new URL('https://cdn.jsdelivr.net/npm/tiny@8.0.0/index.js'))).body.toString(), /tiny 8/);
    assert.match(served(await env.cdn().answer(new URL('https://cdn.jsdelivr.net/npm/tiny@^8.0.0/index.js'))).body.toString(), /tiny 8/);
    // younger than a day: still the page's 404
    assert.equal((await env.cdn().answer(new URL('https://cdn.jsdelivr.net/npm/tiny@~8.0.0/index.js'))).kind, 'not-found');
    // without registry access an expired "not found" still answers (nothing newer can be known)
    store.putPin({ name: 'tiny', range: '9.0.0', notFound: 'tiny@9.0.0 was never published', at: new Date(Date.now() - 2 * day).toISOString() });
    assert.equal((await env.cdn({ registryAccess: false }).answer(new URL('https://cdn.jsdelivr.net/npm/tiny@9.0.0/index.js'))).kind, 'not-found');
  });
});

describe('a copied cache folder', () => {
  it('serves and deletes nothing a manifest, build record or blob name points outside the cache', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webgrade-cdn-copied-'));
    const dir = join(root, 'cache');
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(root, 'secret'), 'SECRET-1');
    writeFileSync(join(outside, 'precious'), 'SECRET-2');
    try {
      const sha = (b: string) => createHash('sha256').update(b).digest('hex');
      const write = (rel: string, data: string) => {
        mkdirSync(join(dir, rel, '..'), { recursive: true });
        writeFileSync(join(dir, rel), data);
      };
      const ok = '/* ok */';
      write(`blobs/${sha(ok).slice(0, 2)}/${sha(ok)}`, ok);
      // a blob whose bytes do not hash to its name (planted or corrupted)
      const planted = sha('/* the real bytes */');
      write(`blobs/${planted.slice(0, 2)}/${planted}`, '/* planted */');
      write('blobs/ab/not-a-blob-name', 'keep me');
      write(
        'packages/copied/1.0.0.json',
        JSON.stringify({
          name: 'copied',
          version: '1.0.0',
          integrity: 'sha512-x',
          files: {
            'package.json': [sha(ok), ok.length],
            'index.js': ['../../secret', 8],
            'up.js': ['../../../secret', 8],
            '../escape.js': [sha(ok), ok.length],
            'planted.js': [planted, 13],
            'ok.js': [sha(ok), ok.length],
          },
          refused: [],
        }),
      );
      write('packages/copied/2.0.0.json', JSON.stringify({ name: 'other', version: '9.9.9', files: { 'ok.js': [sha(ok), ok.length] }, refused: [] }));
      write('pins/copied/%5E1.json', JSON.stringify({ name: 'copied', range: '^1', version: '../../secret', at: new Date().toISOString() }));
      write('layout.json', JSON.stringify({ layout: 1 }));
      symlinkSync(outside, join(dir, 'blobs', 'zz'));
      const cdn = new CdnCache({ dir, registryAccess: false, maxBytes: 1, evictionGraceMs: 0 });
      const ask = (p: string) => cdn.answer(new URL(`https://cdn.jsdelivr.net/npm/${p}`));

      assert.equal(served(await ask('copied@1.0.0/ok.js')).body.toString(), ok);
      assert.deepEqual(Object.keys(cdn.store.getManifest('copied', '1.0.0')!.files).sort(), ['ok.js', 'package.json', 'planted.js']);
      for (const f of ['index.js', 'up.js', 'planted.js', '../escape.js', '%2E%2E/escape.js']) {
        const a = await ask(`copied@1.0.0/${f}`);
        assert.notEqual(a.kind, 'served', f);
        assert.doesNotMatch(JSON.stringify(a), /SECRET|planted/, f);
      }
      // (the manifest with a planted blob was dropped: online, the package is fetched again, byte-identical)
      assert.equal((await ask('copied@2.0.0/ok.js')).kind, 'unavailable'); // its manifest names another package
      assert.equal((await ask('copied@^1/ok.js')).kind, 'unavailable'); // its pin names no valid version
      assert.ok(cdn.store.warnings.some((w) => /3 invalid file entries dropped/.test(w)), cdn.store.warnings.join('\n'));
      assert.ok(cdn.store.warnings.some((w) => /does not hash to its name/.test(w)));

      // a build record pointing outside is ignored
      const key = 'k';
      const h = sha(key);
      write(`builds/${h.slice(0, 2)}/${h}.json`, JSON.stringify({ key, blob: '../../secret', size: 8, meta: {} }));
      assert.equal(cdn.store.getBuild(key), null);

      // eviction (the cache is over its 1-byte cap) deletes only what it can name as its own
      cdn.store.maybeEvict();
      assert.equal(readFileSync(join(root, 'secret'), 'utf8'), 'SECRET-1');
      assert.equal(readFileSync(join(outside, 'precious'), 'utf8'), 'SECRET-2');
      assert.ok(existsSync(join(dir, 'blobs/ab/not-a-blob-name')));
      assert.doesNotThrow(() => cdn.store.stats());
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses a cache whose subfolder is a link (reads, writes and deletions would land outside)', () => {
    const root = mkdtempSync(join(tmpdir(), 'webgrade-cdn-linked-sub-'));
    try {
      mkdirSync(join(root, 'cache'));
      mkdirSync(join(root, 'elsewhere'));
      symlinkSync(join(root, 'elsewhere'), join(root, 'cache', 'blobs'));
      assert.throws(() => new CdnCache({ dir: join(root, 'cache'), registryAccess: false }), /not a folder of the CDN cache/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
