/**
 * The report end to end: a real batch over four fixture pages (two models × two requirements) keeps pictures,
 * `report --compare` writes the folder, and a real Chromium walks it from file:// (index → model → requirement →
 * artifact and back, by keyboard and by clicks), with every image loaded, every link resolving and no console
 * error; then webgrade itself scores the report's pages for accessibility and best practices.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from '../../gather/chrome.js';
import type { ResultRow } from '../../core/results.js';
import { fixture, runCli, tempDir } from '../helpers.js';

const PAGES: Record<string, string> = {
  'alpha/r1.html': 'clean-1000.html',
  'alpha/r2.html': 'icons-consistent.html',
  'beta/r1.html': 'console-error-1000.html',
  'beta/r2.html': 'overflow-420.html',
};
const ONLY = 'console-errors,layout-sparsity,mobile-compat,control-liveness';

let dir = '';
let report = '';
let chrome: LaunchedBrowser | null = null;

/** Errors of a page: console errors, uncaught exceptions, failed requests. */
function watch(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
  page.on('requestfailed', (r) => errors.push(`requestfailed: ${r.url()}`));
  return errors;
}

/** Every image of the page loaded, and every link resolves to a file (and its #fragment to an element). */
async function checkPage(page: Page): Promise<void> {
  const images = await page.$$eval('img', (imgs) => imgs.map((i) => ({ src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0 })));
  for (const img of images) assert.ok(img.ok, `image not loaded: ${img.src} on ${page.url()}`);
  const links = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
  for (const href of links) {
    const url = new URL(href);
    assert.equal(url.protocol, 'file:', `a link leaves the report: ${href}`);
    const file = fileURLToPath(url.href.replace(/#.*$/, ''));
    assert.ok(existsSync(file), `broken link ${href} on ${page.url()}`);
    if (url.hash && file === fileURLToPath(page.url().replace(/#.*$/, ''))) {
      const id = decodeURIComponent(url.hash.slice(1));
      assert.ok(await page.$(`[id="${id}"]`), `no element #${id} on ${page.url()}`);
    }
  }
}

/** Tab through the page until a link whose address contains `part` has the focus; then press Enter. */
async function keyboardFollow(page: Page, part: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const href = await page.evaluate(() => (document.activeElement instanceof HTMLAnchorElement ? document.activeElement.href : ''));
    if (href.includes(part)) {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
      return;
    }
  }
  assert.fail(`no link to ${part} reachable by Tab on ${page.url()}`);
}

async function clickFollow(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}

describe('report: a batch with evidence, then a walk through the report in Chromium', { timeout: 900_000 }, () => {
  before(async () => {
    dir = tempDir('webgrade-report-');
    for (const [rel, page] of Object.entries(PAGES)) {
      mkdirSync(dirname(join(dir, 'runs', rel)), { recursive: true });
      symlinkSync(fixture('browser', page), join(dir, 'runs', rel));
    }
    const batch = await runCli(['batch', join(dir, 'runs'), '--suite', 'extended', '--only', ONLY, '--out', join(dir, 'base.jsonl')], { timeoutMs: 600_000 });
    assert.equal(batch.code, 0, batch.stderr);
    // The head run: beta's pages gained console errors (rows edited, evidence shared).
    const rows = readFileSync(join(dir, 'base.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ResultRow);
    for (const r of rows)
      for (const m of r.metrics) if (r.model === 'beta' && m.id === 'console-errors' && m.score !== null) m.score = Math.max(0, m.score - 50);
    writeFileSync(join(dir, 'head.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    report = join(dir, 'report');
    const rep = await runCli(['report', join(dir, 'head.jsonl'), '--out', report, '--compare', join(dir, 'base.jsonl'), '--bootstrap', '200']);
    assert.equal(rep.code, 0, rep.stderr);
    chrome = await launchBrowser();
  });
  after(async () => {
    await chrome?.close();
  });

  it('keeps WebP pictures under the cap, the rows pointing at them', () => {
    const rows = readFileSync(join(dir, 'base.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ResultRow);
    assert.equal(rows.length, 4);
    for (const r of rows) {
      assert.ok(r.evidence, `${r.model}/${r.requirement} has no evidence`);
      assert.ok(r.evidence.bytes <= r.evidence.cap);
      const kinds = r.evidence.pictures.map((p) => p.kind);
      assert.ok(kinds.includes('desktop') && kinds.includes('phone'), kinds.join(','));
      for (const p of r.evidence.pictures) {
        const file = join(dir, p.file);
        assert.equal(statSync(file).size, p.bytes);
        assert.equal(readFileSync(file).subarray(8, 12).toString('latin1'), 'WEBP');
      }
    }
  });

  it('every artifact page shows its screenshot; the walk index → model → requirement → artifact and back works by keyboard and clicks, with no console error', async () => {
    const page = await chrome!.browser.newPage();
    const errors = watch(page);
    await page.setViewport({ width: 1200, height: 900 });
    for (const m of readdirSync(join(report, 'artifact'))) {
      for (const f of readdirSync(join(report, 'artifact', m))) {
        await page.goto(pathToFileURL(join(report, 'artifact', m, f)).href, { waitUntil: 'load' });
        assert.ok(await page.$('figure.desk img'), `no screenshot on artifact/${m}/${f}`);
        await checkPage(page);
      }
    }
    await page.goto(pathToFileURL(join(report, 'index.html')).href, { waitUntil: 'load' });
    await checkPage(page);
    // The persona switch shows one board at a time.
    const visible = () => page.$$eval('section.board', (s) => s.filter((x) => !(x as HTMLElement).hidden).map((x) => x.getAttribute('data-persona')));
    assert.equal((await visible()).length, 1);
    await page.select('#persona', 'dev');
    assert.deepEqual(await visible(), ['dev']);
    await keyboardFollow(page, '/model/beta.html');
    assert.match(page.url(), /model\/beta\.html$/);
    await checkPage(page);
    await clickFollow(page, 'a[href$="requirement/r1.html"]');
    assert.match(page.url(), /requirement\/r1\.html$/);
    await checkPage(page);
    assert.equal(await page.$$eval('.card img', (i) => i.length), 2, 'both models side by side');
    await keyboardFollow(page, '/artifact/beta/r1.html');
    assert.match(page.url(), /artifact\/beta\/r1\.html$/);
    await checkPage(page);
    const text = await page.$eval('main', (m) => m.textContent ?? '');
    assert.match(text, /Console errors/);
    assert.match(text, /regressed/, 'the comparison names beta console-errors');
    assert.match(text, /network/);
    await page.goBack({ waitUntil: 'load' });
    assert.match(page.url(), /requirement\/r1\.html$/);
    await page.goBack({ waitUntil: 'load' });
    await page.goBack({ waitUntil: 'load' });
    assert.match(page.url(), /index\.html$/);
    await clickFollow(page, 'a[href="failures.html"]');
    await checkPage(page);
    assert.match(await page.$eval('main', (m) => m.textContent ?? ''), /console-errors/);
    await clickFollow(page, 'header a[href="compare.html"]');
    await checkPage(page);
    assert.match(await page.$eval('main', (m) => m.textContent ?? ''), /beta\s*console-errors/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("webgrade scores the report's pages ≥ 90 on accessibility and best practices", async () => {
    // Each page type as the index of a folder of its own (webgrade scores a folder's index.html), with the
    // report's assets and pictures beside it: the page's markup is the report's, its relative prefix dropped.
    const pages = {
      index: 'index.html',
      model: 'model/alpha.html',
      requirement: 'requirement/r1.html',
      artifact: 'artifact/beta/r1.html',
      failures: 'failures.html',
    };
    for (const [name, rel] of Object.entries(pages)) {
      const site = join(dir, 'site', name);
      mkdirSync(site, { recursive: true });
      cpSync(join(report, 'assets'), join(site, 'assets'), { recursive: true });
      cpSync(join(report, 'img'), join(site, 'img'), { recursive: true });
      const depth = rel.split('/').length - 1;
      writeFileSync(join(site, 'index.html'), readFileSync(join(report, rel), 'utf8').replaceAll('../'.repeat(depth), ''));
      const r = await runCli(['score', site, '--only', 'accessibility,best-practices', '--json', '--budget', '240'], { timeoutMs: 600_000 });
      assert.equal(r.code, 0, r.stderr);
      const doc = JSON.parse(r.stdout) as { metrics: Array<{ id: string; score: number | null; reason?: string; details: unknown }> };
      process.stderr.write(`[report tests] ${name}: ${doc.metrics.map((m) => `${m.id} ${m.score}`).join(', ')}\n`);
      for (const m of doc.metrics)
        assert.ok(m.score !== null && m.score >= 90, `${name}: ${m.id} ${m.score} ${m.reason ?? JSON.stringify(m.details).slice(0, 600)}`);
    }
  });
});
