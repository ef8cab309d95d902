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
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { CdnCache, isCdnHost } from '../../cdn/index.js';
import { loadArtifact } from '../../lib/artifact/load.js';
import { checkCdnUrls } from '../../gather/remote-check.js';
import { Sandbox } from '../../gather/sandbox/sandbox.js';
import { servedArtifact } from '../../gather/server.js';
import { writeArtifact } from '../helpers.js';
import { readTarball } from '../../cdn/tarball.js';
import { served, setup, type Env } from './fixtures.js';
import { bombTarball, tailTarball } from './registry-server.js';
import { AbortedError } from '../../cdn/budget.js';

let env: Env;
let bomb: Buffer;
let tail: Buffer;
const MiB = 1024 ** 2;

before(async () => {
  bomb = await bombTarball(600 * MiB);
  tail = await tailTarball(48 * MiB);
  env = await setup([
    { name: 'bomb', version: '1.0.0', tarball: bomb },
    { name: 'tail', version: '1.0.0', tarball: tail },
    ...Array.from({ length: 12 }, (_, i) => ({ name: `many-${i}`, version: '1.0.0', files: { 'index.js': `/* many ${i} */` } })),
    // incompressible: its tarball is about its size
    { name: 'heavy', version: '1.0.0', files: { 'blob.bin': randomBytes(300_000) } },
    // compresses to almost nothing, unpacks to 1 MB
    { name: 'airy', version: '1.0.0', files: { 'a.js': 'x'.repeat(1_000_000) } },
    { name: 'slow', version: '1.0.0', files: { 'index.js': '/* slow */', 'pad.bin': randomBytes(200_000) } },
    ...Array.from({ length: 8 }, (_, i) => ({ name: `fill-${i}`, version: '1.0.0', files: { 'pad.bin': randomBytes(150_000) } })),
  ]);
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

describe('a tarball with data after its end-of-archive marker', () => {
  it('is read up to its end marker: the tail is never inflated nor buffered', async () => {
    assert.ok(tail.length < 256 * 1024, `the tarball is small (${tail.length} bytes)`);
    const { files, readBytes } = await readTarball(tail, 128 * MiB, 'tail@1.0.0', 16 * MiB);
    assert.deepEqual([...files.keys()].sort(), ['index.js', 'package.json']);
    assert.equal(files.get('index.js')!.toString(), '/* tail */');
    // the archive is 2.5 KiB; what is read past its end is at most the inflated chunk the end marker is in
    assert.ok(readBytes < MiB, `${readBytes} bytes read of an archive followed by a 48 MiB tail`);
  });

  it('is served through the cache, the tail left unread', async () => {
    const a = await env.cdn({ maxInflatedBytes: 16 * MiB }).answer(new URL('https://cdn.jsdelivr.net/npm/tail@1.0.0/index.js'));
    assert.equal(served(a).body.toString(), '/* tail */');
  });
});

describe('unpacking for a page that closes', () => {
  /** A page's signal that reads as aborted from its (n+1)-th look on: the page closes while its package unpacks. */
  const closingAfter = (n: number) => {
    const state = { looks: 0 };
    const signal = {
      get aborted() {
        return ++state.looks > n;
      },
    } as AbortSignal;
    return { signal, state };
  };

  it('stops reading the stream as soon as the page is gone, and the promise settles', async () => {
    const { signal, state } = closingAfter(50);
    // 600 MiB of a skipped entry, under a cap that would let it all be read
    await assert.rejects(readTarball(bomb, 128 * MiB, 'bomb@1.0.0', 1024 * MiB, signal), (err: Error) => {
      assert.ok(err instanceof AbortedError, String(err));
      assert.match(err.message, /bomb@1\.0\.0: unpacking stopped, the page is closed or out of time/);
      return true;
    });
    assert.equal(state.looks, 51, 'no chunk is read after the page is gone');
  });

  it('through the cache: a page closed during the download or the unpacking gets "stopped", and nothing is kept', async () => {
    const cdn = env.cdn({ maxInflatedBytes: 1024 * MiB });
    const closing = new AbortController();
    const asked = env.registry.log.length;
    const answer = cdn.answer(new URL('https://cdn.jsdelivr.net/npm/bomb@1.0.0/index.js'), {
      method: 'GET',
      headers: {},
      budget: cdn.pageBudget(closing.signal),
    });
    // the page closes once its tarball was asked for (downloading or unpacking by then)
    while (!env.registry.log.slice(asked).some((l) => l.endsWith('.tgz'))) await new Promise((r) => setImmediate(r));
    closing.abort();
    const a = await answer;
    assert.equal(a.kind, 'unavailable');
    assert.match((a as { reason: string }).reason, /stopped, the page is closed or out of time/);
    assert.equal(cdn.store.getManifest('bomb', '1.0.0'), null);
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
          integrity: '../../x',
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
      assert.ok(
        cdn.store.warnings.some((w) => /3 invalid file entries dropped/.test(w)),
        cdn.store.warnings.join('\n'),
      );
      assert.ok(cdn.store.warnings.some((w) => /does not hash to its name/.test(w)));
      assert.ok(cdn.store.warnings.some((w) => /malformed integrity dropped/.test(w)));

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

describe('what one page may make the cache download', () => {
  const url = (p: string) => new URL(`https://cdn.jsdelivr.net/npm/${p}`);
  const tarballs = () => env.registry.log.filter((l) => l.endsWith('.tgz'));

  it('downloads at most its budget of packages; the rest is unavailable with the reason, and served to the next page from what is cached', async () => {
    const cdn = env.cdn();
    const before = tarballs().length;
    const budget = cdn.pageBudget(undefined, { packages: 5 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => cdn.answer(url(`many-${i}@1.0.0/index.js`), { method: 'GET', headers: {}, budget })),
    );
    assert.equal(answers.filter((a) => a.kind === 'served').length, 5);
    const refused = answers.filter((a) => a.kind !== 'served');
    assert.equal(refused.length, 5);
    for (const a of refused) {
      assert.equal(a.kind, 'unavailable'); // withheld, never the page's 404
      assert.match((a as { reason: string }).reason, /over the page's budget of 5 package downloads/);
    }
    assert.equal(tarballs().length - before, 5);
    assert.equal(budget.used().packages, 5);
    // another page: what is cached costs nothing, even with a budget of one download
    const next = cdn.pageBudget(undefined, { packages: 1 });
    const again = await Promise.all(
      Array.from({ length: 10 }, (_, i) => cdn.answer(url(`many-${i}@1.0.0/index.js`), { method: 'GET', headers: {}, budget: next })),
    );
    assert.equal(again.filter((a) => a.kind === 'served').length, 6);
  });

  it('stops a download past its budget of registry bytes', async () => {
    const cdn = env.cdn();
    const budget = cdn.pageBudget(undefined, { registryBytes: 200_000 });
    const a = await cdn.answer(url('heavy@1.0.0/blob.bin'), { method: 'GET', headers: {}, budget });
    assert.equal(a.kind, 'unavailable');
    assert.match((a as { reason: string }).reason, /budget of 196 KiB from the registry/);
    assert.equal(cdn.store.getManifest('heavy', '1.0.0'), null);
    assert.ok(budget.used().registryBytes <= 200_000);
  });

  it('adds at most its budget of bytes to the cache, so it cannot evict more than that of other pages’ libraries', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webgrade-cdn-evict-'));
    try {
      const opts = { dir: root, registry: env.registry.url, timeoutMs: 5000, maxBytes: 1_200_000, evictionGraceMs: 0 };
      // another page's libraries: 6 × 150 kB
      const first = new CdnCache(opts);
      for (let i = 0; i < 6; i++) served(await first.answer(url(`fill-${i}@1.0.0/pad.bin`)));
      const cdn = new CdnCache(opts);
      const budget = cdn.pageBudget(undefined, { storedBytes: 400_000 });
      const a = await cdn.answer(url('airy@1.0.0/a.js'), { method: 'GET', headers: {}, budget });
      assert.equal(a.kind, 'unavailable');
      assert.match((a as { reason: string }).reason, /budget of 391 KiB added to the cache/);
      served(await cdn.answer(url('fill-6@1.0.0/pad.bin'), { method: 'GET', headers: {}, budget }));
      served(await cdn.answer(url('fill-7@1.0.0/pad.bin'), { method: 'GET', headers: {}, budget }));
      assert.ok(budget.used().storedBytes <= 400_000);
      // what it added (2 × 150 kB) pushed out at most that plus eviction's slack (10% of 1.2 MB)
      const left = [0, 1, 2, 3, 4, 5].filter((i) => cdn.store.getManifest(`fill-${i}`, '1.0.0') !== null).length;
      assert.ok(left >= 3, `${left} of the first page's 6 packages left`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('stops its downloads when its page closes; another page waiting for the same package still gets it', async () => {
    env.registry.slow('/slow/-/slow-1.0.0.tgz', 1500);
    const cdn = env.cdn();
    const closing = new AbortController();
    const t = Date.now();
    const gone = cdn.answer(url('slow@1.0.0/index.js'), { method: 'GET', headers: {}, budget: cdn.pageBudget(closing.signal) });
    const other = cdn.answer(url('slow@1.0.0/index.js'), { method: 'GET', headers: {}, budget: cdn.pageBudget() });
    setTimeout(() => closing.abort(), 200);
    const a = await gone;
    assert.equal(a.kind, 'unavailable');
    assert.match((a as { reason: string }).reason, /stopped, the page is closed or out of time/);
    assert.ok(Date.now() - t < 1200, `answered after ${Date.now() - t} ms`);
    served(await other);
    // a page already closed downloads nothing
    const before = env.registry.log.length;
    const closed = AbortSignal.abort();
    assert.equal((await cdn.answer(url('many-11@1.0.0/index.js'), { method: 'GET', headers: {}, budget: cdn.pageBudget(closed) })).kind, 'unavailable');
    assert.equal(env.registry.log.length, before);
  });

  it('keeps a bounded number of packuments in memory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webgrade-cdn-lru-'));
    try {
      const cdn = new CdnCache({ dir: root, registry: env.registry.url, timeoutMs: 5000 });
      // 300 names the registry does not have: each a request, each remembered (a 404 is an answer too)
      for (let i = 0; i < 300; i++) assert.equal(await cdn.registry.packument(`absent-${i}`), null);
      assert.equal(cdn.registry.cachedPackuments, 256);
      const before = cdn.registry.requests;
      await cdn.registry.packument('absent-299'); // recent: still held
      await cdn.registry.packument('absent-0'); // least recently used: asked again
      assert.equal(cdn.registry.requests - before, 1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the run has a cap of its own', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webgrade-cdn-run-'));
    try {
      const cdn = new CdnCache({ dir: root, registry: env.registry.url, timeoutMs: 5000, maxRunBytes: 250_000 });
      served(await cdn.answer(url('many-0@1.0.0/index.js'), { method: 'GET', headers: {}, budget: cdn.pageBudget() }));
      const a = await cdn.answer(url('heavy@1.0.0/blob.bin'), { method: 'GET', headers: {}, budget: cdn.pageBudget() });
      assert.match((a as { reason: string }).reason, /the run's budget of 245 KiB from the registry/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('bounds the URL check of resource-validity the same way: over budget is unverified, not invalid', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webgrade-cdn-check-'));
    try {
      const cdn = new CdnCache({ dir: root, registry: env.registry.url, timeoutMs: 5000, pageLimits: { packages: 3 } });
      const urls = Array.from({ length: 8 }, (_, i) => `https://cdn.jsdelivr.net/npm/many-${i}@1.0.0/index.js`);
      const checks = await checkCdnUrls(urls, cdn, 10_000.5); // (a budget left over from a clock is fractional)
      const all = Object.values(checks);
      assert.equal(all.filter((c) => c.ok).length, 3);
      const over = all.filter((c) => !c.ok);
      assert.equal(over.length, 5);
      for (const c of over) {
        assert.equal(c.error, undefined);
        assert.match(c.unverified ?? '', /over the page's budget of 3 package downloads/);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the sandbox gives each site one budget and withholds what is over it; closing the site aborts it', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'webgrade-cdn-sandbox-'));
    try {
      const cdn = new CdnCache({ dir: root, registry: env.registry.url, timeoutMs: 5000 });
      const sandbox = new Sandbox({
        network: { mode: 'cdn' },
        cdn: { isCdnHost, answer: (u, r) => cdn.answer(u, r), budget: (signal) => cdn.pageBudget(signal, { packages: 2 }) },
      });
      const site = await sandbox.open(servedArtifact(loadArtifact(writeArtifact({ 'index.html': '<p>hi</p>' }))));
      t.after(() => site.close());
      const proxy = new URL(await site.endpoint('visit'));
      // the status line read off a raw socket: the proxy repeats the cache's Content-Length header (Chrome accepts
      // that; Node's HTTP parser does not), which is not this test's business
      const get = (u: string) =>
        new Promise<number>((resolve, reject) => {
          const sock = connect(Number(proxy.port), proxy.hostname, () =>
            sock.write(`GET ${u} HTTP/1.1\r\nHost: ${new URL(u).host}\r\nConnection: close\r\n\r\n`),
          );
          let raw = '';
          sock.on('data', (d: Buffer) => (raw += d.toString('latin1')));
          sock.on('end', () => resolve(Number(raw.split(' ')[1])));
          sock.on('error', reject);
        });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await get(`http://cdn.jsdelivr.net/npm/many-${i}@1.0.0/index.js`));
      assert.deepEqual(statuses, [200, 200, 403, 403]);
      const withheld = site.log.filter((e) => e.status === 403);
      assert.equal(withheld.length, 2);
      for (const e of withheld) {
        assert.equal(e.withheld, true);
        assert.match(e.reason ?? '', /budget of 2 package downloads/);
      }
      const budget = site.cdnBudget!;
      assert.equal(budget.aborted, false);
      await site.close();
      assert.equal(budget.aborted, true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
