/**
 * Names from a results file are keys of records in the leaderboard, the report and compare: a model, requirement,
 * label or metric named `__proto__`, `constructor` or `toString` must be one like any other (lib/dict.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ResultRow } from '../../core/results.js';
import { launchBrowser } from '../../gather/chrome.js';
import { safeSegment } from '../../store/evidence-keep.js';
import { runCli, tempDir } from '../helpers.js';
import { row } from '../weights/synthetic.js';

const NAMES = ['__proto__', 'constructor', 'toString'];
const MODELS = [...NAMES, 'alpha'];
const REQUIREMENTS = [...NAMES, 'r1'];

/** Every model on every requirement, with metric ids and a label key from NAMES too. */
function rows(shift = 0): ResultRow[] {
  return MODELS.flatMap((model, i) =>
    REQUIREMENTS.map((requirement, j) => ({
      ...row(model, requirement, { 'console-errors': 50 + 10 * i + j + shift, lint: 40 + 5 * i + 3 * j, ['__proto__']: 30 + i, toString: 20 + j }),
      labels: JSON.parse(`{"__proto__": "${j % 2 ? 'odd' : 'even'}", "constructor": "c${i % 2}"}`) as Record<string, string>,
    })),
  );
}

const write = (path: string, list: readonly ResultRow[]) => writeFileSync(path, list.map((r) => JSON.stringify(r)).join('\n') + '\n');

describe('model, requirement, label and metric names that are Object.prototype keys', () => {
  let chrome: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  before(async () => {
    chrome = await launchBrowser(['--host-resolver-rules=MAP * ~NOTFOUND']);
  });
  after(async () => {
    await chrome?.browser.close();
  });

  /** The rows of a table in a page opened from file://, and what the page reported as errors. */
  async function tableRows(file: string, selector: string): Promise<{ rows: string[][]; problems: string[] }> {
    const page = await chrome!.browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const found = await page.$$eval(`${selector} tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    await page.close();
    return { rows: found.filter((r) => r.length > 0), problems };
  }

  it('the leaderboard counts every model, metric and label value, in JSON and in its HTML page', async () => {
    const dir = tempDir();
    const results = join(dir, 'results.jsonl');
    write(results, rows());
    const lb = await runCli(['leaderboard', results, '--json', '--bootstrap', '0']);
    assert.equal(lb.code, 0, lb.stderr);
    const doc = JSON.parse(lb.stdout) as {
      models: Array<{ model: string; artifacts: number; overall: number; unscorable: Record<string, number> }>;
      perMetric: Record<string, Record<string, unknown>>;
      breakdowns: Array<{ label: string; values: Array<{ value: string; modelsAveraged: number }> }>;
    };
    assert.deepEqual(doc.models.map((m) => m.model).sort(), [...MODELS].sort());
    for (const m of doc.models) {
      assert.equal(m.artifacts, REQUIREMENTS.length, m.model);
      assert.ok(Number.isFinite(m.overall), `${m.model} overall ${m.overall}`);
      assert.deepEqual(Object.keys(m.unscorable).sort(), ['__proto__', 'console-errors', 'lint', 'toString']);
    }
    assert.deepEqual(Object.keys(doc.perMetric).sort(), [...MODELS].sort());
    for (const model of MODELS) assert.deepEqual(Object.keys(doc.perMetric[model]!).sort(), ['__proto__', 'console-errors', 'lint', 'toString'], model);
    assert.deepEqual(doc.breakdowns.map((b) => b.label).sort(), ['__proto__', 'constructor']);
    for (const b of doc.breakdowns) for (const v of b.values) assert.equal(v.modelsAveraged, b.label === '__proto__' ? 4 : 2, `${b.label}=${v.value}`);

    const html = join(dir, 'leaderboard.html');
    assert.equal((await runCli(['leaderboard', results, '--format', 'html', '--out', html, '--bootstrap', '20'])).code, 0);
    const board = await tableRows(html, '#board');
    assert.deepEqual(board.problems, []);
    assert.deepEqual(board.rows.map((r) => r[1]).sort(), [...MODELS].sort());
    for (const r of board.rows) assert.match(r[2]!, /^-?\d+\.\d\d$/, `overall of ${r[1]}: ${r[2]}`);
    const zt = await tableRows(html, '#zt');
    assert.deepEqual(
      zt.rows.map((r) => r[0]),
      ['console-errors', 'lint', '__proto__', 'toString'],
    );
    for (const r of zt.rows)
      assert.ok(
        r.slice(2).every((c) => /^-?\d+\.\d$/.test(c)),
        r.join(' | '),
      );
  });

  it('the report writes a page per model and requirement, and its leaderboards list every model', async () => {
    const dir = tempDir();
    const results = join(dir, 'results.jsonl');
    write(results, rows());
    const out = join(dir, 'report');
    const r = await runCli(['report', results, '--out', out, '--bootstrap', '20']);
    assert.equal(r.code, 0, r.stderr);
    for (const m of MODELS) {
      const page = readFileSync(join(out, 'model', `${safeSegment(m)}.html`), 'utf8');
      assert.match(page, new RegExp(`<h1>Model ${m}</h1>`));
      assert.match(page, /<td class="n[^"]*">-?\d+\.\d\d%<\/td>/, `${m}: a z for every metric`);
    }
    for (const q of REQUIREMENTS) assert.ok(existsSync(join(out, 'requirement', `${safeSegment(q)}.html`)), q);
    const index = await tableRows(join(out, 'index.html'), 'section.board:not([hidden]) table');
    assert.deepEqual(index.problems, []);
    assert.deepEqual(index.rows.map((x) => x[1]).sort(), [...MODELS].sort());
    for (const x of index.rows) assert.match(x[3]!, /^-?\d+\.\d\d% … -?\d+\.\d\d%$/, `interval of ${x[1]}`);
    const full = await tableRows(join(out, 'leaderboard.html'), '#board');
    assert.deepEqual(full.problems, []);
    assert.deepEqual(full.rows.map((x) => x[1]).sort(), [...MODELS].sort());
  });

  it('compare pairs every model and metric', async () => {
    const dir = tempDir();
    const base = join(dir, 'base.jsonl');
    const head = join(dir, 'head.jsonl');
    write(base, rows());
    write(head, rows(-20));
    const c = await runCli(['compare', base, head, '--format', 'json', '--bootstrap', '200']);
    assert.equal(c.code, 0, c.stderr);
    const cmp = JSON.parse(c.stdout) as {
      models: string[];
      changes: Array<{ model: string; metric: string; delta: number; n: number }>;
      regressions: unknown[];
    };
    assert.deepEqual([...cmp.models].sort(), [...MODELS].sort());
    const ce = cmp.changes.filter((x) => x.metric === 'console-errors');
    assert.deepEqual(ce.map((x) => x.model).sort(), [...MODELS].sort());
    for (const x of ce) assert.deepEqual([x.delta, x.n], [-20, REQUIREMENTS.length], x.model);
    assert.equal(cmp.regressions.length, MODELS.length);
    assert.deepEqual([...new Set(cmp.changes.map((x) => x.metric))].sort(), ['__proto__', 'console-errors', 'lint', 'toString']);
  });
});
