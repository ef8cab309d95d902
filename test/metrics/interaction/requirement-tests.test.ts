import assert from 'node:assert/strict';
import sharp from 'sharp';
import { gathered, missing } from '../../../core/evidence.js';
import type { RequirementTestResult } from '../../../core/requirement-tests.js';
import requirementTests from '../../../metrics/interaction/requirement-tests.js';
import { boxInImage, svgLabel, svgRect } from '../../../metrics/lib/image-tools.js';
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

const whiteShot = async () => ({
  png: await sharp({ create: { width: 200, height: 100, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer(),
  width: 200,
  height: 100,
});

/** The pictures requirement-tests draws for one failed test with these boxes, decoded. */
async function drawn(boxes: unknown[]): Promise<{ data: Buffer; at: (x: number, y: number) => number[]; count: (hit: (p: number[]) => boolean) => number }> {
  const evidence = buildEvidence({
    html: '<p>x</p>',
    evidence: ev(result('t', false, { screenshot: await whiteShot(), boxes: boxes as RequirementTestResult['boxes'] })),
  });
  const pics = await requirementTests.illustrate!(evidence, await requirementTests.score(evidence));
  assert.equal(pics.length, 1);
  const { data, info } = await sharp(pics[0]!.png).raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
  const count = (hit: (p: number[]) => boolean) => {
    let n = 0;
    for (let i = 0; i < data.length; i += info.channels) if (hit([data[i]!, data[i + 1]!, data[i + 2]!])) n++;
    return n;
  };
  return { data, at, count };
}

it('--explain pictures: a box size the page returned as markup adds no element to the picture', async () => {
  // What a hostile page hands back as an element's box: the types say numbers, the page says otherwise.
  const injected = '10" /><rect x="0" y="0" width="200" height="100" fill="#0000ff"/><rect x="0';
  const pic = await drawn([
    { x: 150, y: 60, width: injected, height: 20 },
    { x: 20, y: 20, width: 40, height: 20 },
  ]);
  assert.equal(
    pic.count(([r, g, b]) => r! < 40 && g! < 40 && b! > 200),
    0,
    'no injected rectangle painted the picture',
  );
  assert.deepEqual(pic.at(17, 30), [0xdd, 0, 0], 'the valid box is still drawn');
  assert.deepEqual(pic.at(160, 70), [0xff, 0xff, 0xff], 'the bad box is left out');
});

it('--explain pictures: boxes with NaN, Infinity, a missing side or no object at all are left out; a huge one is clamped', async () => {
  const pic = await drawn([
    { x: Number.NaN, y: 10, width: 20, height: 20 },
    { x: 10, y: 10, width: Number.POSITIVE_INFINITY, height: 20 },
    { x: 10, y: 10, width: 20 },
    'not a box',
    null,
    { x: 20, y: 20, width: 40, height: 20 },
  ]);
  assert.deepEqual(pic.at(17, 30), [0xdd, 0, 0], 'the valid box is drawn');
  assert.deepEqual(pic.at(12, 15), [0xff, 0xff, 0xff], 'the others are not');
  // A box covering everything (±1e308) is clamped to the picture: its outline runs just outside the edges.
  const huge = await drawn([{ x: -1e308, y: -1e308, width: 1e308 * 1.5, height: 1e308 * 1.5 }]);
  assert.deepEqual(huge.at(100, 50), [0xff, 0xff, 0xff]);
});

it('svgRect and svgLabel write only finite numbers and escaped text into the SVG', () => {
  const bad = { x: 1, y: 2, width: '3" onload="x' as unknown as number, height: 4 };
  assert.equal(svgRect(bad, '#000'), '');
  assert.equal(svgRect({ x: Number.NaN, y: 0, width: 1, height: 1 }, '#000'), '');
  assert.equal(svgLabel(Number.POSITIVE_INFINITY, 0, 'x'), '');
  const label = svgLabel(1, 2, '</text><rect/>', '"red');
  assert.ok(!label.includes('<rect'), label);
  assert.match(label, /&lt;\/text&gt;&lt;rect\/&gt;/);
  assert.match(
    svgRect({ x: 1e308, y: 0, width: 1, height: 1 }, 'red" onload="x'),
    /^<rect x="100000" y="0" width="1" height="1" fill="none" stroke="red&quot; onload=&quot;x"/,
  );
  assert.deepEqual(boxInImage({ x: -5, y: 90, width: 300, height: 50 }, 200, 100), { x: 0, y: 90, width: 200, height: 10 });
  assert.equal(boxInImage({ x: 10, y: 10, width: '5', height: 5 }, 200, 100), null);
  assert.equal(boxInImage({ x: 250, y: 10, width: 5, height: 5 }, 200, 100), null);
});
