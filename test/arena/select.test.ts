import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PairChooser, pairKey, type ChooserOptions } from '../../arena/select.js';
import { mulberry32 } from '../../weights/bootstrap.js';

const pagesOf = (reqs: string[], models: string[]) => reqs.flatMap((requirement) => models.map((model) => ({ requirement, model })));
const only = (f: keyof NonNullable<ChooserOptions['factors']>): ChooserOptions['factors'] => ({ adds: false, closeness: false, attention: false, [f]: true });

describe('which pair the arena shows next', () => {
  it('never shows a rater a pair they judged, in either order, and says when none is left', () => {
    const c = new PairChooser(pagesOf(['r1', 'r2'], ['a', 'b', 'c']), { rand: mulberry32(1) });
    assert.equal(c.pairCount(), 6);
    const seen = new Set<string>();
    for (let k = 0; k < 6; k++) {
      const p = c.next('ann')!;
      const key = pairKey(p.requirement, p.modelA, p.modelB);
      assert.ok(!seen.has(key), key);
      seen.add(key);
      c.add({ requirement: p.requirement, modelA: p.modelB, modelB: p.modelA, winner: 'a', rater: 'ann' });
    }
    assert.equal(c.next('ann'), null);
    assert.equal(c.judgedBy('ann'), 6);
    assert.notEqual(c.next('bea'), null, 'another rater still has every pair');
  });

  it('with repeats asked for, shows judged pairs again, the least judged first', () => {
    const c = new PairChooser(pagesOf(['r1'], ['a', 'b', 'c']), { rand: mulberry32(2), repeatPairs: true });
    const counts = new Map<string, number>();
    for (let k = 0; k < 9; k++) {
      const p = c.next('ann')!;
      const key = pairKey(p.requirement, p.modelA, p.modelB);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      assert.ok(
        [...counts.values()].every((n) => n <= Math.floor(k / 3) + 1),
        `round ${k}: ${[...counts.values()]}`,
      );
      c.add({ ...p, winner: 'tie', rater: 'ann' });
    }
    assert.deepEqual([...counts.values()], [3, 3, 3]);
  });

  it('takes an undone vote back: the pair is open to the rater again', () => {
    const c = new PairChooser(pagesOf(['r1'], ['a', 'b']), { rand: mulberry32(3) });
    const v = { requirement: 'r1', modelA: 'a', modelB: 'b', winner: 'b' as const, rater: 'ann' };
    c.add(v);
    assert.equal(c.next('ann'), null);
    c.remove(v);
    assert.deepEqual([c.next('ann')!.requirement, c.judgedBy('ann')], ['r1', 0]);
  });

  it('puts first the pair whose metric difference the votes so far covered least', () => {
    // r1's two pages differ by 3 along metric 1, r2's by 2 along metric 2.
    const z = (x: number, y: number) => Float64Array.of(x, y);
    const features = new Map([
      ['r1\u0000a', z(0, 0)],
      ['r1\u0000b', z(3, 0)],
      ['r2\u0000a', z(0, 0)],
      ['r2\u0000b', z(0, 2)],
    ]);
    const c = new PairChooser(pagesOf(['r1', 'r2'], ['a', 'b']), { rand: mulberry32(4), features, factors: only('adds') });
    const first = c.next('ann')!;
    assert.equal(first.requirement, 'r1', 'before any vote, the larger difference');
    assert.ok(Math.abs(first.adds - 10) < 1e-9, String(first.adds));
    // Once a vote covered metric 1, the difference along metric 2 teaches more, though it is smaller.
    c.add({ requirement: 'r1', modelA: 'a', modelB: 'b', winner: 'a', rater: 'bea' });
    const next = c.next('ann')!;
    assert.equal(next.requirement, 'r2');
    assert.ok(Math.abs(next.adds - 5) < 1e-9, String(next.adds));
  });

  it('puts first the requirements with the fewest votes, pairs shown and not yet voted included', () => {
    const c = new PairChooser(pagesOf(['r1', 'r2', 'r3'], ['a', 'b', 'c']), { rand: mulberry32(5), factors: only('attention') });
    c.add({ requirement: 'r1', modelA: 'a', modelB: 'b', winner: 'a', rater: 'x' });
    c.add({ requirement: 'r2', modelA: 'a', modelB: 'b', winner: 'a', rater: 'x' });
    assert.equal(c.next('ann')!.requirement, 'r3');
    const shown = c.next('ann', [{ requirement: 'r3', modelA: 'a', modelB: 'c' }])!;
    assert.notEqual(shown.requirement, 'r3', 'bea is shown r3: ann gets another requirement');
  });

  it('with the closeness factor, prefers two models the votes have not yet told apart', () => {
    const c = new PairChooser(pagesOf(['r1', 'r2'], ['strong', 'mid', 'weak']), { rand: mulberry32(6), factors: only('closeness') });
    for (let k = 0; k < 6; k++) {
      c.add({ requirement: 'r1', modelA: 'strong', modelB: 'mid', winner: 'a', rater: 'x' });
      c.add({ requirement: 'r1', modelA: 'strong', modelB: 'weak', winner: 'a', rater: 'x' });
    }
    const p = c.next('ann')!;
    assert.deepEqual([p.modelA, p.modelB].sort(), ['mid', 'weak']);
    assert.ok(c.strengths().get('strong')! > c.strengths().get('mid')!);
  });

  it('draws which model is model_a and which side it is shown on by fair coins', () => {
    const c = new PairChooser(pagesOf(['r1'], ['a', 'b']), { rand: mulberry32(7), repeatPairs: true });
    let left = 0;
    let aFirst = 0;
    for (let k = 0; k < 400; k++) {
      const p = c.next('ann')!;
      if (p.position === 'left') left++;
      if (p.modelA === 'a') aFirst++;
    }
    assert.ok(left > 160 && left < 240, String(left));
    assert.ok(aFirst > 160 && aFirst < 240, String(aFirst));
  });
});
