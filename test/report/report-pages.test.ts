import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { MetricResult, ResultRow } from '../../core/results.js';
import { buildReport, foldReason } from '../../report/data.js';
import { detailsHtml, keyWords } from '../../report/details.js';
import { writeReport } from '../../report/write.js';
import { tempDir } from '../helpers.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

function metric(id: string, score: number | null, summary: string): MetricResult {
  return {
    id,
    perspective: 'code',
    kind: 'rule',
    title: id,
    score,
    details: { errors: [{ message: HOSTILE, line: 3 }], overflowPx: 12.345 },
    ms: 1,
    ...(score === null ? { reason: summary } : { summary }),
  };
}

function rows(): ResultRow[] {
  const out: ResultRow[] = [];
  for (const model of ['alpha', HOSTILE, '../escape']) {
    for (let r = 1; r <= 3; r++) {
      const ce = model === 'alpha' ? 100 : 100 - r * 20;
      out.push({
        model,
        requirement: `r${r}`,
        status: 'ok',
        artifact: `/runs/x/r${r}.html`,
        metrics: [
          metric('console-errors', ce, ce === 100 ? 'no errors' : `${r} errors in ${r * 10} lines`),
          metric('lint', r === 2 ? null : 80 + r, r === 2 ? 'no such file' : `${r} lint errors`),
        ],
      });
    }
  }
  out.push({
    model: 'alpha',
    requirement: 'r4',
    status: 'failed',
    error: 'time budget exceeded: no result after 61 s',
    artifact: '/runs/alpha/r4.html',
    metrics: [],
  });
  return out;
}

describe('report pages from rows', () => {
  it('folds numbers out of reasons and words out of keys', () => {
    assert.equal(foldReason('3 errors in 170 lines (1.5 per 1000)'), '# errors in # lines (# per #)');
    assert.equal(keyWords('overflowPx'), 'overflow px');
    assert.equal(keyWords('failing_audits'), 'failing audits');
  });

  it('writes details in words, escaped, leaving machine data out', () => {
    const html = detailsHtml({ errors: [{ message: HOSTILE }], screenshot: 'abc', nested: { deep: { n: 1.23456 } }, list: [1, 2, 3] });
    assert.ok(!html.includes('<img'), html);
    assert.match(html, /&lt;img/);
    assert.ok(!html.includes('screenshot'));
    assert.match(html, /1\.23/);
    assert.match(html, /1, 2, 3/);
  });

  it('aggregates failures per metric and reason, failed rows apart', () => {
    const m = buildReport(rows(), { iterations: 0 });
    const ce = m.failures.find((f) => f.metric === 'console-errors')!;
    assert.equal(ce.artifacts, 6);
    assert.deepEqual(
      ce.reasons.map((r) => [r.reason, r.count]),
      [['# errors in # lines', 6]],
    );
    const lint = m.failures.find((f) => f.metric === 'lint')!;
    assert.deepEqual(
      lint.reasons.map((r) => [r.reason, r.count]),
      [
        ['# lint errors', 6],
        ['unscorable: no such file', 3],
      ],
    );
    assert.equal(m.failures.find((f) => f.metric === '(row failed)')!.reasons[0]!.reason, 'time budget exceeded: no result after # s');
    const alpha = m.models.find((x) => x.model === 'alpha')!;
    assert.ok(alpha.strengths.some((s) => s.id === 'console-errors'));
  });

  it('escapes hostile names in every page and keeps every file inside the report folder', () => {
    const out = join(tempDir(), 'report');
    const pages = writeReport(buildReport(rows(), { iterations: 0 }), { out, resultsDir: tempDir() });
    assert.equal(pages, 1 + 1 + 3 + 4 + 10); // index, failures, models, requirements, artifacts
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name));
    };
    walk(out);
    for (const f of files.filter((x) => x.endsWith('.html') && !x.endsWith('leaderboard.html'))) {
      const html = readFileSync(f, 'utf8');
      assert.ok(!html.includes(HOSTILE), `${f} holds the raw name`);
    }
    assert.ok(!existsSync(join(out, '..', 'escape.html')));
    const artifact = readFileSync(
      files.find((f) => f.includes('artifact/alpha/r4.html'))!,
      'utf8',
    );
    assert.match(artifact, /time budget exceeded/);
    assert.match(artifact, /No desktop screenshot: the row failed/);
  });
});
