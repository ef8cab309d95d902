import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mulberry32 } from '../../weights/bootstrap.js';
import { fitBradleyTerry, rankModels, sigmoid, type BtComparison, type NamedVote } from '../../weights/bradley-terry.js';

/** `n` votes between random pairs of models whose true strengths are `truth`, ties when the draw is within `tie`. */
function simulate(truth: readonly number[], n: number, seed: number, tie = 0): NamedVote[] {
  const rand = mulberry32(seed);
  const out: NamedVote[] = [];
  for (let k = 0; k < n; k++) {
    const i = Math.floor(rand() * truth.length);
    let j = Math.floor(rand() * (truth.length - 1));
    if (j >= i) j++;
    const p = sigmoid(truth[i]! - truth[j]!);
    const u = rand();
    const winner = Math.abs(u - p) < tie ? 'tie' : u < p ? 'a' : 'b';
    out.push({ modelA: `m${i}`, modelB: `m${j}`, winner });
  }
  return out;
}

function gradient(n: number, comps: readonly BtComparison[], theta: Float64Array, l2: number): number[] {
  const g = Array.from(theta, (v) => l2 * v);
  for (const c of comps) {
    const r = sigmoid(theta[c.a]! - theta[c.b]!) - c.y;
    g[c.a]! += r;
    g[c.b]! -= r;
  }
  return g.slice(0, n);
}

describe('Bradley–Terry fit', () => {
  it('recovers known strengths from many votes, centred on the average model', () => {
    const truth = [1.2, 0.4, 0, -0.3, -1.3];
    const ranking = rankModels(simulate(truth, 6000, 7), { iterations: 0, seed: 1 });
    for (const m of ranking.models) assert.ok(Math.abs(m.strength - truth[Number(m.model.slice(1))]!) < 0.12, `${m.model} ${m.strength}`);
    assert.ok(Math.abs(ranking.models.reduce((a, m) => a + m.strength, 0)) < 1e-9);
    assert.deepEqual(
      ranking.models.map((m) => m.model),
      ['m0', 'm1', 'm2', 'm3', 'm4'],
    );
    assert.equal(ranking.bootstrap, null);
  });

  it('stops at the optimum: the gradient of the loss with its prior is zero there', () => {
    const comps: BtComparison[] = [
      { a: 0, b: 1, y: 1 },
      { a: 0, b: 1, y: 1 },
      { a: 1, b: 0, y: 1 },
      { a: 1, b: 2, y: 0.5 },
      { a: 2, b: 0, y: 0 },
      { a: 2, b: 3, y: 1 },
    ];
    const fit = fitBradleyTerry(4, comps, 0.1);
    assert.ok(fit.converged);
    for (const v of gradient(4, comps, fit.theta, 0.1)) assert.ok(Math.abs(v) < 1e-8, String(v));
  });

  it('counts a tie as half a win for each side', () => {
    const onlyTies = rankModels(
      Array.from({ length: 10 }, () => ({ modelA: 'x', modelB: 'y', winner: 'tie' as const })),
      { iterations: 0, seed: 1 },
    );
    assert.ok(Math.abs(onlyTies.models[0]!.strength - onlyTies.models[1]!.strength) < 1e-12);
    // One win and two ties of three: the winner's share is 2/3, so without the prior its strength gap is ln 2.
    const votes: NamedVote[] = [
      { modelA: 'x', modelB: 'y', winner: 'a' },
      { modelA: 'x', modelB: 'y', winner: 'tie' },
      { modelA: 'y', modelB: 'x', winner: 'tie' },
    ];
    const r = rankModels(votes, { iterations: 0, seed: 1, l2: 1e-9 });
    const gap = r.models.find((m) => m.model === 'x')!.strength - r.models.find((m) => m.model === 'y')!.strength;
    assert.ok(Math.abs(gap - Math.log(2)) < 1e-6, String(gap));
    assert.deepEqual(
      r.models.map((m) => [m.model, m.wins, m.losses, m.ties, m.votes]),
      [
        ['x', 1, 0, 2, 3],
        ['y', 0, 1, 2, 3],
      ],
    );
  });

  it('gives a model that won every vote a finite strength, held back by the prior', () => {
    const votes = Array.from({ length: 20 }, () => ({ modelA: 'best', modelB: 'other', winner: 'a' as const }));
    const weak = rankModels(votes, { iterations: 0, seed: 1, l2: 1 });
    const strong = rankModels(votes, { iterations: 0, seed: 1, l2: 0.01 });
    const s = (r: typeof weak) => r.models[0]!.strength;
    assert.ok(Number.isFinite(s(strong)) && s(strong) > s(weak) && s(weak) > 0);
    assert.ok(strong.converged);
  });

  it('gives intervals from a seeded bootstrap over votes: repeatable, around the estimate, and covering the truth', () => {
    const truth = [0.8, 0.3, 0, -1.1];
    let covered = 0;
    let intervals = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const votes = simulate(truth, 300, seed, 0.05);
      const r = rankModels(votes, { iterations: 200, seed: 3 });
      assert.deepEqual(r.bootstrap, { iterations: 200, seed: 3, unit: 'vote' });
      for (const m of r.models) {
        assert.ok(m.ci && m.ci[0] <= m.strength && m.strength <= m.ci[1], `${m.model} ${m.strength} ${m.ci}`);
        assert.ok(m.rankCi && m.rankCi[0] <= m.rank && m.rank <= m.rankCi[1]);
        // The truth centred as the estimates are.
        const t = truth[Number(m.model.slice(1))]! - truth.reduce((a, b) => a + b, 0) / truth.length;
        intervals++;
        if (m.ci![0] <= t && t <= m.ci![1]) covered++;
      }
      if (seed === 1) assert.deepEqual(rankModels(votes, { iterations: 200, seed: 3 }), r);
    }
    // 95% intervals: about 46 of 48; far fewer would mean the intervals are too narrow.
    assert.ok(covered >= 40, `${covered} of ${intervals}`);
  });

  it('resamples requirements, not votes, when every vote names its requirement', () => {
    // Two requirements where x wins every vote, one where it loses every vote: the votes alone look decisive, the
    // requirements disagree, and the interval over requirements is the wider.
    const votes: NamedVote[] = [];
    for (const [req, winner] of [
      ['r1', 'a'],
      ['r2', 'a'],
      ['r3', 'b'],
    ] as const)
      for (let k = 0; k < 10; k++) votes.push({ modelA: 'x', modelB: 'y', winner, requirement: req });
    const byReq = rankModels(votes, { iterations: 400, seed: 5 });
    const byVote = rankModels(
      votes.map(({ requirement: _r, ...v }) => v),
      { iterations: 400, seed: 5 },
    );
    assert.equal(byReq.bootstrap!.unit, 'requirement');
    assert.equal(byVote.bootstrap!.unit, 'vote');
    const width = (r: typeof byReq) => r.models[0]!.ci![1] - r.models[0]!.ci![0];
    assert.ok(width(byReq) > 2 * width(byVote), `${width(byReq)} vs ${width(byVote)}`);
    assert.ok(byReq.models.find((m) => m.model === 'x')!.ci![0] < 0, 'over requirements, x is not shown better than y');
  });

  it('ranks the models a results file has even when no vote names them', () => {
    const r = rankModels([{ modelA: 'a', modelB: 'b', winner: 'a' }], { iterations: 0, seed: 1, models: ['a', 'b', 'c'] });
    assert.deepEqual(
      r.models.map((m) => [m.model, m.votes]),
      [
        ['a', 1],
        ['c', 0],
        ['b', 1],
      ],
    );
    assert.equal(r.models[1]!.strength, r.models.find((m) => m.model === 'c')!.strength);
  });
});
