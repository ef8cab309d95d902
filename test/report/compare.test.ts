import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { MetricResult, ResultRow } from '../../core/results.js';
import { compareRuns, pairedInterval, populationOf } from '../../report/compare.js';
import { compareMarkdown, compareText, mdText } from '../../report/compare-format.js';
import { runCli, tempDir } from '../helpers.js';

const METRICS = ['console-errors', 'lint', 'layout-sparsity'] as const;

function metric(id: string, score: number | null): MetricResult {
  return {
    id,
    perspective: 'code',
    kind: 'rule',
    title: id,
    score,
    details: {},
    ms: 1,
    ...(score === null ? { reason: 'no evidence' } : { summary: `${score}` }),
  };
}

/** Two models × 8 requirements with scores that differ by model and requirement. */
function rows(edit: (model: string, req: number, id: string, score: number) => number = (_m, _r, _i, s) => s, repeat?: number): ResultRow[] {
  const out: ResultRow[] = [];
  for (const model of ['alpha', 'beta']) {
    for (let r = 1; r <= 8; r++) {
      const base = (id: string, k: number) => Math.min(100, 40 + ((r * 17 + k * 11 + (model === 'beta' ? 9 : 0)) % 55));
      out.push({
        model,
        requirement: `r${r}`,
        ...(repeat ? { repeat } : {}),
        status: 'ok',
        artifact: `/runs/${model}/r${r}.html`,
        metrics: METRICS.map((id, k) => metric(id, Math.max(0, Math.min(100, edit(model, r, id, base(id, k)))))),
      });
    }
  }
  return out;
}

function jsonl(dir: string, name: string, list: ResultRow[]): string {
  const p = join(dir, name);
  writeFileSync(p, list.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
}

const labels = { base: 'base', head: 'head' };

describe('compare: paired bootstrap per model and metric', () => {
  it('names nothing for a run against itself', () => {
    const pop = populationOf(rows(), 'x');
    const cmp = compareRuns(pop, pop, labels);
    assert.equal(cmp.changes.length, 2 * METRICS.length);
    assert.deepEqual(cmp.regressions, []);
    assert.deepEqual(cmp.improvements, []);
    assert.ok(cmp.changes.every((c) => c.delta === 0 && c.n === 8));
    assert.match(compareText(cmp), /no change beyond noise/);
  });

  it("names one model's console-errors regression, and only that, ranked first", () => {
    const head = rows((m, _r, id, s) => (m === 'beta' && id === 'console-errors' ? s - 40 : s));
    const cmp = compareRuns(populationOf(rows(), 'b'), populationOf(head, 'h'), labels);
    assert.equal(cmp.regressions.length, 1);
    const r = cmp.regressions[0]!;
    assert.equal(r.model, 'beta');
    assert.equal(r.metric, 'console-errors');
    assert.ok(r.delta < -20 && r.ci![1] < 0, JSON.stringify(r.ci));
    assert.deepEqual(cmp.improvements, []);
    assert.match(compareMarkdown(cmp), /\| beta \| console-errors \|/);
  });

  it('ranks regressions by size and tells improvements apart', () => {
    const head = rows((m, _r, id, s) =>
      m === 'alpha' && id === 'lint' ? s - 10 : m === 'alpha' && id === 'layout-sparsity' ? s - 30 : m === 'beta' && id === 'lint' ? s + 25 : s,
    );
    const cmp = compareRuns(populationOf(rows(), 'b'), populationOf(head, 'h'), labels);
    assert.deepEqual(
      cmp.regressions.map((c) => `${c.model} ${c.metric}`),
      ['alpha layout-sparsity', 'alpha lint'],
    );
    assert.deepEqual(
      cmp.improvements.map((c) => `${c.model} ${c.metric}`),
      ['beta lint'],
    );
  });

  it("does not name a rerun's noise: changes within the metric's test–retest sd from the files' repeats", () => {
    // Base scored twice: repeats differ by ±6 points, so the retest sd of every metric is about 4.2.
    const base = [...rows(), ...rows((_m, r, _id, s) => s + (r % 2 ? 6 : -6), 2)];
    // The rerun moves every page by up to 3 points, mostly down: a consistent but small shift.
    const head = rows((_m, r, _id, s) => s - (r % 3 === 0 ? 0 : 3));
    const cmp = compareRuns(populationOf(base, 'b'), populationOf(head, 'h'), labels);
    assert.deepEqual(cmp.regressions, [], cmp.regressions.map((c) => `${c.model} ${c.metric} ${c.delta} ${c.ci} margin ${c.margin}`).join('; '));
    assert.ok(cmp.changes.every((c) => c.noise?.source === 'repeats' && c.margin > 3));
  });

  it('gives no interval with one pair and names nothing then', () => {
    assert.equal(pairedInterval([-50]), null);
    const one = (list: ResultRow[]) => list.filter((r) => r.requirement === 'r1');
    const head = rows((m, _r, id, s) => (m === 'beta' && id === 'console-errors' ? s - 40 : s));
    const cmp = compareRuns(populationOf(one(rows()), 'b'), populationOf(one(head), 'h'), labels);
    assert.deepEqual(cmp.regressions, []);
  });

  it('CLI: --fail-on regression exits 0 on the same run, 1 on a regression; markdown and json; bad input exits 2', async () => {
    const dir = tempDir();
    const base = jsonl(dir, 'base.jsonl', rows());
    const worse = jsonl(
      dir,
      'worse.jsonl',
      rows((m, _r, id, s) => (m === 'alpha' && id === 'console-errors' ? s - 50 : s)),
    );
    const same = await runCli(['compare', base, base, '--fail-on', 'regression']);
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /no change beyond noise/);
    const bad = await runCli(['compare', base, worse, '--fail-on', 'regression', '--format', 'markdown']);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stdout, /\| alpha \| console-errors \|/);
    assert.match(bad.stderr, /1 regression/);
    const json = await runCli(['compare', base, worse, '--format', 'json']);
    assert.equal(json.code, 0);
    const doc = JSON.parse(json.stdout) as { regressions: Array<{ model: string; metric: string }> };
    assert.deepEqual(
      doc.regressions.map((r) => `${r.model} ${r.metric}`),
      ['alpha console-errors'],
    );
    const other = jsonl(
      dir,
      'other.jsonl',
      rows().map((r) => ({ ...r, requirement: `x-${r.requirement}` })),
    );
    const none = await runCli(['compare', base, other]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /share no requirement/);
    const missing = await runCli(['compare', base, join(dir, 'nope.jsonl')]);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr.trim().split('\n').length, 1);
  });

  it('markdown: names from the files cannot add HTML, table cells, code, links, mentions or issue references to the comment', () => {
    const hostile = '@user </details><img src=x onerror=alert(1)> | x | `code` [link](https://e.x) #12 *b*\nnext';
    const head = rows((m, _r, id, s) => (m === 'beta' && id === 'console-errors' ? s - 40 : s)).map((r) => ({
      ...r,
      model: r.model === 'beta' ? hostile : r.model,
    }));
    const base = rows().map((r) => ({ ...r, model: r.model === 'beta' ? hostile : r.model }));
    const cmp = compareRuns(populationOf(base, 'b'), populationOf(head, 'h'), { base: 'base `x` @a.jsonl', head: 'head|<b>.jsonl' });
    cmp.notes.push('only in base: @someone, see #3');
    const md = compareMarkdown(cmp);
    assert.equal(cmp.regressions.length, 1);
    assert.ok(!/<(?!details>|summary>|\/details>|\/summary>)/.test(md), `no HTML but the report's own <details>:\n${md}`);
    assert.equal(md.match(/<\/details>/g)!.length, 1, 'one </details>: the folded block of unchanged means');
    assert.ok(!/@[A-Za-z]/.test(md), 'no @mention');
    assert.ok(!/#\d/.test(md), 'no issue reference');
    assert.ok(!/(^|[^\\])`/.test(md), 'no code span');
    assert.ok(!/(^|[^\\])\[/.test(md), 'no link');
    const row = md.split('\n').find((l) => l.includes('img src'))!;
    assert.equal(row.replace(/\\\|/g, '').match(/\|/g)!.length, 8, `the hostile model's row keeps its 7 cells: ${row}`);
    assert.match(
      row,
      /^\| @\u200buser &lt;\/details&gt;&lt;img src=x onerror=alert\(1\)&gt; \\\| x \\\| \\`code\\` \\\[link\\\]\(https:\/\/e\.x\) #\u200b12 \\\*b\\\* next \| console-errors \|/,
    );
    assert.equal(mdText('plain-name_1'), 'plain-name\\_1');
  });
});
