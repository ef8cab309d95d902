/**
 * The study's Table 5 (overall per requirement label value): the average over models, and each model's value,
 * in every output form (JSON document, terminal table, CSV; the HTML report is checked in report-html.test.ts).
 * Hand-made population: A and B answer both requirements, C only the "minimal" one, so the "playful" average is
 * over two models and the "minimal" one over three.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leaderboard } from '../../weights/leaderboard.js';
import { CSV_AVERAGE_ROW, leaderboardCsv, leaderboardTable, pctOfSd } from '../../report/leaderboard-format.js';
import { presetWeights } from '../../weights/personas.js';
import { row } from './synthetic.js';

const rows = [
  row('A', 'r1', { 'comment-rate': 80, performance: 90 }, { style: 'minimal' }),
  row('A', 'r2', { 'comment-rate': 60, performance: 40 }, { style: 'playful' }),
  row('B', 'r1', { 'comment-rate': 40, performance: 50 }, { style: 'minimal' }),
  row('B', 'r2', { 'comment-rate': 70, performance: 70 }, { style: 'playful' }),
  row('C', 'r1', { 'comment-rate': 20, performance: 30 }, { style: 'minimal' }),
];
const doc = leaderboard(rows, presetWeights('all'), { iterations: 0 });
const style = doc.breakdowns.find((b) => b.label === 'style')!;
const value = (v: string) => style.values.find((x) => x.value === v)!;
const overallOf = (v: string, model: string) => value(v).models.find((m) => m.model === model)!.overall;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

describe('Table 5: overall per label value, averaged over models and per model', () => {
  const cases: Array<{ name: string; check: () => void }> = [
    {
      name: 'JSON: each label value carries the average over the models that have it, and the per-model overalls',
      check: () => {
        close(value('minimal').average!, mean(['A', 'B', 'C'].map((m) => overallOf('minimal', m))));
        assert.equal(value('minimal').modelsAveraged, 3);
        close(value('playful').average!, mean(['A', 'B'].map((m) => overallOf('playful', m))));
        assert.equal(value('playful').modelsAveraged, 2);
        assert.deepEqual(
          value('playful')
            .models.map((m) => m.model)
            .sort(),
          ['A', 'B'],
        );
        const json = JSON.parse(JSON.stringify(doc)) as typeof doc;
        assert.equal(typeof json.breakdowns[0]!.values[0]!.average, 'number');
      },
    },
    {
      name: 'table: an "average over models" column before the model columns, with the model count',
      check: () => {
        const text = leaderboardTable(doc);
        assert.match(text, /Overall by style \(Table 5\).*average over models, then each model/);
        const line = text.split('\n').find((l) => /│ playful /.test(l))!;
        const cells = line
          .split('│')
          .slice(1, -1)
          .map((c) => c.trim());
        assert.equal(cells[2], `${pctOfSd(value('playful').average)} (2)`);
        const models = doc.models.map((m) => m.model);
        assert.equal(cells[3 + models.indexOf('A')], pctOfSd(overallOf('playful', 'A')));
        assert.equal(cells[3 + models.indexOf('C')], '', 'C has no playful artifact');
      },
    },
    {
      name: 'CSV: label:<label>=<value> columns per model, and a last row with the average over models',
      check: () => {
        const lines = leaderboardCsv(doc)
          .trim()
          .split('\n')
          .map((l) => l.split(','));
        const head = lines[0]!;
        const col = head.indexOf('label:style=minimal');
        assert.ok(col > 0 && head.includes('label:style=playful'));
        const rowOf = (name: string) => lines.find((l) => l[1] === name)!;
        assert.ok(Math.abs(Number(rowOf('B')[col]) - overallOf('minimal', 'B')) < 1e-6);
        assert.equal(rowOf('C')[head.indexOf('label:style=playful')], '', 'C has no playful artifact');
        const avg = rowOf(CSV_AVERAGE_ROW);
        assert.equal(avg[0], '', 'the average row has no rank');
        assert.ok(Math.abs(Number(avg[col]) - value('minimal').average!) < 1e-6);
        assert.ok(Math.abs(Number(avg[head.indexOf('label:style=playful')]) - value('playful').average!) < 1e-6);
        assert.equal(lines.length, 1 + 3 + 1);
      },
    },
  ];
  for (const c of cases) it(c.name, c.check);
});
