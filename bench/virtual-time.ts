/**
 * Which page clocks hold still (issue "Evidence that does not depend on the wall clock"): the same page loaded three
 * times under each way of running its clock, and whether its clock, its timers, its animation frames and its
 * screenshot come out the same every time, at what real cost.
 *
 * Modes:
 * - `visit`: what the visit does today (gather/visit.ts): load on real time, settle 300 ms, run the page clock on by
 *   1 s of virtual time, pause it.
 * - `virtual-time`: CDP virtual time from the document's commit (`Emulation.setVirtualTimePolicy`
 *   `pauseIfNetworkFetchesPending` with a budget of `--page-ms`), in the Chrome webgrade uses (new headless).
 * - `begin-frame`: Debian's `chromium-headless-shell` (the old headless, package `chromium-headless-shell`) with
 *   `--deterministic-mode`: virtual time from navigation (`waitForNavigation`), advanced one frame (1/60 s) at a
 *   time, each frame issued by `HeadlessExperimental.beginFrame`; the screenshot is that of the last frame. Skipped,
 *   and said, when the shell is not installed.
 *
 * Pages: a clock page of the benchmark's own (a canvas drawn in `requestAnimationFrame` at a place given by
 * `performance.now()`, a 100 ms interval counted, a timer at 1.5 s that writes a line), which reports its clock,
 * frames and ticks; and the heavy fixtures (fixtures/heavy/: WebGL, particles, a cloth simulation, a fractal), whose
 * screenshots alone are compared. Per page and mode: real ms per load (median), and whether the three runs agree.
 *
 *   node dist/bench/virtual-time.js [--runs 3] [--page-ms 2300] [--modes visit,virtual-time,begin-frame] [--no-fixtures]
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type CDPSession, type Page } from 'puppeteer-core';
import { median } from 'simple-statistics';
import { chromeFlags, findChrome } from '../gather/chrome.js';
import { benchArgs, usageError } from './common.js';

const USAGE = 'usage: node dist/bench/virtual-time.js [--runs 3] [--page-ms 2300] [--modes visit,virtual-time,begin-frame] [--no-fixtures]';
const { values } = benchArgs(USAGE, {
  runs: { type: 'number', default: 3 },
  'page-ms': { type: 'number', default: 2300 },
  modes: { type: 'string', default: 'visit,virtual-time,begin-frame' },
  'no-fixtures': { type: 'boolean' },
});
const MODES = ['visit', 'virtual-time', 'begin-frame'] as const;
type Mode = (typeof MODES)[number];
const modes = values.modes.split(',').map((m) => m.trim());
for (const m of modes) if (!(MODES as readonly string[]).includes(m)) usageError(USAGE, `unknown mode "${m}" (${MODES.join(', ')})`);
const SHELL = '/usr/bin/chromium-headless-shell';
const FRAME_MS = 1000 / 60;
const pageMs = values['page-ms'];

const CLOCK_PAGE = `<!doctype html><html><body style="margin:0;background:#123">
<canvas id="c" width="400" height="200"></canvas><p id="t" style="color:#fff;font:20px sans-serif">start</p>
<script>
const c = document.getElementById('c').getContext('2d'); let frames = 0; let ticks = 0;
function draw() { frames++; c.fillStyle = '#123'; c.fillRect(0, 0, 400, 200); c.fillStyle = '#fc0';
  c.fillRect((performance.now() / 5) % 380, 80, 20, 20); requestAnimationFrame(draw); }
requestAnimationFrame(draw);
setTimeout(() => { document.getElementById('t').textContent = 'timer at ' + Math.round(performance.now()); }, 1500);
setInterval(() => { ticks++; }, 100);
window.report = () => JSON.stringify({ now: Math.round(performance.now()), frames, ticks });
</script></body></html>`;

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'heavy');
const pages: Array<{ name: string; html: Buffer }> = [{ name: 'clock page', html: Buffer.from(CLOCK_PAGE) }];
if (!values['no-fixtures'])
  for (const f of readdirSync(fixtures)
    .filter((x) => x.endsWith('.html'))
    .sort())
    pages.push({ name: `heavy/${f}`, html: readFileSync(join(fixtures, f)) });

let current = pages[0]!.html;
const server: Server = createServer((_req, res) => {
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end(current);
}).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const address = server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what}: no answer in ${ms} ms`)))]);

/** Run the page clock on by `ms` of virtual time (the clock stands still while fetches are pending). */
async function advance(cdp: CDPSession, ms: number, extra: Record<string, unknown> = {}): Promise<void> {
  const expired = new Promise((r) => cdp.once('Emulation.virtualTimeBudgetExpired', r));
  await cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pauseIfNetworkFetchesPending', budget: ms, ...extra });
  await within(expired, 20_000, 'virtual time budget');
}

interface Load {
  ms: number;
  shot: string;
  report?: string;
}

/** Lifecycle events on; resolves once the next document commits (call before navigating). */
async function commitWatch(cdp: CDPSession): Promise<{ commit: Promise<void> }> {
  const commit = new Promise<void>((r) => {
    const on = (e: { name: string }) => {
      if (e.name !== 'commit' && e.name !== 'init') return;
      cdp.off('Page.lifecycleEvent', on);
      r();
    };
    cdp.on('Page.lifecycleEvent', on);
  });
  await cdp.send('Page.enable');
  await cdp.send('Page.setLifecycleEventsEnabled', { enabled: true });
  return { commit };
}

async function loadOnce(browser: Browser, mode: Mode): Promise<Load> {
  const t0 = performance.now();
  let page: Page;
  let shot: Buffer;
  if (mode === 'begin-frame') {
    const root = await browser.target().createCDPSession();
    const { targetId } = (await root.send('Target.createTarget', { url: 'about:blank', enableBeginFrameControl: true, width: 1280, height: 800 })) as {
      targetId: string;
    };
    const target = await browser.waitForTarget((t) => (t as unknown as { _targetId: string })._targetId === targetId);
    page = (await target.page())!;
    const cdp = await page.createCDPSession();
    await cdp.send('HeadlessExperimental.enable');
    const first = advance(cdp, 1, { waitForNavigation: true });
    const nav = page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    await first;
    const frames = Math.round(pageMs / FRAME_MS);
    for (let i = 0; i < frames; i++) {
      await advance(cdp, FRAME_MS);
      await cdp.send('HeadlessExperimental.beginFrame', { frameTimeTicks: 1e6 + i * FRAME_MS, interval: FRAME_MS });
    }
    await within(nav, 10_000, 'load');
    const r = (await cdp.send('HeadlessExperimental.beginFrame', {
      frameTimeTicks: 1e6 + frames * FRAME_MS,
      interval: FRAME_MS,
      screenshot: { format: 'png' },
    })) as { screenshotData?: string };
    shot = Buffer.from(r.screenshotData ?? '', 'base64');
  } else {
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const cdp = await page.createCDPSession();
    if (mode === 'virtual-time') {
      const commit = within((await commitWatch(cdp)).commit, 10_000, 'commit');
      const nav = page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      await commit;
      await advance(cdp, pageMs);
      await within(nav, 10_000, 'load');
    } else {
      await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      await sleep(300);
      await advance(cdp, 1000).catch(() => undefined);
      await cdp.send('Emulation.setVirtualTimePolicy', { policy: 'pause' });
    }
    shot = Buffer.from(await page.screenshot({ type: 'png' }));
  }
  const ms = performance.now() - t0;
  const report = await page.evaluate('typeof report === "function" ? report() : undefined').catch(() => undefined);
  await page.close();
  return { ms, shot: createHash('sha1').update(shot).digest('hex').slice(0, 10), ...(typeof report === 'string' ? { report } : {}) };
}

const chrome = findChrome();
if (!chrome) usageError(USAGE, 'no Chrome found (install Debian chromium or set CHROME_PATH)');
console.log(
  `virtual-time benchmark ${new Date().toISOString()}, load ${loadavg()[0]!.toFixed(1)}, ${values.runs} runs per page and mode, ${pageMs} ms of page time`,
);
const lines: string[] = [];
for (const mode of modes as Mode[]) {
  const shell = mode === 'begin-frame';
  if (shell && !existsSync(SHELL)) {
    lines.push(`${mode}: skipped (${SHELL} absent: apt-get install chromium-headless-shell)`);
    continue;
  }
  const browser = await puppeteer.launch({
    executablePath: shell ? SHELL : chrome,
    headless: shell ? 'shell' : true,
    args: shell ? ['--no-sandbox', '--deterministic-mode'] : chromeFlags().filter((f) => f !== '--headless=new'),
  });
  const version = await browser.version();
  for (const p of pages) {
    current = p.html;
    const runs: Load[] = [];
    let fault = '';
    for (let i = 0; i < values.runs; i++)
      try {
        runs.push(await within(loadOnce(browser, mode), 60_000, 'one load'));
      } catch (err) {
        fault = err instanceof Error ? err.message : String(err);
        break;
      }
    const same = (f: (l: Load) => string | undefined) => new Set(runs.map(f)).size === 1;
    const shots = new Set(runs.map((r) => r.shot)).size;
    lines.push(
      `${mode.padEnd(12)} ${p.name.padEnd(22)} ${runs.length ? `${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s` : '–'}  screenshots ${
        same((r) => r.shot) ? 'identical' : `${shots} different of ${runs.length}`
      }${runs[0]?.report ? `  clock ${runs.map((r) => r.report).join(' | ')}` : ''}${fault ? `  fault: ${fault}` : ''}  (${version})`,
    );
  }
  await browser.close();
}
console.log(lines.join('\n'));
server.close();
