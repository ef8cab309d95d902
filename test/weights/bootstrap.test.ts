import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate, populationFromRows, scoreModels } from '../../weights/aggregate.js';
import { bootstrap } from '../../weights/bootstrap.js';
import { presetWeights } from '../../weights/personas.js';
import { row } from './synthetic.js';

function rowsFor(gap: number, n = 12) {
  const rs = [];
  for (let r = 0; r < n; r++) {
    const noise = ((r * 37) % 11) * 3;
    rs.push(row('A', `r${r}`, { 'comment-rate': 50 + noise + gap, performance: 40 + noise + gap, lint: r % 3 ? 70 : null }));
    rs.push(row('B', `r${r}`, { 'comment-rate': 50 + ((r * 13) % 7) * 4, performance: 40 + ((r * 5) % 9) * 3, lint: 70 }));
  }
  return rs;
}

describe('bootstrap over requirements', () => {
  const w = presetWeights('all').metrics;

  it("is deterministic for a seed, and its point estimates equal the aggregate's", () => {
    const pop = populationFromRows(rowsFor(5));
    const a = bootstrap(pop, { all: w }, { iterations: 200, seed: 42 }).all!;
    const b = bootstrap(pop, { all: w }, { iterations: 200, seed: 42 }).all!;
    assert.deepEqual(a, b);
    const c = bootstrap(pop, { all: w }, { iterations: 200, seed: 43 }).all!;
    assert.notDeepEqual(a.models[0]!.ci, c.models[0]!.ci);
    const point = scoreModels(aggregate(pop), w);
    for (const m of a.models) {
      const p = point.find((x) => x.model === m.model)!;
      assert.ok(Math.abs(m.overall - p.overall) < 1e-9);
      assert.equal(m.rank, p.rank);
      assert.ok(m.ci![0] <= m.overall + 1e-9 && m.overall - 1e-9 <= m.ci![1], `${m.model}: ${m.ci} vs ${m.overall}`);
      assert.ok(Math.abs(m.rankFrequency.reduce((s, x) => s + x, 0) - 1) < 1e-9);
    }
  });

  it('says two models are apart when one is far ahead on every requirement', () => {
    const res = bootstrap(populationFromRows(rowsFor(40)), { all: w }, { iterations: 300 }).all!;
    assert.equal(res.models[0]!.model, 'A');
    assert.equal(res.models[0]!.rankHolds, 1);
    assert.deepEqual(res.notApart, []);
  });

  it('flags neighbours that are not clearly apart', () => {
    const rs = [];
    for (let r = 0; r < 10; r++) {
      rs.push(row('A', `r${r}`, { 'comment-rate': 50 + (r % 2 ? 10 : -10) }));
      rs.push(row('B', `r${r}`, { 'comment-rate': 50 + (r % 2 ? -9 : 10) }));
    }
    const res = bootstrap(populationFromRows(rs), { all: w }, { iterations: 300 }).all!;
    assert.equal(res.notApart.length, 1);
    assert.ok(res.notApart[0]!.pAhead < 0.95);
  });
});
