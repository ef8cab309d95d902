/**
 * The arena in a real browser (puppeteer-core with the system Chromium): two pages live in their frames, the
 * person's keys vote, the votes file holds the votes, undo takes one back, a restart continues; and a hostile page
 * reaches nothing outside its frame. CDN files come from a real CDN cache filled from a local npm registry
 * (test/cdn/registry-server.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, KeyInput, Page } from 'puppeteer-core';
import { readCatalogue } from '../../arena/catalogue.js';
import { startArena, type ArenaServer } from '../../arena/server.js';
import { launchBrowser, type LaunchedBrowser } from '../../gather/chrome.js';
import { mulberry32 } from '../../weights/bootstrap.js';
import { parsePairs } from '../../weights/pairs.js';
import { setup, type Env } from '../cdn/fixtures.js';
import { tempDir } from '../helpers.js';
import { goodPage, writeResults } from './fixtures.js';

interface Shown {
  requirement: string;
  left: string;
  right: string;
}

async function frames(page: Page): Promise<[Frame, Frame]> {
  const handles = await page.$$('iframe');
  assert.equal(handles.length, 2, 'two frames');
  const [l, r] = await Promise.all(handles.map((h) => h.contentFrame()));
  return [l!, r!];
}

/** What the good pages' own checks saw, once both have run. */
async function checks(page: Page): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const f of await frames(page)) {
    await f.waitForFunction(() => document.getElementById('checks')?.textContent, { timeout: 60_000 });
    out.push(JSON.parse((await f.evaluate(() => document.getElementById('checks')!.textContent))!));
  }
  return out;
}

async function shown(page: Page): Promise<Shown> {
  const [l, r] = await frames(page);
  const model = (f: Frame) => f.waitForFunction(() => document.getElementById('model')?.textContent).then((h) => h.jsonValue() as Promise<string>);
  return { requirement: await l.evaluate(() => document.getElementById('req')!.textContent!), left: await model(l), right: await model(r) };
}

function votesIn(path: string): Array<Record<string, string>> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);
}

/** The model a vote says won ('tie' and 'both-bad' as they are). */
function winnerOf(v: Record<string, string>): string {
  return v.winner === 'a' ? v.model_a! : v.winner === 'b' ? v.model_b! : v.winner!;
}

describe('the arena in a real browser', () => {
  let env: Env;
  let chrome: LaunchedBrowser;
  before(async () => {
    env = await setup();
    chrome = await launchBrowser();
  });
  after(async () => {
    await chrome.close();
    await env.close();
  });

  it('shows two pages live in their frames, votes by key, keeps the votes in the file, undoes one, and continues after a restart', async () => {
    const pages: Record<string, Record<string, Record<string, string>>> = {};
    for (const m of ['m1', 'm2', 'm3']) pages[m] = { r1: goodPage(m, 'r1'), r2: goodPage(m, 'r2') };
    const w = await writeResults(pages, (m, r) => ({ lint: 40 + 10 * Number(m.slice(1)), 'comment-rate': r === 'r1' ? 30 : 70 }));
    const out = join(w.dir, 'votes.jsonl');
    const catalogue = readCatalogue(w.results, w.requirements);
    let server: ArenaServer = await startArena({ catalogue, out, raters: ['alice'], rand: mulberry32(3), cdn: env.cdn() });
    const page = await chrome.browser.newPage();
    try {
      await page.goto(server.links.get('alice')!, { waitUntil: 'load' });
      const ok = { module: 42, tiny: '1.1.0', storage: 'kept', styled: 'rgb(1, 2, 3)', fetched: 'data' };
      assert.deepEqual(await checks(page), [ok, ok]);

      // The requirement's text is shown as text, and the kept screenshots are served for the pair.
      assert.equal(await page.$$eval('.req p b', (b) => b.length), 0);
      assert.match(await page.$eval('.req p', (p) => p.textContent!), /^Build the <b>r[12]<\/b> app & make it "work"$/);
      const pair = await page.$eval('meta[name="arena-pair"]', (m) => (m as HTMLMetaElement).content);
      const token = new URL(server.links.get('alice')!).searchParams.get('t')!;
      const shot = await fetch(`${server.url}shot/${pair}/left?t=${token}`);
      assert.equal(shot.status, 200);
      assert.equal(shot.headers.get('content-type'), 'image/png');
      assert.equal(await page.$$eval('.shot img', (imgs) => imgs.length), 2);

      const keys: Array<[KeyInput, (s: Shown) => string]> = [
        ['ArrowLeft', (s) => s.left],
        ['ArrowRight', (s) => s.right],
        ['=', () => 'tie'],
        ['x', () => 'both-bad'],
      ];
      const judged: Shown[] = [];
      for (const [key, expected] of keys) {
        const s = await shown(page);
        judged.push(s);
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press(key)]);
        const last = votesIn(out).at(-1)!;
        assert.equal(last.requirement, s.requirement);
        assert.deepEqual([last.model_a, last.model_b].sort(), [s.left, s.right].sort());
        assert.equal(winnerOf(last), expected(s), key);
        assert.equal(last.position, last.model_a === s.left ? 'left' : 'right');
        assert.equal(last.rater, 'alice');
      }
      assert.equal(votesIn(out).length, 4);
      assert.match(await page.$eval('#count', (c) => c.textContent!), /^4 votes given · 4 of 6 pairs judged$/);
      const pairs = new Set(judged.map((s) => `${s.requirement} ${[s.left, s.right].sort().join(' ')}`));
      assert.equal(pairs.size, 4, 'never the same pair twice');

      // Undo takes the last vote out of the file and shows that pair again, on the same sides.
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('u')]);
      assert.equal(votesIn(out).length, 3);
      assert.deepEqual(await shown(page), judged[3]);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('x')]);
      assert.equal(winnerOf(votesIn(out).at(-1)!), 'both-bad');
      assert.equal(votesIn(out).length, 4);

      // A restart reads the votes back: the old link no longer works, the new one continues where alice was.
      const oldLink = server.links.get('alice')!;
      const port = server.port;
      await server.close();
      server = await startArena({ catalogue, out, raters: ['alice'], rand: mulberry32(4), cdn: env.cdn(), port });
      assert.equal(server.votes(), 4);
      assert.equal((await fetch(oldLink)).status, 403);
      await page.goto(server.links.get('alice')!, { waitUntil: 'load' });
      assert.match(await page.$eval('#count', (c) => c.textContent!), /^4 votes given · 4 of 6 pairs judged$/);
      const s = await shown(page);
      assert.ok(!pairs.has(`${s.requirement} ${[s.left, s.right].sort().join(' ')}`), 'a pair alice judged before the restart');

      // The file is read as it is by the pairs reader of analyse and weights fit.
      const read = parsePairs(readFileSync(out, 'utf8'), out, 'jsonl');
      assert.equal(read.pairs.length, 4);
      assert.equal(read.bothBad, 1);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('lets a hostile page reach nothing beyond its frame: no top navigation, popups, forms, other ports, files outside, storage, referrer or messages', async () => {
    // Another local service: every byte that reaches it is counted (and answered, so that nothing waits on it).
    // Chrome may open a TCP connection to a navigation's address before its policy refuses the navigation (a
    // preconnect); no byte is sent on it.
    const received: string[] = [];
    const sockets = new Set<Socket>();
    const trap: NetServer = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('data', (d) => {
        received.push(d.toString('latin1').split('\r\n')[0]!);
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\ntrapped');
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', () => r()));
    const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
    const outside = join(tempDir(), 'secret.txt');
    writeFileSync(outside, 'the secret');
    const w = await writeResults({ good: { h1: goodPage('good', 'h1') }, evil: { h1: { 'index.html': '<!doctype html><title>evil</title>' } } });
    const evilDir = join(w.dir, 'runs', 'evil', 'h1');
    symlinkSync(outside, join(evilDir, 'leak.txt'));
    const out = join(w.dir, 'votes.jsonl');
    const server = await startArena({ catalogue: readCatalogue(w.results), out, raters: ['bob'], rand: mulberry32(1), cdn: env.cdn() });
    // The page is written once the arena's port is known (artifacts are listed again when their pair is served).
    writeFileSync(
      join(evilDir, 'index.html'),
      `<!doctype html><html><head><title>evil</title></head><body><h1 id="model">evil</h1><p id="req">h1</p><pre id="report"></pre><script>
(async () => {
  const trap = ${JSON.stringify(trapUrl)};
  const arena = ${JSON.stringify(server.url.replace(/\/$/, ''))};
  const r = {};
  const attempt = async (name, fn) => { try { r[name] = String(await fn()); } catch (e) { r[name] = 'blocked: ' + e.name; } };
  await attempt('fetchOtherPort', () => fetch(trap + '/fetch').then((x) => x.status));
  await attempt('fetchArena', () => fetch(arena + '/vote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"t":"x","pair":"y","choice":"left"}' }).then((x) => x.status));
  await attempt('image', () => new Promise((res) => { const i = new Image(); i.onload = () => res('loaded'); i.onerror = () => res('error'); i.src = trap + '/img'; }));
  await attempt('websocket', () => new Promise((res, rej) => { const s = new WebSocket(trap.replace('http', 'ws') + '/ws'); s.onopen = () => res('open'); s.onerror = () => rej(new Error('ws')); }));
  await attempt('beacon', () => navigator.sendBeacon(trap + '/beacon', 'x'));
  await attempt('popup', () => window.open(trap + '/popup'));
  await attempt('linkBlank', () => { const a = document.createElement('a'); a.href = trap + '/link'; a.target = '_blank'; document.body.append(a); a.click(); return 'clicked'; });
  await attempt('form', () => { const f = document.createElement('form'); f.action = trap + '/form'; f.method = 'post'; document.body.append(f); f.submit(); return 'submitted'; });
  await attempt('top', () => { top.location.href = trap + '/top'; return 'navigated'; });
  await attempt('parentDocument', () => parent.document.title);
  await attempt('referrer', () => JSON.stringify(document.referrer));
  await attempt('storage', () => { localStorage.setItem('stolen', 'yes'); return localStorage.getItem('stolen'); });
  await attempt('cookie', () => { document.cookie = 'evil=1'; return document.cookie; });
  await attempt('message', () => { parent.postMessage({ t: 'x', choice: 'left' }, '*'); top.postMessage('ArrowLeft', '*'); return 'posted'; });
  await attempt('outsideLink', () => fetch('leak.txt').then((x) => x.status));
  await attempt('dotdot', () => fetch('/..%2f..%2fresults.jsonl').then((x) => x.status));
  document.getElementById('report').textContent = JSON.stringify(r);
})();
</script></body></html>`,
    );
    const page = await chrome.browser.newPage();
    try {
      const link = server.links.get('bob')!;
      await page.goto(link, { waitUntil: 'load' });
      const [l, r] = await frames(page);
      const evil = (await l.evaluate(() => document.title)) === 'evil' ? l : r;
      await evil.waitForFunction(() => document.getElementById('report')?.textContent, { timeout: 60_000 });
      const report = JSON.parse((await evil.evaluate(() => document.getElementById('report')!.textContent))!) as Record<string, string>;
      assert.match(report.fetchOtherPort!, /^blocked/);
      assert.match(report.fetchArena!, /^blocked/);
      assert.equal(report.image, 'error');
      assert.match(report.websocket!, /^blocked/);
      assert.equal(report.popup, 'null');
      assert.match(report.top!, /^blocked: SecurityError/);
      assert.match(report.parentDocument!, /^blocked: SecurityError/);
      assert.equal(report.referrer, '""', 'the rater token in the arena address never reaches a page');
      assert.equal(report.storage, 'yes', 'storage works inside the frame (in memory)');
      assert.equal(report.outsideLink, '404');
      assert.equal(report.dotdot, '404');

      // A navigation of the frame itself to another port is refused by the arena's frame policy.
      const refused = new Promise<void>((resolve) => page.on('console', (m) => /(Refused to frame|Framing ).*frame-src/.test(m.text()) && resolve()));
      await evil.evaluate((t) => {
        location.href = t + '/navigate';
      }, trapUrl);
      await refused;

      assert.deepEqual(received, [], 'not a byte reached the other port');
      assert.equal(page.url(), link, 'the arena page stayed');
      assert.equal(await page.evaluate(() => localStorage.length + sessionStorage.length), 0, "the arena's storage is untouched");
      assert.deepEqual(await page.cookies(), []);
      assert.equal((await chrome.browser.pages()).length, 2, 'no popup opened (the blank tab and the arena)');
      assert.equal(server.votes(), 0, 'no message or request voted');
      assert.equal(readFileSync(out, 'utf8'), '');
      assert.match(await page.$eval('#count', (c) => c.textContent!), /^0 votes given/);
    } finally {
      await page.close();
      await server.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => trap.close(() => r()));
    }
  });
});
