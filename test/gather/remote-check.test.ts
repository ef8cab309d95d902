import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadArtifact } from '../../lib/artifact/load.js';
import { staticEvidence } from '../../core/evidence.js';
import { isPublicAddress, PRIVATE_DESTINATION, type DestinationPolicy, type Resolver } from '../../gather/destination.js';
import { gatherEvidence } from '../../runner/gathering.js';
import { checkUrl, checkUrls, remoteCheckGathererFactory } from '../../gather/remote-check.js';
import resourceValidity from '../../metrics/content/resource-validity.js';
import { writeSingleFile } from '../helpers.js';

let server: Server;
let base = '';
let refusedUrl = '';
const seen: string[] = [];
/** A local server no check may ever contact: every test that references it expects its hit count to stay 0. */
let forbidden: Server;
let forbiddenBase = '';
let forbiddenHits = 0;
/** The test server (and the refused port) are loopback: only this explicit test policy lets requests reach them. */
let allowTest: DestinationPolicy;

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
    else if (req.url === '/to-forbidden') res.writeHead(302, { location: `${forbiddenBase}/secret` }).end();
    else if (req.url === '/to-localhost') res.writeHead(307, { location: `http://localhost:${new URL(forbiddenBase).port}/secret` }).end();
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
  forbidden = createServer((_req, res) => {
    forbiddenHits++;
    res.writeHead(200).end('secret');
  });
  forbiddenBase = `http://127.0.0.1:${await listen(forbidden)}`;
  allowTest = { resolve: async () => [], allowNonPublicForTests: new Set([`127.0.0.1:${port}`, `127.0.0.1:${refusedPort}`]) };
});

after(async () => {
  for (const s of [server, forbidden]) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

describe('remote check', () => {
  it('200 is ok, 404 is not, with the status', async () => {
    assert.deepEqual(await checkUrl(`${base}/ok.png`, 2000, allowTest), { url: `${base}/ok.png`, ok: true, status: 200 });
    assert.deepEqual(await checkUrl(`${base}/missing.js`, 2000, allowTest), { url: `${base}/missing.js`, ok: false, status: 404 });
  });

  it('falls back to GET when HEAD is rejected, and follows redirects', async () => {
    seen.length = 0;
    const r = await checkUrl(`${base}/no-head.css`, 2000, allowTest);
    assert.equal(r.ok, true);
    assert.deepEqual(seen, ['HEAD /no-head.css', 'GET /no-head.css']);
    assert.equal((await checkUrl(`${base}/moved`, 2000, allowTest)).status, 200);
  });

  it('a hanging endpoint times out and a refused port is unreachable', async () => {
    const t0 = Date.now();
    const hang = await checkUrl(`${base}/hang`, 300, allowTest);
    assert.deepEqual(hang, { url: `${base}/hang`, ok: false, error: 'timed out' });
    assert.ok(Date.now() - t0 < 2000, 'the timeout bounds the wait');
    const refused = await checkUrl(refusedUrl, 2000, allowTest);
    assert.equal(refused.ok, false);
    assert.match(refused.error!, /ECONNREFUSED/);
  });

  it('checks many URLs with a concurrency limit and an overall budget', async () => {
    const urls = [`${base}/hang`, `${base}/hang?2`, `${base}/ok.png`];
    const t0 = Date.now();
    const out = await checkUrls(urls, { concurrency: 1, timeoutMs: 400, budgetMs: 600, policy: allowTest });
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
    await gatherEvidence(remoteCheckGathererFactory({ checkNetwork: false, budgetMs: 5000 }), off, request);
    assert.equal(off.remote, undefined);

    const on = staticEvidence(loadArtifact(page), { checkNetwork: true });
    await gatherEvidence(remoteCheckGathererFactory({ checkNetwork: true, budgetMs: 5000, destinations: allowTest }), on, request);
    assert.ok(on.remote?.ok);
    const value = on.remote.value;
    assert.equal(value[`${base}/ok.png`]!.ok, true);
    assert.equal(value[`${base}/missing.js`]!.status, 404);
  });
});

describe('remote check: only public destinations', () => {
  const refused = (url: string) => ({ url, ok: false, unverified: PRIVATE_DESTINATION });

  it('classifies loopback, private, link-local, unique-local, unspecified, multicast and reserved addresses as not public', () => {
    const notPublic = [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.5',
      '198.18.0.1',
      '::',
      '::1',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      'ff02::1',
      'fec0::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '2001:db8::1',
      '2001::1',
      '2002:7f00:1::1',
      '::127.0.0.1',
      '100::1',
    ];
    for (const a of notPublic) assert.equal(isPublicAddress(a), false, a);
    for (const a of ['8.8.8.8', '1.1.1.1', '151.101.1.69', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8']) {
      assert.equal(isPublicAddress(a), true, a);
    }
    assert.equal(isPublicAddress('not-an-ip'), false);
  });

  it('a loopback server named by its IP is never contacted and the URL is unverified, not invalid', async () => {
    forbiddenHits = 0;
    const url = `${forbiddenBase}/secret`;
    assert.deepEqual(await checkUrl(url, 2000), refused(url));
    // the test policy lets only the test server through, not another port of the same address
    assert.deepEqual(await checkUrl(url, 2000, allowTest), refused(url));
    assert.deepEqual(await checkUrl('http://169.254.169.254/latest/meta-data/', 2000), refused('http://169.254.169.254/latest/meta-data/'));
    assert.deepEqual(await checkUrl('http://[::1]:9/x', 2000), refused('http://[::1]:9/x'));
    assert.equal(forbiddenHits, 0);
  });

  it('a host name that resolves to loopback is refused after resolution (localhost, and an injected resolver)', async () => {
    forbiddenHits = 0;
    const port = new URL(forbiddenBase).port;
    const viaLocalhost = `http://localhost:${port}/secret`;
    assert.deepEqual(await checkUrl(viaLocalhost, 2000), refused(viaLocalhost));
    // one public address beside a loopback one is not enough: every address must be public
    const mixed: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const viaName = `http://internal.example:${port}/secret`;
    assert.deepEqual(await checkUrl(viaName, 2000, { resolve: mixed }), refused(viaName));
    assert.equal(forbiddenHits, 0);
  });

  it('a redirect to a loopback destination is refused before the next hop, by IP and by name', async () => {
    forbiddenHits = 0;
    seen.length = 0;
    const withLocalhost: DestinationPolicy = { ...allowTest, resolve: async (host) => (host === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : []) };
    assert.deepEqual(await checkUrl(`${base}/to-forbidden`, 2000, allowTest), refused(`${base}/to-forbidden`));
    assert.deepEqual(await checkUrl(`${base}/to-localhost`, 2000, withLocalhost), refused(`${base}/to-localhost`));
    assert.equal(forbiddenHits, 0);
    assert.deepEqual(seen, ['HEAD /to-forbidden', 'HEAD /to-localhost'], 'the allowed server was asked once each; no GET retry of a refused URL');
  });

  it('connects to the address it checked, not to a second DNS answer (rebinding)', async () => {
    forbiddenHits = 0;
    seen.length = 0;
    const { port } = new URL(base);
    let calls = 0;
    // first answer: the allowed test server; any later answer an address nothing listens on, so a second
    // resolution before connecting would make the check fail
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    const r = await checkUrl(`http://rebind.example:${port}/ok.png`, 2000, { ...allowTest, resolve: rebinding });
    assert.equal(r.ok, true);
    assert.equal(calls, 1, 'resolved once per hop');
    assert.deepEqual(seen, ['HEAD /ok.png']);
    assert.equal(forbiddenHits, 0);
  });

  it('the gatherer (public destinations only) reports a loopback reference as unverified and resource-validity does not count it invalid', async () => {
    forbiddenHits = 0;
    const page = writeSingleFile(`<img src="${forbiddenBase}/a.png" alt=""><img src="b.png" alt="">`);
    const evidence = staticEvidence(loadArtifact(page), { checkNetwork: true });
    await gatherEvidence(remoteCheckGathererFactory({ checkNetwork: true, budgetMs: 5000 }), evidence, {
      needs: new Set(['network'] as const),
      metrics: [],
      budgetMs: 5000,
    });
    assert.ok(evidence.remote?.ok);
    assert.deepEqual(evidence.remote.value[`${forbiddenBase}/a.png`], { ...refused(`${forbiddenBase}/a.png`), via: 'network' });
    const result = await resourceValidity.score(evidence);
    const details = result.details as { invalid: Array<{ url: string }>; unverified: Array<{ url: string; why: string }> };
    assert.deepEqual(
      details.unverified.map((u) => u.why),
      [PRIVATE_DESTINATION],
    );
    assert.ok(!details.invalid.some((i) => i.url.includes(forbiddenBase)));
    assert.equal(forbiddenHits, 0);
  });
});
