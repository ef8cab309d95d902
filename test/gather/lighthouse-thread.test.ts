/**
 * Lighthouse in its worker thread, with the real Chromium: a run held before it measures waits for the
 * caller's verdict and reports the wait; a run told to skip ends at once without loading the page; the CPU
 * benchmark is announced before the run measures, and is measured only by the thread's first run; and a run over its time limit is abandoned (thread stopped)
 * while the next run works. The page is served by a server written here that counts the requests for it; it is
 * also the proxy of the run's browser context (it answers the absolute-form requests a proxy gets), as the
 * sandbox is in the product.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ChromeProcess } from '../../gather/chrome-process.js';
import { LighthouseTimeout } from '../../gather/lighthouse.js';
import { LighthouseThread } from '../../gather/lighthouse-thread.js';
import type { HoldVerdict } from '../../gather/lighthouse-mobile.js';

const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>t</title></head><body><h1>Hello</h1><p>A small page.</p></body></html>';
const HOLD_MS = 3000;

let server: Server;
let url: string;
let proxyServer: string;
let pageHits = 0;
const chrome = new ChromeProcess();
const thread = new LighthouseThread();

before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
    if (path === '/index.html') pageHits++;
    res.writeHead(path === '/index.html' ? 200 : 404, { 'content-type': 'text/html' });
    res.end(path === '/index.html' ? PAGE : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxyServer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `${proxyServer}/index.html`;
  await chrome.browser();
});

after(async () => {
  await thread.terminate();
  await chrome.kill();
  await new Promise<void>((r) => server.close(() => r()));
});

const later = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe('Lighthouse in a worker thread', () => {
  it('waits, held before it measures, until the verdict is "measure", then measures (and says how long it waited)', async () => {
    const hitsBefore = pageHits;
    let benchmarks = 0;
    let hitsAtBenchmark = -1;
    // The verdict comes HOLD_MS after the benchmark starts (about 1 s long), whatever the worker's start-up
    // took, so the run must have waited for it.
    let verdict!: (v: HoldVerdict) => void;
    const decided = new Promise<HoldVerdict>((r) => (verdict = r));
    const run = await thread.run(url, {
      port: chrome.port!,
      proxyServer,
      timeoutMs: 60_000,
      mobile: { screenshot: false, before: decided },
      onBenchmark: () => {
        benchmarks++;
        hitsAtBenchmark = pageHits;
        void later(HOLD_MS, {} as HoldVerdict).then(verdict);
      },
    });
    assert.equal(benchmarks, 1, 'the CPU benchmark was not announced once');
    assert.equal(hitsAtBenchmark, hitsBefore, 'the page was requested before the benchmark was announced');
    assert.ok(pageHits > hitsBefore, 'the page was never loaded');
    assert.ok((run.heldMs ?? 0) >= 1000, `held ${run.heldMs} ms although the verdict came ${HOLD_MS} ms after the benchmark started`);
    assert.equal(run.evidence.categories.accessibility?.score, 1);
    assert.ok(run.mobile?.ok, JSON.stringify(run.mobile));
    assert.equal(run.mobile.value.measure.scrollWidth, run.mobile.value.measure.clientWidth);
  });

  it("measures the CPU benchmark once per thread: a later run reports the first run's index; bf-cache is not audited; the measured phase is timed", async () => {
    const first = await thread.run(url, { port: chrome.port!, proxyServer, timeoutMs: 60_000 });
    const second = await thread.run(url, { port: chrome.port!, proxyServer, timeoutMs: 60_000 });
    const index = (r: typeof first) => (r.evidence.lhr as { environment?: { benchmarkIndex?: number } }).environment?.benchmarkIndex;
    assert.ok((index(first) ?? 0) > 0, `no benchmark index: ${index(first)}`);
    // Two real benchmarks (two 500 ms loops) practically never give the same number; a reused one always does.
    assert.equal(index(second), index(first));
    assert.equal(second.evidence.audits['bf-cache'], undefined);
    assert.notEqual(second.evidence.categories.performance?.score ?? null, null);
    assert.ok((second.measuredMs ?? 0) > 0, `measured phase not timed: ${second.measuredMs}`);
  });

  it('ends at once, without requesting the page, when the verdict is "skip"', async () => {
    const hitsBefore = pageHits;
    const t = performance.now();
    await assert.rejects(
      thread.run(url, { port: chrome.port!, proxyServer, timeoutMs: 60_000, mobile: { screenshot: false, before: later(HOLD_MS, 'skip' as const) } }),
      /closed/i,
    );
    const ms = performance.now() - t;
    assert.equal(pageHits, hitsBefore, 'the page was loaded although the run was told to skip');
    assert.ok(ms < HOLD_MS + 2000, `took ${Math.round(ms)} ms after a skip at ${HOLD_MS} ms`);
  });

  it('abandons a run over its time limit, and the next run works in a new thread', async () => {
    await assert.rejects(thread.run(url, { port: chrome.port!, proxyServer, timeoutMs: 1000 }), (err: unknown) => err instanceof LighthouseTimeout);
    // What the browser gatherer does after a timeout: stop the thread, restart Chrome.
    await thread.terminate();
    await chrome.kill();
    await chrome.browser();
    const run = await thread.run(url, { port: chrome.port!, proxyServer, timeoutMs: 60_000 });
    assert.equal(run.evidence.categories['best-practices']?.score !== null, true);
    assert.equal(run.mobile, undefined);
  });
});
