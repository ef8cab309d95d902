import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadArtifact } from '../../../core/artifact.js';
import { staticEvidence } from '../../../core/evidence.js';
import { checkUrl, checkUrls, remoteCheckGathererFactory } from '../../../runner/gather/remote-check.js';
import { writeSingleFile } from '../../helpers.js';

let server: Server;
let base = '';
let refusedUrl = '';
const seen: string[] = [];

function listen(s: Server): Promise<number> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
}

before(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/ok.png') res.writeHead(200, { 'content-type': 'image/png' }).end('png');
    else if (req.url === '/missing.js') res.writeHead(404).end('nope');
    else if (req.url === '/no-head.css') {
      if (req.method === 'HEAD') res.writeHead(405).end();
      else res.writeHead(200, { 'content-type': 'text/css' }).end('a{}');
    } else if (req.url === '/moved') res.writeHead(302, { location: '/ok.png' }).end();
    else if (req.url?.startsWith('/hang')) {
      /* never answers */
    } else res.writeHead(500).end();
  });
  const port = await listen(server);
  base = `http://127.0.0.1:${port}`;
  // A port that refuses: bind one, then close it.
  const tmp = createServer();
  const refusedPort = await listen(tmp);
  await new Promise<void>((r) => tmp.close(() => r()));
  refusedUrl = `http://127.0.0.1:${refusedPort}/x.png`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('remote check', () => {
  it('200 is ok, 404 is not, with the status', async () => {
    assert.deepEqual(await checkUrl(`${base}/ok.png`, 2000), { url: `${base}/ok.png`, ok: true, status: 200 });
    assert.deepEqual(await checkUrl(`${base}/missing.js`, 2000), { url: `${base}/missing.js`, ok: false, status: 404 });
  });

  it('falls back to GET when HEAD is rejected, and follows redirects', async () => {
    seen.length = 0;
    const r = await checkUrl(`${base}/no-head.css`, 2000);
    assert.equal(r.ok, true);
    assert.deepEqual(seen, ['HEAD /no-head.css', 'GET /no-head.css']);
    assert.equal((await checkUrl(`${base}/moved`, 2000)).status, 200);
  });

  it('a hanging endpoint times out and a refused port is unreachable', async () => {
    const t0 = Date.now();
    const hang = await checkUrl(`${base}/hang`, 300);
    assert.deepEqual(hang, { url: `${base}/hang`, ok: false, error: 'timed out' });
    assert.ok(Date.now() - t0 < 2000, 'the timeout bounds the wait');
    const refused = await checkUrl(refusedUrl, 2000);
    assert.equal(refused.ok, false);
    assert.match(refused.error!, /ECONNREFUSED/);
  });

  it('checks many URLs with a concurrency limit and an overall budget', async () => {
    const urls = [`${base}/hang`, `${base}/hang?2`, `${base}/ok.png`];
    const t0 = Date.now();
    const out = await checkUrls(urls, { concurrency: 1, timeoutMs: 400, budgetMs: 600 });
    const took = Date.now() - t0;
    assert.equal(out[`${base}/hang`]!.error, 'timed out');
    // the second hang got what was left of the budget (~200 ms) or nothing; the last one no time at all
    assert.equal(out[`${base}/ok.png`]!.ok, false);
    assert.match(out[`${base}/ok.png`]!.error!, /time budget|timed out/);
    assert.ok(took < 1500, `took ${took} ms`);
  });

  it('the gatherer fills evidence.remote only with --check-network', async () => {
    const page = writeSingleFile(`<img src="${base}/ok.png" alt=""><script>fetch("${base}/missing.js")</script>`);
    const off = staticEvidence(loadArtifact(page));
    const request = { needs: new Set(['network'] as const), metrics: [], budgetMs: 5000 };
    await remoteCheckGathererFactory({ checkNetwork: false, budgetMs: 5000 }).gather(off, request);
    assert.equal(off.remote, undefined);

    const on = staticEvidence(loadArtifact(page), { checkNetwork: true });
    await remoteCheckGathererFactory({ checkNetwork: true, budgetMs: 5000 }).gather(on, request);
    assert.ok(on.remote?.ok);
    const value = on.remote.value;
    assert.equal(value[`${base}/ok.png`]!.ok, true);
    assert.equal(value[`${base}/missing.js`]!.status, 404);
  });
});
