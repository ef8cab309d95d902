import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ResultRow } from '../../core/results.js';
import { buildReport } from '../../report/data.js';
import { renderReportHtml, reportData, reportStandings } from '../../report/leaderboard-html.js';
import { populationFromRows } from '../../weights/aggregate.js';
import { leaderboard } from '../../weights/leaderboard.js';
import { PERSONA_IDS, presetWeights } from '../../weights/personas.js';
import { repoRoot } from '../helpers.js';
import { row } from '../weights/synthetic.js';

// Three models over five requirements with two labels; C answers one requirement only (no interval).
function rows(): ResultRow[] {
  const out: ResultRow[] = [];
  for (let r = 0; r < 5; r++) {
    const labels = { clarity: r % 2 ? 'vague' : 'clear', style: r < 3 ? 'plain' : 'bold' };
    out.push({ ...row('A', `r${r}`, { 'comment-rate': 60 + r * 3, lint: 70 + ((r * 5) % 7), 'console-errors': 100 }), labels });
    out.push({ ...row('B', `r${r}`, { 'comment-rate': 50 + ((r * 7) % 5) * 4, lint: 90 - r, 'console-errors': r % 2 ? 80 : 100 }), labels });
  }
  out.push({ ...row('C', 'r0', { 'comment-rate': 75, lint: 60, 'console-errors': 100 }), labels: { clarity: 'clear', style: 'plain' } });
  return out;
}

/** The statistics of a run: each is computed in weights/ and only read by the report and the HTML leaderboard. */
const STATISTICS = [
  'bootstrap',
  'guardNorms',
  'guardedPopulationNorms',
  'populationNorms',
  'aggregate',
  'breakdownByLabel',
  'labelAggregates',
  'computeStandings',
];

function calls(file: string): Map<string, number> {
  const src = readFileSync(join(repoRoot, file), 'utf8');
  const out = new Map<string, number>();
  for (const f of STATISTICS) {
    const n = src.match(new RegExp(`(?<![\\w.])${f}\\(`, 'g'))?.length ?? 0;
    if (n) out.set(f, n);
  }
  return out;
}

describe('aggregation computed once per run', () => {
  it('the report and the HTML leaderboard compute no statistic themselves: one computeStandings, in reportStandings', () => {
    for (const f of ['report/data.ts', 'report/write.ts', 'report/compare.ts', 'bin/commands/report.ts', 'bin/commands/leaderboard.ts']) {
      assert.deepEqual([...calls(f)], [], f);
    }
    assert.deepEqual([...calls('report/leaderboard-html.ts')], [['computeStandings', 1]]);
    // computeStandings itself: the guarded norms, the aggregate and the bootstrap once each (the label aggregates once per label).
    const lb = readFileSync(join(repoRoot, 'weights/leaderboard.ts'), 'utf8');
    const body = lb.slice(lb.indexOf('export function computeStandings('), lb.indexOf('export function leaderboardFromPopulation('));
    for (const f of ['guardedPopulationNorms', 'aggregate', 'bootstrap']) assert.equal(body.match(new RegExp(`(?<![\\w.])${f}\\(`, 'g'))?.length, 1, f);
  });

  it('the page script derives no score: it shows the boards and breakdowns computed in Node', () => {
    const rs = reportStandings(populationFromRows(rows()), presetWeights('dev'), { iterations: 0 });
    const html = renderReportHtml(reportData(rs));
    const script = html.slice(html.lastIndexOf('<script>'));
    assert.doesNotMatch(script, /scoreModels|meanZ|\.metrics\[|P\.metrics\)/);
    assert.match(script, /P\.board/);
  });

  it('shares one bootstrap between the document and the page, and matches each persona ranked on its own', () => {
    const pop = populationFromRows(rows());
    const rs = reportStandings(pop, presetWeights('dev'), { iterations: 200, seed: 3 });
    const data = reportData(rs);
    const dev = data.personas.find((p) => p.id === 'dev')!;
    assert.equal(dev.notApart, rs.standings.boot['dev']!.notApart, 'the same object: computed once');
    assert.equal(rs.doc.bootstrap!.pAhead, rs.standings.boot['dev']!.pAhead);
    assert.deepEqual(
      data.personas.map((p) => p.id),
      [...PERSONA_IDS],
    );
    for (const id of PERSONA_IDS) {
      // The persona ranked alone (its own standings, its own bootstrap) gives the same board, intervals and breakdowns.
      const alone = leaderboard(rows(), presetWeights(id), { iterations: 200, seed: 3 });
      const p = data.personas.find((x) => x.id === id)!;
      assert.deepEqual(
        p.board.map((m) => [m.model, m.rank, m.overall]),
        alone.models.map((m) => [m.model, m.rank, m.overall]),
        id,
      );
      for (const m of alone.models) {
        assert.deepEqual({ ...p.board.find((x) => x.model === m.model)!.perspectives }, { ...m.perspectives }, `${id} ${m.model}`);
        assert.deepEqual(p.bootstrap[m.model]!.ci, m.ci, `${id} ${m.model} ci`);
        assert.equal(p.bootstrap[m.model]!.rankHolds, m.rankHolds);
      }
      for (const b of alone.breakdowns) {
        for (const v of b.values) {
          const shown = p.breakdowns[b.label]![v.value]!;
          assert.equal(shown.average, v.average);
          assert.equal(shown.models, v.modelsAveraged);
          assert.deepEqual({ ...shown.overall }, Object.fromEntries(v.models.map((m) => [m.model, m.overall])));
        }
      }
    }
  });

  it('the report pages read the same boards', () => {
    const m = buildReport(rows(), { iterations: 100, persona: 'dev' });
    for (const b of m.boards) {
      const p = m.leaderboard.personas.find((x) => x.id === b.id)!;
      assert.deepEqual(
        b.rows.map((r) => [r.model, r.rank, r.overall, r.ci]),
        p.board.map((r) => [r.model, r.rank, r.overall, p.bootstrap[r.model]!.ci]),
      );
    }
    assert.equal(m.boards.find((b) => b.id === 'dev')!.rows.find((r) => r.model === 'C')!.ciReason, 'one requirement');
  });
});
