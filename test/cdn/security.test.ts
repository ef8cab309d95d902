import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { safeEntryPath } from '../../cdn/tarball.js';
import { validPackageName } from '../../cdn/registry.js';
import { served, setup, type Env } from './fixtures.js';
import { rawTarball } from './registry-server.js';

let env: Env;
let evilLog: string[] = [];
let evilUrl = '';
let closeEvil: () => Promise<void>;

before(async () => {
  // another origin on this machine, standing for a host the registry must never lead us to
  const evil = createServer((req, res) => {
    evilLog.push(req.url ?? '');
    res.end('x');
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  const a = evil.address() as { port: number };
  evilUrl = `http://127.0.0.1:${a.port}`;
  closeEvil = () => new Promise((r) => evil.close(() => r()));
  env = await setup([
    {
      name: 'evilpkg',
      version: '1.0.0',
      tarball: rawTarball([
        { path: 'package/package.json', body: '{"name":"evilpkg","version":"1.0.0","main":"index.js"}' },
        { path: 'package/index.js', body: '/* fine */' },
        { path: 'package/../../escaped.js', body: 'pwned' },
        { path: '/tmp/absolute-evil.js', body: 'pwned' },
        { path: 'package/sub/../../../up.js', body: 'pwned' },
        { path: 'package/link.js', type: 'SymbolicLink', linkpath: '/etc/passwd' },
        { path: 'package/hard.js', type: 'Link', linkpath: 'package/index.js' },
      ]),
    },
    { name: 'foreign-tarball', version: '1.0.0', files: { 'a.js': '1' }, dist: { tarball: '' } },
    { name: 'bad-integrity', version: '1.0.0', files: { 'a.js': '1' }, dist: { integrity: 'sha512-' + Buffer.alloc(64).toString('base64') } },
    { name: 'big-pkg', version: '1.0.0', files: { 'big.js': 'x'.repeat(300_000) } },
    {
      name: 'reads-outside',
      version: '1.0.0',
      json: { main: 'index.js' },
      files: { 'index.js': "module.exports = require('../../../../etc/hostname');\n" },
    },
    { name: 'reads-absolute', version: '1.0.0', json: { module: 'index.mjs' }, files: { 'index.mjs': "export { default } from '/etc/hostname';\n" } },
  ]);
  // point foreign-tarball's dist.tarball at the other origin
  await env.registry.publish({
    name: 'foreign-tarball',
    version: '1.0.1',
    files: { 'a.js': '1' },
    dist: { tarball: `${evilUrl}/foreign-tarball/-/foreign-tarball-1.0.1.tgz` },
  });
});
after(async () => {
  await env.close();
  await closeEvil();
});

const ask = (u: string, opts = {}) => env.cdn(opts).answer(new URL(u));

describe('tarball extraction', () => {
  it('keeps safe paths and refuses traversal, absolute paths, symlinks and hard links', async () => {
    served(await ask('https://cdn.jsdelivr.net/npm/evilpkg@1.0.0/index.js'));
    for (const f of ['link.js', 'hard.js', 'up.js', 'escaped.js']) {
      assert.equal((await ask(`https://cdn.jsdelivr.net/npm/evilpkg@1.0.0/${f}`)).kind, 'not-found', f);
    }
    const m = env.cdn().store.getManifest('evilpkg', '1.0.0')!;
    assert.deepEqual(Object.keys(m.files).sort(), ['index.js', 'package.json']);
    assert.equal(m.refused.length, 5);
    assert.ok(m.refused.some((r) => /link\.js: symbolic link/.test(r)));
    assert.ok(m.refused.some((r) => /hard\.js: hard link/.test(r)));
    // nothing was written beside the cache
    assert.deepEqual(
      readdirSync(dirname(env.dir)).filter((n) => /escaped|absolute-evil|up\.js/.test(n)),
      [],
    );
    assert.deepEqual(readdirSync(env.dir).sort(), ['blobs', 'builds', 'layout.json', 'locks', 'packages', 'pins', 'tmp']);
  });

  it('strips the first component and rejects unsafe entry paths', () => {
    assert.equal(safeEntryPath('package/dist/a.js'), 'dist/a.js');
    assert.equal(safeEntryPath('node/a.js'), 'a.js');
    for (const p of ['package/../x', '/abs/x', 'C:/x', 'package\\..\\x', 'package/a/../../b', 'package/', 'a\0b']) assert.equal(safeEntryPath(p), null, p);
  });
});

describe('what the registry client will fetch', () => {
  it('refuses crafted package names without making any request', async () => {
    for (const n of ['../../x', 'evil.com/x', 'http://evil.com', '@scope/../x', 'a?b', '', ' x']) assert.equal(validPackageName(n), false, n);
    assert.equal(validPackageName('@highlightjs/cdn-assets'), true);
    assert.equal(validPackageName('JSONStream'), true);
    const before = env.registry.log.length;
    const urls = [
      'https://cdn.jsdelivr.net/npm/%2E%2E%2F%2E%2E%2Fx@1/a.js',
      'https://unpkg.com/evil.com%2Fx@1/a.js',
      'https://cdn.jsdelivr.net/npm/http:%2F%2Fevil.com@1/x.js',
      'https://esm.sh/%2E%2E%2Fx@1',
      'https://cdnjs.cloudflare.com/ajax/libs/..%2F..%2Fx/1.0.0/a.js',
    ];
    for (const u of urls) {
      const a = await ask(u);
      assert.notEqual(a.kind, 'served', u);
    }
    assert.equal(env.registry.log.length, before, `requests made: ${env.registry.log.slice(before).join(', ')}`);
    assert.deepEqual(evilLog, []);
  });

  it('fetches tarballs only from the registry origin', async () => {
    const a = await ask('https://cdn.jsdelivr.net/npm/foreign-tarball@1.0.1/a.js');
    assert.equal(a.kind, 'unavailable');
    assert.match((a as { reason: string }).reason, /tarball is on 127\.0\.0\.1:\d+, not on the configured registry/);
    assert.deepEqual(evilLog, []);
  });

  it('refuses a tarball that fails its integrity check', async () => {
    const a = await ask('https://cdn.jsdelivr.net/npm/bad-integrity@1.0.0/a.js');
    assert.equal(a.kind, 'unavailable');
    assert.match((a as { reason: string }).reason, /bad-integrity@1\.0\.0 tarball fails its integrity check/);
    assert.equal(env.cdn().store.getManifest('bad-integrity', '1.0.0'), null);
  });

  it('refuses a package over the per-package size cap', async () => {
    const a = await ask('https://cdn.jsdelivr.net/npm/big-pkg@1.0.0/big.js', { maxPackageBytes: 100_000 });
    assert.equal(a.kind, 'unavailable');
    assert.match((a as { reason: string }).reason, /big-pkg@1\.0\.0 unpacks to more than the per-package cap/);
    served(await ask('https://cdn.jsdelivr.net/npm/big-pkg@1.0.0/big.js'));
  });

  it('never bundles a file from outside the package into an ES module build', async () => {
    for (const p of ['reads-outside', 'reads-absolute']) {
      const a = await ask(`https://cdn.jsdelivr.net/npm/${p}@1.0.0/+esm`);
      assert.equal(a.kind, 'unavailable', p);
      assert.match((a as { reason: string }).reason, /resolves outside the package|cannot build/, p);
    }
    assert.deepEqual(readdirSync(join(env.dir, 'tmp')), []);
  });
});
