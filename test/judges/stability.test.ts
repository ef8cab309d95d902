import { JUDGE_METRIC_IDS } from '../../metrics/registry.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../core/errors.js';
import { judgeStability, parseResultsJsonl, type StabilityRow } from '../../judges/stability.js';

/** Rows for `models` × `reqs`: each model has a level, repeats jitter around it by ±jitter. */
function rows(levels: Record<string, number>, reqs: number, jitter: number): StabilityRow[] {
  const out: StabilityRow[] = [];
  for (const [model, level] of Object.entries(levels)) {
    for (let r = 0; r < reqs; r++) {
      const base = level + ((r * 7) % 5);
      const repeats = [base, base + (jitter * ((r % 3) + 1)) / 3, base - jitter / 2];
      out.push({ model, requirement: `q${r}`, metrics: [{ id: 'functional-alignment', score: repeats.reduce((a, b) => a + b) / 3, repeats }] });
    }
  }
  return out;
}

describe('judge-stability', () => {
  it('is stable when repeats vary much less than models do', () => {
    const r = judgeStability(rows({ a: 20, b: 50, c: 80 }, 8, 2), { metrics: JUDGE_METRIC_IDS });
    const m = r.metrics.find((x) => x.id === 'functional-alignment')!;
    assert.equal(m.runToRun.n, 24);
    assert.equal(m.acrossModel.n, 8);
    assert.ok(m.p! < 0.001, `p ${m.p}`);
    assert.equal(m.verdict, 'stable');
    assert.equal(r.verdict, 'stable');
    assert.deepEqual(r.models, ['a', 'b', 'c']);
  });

  it('is not stable when repeats vary as much as models do', () => {
    const r = judgeStability(rows({ a: 50, b: 51, c: 52 }, 8, 40), { metrics: JUDGE_METRIC_IDS });
    assert.equal(r.metrics[0]!.verdict, 'not stable');
    assert.equal(r.verdict, 'not stable');
  });

  it('says "not enough data" without repeats or with a single model', () => {
    const noRepeats = rows({ a: 20, b: 80 }, 5, 1).map((x) => ({ ...x, metrics: x.metrics.map((m) => ({ id: m.id, score: m.score })) }));
    assert.equal(judgeStability(noRepeats, { metrics: JUDGE_METRIC_IDS }).verdict, 'not enough data');
    assert.equal(judgeStability(rows({ a: 20 }, 5, 1), { metrics: JUDGE_METRIC_IDS }).verdict, 'not enough data');
  });

  it('reads rows as documented: skips failed rows, names bad lines, requires numeric repeats', () => {
    const text = [
      JSON.stringify({ model: 'a', requirement: 'q1', metrics: [{ id: 'functional-alignment', score: 50, details: { repeats: [50, 50] } }] }),
      '',
      JSON.stringify({ model: 'b', requirement: 'q1', status: 'failed', error: 'crash' }),
    ].join('\n');
    const { rows: parsed, skippedFailed } = parseResultsJsonl(text, 'r.jsonl');
    assert.equal(parsed.length, 1);
    assert.equal(skippedFailed, 1);
    assert.deepEqual(parsed[0]!.metrics[0]!.repeats, [50, 50]);
    assert.throws(
      () => parseResultsJsonl('{"model":"a","requirement":"q","metrics":[]}\n{oops', 'r.jsonl'),
      (e: unknown) => e instanceof InputError && /r\.jsonl:2: not valid JSON/.test(e.message),
    );
    assert.throws(() => parseResultsJsonl('{"requirement":"q","metrics":[]}', 'r.jsonl'), /r\.jsonl:1: missing "model"/);
    assert.throws(
      () => parseResultsJsonl('{"model":"a","requirement":"q","metrics":[{"id":"x","score":1,"details":{"repeats":["1"]}}]}', 'r.jsonl'),
      /details\.repeats must be a list of numbers/,
    );
  });
});
