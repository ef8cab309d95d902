import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCatalogue } from '../../arena/catalogue.js';
import { artifactCsp, FrameHost, rewriteCdnUrls, STORAGE_SHIM, withStorageShim, type Frame } from '../../arena/frames.js';
import { setup, type Env } from '../cdn/fixtures.js';
import { tempDir, writeArtifact } from '../helpers.js';
import { goodPage, writeResults } from './fixtures.js';
import { raw } from './http.js';

describe('CDN URLs and storage in served pages', () => {
  const ports = new Map([
    ['cdn.jsdelivr.net', 4001],
    ['unpkg.com', 4002],
  ]);
  const cases: Array<[string, string]> = [
    ['<script src="https://cdn.jsdelivr.net/npm/x@1/x.js">', '<script src="http://127.0.0.1:4001/npm/x@1/x.js">'],
    ["import('//unpkg.com/y?module')", "import('http://127.0.0.1:4002/y?module')"],
    ['url(HTTP://CDN.JSDELIVR.NET:443/npm/f.woff2)', 'url(http://127.0.0.1:4001/npm/f.woff2)'],
    ['https://cdn.jsdelivr.net.evil.example/x', 'https://cdn.jsdelivr.net.evil.example/x'],
    ['https://xcdn.jsdelivr.net/x and https://example.com/', 'https://xcdn.jsdelivr.net/x and https://example.com/'],
  ];
  for (const [given, expected] of cases)
    it(`${given === expected ? 'leaves' : 'rewrites'} ${given}`, () => assert.equal(rewriteCdnUrls(given, '127.0.0.1', ports), expected));

  it('puts the storage shim first in the document, after the doctype and head', () => {
    assert.equal(withStorageShim('<!doctype html><html><head><title>t</title>'), `<!doctype html><html><head>${STORAGE_SHIM}<title>t</title>`);
    assert.equal(withStorageShim('<!DOCTYPE html><p>no head'), `<!DOCTYPE html>${STORAGE_SHIM}<p>no head`);
    assert.equal(withStorageShim('<p>bare'), `${STORAGE_SHIM}<p>bare`);
  });

  it('limits a page to its own origin and the CDN ports, sandboxed, framed only by the arena', () => {
    const csp = artifactCsp('http://127.0.0.1:5000', ['http://127.0.0.1:4001'], ['http://127.0.0.1:8378']);
    assert.match(csp, /connect-src http:\/\/127\.0\.0\.1:5000 http:\/\/127\.0\.0\.1:4001 data: blob:;/);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'none'/);
    assert.match(csp, /object-src 'none'/);
    assert.match(csp, /frame-ancestors http:\/\/127\.0\.0\.1:8378/);
    assert.match(csp, /sandbox allow-scripts$/);
  });
});

describe("an artifact's own origin", () => {
  let env: Env;
  let host: FrameHost;
  let frame: Frame;
  let origin: string;
  before(async () => {
    env = await setup();
    host = new FrameHost({ bind: '127.0.0.1', cdn: env.cdn() });
    await host.start();
    host.arenaPort = 8378;
    const dir = writeArtifact({ ...goodPage('m1', 'r1'), 'sub/page.html': '<p>sub</p>' });
    const outside = join(tempDir(), 'secret.txt');
    writeFileSync(outside, 'the secret');
    symlinkSync(outside, join(dir, 'leak.txt'));
    frame = await host.open(dir);
    origin = frame.originFor('127.0.0.1');
  });
  after(async () => {
    await host.close();
    await env.close();
  });

  it('serves the entry page with its policy, CDN URLs pointed at the CDN ports and the storage shim first', async () => {
    const r = await raw(origin + frame.entryPath);
    assert.equal(r.status, 200);
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, new RegExp(`script-src ${origin} `));
    assert.match(csp, /sandbox allow-scripts/);
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    const unpkg = host.cdnPorts().get('unpkg.com')!;
    assert.ok(r.body.includes(`src="http://127.0.0.1:${unpkg}/tiny@1/dist/tiny.js"`), r.body);
    assert.ok(r.body.includes(`<head>${STORAGE_SHIM}<meta`));
  });

  it('answers CDN URLs from the CDN cache on their port, and refuses other sites', async () => {
    const unpkg = `http://127.0.0.1:${host.cdnPorts().get('unpkg.com')!}`;
    const r = await raw(`${unpkg}/tiny@1/dist/tiny.js`);
    assert.equal(r.status, 200);
    assert.equal(r.body, 'window.tiny = "1.1.0";\n');
    assert.equal((await raw(`${unpkg}/tiny@1/dist/tiny.js`, { headers: { origin: 'https://evil.example' } })).status, 403);
    assert.equal((await raw(`${unpkg}/tiny@1/dist/tiny.js`, { headers: { host: 'evil.example' } })).status, 421);
  });

  it("serves only the artifact's files: not a link out of its folder, not a path above it", async () => {
    assert.equal((await raw(`${origin}/sub/page.html`)).status, 200);
    for (const p of ['/leak.txt', '/../secret.txt', '/%2e%2e/secret.txt', '/sub/../../secret.txt', '/nothing.html']) {
      const r = await raw(origin + p);
      assert.equal(r.status, 404, p);
      assert.ok(!r.body.includes('the secret'));
    }
    assert.equal((await raw(`${origin}/index.html`, { method: 'POST', body: 'x' })).status, 405);
  });

  it('answers only its own name (DNS rebinding) and no request another site made', async () => {
    assert.equal((await raw(`${origin}/index.html`, { headers: { host: 'evil.example' } })).status, 421);
    assert.equal((await raw(`${origin}/data.json`, { headers: { origin: 'https://evil.example' } })).status, 403);
    assert.equal((await raw(`${origin}/data.json`, { headers: { referer: 'https://evil.example/page' } })).status, 403);
    assert.equal((await raw(`${origin}/data.json`, { headers: { origin: 'null' } })).status, 200, 'its own sandboxed page has an opaque origin');
    assert.equal((await raw(`${origin}/data.json`, { headers: { host: `localhost:${frame.port}` } })).status, 200);
  });

  it('stops serving once closed', async () => {
    const dir = writeArtifact({ 'index.html': '<p>x</p>' });
    const f = await host.open(dir);
    await f.close();
    await assert.rejects(raw(`${f.originFor('127.0.0.1')}/index.html`), /ECONNREFUSED/);
  });
});

describe('what the arena takes from a results file', () => {
  it('keeps pages it can serve, with screenshots only from inside the results folder, and says why it left others out', async () => {
    const w = await writeResults({ m1: { r1: goodPage('m1', 'r1') }, m2: { r1: goodPage('m2', 'r1') } });
    const rows = (await import('node:fs'))
      .readFileSync(w.results, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    // m2's screenshot is a link to a picture outside the results folder: not shown.
    const outside = join(tempDir(), 'outside.png');
    writeFileSync(outside, Buffer.from('89504e470d0a1a0a', 'hex'));
    const linkRel = 'evidence/m2/r1/linked.png';
    symlinkSync(outside, join(w.dir, linkRel));
    rows[1]!.evidence.pictures[0].file = linkRel;
    // m3 names a missing artifact, m4 a name with a control character, m5 a relative path from the results folder.
    rows.push({ ...rows[0], model: 'm3', artifact: join(w.dir, 'runs', 'nowhere') });
    rows.push({ ...rows[0], model: 'm4\u001b[2J' });
    mkdirSync(join(w.dir, 'runs', 'm5'), { recursive: true });
    writeFileSync(join(w.dir, 'runs', 'm5', 'page.html'), '<p>m5</p>');
    rows.push({
      ...rows[0],
      model: 'm5',
      artifact: 'runs/m5/page.html',
      evidence: { ...rows[0]!.evidence, pictures: [{ ...rows[0]!.evidence.pictures[0], file: '../../etc/passwd.png' }] },
    });
    writeFileSync(w.results, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const c = readCatalogue(w.results, w.requirements);
    assert.deepEqual(
      c.pages.map((p) => [p.model, p.shot !== undefined]),
      [
        ['m1', true],
        ['m2', false],
        ['m5', false],
      ],
    );
    assert.equal(c.pages[2]!.artifact, join(w.dir, 'runs', 'm5', 'page.html'));
    assert.equal(c.skipped.length, 2);
    assert.match(c.skipped.join('\n'), /m3\/r1: .*no such file or folder/);
    assert.match(c.skipped.join('\n'), /control characters/);
    assert.equal(c.texts.get('r1'), 'Build the <b>r1</b> app & make it "work"');
    assert.deepEqual(c.featureMetrics, [], 'every page scores lint 50: no metric separates them');
  });
});
