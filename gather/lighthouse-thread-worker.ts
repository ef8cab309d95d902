/**
 * The worker side of lighthouse-thread.ts: runs Lighthouse (lighthouse.ts, same settings and gatherers) in a tab
 * of a fresh browser context behind the sandbox proxy (closed after the run), over one puppeteer connection per
 * Chrome that attaches only to the contexts it creates. Answers every `run` with `done` or `failed`; a `verdict`
 * releases the run's hold.
 */
import { parentPort } from 'node:worker_threads';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { errorMessage } from '../core/errors.js';
import { sandboxContext } from './chrome-process.js';
import { LighthouseTimeout, medianPerformance, runLighthouseWith, traceFault, type LighthouseRun } from './lighthouse.js';
import type { FromWorker, ToWorker } from './lighthouse-thread.js';
import type { HoldVerdict } from './lighthouse-mobile.js';
import { gate } from './step-gate.js';
import { PAGE_SEED, seedRandomness } from './seeded-random.js';

const port = parentPort!;

// Lighthouse's trace engine prints some failures it recovers from straight to the console with a stack trace
// (`LanternError: NO_LCP` on canvas-only pages); they reach the run's result as Lighthouse's runtime error, and
// from there the metric's unscorable reason. Nothing of it goes to the user's terminal, unless WEBGRADE_DEBUG.
if (!process.env.WEBGRADE_DEBUG) {
  const quiet = () => undefined;
  console.error = quiet;
  console.warn = quiet;
  console.log = quiet;
  console.info = quiet;
}
// A run abandoned at its time limit has its tab and context closed under it; Lighthouse then leaves protocol calls
// rejected that nothing awaits any more ("Target closed"). Those belong to a run already answered as timed out,
// and must not take the thread (and the next run) down with them.
process.on('unhandledRejection', (reason) => {
  if (process.env.WEBGRADE_DEBUG) process.stderr.write(`lighthouse thread: rejection of an abandoned run ignored: ${errorMessage(reason)}\n`);
});
let browser: Browser | undefined;
let browserPort: number | undefined;
const verdicts = new Map<number, (verdict: HoldVerdict) => void>();

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

/**
 * One Lighthouse run in a fresh context (closed after it); returns its result. The first run of an artifact is
 * the full one (every category, the hold, the phone measurement); with `runs` > 1 more runs follow, each in a
 * context of its own, measuring performance only, as long as the time limit allows (at least MIN_EXTRA_RUN_MS
 * left), and the performance score is their median (lighthouse.ts `medianPerformance`). Every run takes the
 * machine-wide measurement lock around its measured phase.
 */
async function once(
  msg: Extract<ToWorker, { type: 'run' }>,
  timeoutMs: number,
  options: Partial<Parameters<typeof runLighthouseWith>[1]>,
): Promise<LighthouseRun> {
  let page: Page | undefined;
  let context: BrowserContext | undefined;
  try {
    await gate.step('lighthouse set-up');
    context = await sandboxContext(await connect(msg.port), msg.proxyServer);
    page = await context.newPage();
    // The page draws at random what it drew in the visit (seeded-random.ts): the phone picture taken in this run,
    // and work a page sizes at random (particle counts, generated data), are then the same in two runs.
    await page.evaluateOnNewDocument(seedRandomness, PAGE_SEED);
    return await runLighthouseWith(msg.url, { port: msg.port, page, timeoutMs, lock: true, ...options });
  } finally {
    await page?.close().catch(() => undefined);
    await context?.close().catch(() => undefined);
  }
}

/** An extra performance-only run needs at least this much of the time limit. */
export const MIN_EXTRA_RUN_MS = 8_000;

/**
 * A first run whose trace Lighthouse could not read (lighthouse.ts `traceFault`) is made once more, in full and
 * unheld (the verdict is known), when at least MIN_EXTRA_RUN_MS of the limit is left; the second run's report is
 * kept when its trace was read (marked `remeasured` with the first one's fault), else the first's. The waits and
 * measured phases of both are counted.
 */
async function remeasureUnreadTrace(
  msg: Extract<ToWorker, { type: 'run' }>,
  deadline: number,
  first: LighthouseRun,
  verdict: HoldVerdict | undefined,
): Promise<LighthouseRun> {
  const fault = traceFault(first.evidence);
  if (!fault || verdict === 'skip' || deadline - performance.now() <= MIN_EXTRA_RUN_MS) return first;
  const pageState = { ...msg.page, ...(verdict ?? {}) };
  const again = await once(msg, deadline - performance.now(), {
    pageState,
    ...(msg.mobile ? { mobile: { screenshot: msg.mobile.screenshot } } : {}),
  }).catch(() => undefined);
  if (!again || traceFault(again.evidence)) return first;
  const sum = (k: 'lockWaitMs' | 'measuredMs') => (first[k] ?? 0) + (again[k] ?? 0);
  return { ...again, evidence: { ...again.evidence, remeasured: fault }, lockWaitMs: sum('lockWaitMs'), measuredMs: sum('measuredMs') };
}

async function run(msg: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const { id } = msg;
  const deadline = performance.now() + msg.timeoutMs;
  try {
    let verdict: HoldVerdict | undefined;
    const before = msg.hold ? new Promise<HoldVerdict>((r) => verdicts.set(id, (v) => r((verdict = v)))) : undefined;
    const first = await once(msg, msg.timeoutMs, {
      ...(msg.page ? { pageState: msg.page } : {}),
      ...(msg.mobile ? { mobile: { screenshot: msg.mobile.screenshot, ...(before ? { before } : {}) } } : {}),
      ...(msg.benchmark ? { onBenchmark: () => send({ type: 'benchmark', id }) } : {}),
    });
    const runs = [await remeasureUnreadTrace(msg, deadline, first, verdict)];
    while (runs.length < (msg.runs ?? 1) && deadline - performance.now() > MIN_EXTRA_RUN_MS) {
      // The extra runs observe the page as the first did (its never-idle window, when its verdict said so).
      const pageState = { ...msg.page, ...(verdict && verdict !== 'skip' ? verdict : {}) };
      runs.push(await once(msg, deadline - performance.now(), { performanceOnly: true, pageState }));
    }
    const result: LighthouseRun = {
      ...runs[0]!,
      evidence: medianPerformance(runs.map((r) => r.evidence)),
      requests: [...new Set(runs.flatMap((r) => r.requests ?? []))],
    };
    if (runs.length > 1) {
      // Waits and measured phases add up over the runs.
      const sum = (k: 'lockWaitMs' | 'measuredMs') => runs.reduce((t, r) => t + (r[k] ?? 0), 0);
      Object.assign(result, { lockWaitMs: sum('lockWaitMs'), measuredMs: sum('measuredMs') });
    }
    send({ type: 'done', id, run: result });
  } catch (err) {
    send({ type: 'failed', id, message: errorMessage(err), timeout: err instanceof LighthouseTimeout });
  } finally {
    verdicts.delete(id);
  }
}
