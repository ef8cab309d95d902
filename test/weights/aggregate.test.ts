import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STUDY_METRICS } from '../../metrics/registry.js';

const METRIC_IDS = STUDY_METRICS.map((m) => m.id);
import { aggregate, breakdownByLabel, populationFromRows, scoreModels } from '../../weights/aggregate.js';
import { leaderboard } from '../../weights/leaderboard.js';
import { PERSONA_IDS, presetWeights } from '../../weights/personas.js';
import { failedRow, row } from './synthetic.js';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} ≠ ${b}`);

// Two models, two requirements. comment-rate: 80, 60 (A) and 40, n/a (B); performance: 90, n/a (A) and 50, 70 (B);
// lint: unscorable everywhere.
const rows = [
  row('A', 'r1', { 'comment-rate': 80, performance: 90, lint: null }, { style: 'minimal' }),
  row('A', 'r2', { 'comment-rate': 60, performance: null, lint: null }, { style: 'playful' }),
  row('B', 'r1', { 'comment-rate': 40, performance: 50, lint: null }, { style: 'minimal' }),
  row('B', 'r2', { 'comment-rate': null, performance: 70, lint: null }, { style: 'playful' }),
];
// Hand computation: comment-rate μ = 60, σ = √((20² + 0 + 20²)/3) = √(800/3); performance μ = 70, same σ.
const SD = Math.sqrt(800 / 3);
const zA_comment = (20 / SD + 0) / 2; // mean of z(80), z(60)
const zB_comment = -20 / SD; // only z(40); the unscorable r2 is left out
const zA_perf = 20 / SD; // only z(90)
const zB_perf = (-20 / SD + 0) / 2; // z(50), z(70)
// Persona "all": performance 11.5, maintainability 9.6 (two metrics: equal shares), column sum 100.1.
const W_PERF = 11.5 / 100.1;
const W_COMMENT = 9.6 / 100.1 / 2;

describe('aggregate: z-scores and weighted sums', () => {
  const pop = populationFromRows(rows);
  const agg = aggregate(pop);

  it('pools μ and population σ over every scorable sample of all models', () => {
    const cr = agg.metrics.find((m) => m.id === 'comment-rate')!;
    close(cr.norm.mean!, 60);
    close(cr.norm.sd!, SD);
    assert.equal(cr.norm.n, 3);
    assert.equal(cr.norm.unscorable, 1);
  });

  it("averages z over a model's scorable samples only and counts the unscorable ones", () => {
    const a = agg.models.find((m) => m.model === 'A')!;
    const b = agg.models.find((m) => m.model === 'B')!;
    close(a.cells['comment-rate']!.meanZ!, zA_comment);
    close(b.cells['comment-rate']!.meanZ!, zB_comment);
    close(a.cells.performance!.meanZ!, zA_perf);
    close(b.cells.performance!.meanZ!, zB_perf);
    assert.equal(a.cells.performance!.unscorable, 1);
    assert.equal(b.cells['comment-rate']!.unscorable, 1);
    close(a.cells['comment-rate']!.rawMean!, 70);
    close(b.cells.performance!.rawMean!, 60);
  });

  it('a metric unscorable for every sample contributes 0, is reported and counted per model', () => {
    const lint = agg.metrics.find((m) => m.id === 'lint')!;
    assert.equal(lint.norm.degenerate, 'scorable for no sample');
    for (const m of agg.models) {
      assert.equal(m.cells.lint!.meanZ, null);
      assert.equal(m.cells.lint!.unscorable, 2);
    }
    const doc = leaderboard(rows, presetWeights('all'), { iterations: 0 });
    assert.ok(doc.notes.some((n) => n.startsWith('lint contributes 0')));
    assert.equal(doc.models.find((m) => m.model === 'A')!.unscorable.lint, 2);
  });

  it('weights per perspective and overall as Σ w_j · mean z (persona all)', () => {
    const scores = scoreModels(agg, presetWeights('all').metrics);
    const a = scores.find((s) => s.model === 'A')!;
    const b = scores.find((s) => s.model === 'B')!;
    close(a.perspectives.performance!, W_PERF * zA_perf);
    close(a.perspectives.maintainability!, W_COMMENT * zA_comment);
    close(a.overall, W_PERF * zA_perf + W_COMMENT * zA_comment);
    close(b.overall, W_PERF * zB_perf + W_COMMENT * zB_comment);
    close(a.perspectives.code!, 0); // lint: no data
    assert.deepEqual(
      scores.map((s) => [s.model, s.rank]),
      [
        ['A', 1],
        ['B', 2],
      ],
    );
    // By hand: A = 0.0479520 × 0.6123724 + 0.1148851 × 1.2247449 = 0.0293649 + 0.1407046 = 0.1700695
    close(a.overall, 0.1700695, 1e-6);
  });

  it('a σ = 0 metric contributes 0 and says why', () => {
    const pop2 = populationFromRows([row('A', 'r1', { 'comment-rate': 50 }), row('B', 'r1', { 'comment-rate': 50 })]);
    const agg2 = aggregate(pop2);
    assert.match(agg2.metrics[0]!.norm.degenerate!, /σ = 0/);
    for (const s of scoreModels(agg2, presetWeights('all').metrics)) assert.equal(s.overall, 0);
  });

  it('failed rows count as unscorable for every metric and are counted apart', () => {
    const pop2 = populationFromRows([...rows, failedRow('B', 'r3')]);
    const agg2 = aggregate(pop2);
    const b = agg2.models.find((m) => m.model === 'B')!;
    assert.equal(b.failed, 1);
    assert.equal(b.artifacts, 3);
    assert.equal(b.cells.performance!.unscorable, 1);
    // μ and σ do not change: the failed row has no scores.
    close(agg2.metrics.find((m) => m.id === 'performance')!.norm.mean!, 70);
  });

  it("label breakdown uses the population μ and σ and the label's samples", () => {
    const b = breakdownByLabel(pop, 'style', presetWeights('all').metrics);
    assert.deepEqual(
      b.values.map((v) => v.value),
      ['minimal', 'playful'],
    );
    const minimal = b.values[0]!;
    const a = minimal.models.find((m) => m.model === 'A')!;
    // r1 only: A comment 80 → z 20/SD, perf 90 → 20/SD.
    close(a.overall, W_COMMENT * (20 / SD) + W_PERF * (20 / SD));
  });

  it('a model better on every metric of every requirement ranks first with a positive overall under every persona', () => {
    const rs = [];
    let seed = 7;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let r = 0; r < 8; r++) {
      const base: Record<string, number> = {};
      for (const id of METRIC_IDS) base[id] = 20 + rnd() * 60;
      const worse = (k: number) => Object.fromEntries(METRIC_IDS.map((id) => [id, base[id]! - k * rnd() * 15 - 1]));
      rs.push(row('best', `r${r}`, base), row('mid', `r${r}`, worse(1)), row('low', `r${r}`, worse(2)));
    }
    for (const p of PERSONA_IDS) {
      const doc = leaderboard(rs, presetWeights(p), { iterations: 50 });
      assert.equal(doc.models[0]!.model, 'best', `persona ${p}`);
      assert.ok(doc.models[0]!.overall > 0, `persona ${p}: overall ${doc.models[0]!.overall}`);
    }
  });

  it('picks up any metric ids in the rows; ids outside the catalogue are shown and weigh 0', () => {
    const doc = leaderboard([row('A', 'r1', { 'new-metric': 10 }), row('B', 'r1', { 'new-metric': 30 })], presetWeights('all'), { iterations: 0 });
    assert.deepEqual(
      doc.metrics.map((m) => m.id),
      ['new-metric'],
    );
    assert.equal(doc.metrics[0]!.weight, 0);
    assert.equal(doc.perMetric.B!['new-metric']!.z, 1);
    assert.ok(doc.notes.some((n) => /not in the metric catalogue/.test(n)));
  });
});
