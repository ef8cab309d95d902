import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { populationFromRows } from '../../weights/aggregate.js';
import { guardedPopulationNorms, leaderboardFromPopulation } from '../../weights/leaderboard.js';
import { NOISE_GUARD_OFF } from '../../weights/noise.js';
import { parsePairs } from '../../weights/pairs.js';
import { peopleBeside } from '../../weights/people.js';
import { presetWeights } from '../../weights/personas.js';
import { row } from './synthetic.js';

/** Three models whose pages' lint is high, middling and low on ten requirements, and votes that follow lint. */
function data() {
  const lint: Record<string, number> = { good: 80, mid: 60, poor: 40 };
  const rows = Object.entries(lint).flatMap(([m, l]) => Array.from({ length: 10 }, (_, r) => row(m, `r${r}`, { lint: l + (r % 3) })));
  const lines: string[] = [];
  const names = Object.keys(lint);
  for (let r = 0; r < 10; r++)
    for (let i = 0; i < 3; i++)
      for (let j = i + 1; j < 3; j++) {
        const [a, b] = r % 2 ? [names[i]!, names[j]!] : [names[j]!, names[i]!];
        const winner = r === 9 ? 'both-bad' : r === 8 ? 'tie' : lint[a]! > lint[b]! ? 'a' : 'b';
        lines.push(
          JSON.stringify({ requirement: `r${r}`, model_a: a, model_b: b, winner, rater: `p${r % 2}`, position: 'left', time: 't', id: `${r}${i}${j}` }),
        );
      }
  lines.push(JSON.stringify({ requirement: 'elsewhere', model_a: 'good', model_b: 'poor', winner: 'a' }));
  return { rows, votes: parsePairs(lines.join('\n') + '\n', 'votes.jsonl', 'jsonl') };
}

describe("the people's ranking beside webgrade's", () => {
  it('ranks the models by the votes, with intervals, and measures how well webgrade agrees on models and on pages', () => {
    const { rows, votes } = data();
    const pop = populationFromRows(rows);
    const weights = presetWeights('all');
    const doc = leaderboardFromPopulation(pop, weights, { iterations: 0, noiseGuard: NOISE_GUARD_OFF });
    const { norms } = guardedPopulationNorms(pop, { noiseGuard: NOISE_GUARD_OFF });
    const p = peopleBeside(pop, doc.models, norms, weights, votes, { iterations: 300, seed: 2 });
    assert.deepEqual(
      p.models.map((m) => [m.model, m.rank, m.webgradeRank]),
      [
        ['good', 1, 1],
        ['mid', 2, 2],
        ['poor', 3, 3],
      ],
    );
    assert.deepEqual([p.votes, p.matched, p.unmatched, p.ties, p.bothBad, p.raters, p.requirements], [31, 30, 1, 6, 3, 2, 10]);
    const good = p.models[0]!;
    assert.deepEqual([good.votes, good.wins, good.losses, good.ties], [20, 16, 0, 4]);
    assert.ok(good.ci && good.ci[0] > 0, 'good is clearly above the average model');
    assert.ok(p.models[2]!.ci![1] < 0);
    assert.equal(p.agreement.modelOrder.spearman, 1);
    assert.ok(p.agreement.modelOrder.ci && p.agreement.modelOrder.ci[1] === 1);
    // Every decisive vote went to the page with the higher lint, which is the higher overall: accuracy 1 on 24.
    assert.equal(p.agreement.pages.value, 1);
    assert.equal(p.agreement.pages.n, 24);
  });

  it('finds webgrade disagreeing with people who prefer the opposite', () => {
    const { rows, votes } = data();
    const flipped = parsePairs(
      votes.pairs.map((v) => JSON.stringify({ requirement: v.requirement, model_a: v.modelB, model_b: v.modelA, winner: v.winner })).join('\n'),
      'flipped.jsonl',
      'jsonl',
    );
    const pop = populationFromRows(rows);
    const weights = presetWeights('all');
    const doc = leaderboardFromPopulation(pop, weights, { iterations: 0, noiseGuard: NOISE_GUARD_OFF });
    const { norms } = guardedPopulationNorms(pop, { noiseGuard: NOISE_GUARD_OFF });
    const p = peopleBeside(pop, doc.models, norms, weights, flipped, { iterations: 100, seed: 2 });
    assert.equal(p.models[0]!.model, 'poor');
    assert.equal(p.agreement.modelOrder.spearman, -1);
    assert.equal(p.agreement.pages.value, 0);
  });
});
