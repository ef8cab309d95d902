/**
 * A bare Lighthouse run, as a reference: the same Chrome binary started by chrome-launcher with the same flags as
 * the scoring session (headless flags, isolation flags, the sandbox's TLS key), the page served through the same
 * sandbox proxy in a fresh browser context (the same network mode, CDN files from the cache by default), one
 * Lighthouse run with the same settings and categories, and nothing else: no visit, no collectors, no
 * screenshots, no mobile gatherer, no worker thread. Used by the benchmark (suite cost / bare Lighthouse cost) and
 * by the test that our Lighthouse-based metrics equal Lighthouse's own category scores.
 *
 * Run on its own, it times one bare run per page and prints its category scores (default: fixtures/example):
 *
 *   node dist/bench/bare-lighthouse.js [PAGE ...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import puppeteer, { type Browser } from 'puppeteer-core';
import { loadArtifact } from '../lib/artifact/load.js';
import type { NetworkSettings } from '../core/network.js';
import { CdnCache, isCdnHost } from '../cdn/index.js';
import { chromeBinary, sandboxContext, scoringChromeFlags } from '../gather/chrome-process.js';
import { runLighthouse, type PageState } from '../gather/lighthouse.js';
import { Sandbox } from '../gather/sandbox/sandbox.js';
import { servedArtifact } from '../gather/server.js';
import { benchArgs } from './common.js';
import type { LighthouseEvidence } from '../core/evidence.js';

export interface BareChrome {
  port: number;
  pid: number;
  sandbox: Sandbox;
  browser: Browser;
  close(): Promise<void>;
}

export async function launchBareChrome(network: NetworkSettings = { mode: 'cdn' }): Promise<BareChrome> {
  const cache = new CdnCache(network.cdnCache ? { dir: network.cdnCache } : {});
  const sandbox = new Sandbox({ network, cdn: { isCdnHost, answer: (u, r) => cache.answer(u, r) } });
  const spki = (await sandbox.certificates()).spki;
  const chromePath = chromeBinary();
  const userDataDir = mkdtempSync(join(tmpdir(), 'webgrade-bare-'));
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: scoringChromeFlags(spki, null), userDataDir, logLevel: 'silent' });
  const browser = await puppeteer.connect({
    browserURL: `http://127.0.0.1:${chrome.port}`,
    defaultViewport: null,
    targetFilter: (target) => target.type() === 'browser' || target.browserContext() !== target.browser().defaultBrowserContext(),
  });
  return {
    port: chrome.port,
    pid: chrome.pid,
    sandbox,
    browser,
    close: async () => {
      await browser.disconnect().catch(() => undefined);
      try {
        chrome.kill();
      } catch {
        /* gone */
      }
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Serve `input` (file or folder) through the sandbox and run Lighthouse once on it with the given Chrome. */
export async function bareLighthouse(input: string, chrome: BareChrome, timeoutMs = 60_000, pageState?: PageState): Promise<LighthouseEvidence> {
  const site = await chrome.sandbox.open(servedArtifact(loadArtifact(input)));
  const context = await sandboxContext(chrome.browser, await site.endpoint('lighthouse'));
  try {
    const page = await context.newPage();
    return await runLighthouse(site.entryUrl, { port: chrome.port, timeoutMs, page, ...(pageState ? { pageState } : {}) });
  } finally {
    await context.close().catch(() => undefined);
    await site.close();
  }
}

/** Seconds and category scores of one bare run per page: a reference figure without the suite. */
async function main(pages: string[]): Promise<void> {
  const chrome = await launchBareChrome();
  try {
    for (const page of pages) {
      const t = performance.now();
      const lh = await bareLighthouse(page, chrome);
      const seconds = (performance.now() - t) / 1000;
      const cats = Object.entries(lh.categories).map(([id, c]) => `${id} ${c.score === null ? 'n/a' : Math.round(c.score * 100)}`);
      console.log(`${page}: bare Lighthouse ${seconds.toFixed(2)} s; ${cats.join(', ')}${lh.runtimeError ? `; runtime error ${lh.runtimeError}` : ''}`);
    }
  } finally {
    await chrome.close();
  }
}

// Imported by browser-suite and a test; run directly, it measures the pages it is given.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { positionals: args } = benchArgs('usage: node dist/bench/bare-lighthouse.js [PAGE ...]', {}, { positionals: true });
  const pages = args.length ? args : [join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'example')];
  main(pages).catch((err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  });
}
