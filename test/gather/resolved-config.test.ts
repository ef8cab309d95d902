/**
 * Lighthouse with its configuration resolved once per thread (resolved-config.ts), with the real Chromium: the
 * second run of the same configuration reuses the first's, and its report matches a run whose configuration was
 * resolved anew (every category score and every audit's score and display mode), with our gatherer's phone
 * measurement taken in both.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { defaultConfig } from 'lighthouse';
import type { Page } from 'puppeteer-core';
import { ChromeProcess } from '../../gather/chrome-process.js';
import { applyPageState, runLighthouseWith, type LighthouseRun } from '../../gather/lighthouse.js';
import { configStats, perRunConfig, type ResolvedConfig } from '../../gather/resolved-config.js';

const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>t</title></head><body><h1>Hello</h1><p>A small page.</p><img src="/missing.png"></body></html>';

let server: Server;
let url: string;
let proxyServer: string;
const chrome = new ChromeProcess();

before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
    res.writeHead(path === '/index.html' ? 200 : 404, { 'content-type': 'text/html' });
    res.end(path === '/index.html' ? PAGE : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxyServer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `${proxyServer}/index.html`;
  await chrome.browser();
});

after(async () => {
  await chrome.kill();
  await new Promise<void>((r) => server.close(() => r()));
});

/** One run in a fresh context behind the test's proxy, as the Lighthouse thread makes it. */
async function run(): Promise<LighthouseRun> {
  const context = await (await chrome.browser()).createBrowserContext({ proxyServer });
  try {
    const page = (await context.newPage()) as unknown as Page;
    return await runLighthouseWith(url, { port: chrome.port!, page, timeoutMs: 60_000, mobile: { screenshot: false } });
  } finally {
    await context.close().catch(() => undefined);
  }
}

const shape = (r: LighthouseRun) => ({
  categories: r.evidence.categories,
  audits: Object.fromEntries(Object.entries(r.evidence.audits).map(([id, a]) => [id, [a.score, a.scoreDisplayMode]])),
});

describe('Lighthouse with its configuration resolved once', () => {
  it('reuses the configuration on the second run and reports what a freshly resolved one reports', async () => {
    const first = await run();
    assert.equal(configStats.resolved, 1);
    const second = await run();
    assert.equal(configStats.resolved, 1, 'the second run resolved the configuration again');
    assert.equal(configStats.reused, 1);
    process.env.WEBGRADE_LIGHTHOUSE_CONFIG = 'per-run';
    let fresh: LighthouseRun;
    try {
      fresh = await run();
    } finally {
      delete process.env.WEBGRADE_LIGHTHOUSE_CONFIG;
    }
    assert.equal(configStats.resolved, 2);
    assert.ok(Object.keys(first.evidence.audits).length > 50, `only ${Object.keys(first.evidence.audits).length} audits`);
    assert.deepEqual(shape(second).categories.accessibility, shape(fresh).categories.accessibility);
    assert.deepEqual(shape(second).categories['best-practices'], shape(fresh).categories['best-practices']);
    // The performance category's audits depend on timing: whether a long task happened decides between
    // 'informative' and 'notApplicable' for long-tasks (a CI run saw both for the same page). They must be
    // present; every other audit must match in display mode, and in score where binary.
    const perf = new Set((defaultConfig.categories?.performance?.auditRefs ?? []).map((r) => r.id));
    assert.ok(perf.has('long-tasks') && perf.size > 20, 'the performance category read from Lighthouse');
    for (const [id, [score, mode]] of Object.entries(shape(fresh).audits)) {
      const got = shape(second).audits[id];
      assert.ok(got, `audit ${id} missing from the reused-config run`);
      if (perf.has(id)) continue;
      assert.equal(got[1], mode, `${id}: display mode`);
      if (mode === 'binary') assert.equal(got[0], score, `${id}: score`);
    }
    for (const r of [first, second, fresh]) assert.ok(r.mobile?.ok, JSON.stringify(r.mobile));
  });
});

describe('a run of a reused configuration', () => {
  it('changes only its own settings: a never-idle verdict does not shorten the next run’s waits', () => {
    class Ours {}
    class Theirs {}
    const base: ResolvedConfig = {
      settings: { maxWaitForLoad: 30_000 },
      artifacts: [
        { id: 'theirs', gatherer: { instance: new Theirs() } },
        { id: 'ours', gatherer: { instance: new Ours() } },
      ],
    };
    const first = perRunConfig(base, { artifacts: [{ id: 'ours', gatherer: { implementation: Ours } }] });
    applyPageState(first.settings, { neverIdle: true });
    assert.ok((first.settings.maxWaitForLoad as number) < 30_000);
    const second = perRunConfig(base, {});
    assert.equal(second.settings.maxWaitForLoad, 30_000);
    assert.notEqual(second.artifacts![0]!.gatherer.instance, base.artifacts![0]!.gatherer.instance, 'a fresh gatherer instance per run');
  });
});
