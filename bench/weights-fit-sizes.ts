/**
 * How many judgements `webgrade weights fit` needs (README "Weights learned from people"): for each number of
 * requirements judged, the fit's held-out agreement and the survey persona `all`'s, with their 95% intervals, on
 * simulated people (test/weights/synthetic.ts `judgedPages`: six models per requirement, six independent metrics,
 * people who follow comment-rate with noise as large as the signal, or pure noise), for ratings (every page rated
 * once) and for pairs (8 judgements per requirement).
 *
 *   node dist/bench/weights-fit-sizes.js [--requirements 10,20,40,80,160] [--bootstrap 100] [--seed 3]
 *
 * One line per (judgements, people, requirements): the metric given the largest weight, the fitted weights'
 * held-out agreement ± half its interval, the survey's, comment-rate's alone, and whether the fit beat the survey.
 */
import { populationFromRows } from '../weights/aggregate.js';
import { fitWeights } from '../weights/fit.js';
import { judgementsFromPairs, judgementsFromRatings, type Estimate } from '../weights/judgements.js';
import { matchPairs } from '../weights/pairs.js';
import { presetWeights } from '../weights/personas.js';
import { matchRatings } from '../weights/ratings.js';
import { judgedPages } from '../test/weights/synthetic.js';
import { benchArgs, usageError } from './common.js';

const METRICS = ['lint', 'comment-rate', 'copywriting', 'accessibility', 'performance', 'layout-sparsity'];

const USAGE = 'usage: node dist/bench/weights-fit-sizes.js [--requirements 10,20,40,80,160] [--bootstrap 100] [--seed 3]';
const { values: args } = benchArgs(USAGE, {
  requirements: { type: 'numbers', default: [10, 20, 40, 80, 160] },
  bootstrap: { type: 'number', default: 100 },
  seed: { type: 'number', default: 3 },
});
const sizes = args.requirements;
const iterations = args.bootstrap;
const seed = args.seed;
if (sizes.some((n) => !Number.isInteger(n) || n < 2)) usageError(USAGE, '--requirements must be whole numbers ≥ 2');
if (!Number.isInteger(iterations) || iterations < 1) usageError(USAGE, '--bootstrap must be a whole number ≥ 1');
if (!Number.isInteger(seed) || seed < 1) usageError(USAGE, '--seed must be a whole number ≥ 1');

const show = (e: Estimate) => (e.value === null ? 'n/a' : e.ci ? `${e.value.toFixed(2)} ± ${((e.ci[1] - e.ci[0]) / 2).toFixed(2)}` : e.value.toFixed(2));
const data = { file: 'simulated', sha256: '', rows: 0, matched: 0, unmatched: 0 };
process.stdout.write('judgements | people | requirements | largest weight | fitted (held out) | survey all | comment-rate | beats survey\n');
for (const kind of ['ratings', 'pairs'] as const) {
  for (const follow of ['comment-rate', null]) {
    for (const requirements of sizes) {
      const d = judgedPages({ models: 6, requirements, metrics: METRICS, follow, noise: 1, pairsPerRequirement: 8, seed });
      const pop = populationFromRows(d.rows);
      const j =
        kind === 'ratings'
          ? judgementsFromRatings(
              matchRatings(
                d.ratings.map((r, i) => ({ line: i + 2, ...r })),
                pop.samples,
              ).byPage,
              pop.samples,
            )
          : judgementsFromPairs(
              matchPairs(
                d.pairs.map((p, i) => ({ line: i + 1, requirement: p.requirement, modelA: p.model_a, modelB: p.model_b, winner: p.winner })),
                pop.samples,
              ).pairs,
              pop.samples,
            );
      const fit = fitWeights(pop, j, data, 'simulated', { survey: [presetWeights('all')], suite: 'study', iterations, seed: 1 });
      const top = fit.doc.weights[0]!;
      const truth = fit.doc.agreement.metrics.find((m) => m.id === 'comment-rate')!.estimate;
      process.stdout.write(
        [
          kind,
          follow ?? 'noise',
          requirements,
          `${top.id} ${(top.weight * 100).toFixed(0)}%`,
          show(fit.doc.agreement.fitted),
          show(fit.doc.agreement.survey[0]!.estimate),
          show(truth),
          fit.doc.verdict.beatsSurvey ? 'yes' : 'no',
        ].join(' | ') + '\n',
      );
    }
  }
}
