import assert from 'node:assert/strict';
import metric from '../../../metrics/functional-alignment/functional-alignment.js';
import { testMetric } from '../../metric-tester.js';
import { judgeEvidence, judgeMissing, verdicts } from '../../judges/metric-cases.js';

const req = { id: 'r', requirement: 'An app', checklist: { functional: [] as string[], visual: [] as string[], content: [] as string[] } };
req.checklist.functional = ['first item', 'second item', 'third item', 'fourth item'];
const html = '<h1>Welcome</h1><button onclick="go()">Go</button>';

testMetric(metric, [
  { name: '3 of 4 items met score 75', html, evidence: judgeEvidence(metric.id, [verdicts('F', [true, true, false, true])], { requirement: req }), score: 75 },
  { name: 'no item met scores 0', html, evidence: judgeEvidence(metric.id, [verdicts('F', [false, false, false, false])], { requirement: req }), score: 0 },
  {
    name: 'reports each item with its verdict, reason and whether the excerpt exists in the code',
    html,
    evidence: judgeEvidence(metric.id, [verdicts('F', [true, true, true, true], '<button onclick="go()">Go</button>')], { requirement: req }),
    score: 100,
    details: (d) => {
      const items = d.items as Array<{ id: string; item: string; passed: boolean; excerptFound: boolean }>;
      assert.deepEqual(
        items.map((i) => i.id),
        ['F1', 'F2', 'F3', 'F4'],
      );
      assert.equal(items[1]!.item, 'second item');
      assert.equal(items[0]!.excerptFound, true);
    },
  },
  {
    name: 'a requirement without functional items is unscorable ("no checklist items")',
    html,
    evidence: judgeEvidence(metric.id, [verdicts('F', [true])], { requirement: { id: 'r', requirement: 'x' } }),
    unscorable: /no functional checklist items/,
  },
  { name: 'no requirement at all is unscorable', html, evidence: judgeEvidence(metric.id, [verdicts('F', [true])]), unscorable: /no requirement given/ },
  {
    name: 'a judge failure is unscorable with its reason',
    html,
    evidence: judgeMissing(metric.id, 'no judge configured (set ...)', req),
    unscorable: /no judge configured/,
  },
  {
    name: 'a recorded answer whose verdict count does not match the checklist is unscorable',
    html,
    evidence: judgeEvidence(metric.id, [verdicts('F', [true, true])], { requirement: req }),
    unscorable: /2 verdicts for 4 checklist items/,
  },
]);
