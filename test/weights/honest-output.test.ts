import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { populationFromRows } from '../../weights/aggregate.js';
import { leaderboard } from '../../weights/leaderboard.js';
import { leaderboardCsv, leaderboardTable } from '../../report/leaderboard-format.js';
import { presetWeights } from '../../weights/personas.js';
import { reportData, reportStandings } from '../../report/leaderboard-html.js';
import { parseCsv } from '../../weights/csv.js';
import { row } from './synthetic.js';

// A and B answer 6 requirements; C answers only r0.
function rows() {
  const rs = [];
  for (let r = 0; r < 6; r++) {
    rs.push(row('A', `r${r}`, { 'comment-rate': 60 + r * 3, lint: null }));
    rs.push(row('B', `r${r}`, { 'comment-rate': 50 + ((r * 7) % 5) * 4, lint: null }));
  }
  rs.push(row('C', 'r0', { 'comment-rate': 90, lint: null }));
  return rs;
}

describe('honest leaderboard output', () => {
  const doc = leaderboard(rows(), presetWeights('all'), { iterations: 200, seed: 1 });

  it('gives a model with one requirement no interval and no rank stability (JSON: ci null with the reason)', () => {
    const c = doc.models.find((m) => m.model === 'C')!;
    assert.equal(c.ci, null);
    assert.equal(c.ciReason, 'one requirement');
    assert.equal(c.rankHolds, null);
    const json = JSON.parse(JSON.stringify(doc)) as typeof doc;
    assert.equal(json.models.find((m) => m.model === 'C')!.ci, null);
    for (const m of doc.models.filter((x) => x.model !== 'C')) {
      assert.ok(Array.isArray(m.ci) && m.ci[0] < m.ci[1], `${m.model}: ${m.ci}`);
      assert.equal(typeof m.rankHolds, 'number');
    }
    assert.ok(doc.notes.some((n) => /^C has artifacts for one requirement only/.test(n)));
    assert.ok(!doc.bootstrap!.notApart.some((p) => p.upper === 'C' || p.lower === 'C'));
  });

  it('shows "n/a: one requirement" in the table, the CSV and the HTML report data', () => {
    const table = leaderboardTable(doc);
    assert.match(table, /│ C +│ [\d.-]+ +│ n\/a: one requirement │ n\/a +│/);
    const csv = parseCsv(leaderboardCsv(doc)).map((r) => r.fields);
    const head = csv[0]!;
    const c = csv.find((l) => l[1] === 'C')!;
    assert.equal(c[head.indexOf('ci_low')], '');
    assert.equal(c[head.indexOf('ci_high')], '');
    assert.equal(c[head.indexOf('ci_note')], 'n/a: one requirement');
    const data = reportData(reportStandings(populationFromRows(rows()), presetWeights('all'), { iterations: 50 }));
    for (const p of data.personas) {
      assert.deepEqual(p.bootstrap.C, { ci: null, ciReason: 'one requirement', rankHolds: null });
      assert.ok(Array.isArray(p.bootstrap.A!.ci));
    }
  });

  it('counts in the header only metrics that have a result (lint is unscorable everywhere)', () => {
    assert.equal(doc.population.metrics, 1);
    assert.match(leaderboardTable(doc), /, 1 metrics with results/);
    assert.ok(
      doc.metrics.some((m) => m.id === 'lint'),
      'lint is still listed, as contributing 0',
    );
  });
});
