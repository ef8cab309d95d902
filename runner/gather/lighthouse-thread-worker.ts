/**
 * The worker side of lighthouse-thread.ts: runs Lighthouse (lighthouse.ts, same settings and gatherers) in a tab
 * of a fresh browser context behind the sandbox proxy (closed after the run), over one puppeteer connection per
 * Chrome that attaches only to the contexts it creates. Answers every `run` with `done` or `failed`; a `verdict`
 * releases the run's hold.
 */
import { parentPort } from 'node:worker_threads';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { errorMessage } from '../../core/errors.js';
import { sandboxContext } from './chrome-process.js';
import { LighthouseTimeout, runLighthouseWith } from './lighthouse.js';
import type { FromWorker, ToWorker } from './lighthouse-thread.js';

const port = parentPort!;
let browser: Browser | undefined;
let browserPort: number | undefined;
const verdicts = new Map<number, (verdict: 'measure' | 'skip') => void>();

async function connect(chromePort: number): Promise<Browser> {
  if (browser?.connected && browserPort === chromePort) return browser;
  const old = browser;
  browser = undefined;
  await old?.disconnect().catch(() => undefined);
  browser = await puppeteer.connect({
    browserURL: `http://127.0.0.1:${chromePort}`,
    defaultViewport: null,
    protocolTimeout: 60_000,
    // Only the contexts this connection creates (puppeteer files targets of other contexts under the default
    // one): the visits' contexts belong to the main thread's connection.
    targetFilter: (target) => target.type() === 'browser' || target.browserContext() !== target.browser().defaultBrowserContext(),
  });
  browserPort = chromePort;
  return browser;
}

const send = (msg: FromWorker) => port.postMessage(msg);

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'verdict') {
    verdicts.get(msg.id)?.(msg.verdict);
    verdicts.delete(msg.id);
    return;
  }
  void run(msg);
});

async function run(msg: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const { id } = msg;
  let page: Page | undefined;
  let context: BrowserContext | undefined;
  try {
    const before = msg.hold ? new Promise<'measure' | 'skip'>((r) => verdicts.set(id, r)) : undefined;
    context = await sandboxContext(await connect(msg.port), msg.proxyServer);
    page = await context.newPage();
    const result = await runLighthouseWith(msg.url, {
      port: msg.port,
      page,
      timeoutMs: msg.timeoutMs,
      ...(msg.mobile ? { mobile: { screenshot: msg.mobile.screenshot, ...(before ? { before } : {}) } } : {}),
      ...(msg.benchmark ? { onBenchmark: () => send({ type: 'benchmark', id }) } : {}),
    });
    send({ type: 'done', id, run: result });
  } catch (err) {
    send({ type: 'failed', id, message: errorMessage(err), timeout: err instanceof LighthouseTimeout });
  } finally {
    verdicts.delete(id);
    await page?.close().catch(() => undefined);
    await context?.close().catch(() => undefined);
  }
}
