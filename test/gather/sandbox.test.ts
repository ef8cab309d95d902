/**
 * The sandbox proxy without a browser: requests are sent to it as Chrome sends them to a proxy (absolute-form
 * GETs, CONNECT tunnels with TLS inside), and what it answers and logs is checked. A "CDN cache" here is a small
 * answerer written in the test (the real cache has its own tests in test/cdn/); listeners bind 127.0.0.1 on a
 * random port and are closed after.
 */
import assert from 'node:assert/strict';
import { request, createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { loadArtifact } from '../../lib/artifact/load.js';
import type { NetworkSettings } from '../../core/network.js';
import { Sandbox, type CdnAnswerer, type SandboxSite } from '../../gather/sandbox/sandbox.js';
import { ARTIFACT_ORIGIN, servedArtifact } from '../../gather/server.js';
import { tempDir, writeArtifact } from '../helpers.js';

const cdn: CdnAnswerer = {
  isCdnHost: (h) => h === 'cdn.example.test',
  async answer(url) {
    if (url.pathname === '/npm/lib@1/lib.js') {
      return {
        kind: 'served',
        status: 200,
        headers: { 'Content-Type': 'text/javascript', 'Access-Control-Allow-Origin': '*' },
        body: Buffer.from('window.LIB = 1;'),
        package: 'lib',
        version: '1.2.3',
        file: 'lib.js',
      };
    }
    if (url.pathname === '/npm/lib@9/lib.js') return { kind: 'not-found', status: 404, reason: 'lib@9 was never published' };
    return { kind: 'unavailable', status: 501, reason: 'unsupported URL form' };
  },
};

/** GET through the proxy, as Chrome does for http URLs: the absolute URL on the request line. */
function proxiedGet(proxy: string, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const p = new URL(proxy);
  return new Promise((resolve, reject) => {
    const req = request({ host: p.hostname, port: p.port, method: 'GET', path: url, headers: { host: new URL(url).host, ...headers } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET https://host/path through a CONNECT tunnel, as Chrome does for https URLs (any certificate accepted here). */
function tunnelledGet(proxy: string, host: string, path: string): Promise<{ status: number; body: string; cert: string }> {
  const p = new URL(proxy);
  return new Promise((resolve, reject) => {
    const req = request({ host: p.hostname, port: p.port, method: 'CONNECT', path: `${host}:443` });
    req.on('connect', (res, socket: Socket) => {
      if (res.statusCode !== 200) return reject(new Error(`CONNECT ${res.statusCode}`));
      const tls = tlsConnect({ socket, servername: host, rejectUnauthorized: false }, () => {
        const cert = tls.getPeerCertificate().subjectaltname ?? '';
        tls.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        let raw = '';
        tls.on('data', (d: Buffer) => (raw += d.toString()));
        tls.on('end', () => {
          const [head, ...rest] = raw.split('\r\n\r\n');
          resolve({ status: Number(head!.split(' ')[1]), body: rest.join('\r\n\r\n'), cert });
        });
      });
      tls.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function site(network: NetworkSettings, files: Record<string, string> = { 'index.html': '<p>hi</p>', 'a.js': 'let a = 1;' }): Promise<SandboxSite> {
  const sandbox = new Sandbox({ network, cdn });
  return sandbox.open(servedArtifact(loadArtifact(writeArtifact(files))));
}

describe('sandbox proxy', () => {
  let secret: Server;
  let secretHits = 0;
  before(async () => {
    secret = createServer((_req, res) => {
      secretHits++;
      res.end('secret');
    });
    await new Promise<void>((r) => secret.listen(0, '127.0.0.1', r));
  });
  after(() => new Promise<void>((r) => secret.close(() => r())));

  it("serves the artifact's own origin from its files and 404s anything else of it", async () => {
    const s = await site({ mode: 'cdn' });
    try {
      const proxy = await s.endpoint('visit');
      assert.deepEqual(await proxiedGet(proxy, `${s.origin}/a.js`), { status: 200, body: 'let a = 1;' });
      assert.equal((await proxiedGet(proxy, `${s.origin}/missing.js`)).status, 404);
      assert.deepEqual(
        s.log.map((e) => [e.phase, e.disposition, e.status]),
        [
          ['visit', 'artifact', 200],
          ['visit', 'artifact', 404],
        ],
      );
    } finally {
      await s.close();
    }
  });

  it('serves every artifact at one fixed origin, each through its own proxies: two sites open at once never see each other', async () => {
    const a = await site({ mode: 'cdn' }, { 'index.html': '<p>a</p>', 'only-a.js': 'let a = 1;' });
    const b = await site({ mode: 'cdn' }, { 'index.html': '<p>b</p>', 'only-b.js': 'let b = 2;' });
    try {
      assert.equal(a.origin, ARTIFACT_ORIGIN);
      assert.equal(b.origin, a.origin);
      assert.equal(a.entryUrl, `${ARTIFACT_ORIGIN}/index.html`);
      const [pa, pb] = [await a.endpoint('visit'), await b.endpoint('visit')];
      assert.deepEqual(await proxiedGet(pa, `${a.origin}/index.html`), { status: 200, body: '<p>a</p>' });
      assert.deepEqual(await proxiedGet(pb, `${b.origin}/index.html`), { status: 200, body: '<p>b</p>' });
      assert.equal((await proxiedGet(pa, `${a.origin}/only-b.js`)).status, 404);
      assert.equal((await proxiedGet(pb, `${b.origin}/only-a.js`)).status, 404);
      // Each site's log has its own requests only.
      assert.deepEqual(
        a.log.map((e) => e.url),
        [`${ARTIFACT_ORIGIN}/index.html`, `${ARTIFACT_ORIGIN}/only-b.js`],
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('refuses other loopback ports and localhost, and logs each refusal with its phase', async () => {
    const s = await site({ mode: 'cdn' });
    try {
      const port = (secret.address() as AddressInfo).port;
      const proxy = await s.endpoint('lighthouse');
      assert.equal((await proxiedGet(proxy, `http://127.0.0.1:${port}/x`)).status, 403);
      assert.equal((await proxiedGet(proxy, `http://localhost:${port}/y`)).status, 403);
      assert.equal(secretHits, 0);
      assert.ok(s.log.every((e) => e.phase === 'lighthouse' && e.disposition === 'blocked'));
      assert.match(s.log[0]!.reason!, /not the artifact/);
    } finally {
      await s.close();
    }
  });

  it('answers a top-level navigation away with 204, so that the page stays', async () => {
    const s = await site({ mode: 'cdn' });
    try {
      const r = await proxiedGet(await s.endpoint('visit'), 'http://elsewhere.test/', { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' });
      assert.equal(r.status, 204);
      assert.equal(s.log[0]!.navigationKept, true);
    } finally {
      await s.close();
    }
  });

  it('ends TLS for a CDN host and answers from the CDN cache, with the library in the log', async () => {
    const s = await site({ mode: 'cdn' });
    try {
      const proxy = await s.endpoint('visit');
      const r = await tunnelledGet(proxy, 'cdn.example.test', '/npm/lib@1/lib.js');
      assert.equal(r.status, 200);
      assert.equal(r.body, 'window.LIB = 1;');
      assert.match(r.cert, /DNS:cdn\.example\.test/);
      const nf = await tunnelledGet(proxy, 'cdn.example.test', '/npm/lib@9/lib.js');
      assert.equal(nf.status, 404);
      const un = await tunnelledGet(proxy, 'cdn.example.test', '/something/else');
      assert.equal(un.status, 403);
      assert.deepEqual(
        s.log.map((e) => [e.url, e.disposition, e.status, e.library ?? null, !!e.withheld]),
        [
          ['https://cdn.example.test/npm/lib@1/lib.js', 'cdn', 200, 'lib@1.2.3', false],
          ['https://cdn.example.test/npm/lib@9/lib.js', 'cdn', 404, null, false],
          ['https://cdn.example.test/something/else', 'blocked', 403, null, true],
        ],
      );
    } finally {
      await s.close();
    }
  });

  it('logs the full URL of a refused https request to any other host', async () => {
    const s = await site({ mode: 'cdn' });
    try {
      const r = await tunnelledGet(await s.endpoint('visit'), 'api.example.test', '/v1/secret?q=1');
      assert.equal(r.status, 403);
      assert.equal(s.log[0]!.url, 'https://api.example.test/v1/secret?q=1');
    } finally {
      await s.close();
    }
  });

  it('withholds CDN files in offline mode, and says so', async () => {
    const s = await site({ mode: 'offline' });
    try {
      const r = await tunnelledGet(await s.endpoint('visit'), 'cdn.example.test', '/npm/lib@1/lib.js');
      assert.equal(r.status, 403);
      assert.equal(s.log[0]!.withheld, true);
      assert.match(s.log[0]!.reason!, /offline/);
    } finally {
      await s.close();
    }
  });

  it('records what a live run lets through, and replays exactly that, byte for byte, and nothing else', async () => {
    const upstream = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'yes' });
      res.end(`upstream ${req.url}`);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const up = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const dir = join(tempDir(), 'archive');
    try {
      const rec = await site({ mode: 'record', dir, allowHosts: ['127.0.0.1'] });
      const live = await proxiedGet(await rec.endpoint('visit'), `${up}/data.txt?x=1`);
      await rec.close();
      assert.deepEqual(live, { status: 200, body: 'upstream /data.txt?x=1' });
      assert.equal(rec.log[0]!.disposition, 'live');
      assert.equal(readdirSync(dir).filter((f) => f.endsWith('.json')).length, 1);
      await new Promise<void>((r) => upstream.close(() => r()));
      const rep = await site({ mode: 'replay', dir });
      const again = await proxiedGet(await rep.endpoint('visit'), `${up}/data.txt?x=1`);
      const other = await proxiedGet(await rep.endpoint('visit'), `${up}/other.txt`);
      await rep.close();
      assert.deepEqual(again, live);
      assert.equal(other.status, 403);
      assert.deepEqual(
        rep.log.map((e) => e.disposition),
        ['replay', 'blocked'],
      );
      assert.match(rep.log[1]!.reason!, /not in the replay archive/);
    } finally {
      upstream.close();
    }
  });

  it('live mode lets through only the allow-listed hosts', async () => {
    const s = await site({ mode: 'live', allowHosts: ['cdn.example.test'] });
    try {
      const port = (secret.address() as AddressInfo).port;
      assert.equal((await proxiedGet(await s.endpoint('visit'), `http://127.0.0.1:${port}/z`)).status, 403);
      assert.equal(secretHits, 0);
      assert.match(s.log[0]!.reason!, /not on the live allow-list/);
    } finally {
      await s.close();
    }
  });

  it('never serves a link that leaves the artifact folder (e.g. to /proc/self/environ), naming why', async () => {
    const dir = writeArtifact({ 'index.html': '<script>fetch("e.txt")</script>' });
    symlinkSync('/proc/self/environ', join(dir, 'e.txt'));
    symlinkSync('/etc/hostname', join(dir, 'h.txt'));
    const artifact = loadArtifact(dir);
    assert.deepEqual(
      artifact.files.map((f) => f.path),
      ['index.html'],
    );
    assert.deepEqual(artifact.refused.map((r) => r.path).sort(), ['e.txt', 'h.txt']);
    const s = await new Sandbox({ network: { mode: 'offline' } }).open(servedArtifact(artifact));
    try {
      const r = await proxiedGet(await s.endpoint('visit'), `${s.origin}/e.txt`);
      assert.equal(r.status, 404);
      assert.doesNotMatch(r.body, /PATH=|HOME=/);
      assert.match(s.log[0]!.reason!, /system files|outside the artifact/);
    } finally {
      await s.close();
    }
  });
});
