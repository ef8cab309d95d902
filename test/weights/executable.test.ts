import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { populationFromRows } from '../../weights/aggregate.js';
import { leaderboard } from '../../weights/leaderboard.js';
import { leaderboardCsv, leaderboardTable } from '../../report/leaderboard-format.js';
import { presetWeights } from '../../weights/personas.js';
import { reportData, reportStandings } from '../../report/leaderboard-html.js';
import { parseCsv } from '../../weights/csv.js';
import { repeatRow, row } from './synthetic.js';

// A: 3 of 4 artifacts render; B: 1 of 2 scored render, a third's probe failed; C: no render-validity at all.
function rows() {
  const rs = [];
  for (let r = 0; r < 4; r++) rs.push(row('A', `r${r}`, { 'comment-rate': 60 + r, 'render-validity': r === 2 ? 0 : 100 }));
  rs.push(row('B', 'r0', { 'comment-rate': 50, 'render-validity': 100 }));
  rs.push(row('B', 'r1', { 'comment-rate': 52, 'render-validity': 0 }));
  rs.push(row('B', 'r2', { 'comment-rate': 55, 'render-validity': null }));
  rs.push(row('C', 'r0', { 'comment-rate': 70 }));
  return rs;
}
const weights = presetWeights('all', { suite: 'extended' });

describe('leaderboard: share of executable artifacts per model (render-validity)', () => {
  const doc = leaderboard(rows(), weights, { iterations: 0 });
  const model = (id: string) => doc.models.find((m) => m.model === id)!;

  it('counts rendered artifacts of those with a render-validity score; unscorable ones apart; absent without results', () => {
    assert.deepEqual(model('A').executable, { share: 0.75, rendered: 3, of: 4, unscorable: 0 });
    assert.deepEqual(model('B').executable, { share: 0.5, rendered: 1, of: 2, unscorable: 1 });
    assert.equal(model('C').executable, undefined);
  });

  it('an artifact scored twice, rendered once, counts half', () => {
    const d = leaderboard(
      [
        repeatRow('A', 'r0', 1, { 'comment-rate': 60, 'render-validity': 100 }),
        repeatRow('A', 'r0', 2, { 'comment-rate': 60, 'render-validity': 0 }),
        row('A', 'r1', { 'comment-rate': 61, 'render-validity': 100 }),
      ],
      weights,
      { iterations: 0 },
    );
    assert.deepEqual(d.models[0]!.executable, { share: 0.75, rendered: 1.5, of: 2, unscorable: 0 });
  });

  it('is its own column in the table, the CSV and the HTML report', () => {
    const table = leaderboardTable(doc);
    assert.match(table, /executable/);
    assert.match(table, /│ A +│.*│ 75% \(3\/4\) +│/);
    assert.match(table, /│ B +│.*│ 50% \(1\/2\) \+1 unscorable +│/);
    const csv = parseCsv(leaderboardCsv(doc)).map((r) => r.fields);
    const col = csv[0]!.indexOf('executable');
    assert.ok(col > 0);
    assert.equal(csv.find((l) => l[1] === 'A')![col], '0.75');
    assert.equal(csv.find((l) => l[1] === 'C')![col], '');
    const data = reportData(reportStandings(populationFromRows(rows()), weights, { iterations: 0 }));
    assert.equal(data.models.find((m) => m.model === 'A')!.executable, '75% (3/4)');
    assert.equal(data.models.find((m) => m.model === 'C')!.executable, undefined);
  });

  it('no column when no model has render-validity results', () => {
    const d = leaderboard([row('A', 'r0', { 'comment-rate': 60 }), row('B', 'r0', { 'comment-rate': 50 })], weights, { iterations: 0 });
    assert.ok(d.models.every((m) => m.executable === undefined));
    assert.doesNotMatch(leaderboardTable(d), /executable/);
  });
});
