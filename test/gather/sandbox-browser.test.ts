/**
 * The sandbox in the real browser, as a hostile page would try it (issue "Close the sandbox", items 1–4; each
 * case is one reproduction of the adversarial probe, kept so that it cannot come back):
 * 1. a link inside the artifact to /proc/self/environ is never served, and its text reaches no output;
 * 2. fetch, WebSocket, service worker, SharedWorker, EventSource, beacon, image, iframe and WebRTC (UDP) aimed at
 *    another loopback port reach nothing, in the visit and in Lighthouse's run alike, and each try is logged with
 *    its phase;
 * 3. what one artifact stores (30 cookies of 1 KB, localStorage) is not seen by the next one, in any phase, and
 *    the next one's Lighthouse run is unharmed;
 * 4. a page that clicks `<a download>` leaves no file in ~/Downloads.
 * Listeners bind 127.0.0.1 (and ::1 when the machine has it) on random ports and are closed after.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Scorer } from '../../runner/score.js';
import { runCli, tempDir, writeArtifact } from '../helpers.js';

const BUDGET_MS = 30_000;

describe('sandbox in the browser: a hostile page reaches nothing else', () => {
  let tcp: Server;
  let tcp6: Server | undefined;
  let udp: UdpSocket;
  const hits: string[] = [];
  let port = 0;
  let udpPort = 0;
  const scorer = new Scorer({ only: ['console-errors', 'accessibility', 'best-practices'], budgetMs: BUDGET_MS, network: { mode: 'offline' } });

  before(async () => {
    tcp = createServer((req, res) => {
      hits.push(`tcp ${req.url}`);
      res.end('reached');
    });
    tcp.on('upgrade', (req, socket) => {
      hits.push(`upgrade ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    port = (tcp.address() as AddressInfo).port;
    const six = createServer((req, res) => {
      hits.push(`tcp6 ${req.url}`);
      res.end('reached');
    });
    await new Promise<void>((r) => {
      six.once('error', () => r());
      six.listen(port, '::1', () => {
        tcp6 = six;
        r();
      });
    });
    udp = createSocket('udp4');
    udp.on('message', () => hits.push('udp'));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    udpPort = udp.address().port;
  });

  after(async () => {
    await scorer.close();
    await new Promise<void>((r) => tcp.close(() => r()));
    if (tcp6) await new Promise<void>((r) => tcp6!.close(() => r()));
    udp.close();
  });

  it("no request of any kind reaches another loopback port, in the visit or in Lighthouse's run; every try is logged with its phase", async () => {
    const target = `127.0.0.1:${port}`;
    const page = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>reaching out</title></head><body><h1>Probe</h1>
<img src="http://${target}/img" alt="x"><iframe src="http://${target}/frame" title="f"></iframe>
<script>
const t = '${target}';
fetch('http://' + t + '/fetch').catch(() => {});
fetch('http://localhost:${port}/localhost').catch(() => {});
fetch('http://[::1]:${port}/ipv6').catch(() => {});
try { const ws = new WebSocket('ws://' + t + '/ws'); ws.onerror = () => {}; } catch (e) {}
try { new EventSource('http://' + t + '/events'); } catch (e) {}
navigator.sendBeacon('http://' + t + '/beacon', 'x');
navigator.serviceWorker.register('sw.js').catch(() => {});
try { new SharedWorker('shared.js'); } catch (e) {}
try {
  const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udpPort}' }] });
  pc.createDataChannel('x');
  pc.createOffer().then((o) => pc.setLocalDescription(o));
} catch (e) {}
</script></body></html>`,
      'sw.js': `self.addEventListener('install', (e) => e.waitUntil(fetch('http://${target}/from-sw').catch(() => 0)));
self.addEventListener('fetch', (e) => { if (e.request.url.endsWith('/go')) e.respondWith(fetch('http://${target}/sw-fetch')); });`,
      'shared.js': `fetch('http://${target}/from-shared-worker').catch(() => 0);`,
    });
    const t = performance.now();
    const { doc, evidence } = await scorer.scoreWithEvidence(page);
    // Give late tries (STUN retransmits, service worker install) time to arrive if they could.
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(hits, [], 'something reached the listener');
    assert.ok(performance.now() - t < BUDGET_MS + 10_000);
    assert.ok(evidence.browser?.ok);
    const log = evidence.browser.value.network;
    const refused = (phase: string) => log.filter((e) => e.phase === phase && e.disposition === 'blocked').map((e) => e.url);
    for (const phase of ['visit', 'lighthouse']) {
      const urls = refused(phase).join('\n');
      for (const path of ['/fetch', '/localhost', '/img', '/frame', '/beacon', '/events'])
        assert.match(urls, new RegExp(`${port}${path}`), `${phase}: ${path} not logged as refused:\n${urls}`);
      assert.match(urls, /ws:\/\/127\.0\.0\.1:\d+\/ws/, `${phase}: the WebSocket was not logged`);
    }
    assert.match(refused('visit').join('\n'), /from-shared-worker|from-sw/, 'worker requests were not logged');
    assert.notEqual(doc.metrics.find((m) => m.id === 'accessibility')!.score, null);
  });

  it("one artifact's cookies and storage are never seen by the next, in any phase; the next one's Lighthouse run is unharmed", async () => {
    const a = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>a</title></head><body><p>Sets cookies.</p><script>
const kb = 'x'.repeat(1000);
for (let i = 0; i < 30; i++) document.cookie = 'c' + i + '=' + kb + '; path=/; max-age=86400';
localStorage.setItem('left', 'behind');
</script></body></html>`,
    });
    const b = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>b</title></head><body><p>Reads them.</p><script>
fetch('probe?cookies=' + document.cookie.length + '&storage=' + localStorage.length);
</script></body></html>`,
    });
    await scorer.score(a);
    const { doc, evidence } = await scorer.scoreWithEvidence(b);
    assert.ok(evidence.browser?.ok);
    const probes = evidence.browser.value.network.filter((e) => e.url.includes('/probe?'));
    assert.ok(probes.some((p) => p.phase === 'visit') && probes.some((p) => p.phase === 'lighthouse'), JSON.stringify(probes));
    for (const p of probes) assert.match(p.url, /cookies=0&storage=0$/, `${p.phase} saw what the previous artifact stored`);
    for (const id of ['accessibility', 'best-practices']) {
      const m = doc.metrics.find((x) => x.id === id)!;
      assert.notEqual(m.score, null, `${id}: ${m.reason}`);
    }
  });
});

describe('sandbox in the browser: files and downloads', () => {
  it('a link to /proc/self/environ inside the artifact is never served: the environment reaches no output', async () => {
    const dir = writeArtifact({
      'index.html':
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>env</title></head><body><pre id="out">waiting</pre><script>fetch("e.txt").then((r) => r.text()).then((t) => { document.getElementById("out").textContent = t; });</script></body></html>',
    });
    symlinkSync('/proc/self/environ', join(dir, 'e.txt'));
    const saved = tempDir();
    const secret = `canary-${Math.random().toString(36).slice(2)}`;
    const r = await runCli(['score', dir, '--json', '--only', 'console-errors,copywriting', '--network', 'offline', '--save-evidence', saved], {
      env: { ...process.env, WEBGRADE_TEST_CANARY: secret },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes(secret), 'the environment reached the score document');
    for (const f of readdirSync(saved)) assert.ok(!readFileSync(join(saved, f)).toString('latin1').includes(secret), `the environment reached ${f}`);
  });

  it('a page that clicks <a download> leaves no file in ~/Downloads', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'Downloads'));
    const page = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>dl</title></head><body><a id="d" download="payload.bin">x</a><script>
const blob = new Blob([new Uint8Array(1024 * 1024)]);
const a = document.getElementById('d'); a.href = URL.createObjectURL(blob); a.click();
</script></body></html>`,
    });
    const r = await runCli(['score', page, '--json', '--only', 'console-errors,accessibility', '--network', 'offline'], {
      env: { ...process.env, HOME: home, XDG_DOWNLOAD_DIR: join(home, 'Downloads') },
    });
    assert.equal(r.code, 0, r.stderr);
    const downloads = join(home, 'Downloads');
    assert.deepEqual(readdirSync(downloads), [], 'files left in ~/Downloads');
  });
});
