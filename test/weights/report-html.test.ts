/**
 * The HTML leaderboard report in real headless Chromium: it renders without errors, and the persona switcher
 * re-ranks in the page. Model "visual-first" is better on the visual, visual-alignment and accessibility
 * metrics; "code-first" on code, performance, functional and content alignment. Designers weigh the first
 * group (20.8 + 18.1 + 11.1 %) above the second (5.6 + 5.6 + 16.7 + 9.7 %); developers the other way round.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { STUDY_METRICS as METRIC_CATALOG } from '../../metrics/registry.js';
import { launchBrowser } from '../../gather/chrome.js';
import { runCli, tempDir } from '../helpers.js';
import { row } from './synthetic.js';

const VISUAL_SIDE = new Set(['visual', 'visual-alignment', 'accessibility']);
const CODE_SIDE = new Set(['code', 'performance', 'functional-alignment', 'content-alignment']);

function scores(strongOn: Set<string>, r: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of METRIC_CATALOG) {
    if (!VISUAL_SIDE.has(m.perspective) && !CODE_SIDE.has(m.perspective)) continue;
    out[m.id] = (strongOn.has(m.perspective) ? 80 : 40) + r * 3;
  }
  return out;
}

describe('HTML leaderboard report', () => {
  it('renders in Chromium without errors, and switching persona re-ranks the models', async () => {
    const dir = tempDir();
    const results = join(dir, 'results.jsonl');
    const rows = [];
    for (let r = 1; r <= 4; r++) {
      const labels = { complexity: r <= 2 ? 'low' : 'high' };
      rows.push(row('visual-first', `req-${r}`, scores(VISUAL_SIDE, r), labels));
      rows.push(row('code-first', `req-${r}`, scores(CODE_SIDE, r), labels));
    }
    writeFileSync(results, rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const out = join(dir, 'report.html');
    const r = await runCli(['leaderboard', results, '--format', 'html', '--out', out, '--persona', 'designer']);
    assert.equal(r.code, 0, r.stderr);

    const chrome = await launchBrowser(['--host-resolver-rules=MAP * ~NOTFOUND']);
    try {
      const page = await chrome.browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warn') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      page.on('request', (q) => requests.push(q.url()));
      await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
      const firstModel = () =>
        page.$eval('#board', (t) => {
          const rows = [...t.querySelectorAll('tr')].filter((tr) => tr.querySelector('td'));
          return rows[0]?.textContent ?? '';
        });
      assert.match(await firstModel(), /visual-first/, 'designer ranks visual-first first');
      const heatCells = await page.$$eval('#heat td', (tds) => tds.length);
      assert.ok(heatCells >= 2 * 14, `heatmap has ${heatCells} cells`);
      // Table 5: the average over models per label value, then each model (models in rank order).
      const table5 = () => page.$eval('#breakdowns tr[data-value="low"]', (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''));
      const head5 = await page.$$eval('#breakdowns th', (ths) => ths.map((th) => th.textContent));
      assert.deepEqual(head5.slice(0, 3), ['complexity', 'artifacts', 'average over models']);
      const check5 = (cells: string[]) => {
        const [a, b] = [Number(cells[3]), Number(cells[4])];
        assert.match(cells[2]!, / \(2\)$/);
        assert.ok(Math.abs(Number(cells[2]!.replace(/ \(2\)$/, '')) - (a + b) / 2) <= 0.011, `${cells}`);
      };
      check5(await table5());
      await page.select('#persona', 'dev');
      assert.match(await firstModel(), /code-first/, 'developer ranks code-first first');
      check5(await table5());
      assert.equal(await page.evaluate(() => document.body.getAttribute('data-persona')), 'dev');
      assert.deepEqual(problems, []);
      assert.deepEqual(
        requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')),
        [],
        'the report needs no network',
      );
    } finally {
      await chrome.close();
    }
  });

  it('shows "n/a: one requirement" for a model with one requirement, and the noise guard line', async () => {
    const dir = tempDir();
    const results = join(dir, 'results.jsonl');
    const rows = [];
    for (let r = 1; r <= 4; r++) {
      for (const rep of [1, 2]) {
        rows.push({ ...row('steady', `req-${r}`, { 'comment-rate': 40 + r * 5, performance: 97 + (r % 2) + (rep === 2 ? 1 : 0) }), repeat: rep });
        rows.push({ ...row('other', `req-${r}`, { 'comment-rate': 30 + r * 7, performance: 98 - (r % 2) - (rep === 2 ? 1 : 0) }), repeat: rep });
      }
    }
    rows.push(row('solo', 'req-1', { 'comment-rate': 90, performance: 99 }));
    writeFileSync(results, rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const out = join(dir, 'report.html');
    const r = await runCli(['leaderboard', results, '--format', 'html', '--out', out, '--bootstrap', '100']);
    assert.equal(r.code, 0, r.stderr);
    const chrome = await launchBrowser(['--host-resolver-rules=MAP * ~NOTFOUND']);
    try {
      const page = await chrome.browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warn') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(pathToFileURL(out).href, { waitUntil: 'load' });
      const solo = await page.$eval('#board tr[data-model="solo"]', (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''));
      assert.equal(solo[3], 'n/a: one requirement');
      assert.equal(solo[5], 'n/a');
      const steady = await page.$eval('#board tr[data-model="steady"]', (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''));
      assert.match(steady[3]!, /^-?[\d.]+ … -?[\d.]+$/);
      assert.match(await page.$eval('#guard', (e) => e.textContent ?? ''), /noise guard \(σ ≥ k × test–retest sd, k = 3\) raised σ of 1 metric: performance/);
      assert.match(await page.$eval('#pop', (e) => e.textContent ?? ''), /2 metrics with results/);
      assert.deepEqual(problems, []);
    } finally {
      await chrome.close();
    }
  });
});
