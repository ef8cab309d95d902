import assert from 'node:assert/strict';
import metric from '../../../metrics/code/functionality-correctness.js';
import { CRITERIA_IDS } from '../../../judges/prompts/functionality.js';
import { testMetric } from '../../metric-tester.js';
import { judgeEvidence, judgeMissing } from '../../judges/metric-cases.js';

const req = { id: 'r', requirement: 'A calculator' };
const answer = (scores: number[]) => ({ criteria: CRITERIA_IDS.map((id, i) => ({ id, score: scores[i]!, reason: `why ${id}` })) });

testMetric(metric, [
  {
    name: 'score is the sum of the ten criteria',
    html: '<p>x</p>',
    evidence: judgeEvidence(metric.id, [answer([10, 10, 10, 10, 10, 10, 10, 10, 10, 3])], { requirement: req }),
    score: 93,
  },
  {
    name: 'all zeros score 0 (the judge found nothing working), not unscorable',
    html: '<p>x</p>',
    evidence: judgeEvidence(metric.id, [answer(Array(10).fill(0))], { requirement: req }),
    score: 0,
  },
  {
    name: 'with repeats the score is the mean of the per-repeat sums and the spread is reported',
    html: '<p>x</p>',
    evidence: judgeEvidence(metric.id, [answer(Array(10).fill(8)), answer(Array(10).fill(6))], { requirement: req }),
    score: 70,
    details: (d) => {
      assert.deepEqual(d.repeats, [80, 60]);
      assert.deepEqual(d.spread, { min: 60, max: 80, range: 20, sd: 14.14 });
      assert.equal((d.criteria as Array<{ score: number }>)[0]!.score, 7);
    },
  },
  {
    name: 'no requirement: unscorable, a correctness judgement needs one',
    html: '<p>x</p>',
    evidence: judgeEvidence(metric.id, [answer(Array(10).fill(8))]),
    unscorable: /no requirement given/,
  },
  {
    name: 'a judge that could not answer: unscorable with its reason',
    html: '<p>x</p>',
    evidence: judgeMissing(metric.id, 'judge endpoint answered HTTP 500: boom', req),
    unscorable: /HTTP 500/,
  },
  { name: 'no judge gatherer at all: unscorable', html: '<p>x</p>', evidence: { requirement: req }, unscorable: /judge did not run/ },
]);
