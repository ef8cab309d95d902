import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isCdnHost, type CdnRequest } from '../../cdn/index.js';
import { GET, served, setup, text, type Env } from './fixtures.js';

let env: Env;
before(async () => {
  env = await setup();
});
after(() => env.close());

const ask = (u: string, req: CdnRequest = GET) => env.cdn().answer(new URL(u), req);

describe('isCdnHost', () => {
  it('answers for the well-known CDN hosts only', () => {
    for (const h of [
      'cdn.jsdelivr.net',
      'esm.run',
      'unpkg.com',
      'cdnjs.cloudflare.com',
      'esm.sh',
      'cdn.skypack.dev',
      'fonts.googleapis.com',
      'cdn.tailwindcss.com',
      'use.fontawesome.com',
      'kit.fontawesome.com',
      'CDN.JSDELIVR.NET',
    ]) {
      assert.equal(isCdnHost(h), true, h);
    }
    for (const h of ['example.com', 'evil.com', 'jsdelivr.net.evil.com', 'registry.npmjs.org', 'github.com', 'raw.githubusercontent.com'])
      assert.equal(isCdnHost(h), false, h);
  });
});

describe('jsDelivr and unpkg files', () => {
  it('serves a file of an exact version with CDN headers (type, CORS, immutable cache, length)', async () => {
    const a = served(await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0/style.css'));
    assert.equal(a.body.toString(), 'body{color:red}');
    assert.equal(a.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(a.headers['access-control-allow-origin'], '*');
    assert.match(a.headers['cache-control']!, /max-age=31536000.*immutable/);
    assert.equal(a.headers['content-length'], String(a.body.length));
    assert.deepEqual([a.package, a.version, a.file], ['tiny', '1.0.0', 'style.css']);
    assert.equal(served(await ask('https://cdn.jsdelivr.net/npm/browserish@2.0.0/pkg.wasm')).headers['content-type'], 'application/wasm');
    assert.equal(served(await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0/data/x.json')).headers['content-type'], 'application/json; charset=utf-8');
  });

  it('resolves a range to the highest matching version, with a short cache lifetime', async () => {
    const a = served(await ask('https://cdn.jsdelivr.net/npm/tiny@1/dist/tiny.js'));
    assert.equal(a.version, '1.1.0');
    assert.equal(a.headers['cache-control'], 'public, max-age=604800');
    assert.equal(served(await ask('https://cdn.jsdelivr.net/npm/tiny@~1.0/dist/tiny.js')).version, '1.0.0');
    assert.equal(served(await ask('https://unpkg.com/tiny/dist/tiny.js')).version, '1.1.0');
  });

  it('picks the default file as jsDelivr does: the jsdelivr field, its .min sibling', async () => {
    const a = served(await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0'));
    assert.equal(a.file, 'dist/tiny.min.js');
    assert.equal(a.headers['content-type'], 'application/javascript; charset=utf-8');
    assert.equal(served(await ask('https://cdn.jsdelivr.net/npm/browserish@2.0.0')).file, 'browser.js');
    assert.equal(served(await ask('https://cdn.jsdelivr.net/npm/mainonly')).file, 'lib/entry.js');
  });

  it('picks the default file as unpkg does (unpkg field, then browser, then main) and tolerates @v1.2.3', async () => {
    assert.equal(served(await ask('https://unpkg.com/tiny@1.0.0')).file, 'dist/tiny.js');
    assert.equal(served(await ask('https://unpkg.com/browserish@v2.0.0')).file, 'browser.js');
    assert.equal(served(await ask('https://unpkg.com/mainonly@0.3.0/lib/entry')).file, 'lib/entry.js');
  });

  it('minifies x.js when x.min.js is asked of jsDelivr and only x.js exists', async () => {
    const a = served(await ask('https://cdn.jsdelivr.net/npm/nomin@1.0.0/lib/a.min.js'));
    assert.ok(a.body.length < 'function add(first, second) {\n  return first + second;\n}\nwindow.add = add;\n'.length);
    assert.match(a.body.toString(), /function add\(\w,\w\)\{return \w\+\w\}/);
    assert.deepEqual(a.notes, ['lib/a.min.js minified from lib/a.js']);
  });

  it('says not-found, with a specific reason, for a version or file that was never published', async () => {
    const v = await ask('https://cdn.jsdelivr.net/npm/tiny@9/x.js');
    assert.deepEqual(v, { kind: 'not-found', status: 404, reason: 'jsdelivr: tiny@9 has no version matching 9 (latest 1.1.0)' });
    const e = await ask('https://unpkg.com/tiny@1.0.5/dist/tiny.js');
    assert.equal(e.kind, 'not-found');
    assert.match((e as { reason: string }).reason, /tiny@1\.0\.5 was never published/);
    const f = await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0/nope.js');
    assert.deepEqual(f, { kind: 'not-found', status: 404, reason: 'jsdelivr: tiny@1.0.0 has no file nope.js' });
    const p = await ask('https://cdn.jsdelivr.net/npm/no-such-package-here@1/x.js');
    assert.deepEqual(p, { kind: 'not-found', status: 404, reason: 'jsdelivr: no-such-package-here does not exist on the npm registry' });
  });

  it('says unavailable for directory listings and unsupported URL forms', async () => {
    const d = await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0/dist/');
    assert.equal(d.kind, 'unavailable');
    assert.equal(d.status, 501);
    assert.match((d as { reason: string }).reason, /directory listings/);
    const u = await ask('https://cdn.jsdelivr.net/combine/npm/a,npm/b');
    assert.deepEqual(u, { kind: 'unavailable', status: 501, reason: 'jsdelivr: unsupported jsdelivr URL form /combine/npm/a,npm/b' });
    assert.equal((await ask('https://unpkg.com/tiny@1.0.0/?meta')).kind, 'unavailable');
  });

  it('answers HEAD with the headers and no body, and a matching If-None-Match with 304', async () => {
    const full = served(await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0/style.css'));
    const head = served(await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0/style.css', { method: 'HEAD', headers: {} }));
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-length'], String(full.body.length));
    const nm = served(await ask('https://cdn.jsdelivr.net/npm/tiny@1.0.0/style.css', { method: 'GET', headers: { 'if-none-match': full.headers.etag } }));
    assert.equal(nm.status, 304);
    assert.equal(nm.body.length, 0);
  });
});

describe('pinning', () => {
  it('keeps the first resolution of a range: a newer version published later does not change the answer', async () => {
    const before = text(await ask('https://cdn.jsdelivr.net/npm/shared-core@^1/index.js'));
    assert.match(before, /1\.2\.0/);
    await env.registry.publish({
      name: 'shared-core',
      version: '1.9.0',
      json: { main: 'index.js' },
      files: { 'index.js': 'exports.name = "shared-core@1.9.0";' },
    });
    const fresh = env.cdn(); // a new process on the same cache
    const after = text(await fresh.answer(new URL('https://cdn.jsdelivr.net/npm/shared-core@^1/index.js')));
    assert.equal(after, before);
    // a range never asked before resolves against what the registry has now
    assert.match(text(await fresh.answer(new URL('https://cdn.jsdelivr.net/npm/shared-core@1.x/index.js'))), /1\.9\.0/);
  });

  it('resolves each (package, range) once per cache, not once per request', async () => {
    const c = env.cdn();
    await c.answer(new URL('https://unpkg.com/tiny@1/dist/tiny.js'));
    const n = env.registry.log.length;
    const c2 = env.cdn();
    for (let i = 0; i < 3; i++) served(await c2.answer(new URL('https://unpkg.com/tiny@1/dist/tiny.js')));
    assert.equal(env.registry.log.length, n);
  });
});

describe('cdnjs, /gh/ and pyodide mappings', () => {
  it('maps a cdnjs library to its npm package with the flattened folder (Chart.js → chart.js/dist)', async () => {
    const a = served(await ask('https://cdnjs.cloudflare.com/ajax/libs/Chart.js/3.7.1/chart.min.js'));
    assert.deepEqual([a.package, a.version, a.file], ['chart.js', '3.7.1', 'dist/chart.min.js']);
  });

  it('falls back to the one file with the same basename, the shortest path on a tie', async () => {
    const a = served(await ask('https://cdnjs.cloudflare.com/ajax/libs/foo-lib/1.0.0/foo.min.js'));
    assert.equal(a.file, 'build/umd/foo.min.js');
    assert.equal(served(await ask('https://cdnjs.cloudflare.com/ajax/libs/foo-lib/1.0.0/x.js')).file, 'a/x.js');
    const miss = await ask('https://cdnjs.cloudflare.com/ajax/libs/foo-lib/1.0.0/none.js');
    assert.equal(miss.kind, 'unavailable');
    assert.match((miss as { reason: string }).reason, /foo-lib\/1\.0\.0\/none\.js maps to foo-lib@1\.0\.0, which has no dist\/none\.js/);
  });

  it('serves Font Awesome 6 and 4 from cdnjs, and the webfonts its CSS references', async () => {
    const css = served(await ask('https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css'));
    assert.equal(css.package, '@fortawesome/fontawesome-free');
    const font = new URL('../webfonts/fa-solid-900.woff2', 'https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css');
    const f = served(await ask(font.href));
    assert.equal(f.headers['content-type'], 'font/woff2');
    assert.equal(f.headers['access-control-allow-origin'], '*');
    const fa4 = served(await ask('https://cdnjs.cloudflare.com/ajax/libs/font-awesome/4.7.0/css/font-awesome.min.css'));
    assert.deepEqual([fa4.package, fa4.version], ['font-awesome', '4.7.0']);
  });

  it('maps jsDelivr /gh/highlightjs/cdn-release to @highlightjs/cdn-assets', async () => {
    const a = served(await ask('https://cdn.jsdelivr.net/gh/highlightjs/cdn-release@11/build/styles/github.min.css'));
    assert.deepEqual([a.package, a.version, a.file], ['@highlightjs/cdn-assets', '11.9.0', 'styles/github.min.css']);
    const un = await ask('https://cdn.jsdelivr.net/gh/copy/v86@master/bios/seabios.bin');
    assert.equal(un.kind, 'unavailable');
    assert.match((un as { reason: string }).reason, /copy\/v86 has no npm mapping/);
  });

  it('serves pyodide core files from the npm package and says the rest is unavailable', async () => {
    const a = served(await ask('https://cdn.jsdelivr.net/pyodide/v0.26.2/full/pyodide.asm.wasm'));
    assert.equal(a.headers['content-type'], 'application/wasm');
    const pkg = await ask('https://cdn.jsdelivr.net/pyodide/v0.26.2/full/numpy-1.26.4-cp312-cp312-pyodide_2024_0_wasm32.whl');
    assert.equal(pkg.kind, 'unavailable');
    assert.match((pkg as { reason: string }).reason, /only its core files are served/);
    assert.equal((await ask('https://cdn.jsdelivr.net/pyodide/v0.99.0/full/pyodide.js')).kind, 'not-found');
  });
});

describe('Font Awesome and Tailwind hosts', () => {
  it('serves use.fontawesome.com releases and a kit as the free all.js of the newest version', async () => {
    const a = served(await ask('https://use.fontawesome.com/releases/v5.15.4/css/all.css'));
    assert.deepEqual([a.package, a.version], ['@fortawesome/fontawesome-free', '5.15.4']);
    served(await ask('https://use.fontawesome.com/releases/v5.15.4/webfonts/fa-solid-900.woff2'));
    const kit = served(await ask('https://kit.fontawesome.com/0123abcd45.js'));
    assert.deepEqual([kit.version, kit.file], ['6.5.1', 'js/all.min.js']);
    assert.match(kit.notes![0]!, /kits are per account/);
  });

  it('chooses the Play CDN build by version and plugins from tailwindcss-cdn', async () => {
    const pick = async (u: string) => served(await ask(u)).file;
    assert.equal(await pick('https://cdn.tailwindcss.com'), 'tailwindcss.js');
    assert.equal(await pick('https://cdn.tailwindcss.com/?plugins=forms'), 'tailwindcss-with-forms.js');
    assert.equal(await pick('https://cdn.tailwindcss.com?plugins=forms,typography'), 'tailwindcss-with-all-plugins.js');
    assert.equal(await pick('https://cdn.tailwindcss.com?plugins=line-clamp'), 'tailwindcss.js'); // in core since 3.3
    assert.equal(await pick('https://cdn.tailwindcss.com/3.4.1'), '3.4.1/tailwindcss.js');
    assert.equal(await pick('https://cdn.tailwindcss.com/3.4.1?plugins=typography'), '3.4.1/tailwindcss-with-typography.js');
    assert.equal(await pick('https://cdn.tailwindcss.com/3.3.3?plugins=line-clamp'), '3.3.3/tailwindcss-with-line-clamp.js');
    const old = await ask('https://cdn.tailwindcss.com/3.0.0');
    assert.equal(old.kind, 'unavailable');
    assert.match((old as { reason: string }).reason, /no Play CDN build of Tailwind 3\.0\.0/);
    // Note: the page's own `tailwind.config = {...}` is read by the Play CDN script at run time in the browser;
    // nothing here rewrites it (the lead's browser fixture checks that a custom colour applies).
  });
});
