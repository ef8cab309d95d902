import assert from 'node:assert/strict';
import sharp from 'sharp';
import { gathered, missing } from '../../../core/evidence.js';
import type { RequirementTestResult } from '../../../core/requirement-tests.js';
import requirementTests from '../../../metrics/interaction/requirement-tests.js';
import { buildEvidence, testMetric } from '../../metric-tester.js';
import { it } from 'node:test';

const result = (id: string, passed: boolean | null, extra: Partial<RequirementTestResult> = {}): RequirementTestResult => ({
  id,
  source: 'scripted',
  passed,
  steps: [{ step: 'click "Add"', ok: true }],
  expectations: [],
  ms: 10,
  ...(passed === false
    ? { reason: `expected "${id}" visible; found not shown` }
    : passed === null
      ? { reason: 'natural-language test not run: no judge configured' }
      : {}),
  ...extra,
});
const ev = (...results: RequirementTestResult[]) => ({ requirementTests: gathered({ results, faults: [], timings: {} }) });

testMetric(requirementTests, [
  { name: 'every test passed: 100', html: '<p>x</p>', evidence: ev(result('a', true), result('b', true)), score: 100 },
  {
    name: '100 × passed / tests run; the failing expectation named in the summary and details',
    html: '<p>x</p>',
    evidence: ev(result('a', true), result('b', false), result('c', true), result('d', true)),
    score: 75,
    details: (d, o) => {
      assert.deepEqual(d.failed, ['b']);
      assert.match((o as { summary: string }).summary, /3 of 4 tests passed; b: expected "b" visible/);
    },
  },
  {
    name: 'tests not run (no judge for a natural-language test) are listed, not failures',
    html: '<p>x</p>',
    evidence: ev(result('a', true), result('nl', null, { source: 'agent' })),
    score: 100,
    details: (d) => assert.deepEqual(d.notRun, [{ id: 'nl', reason: 'natural-language test not run: no judge configured' }]),
  },
  {
    name: "the agent's usage is summed over its tests; an unknown cost makes the sum unknown",
    html: '<p>x</p>',
    evidence: ev(
      result('a', true, { usage: { calls: 3, promptTokens: 3000, completionTokens: 600, costUsd: 0.01, invalidAnswers: 0, callMs: 10 } }),
      result('b', false, { usage: { calls: 2, promptTokens: 2000, completionTokens: 400, costUsd: null, invalidAnswers: 1, callMs: 5 } }),
      result('c', true),
    ),
    near: [66.67, 0.01],
    details: (d) => assert.deepEqual(d.usage, { calls: 5, invalidAnswers: 1, promptTokens: 5000, completionTokens: 1000, costUsd: null, callMs: 15 }),
  },
  {
    name: 'none could run: unscorable with the first reason',
    html: '<p>x</p>',
    evidence: ev(result('nl', null, { source: 'agent' })),
    unscorable: /none of the 1 test could be run: natural-language test not run: no judge configured/,
  },
  {
    name: "no requirement tests gathered: unscorable with the gatherer's reason",
    html: '<p>x</p>',
    evidence: { requirementTests: missing('requirement r has no tests') },
    unscorable: 'requirement r has no tests',
  },
  { name: 'not run at all', html: '<p>x</p>', unscorable: 'the requirement tests were not run' },
  {
    name: 'a recorded agent test keeps its source, script and usage in the details',
    html: '<p>x</p>',
    evidence: ev(
      result('nl', true, {
        source: 'replay',
        recorded: { id: 'nl', steps: [{ click: 'Add' }], expect: [{ visible: 'milk' }], verdict: true, evidence: 'milk listed' },
        usage: { calls: 0 },
      }),
    ),
    score: 100,
    details: (d) => {
      const t = (d.tests as Array<{ source: string; recorded: { steps: unknown[] } }>)[0]!;
      assert.equal(t.source, 'replay');
      assert.deepEqual(t.recorded.steps, [{ click: 'Add' }]);
    },
  },
]);

it("--explain pictures: each run test's after-screenshot with the acted-on elements boxed in its colour", async () => {
  const png = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  const shot = { png, width: 200, height: 100 };
  const evidence = buildEvidence({
    html: '<p>x</p>',
    evidence: ev(
      result('ok', true, { screenshot: shot, boxes: [{ x: 20, y: 20, width: 40, height: 20 }] }),
      result('bad', false, { screenshot: shot, boxes: [{ x: 100, y: 40, width: 40, height: 20 }] }),
      result('nl', null, { screenshot: shot }),
    ),
  });
  const outcome = await requirementTests.score(evidence);
  const pics = await requirementTests.illustrate!(evidence, outcome);
  assert.deepEqual(
    pics.map((p) => p.name),
    ['test-ok', 'test-bad'],
  );
  const px = async (buf: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(buf).raw().toBuffer({ resolveWithObject: true });
    const i = (y * info.width + x) * info.channels;
    return [data[i], data[i + 1], data[i + 2]];
  };
  assert.deepEqual(await px(pics[0]!.png, 17, 30), [0x1a, 0x9d, 0x3c]); // green box edge left of the first element
  assert.deepEqual(await px(pics[1]!.png, 97, 50), [0xdd, 0, 0]);
  assert.match(pics[1]!.caption, /test bad failed: expected "bad" visible/);
});
