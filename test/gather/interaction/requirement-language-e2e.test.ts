/**
 * The requirement-test language in the real browser on fixtures/requirement-tests/language/ (tests in
 * language.jsonl): for each addition a working page passes every test of its requirement, and a copy broken in
 * one way fails exactly the tests that defect touches, with a reason that says what was seen.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadRequirements } from '../../../core/requirements.js';
import type { RequirementTestResult, RequirementTestsEvidence } from '../../../core/requirement-tests.js';
import { Scorer } from '../../../runner/score.js';
import { fixture } from '../../helpers.js';

const reqs = loadRequirements(fixture('requirement-tests', 'language.jsonl'));
const scorer = new Scorer({ suite: 'extended', only: ['requirement-tests'], budgetMs: 90_000, network: { mode: 'offline' }, judge: undefined });
after(() => scorer.close());

async function run(page: string, req: string): Promise<RequirementTestResult[]> {
  const requirement = reqs.find((r) => r.id === req)!;
  const { evidence } = await scorer.scoreWithEvidence(fixture('requirement-tests', 'language', `${page}.html`), { requirement });
  assert.ok(evidence.requirementTests?.ok, JSON.stringify(evidence.requirementTests));
  return (evidence.requirementTests as { value: RequirementTestsEvidence }).value.results;
}

const show = (rs: RequirementTestResult[]) =>
  JSON.stringify(rs.map((r) => ({ id: r.id, passed: r.passed, reason: r.reason, found: r.expectations.map((e) => e.found) })));
const failing = (rs: RequirementTestResult[]) =>
  rs
    .filter((r) => r.passed !== true)
    .map((r) => r.id)
    .sort();

/** [requirement, working page, broken page, the tests it fails, one of them, what its reason says]. */
const CASES: Array<[string, string, string, string[], string, RegExp]> = [
  [
    'flower',
    'flower',
    'flower-static',
    ['animated-style', 'animates', 'blooms-since', 'petal-grows'],
    'animates',
    /expected screen moving .*; found 0 of 1024000 pixels changed in 500 ms/,
  ],
  [
    'flower',
    'flower',
    'flower-throws',
    ['no-errors'],
    'no-errors',
    /expected no uncaught errors \(start-up included\); found TypeError: Cannot read properties of undefined \(reading 'length'\)/,
  ],
  ['flower-rest', 'flower-static', 'flower', ['still', 'unchanged'], 'still', /expected screen still .*; found \d+ of 1024000 pixels changed in 500 ms/],
  ['svg-sun', 'svg-sun', 'svg-sun-static', ['boat-arrives', 'boat-sails', 'moves'], 'boat-sails', /expected css "#boat" changed; found unchanged/],
  [
    'game',
    'game',
    'game-no-jump',
    ['jump', 'jump-differs', 'run-jump', 'steps-then-jump'],
    'jump',
    /expected #ff6b35 covers ≥ 0.001 of css "canvas" \[0, 0 \+ 1×0.6 of it\]; found #ff6b35 covers 0.000/,
  ],
  ['cloth', 'cloth', 'cloth-no-cut', ['cut'], 'cut', /expected the number in css "#count" < the before read; found 1856 \(before was 1856\): not < 1856/],
  [
    'logo',
    'logo',
    'logo-fixed',
    ['adapts', 'adapts-any', 'adapts-covers'],
    'adapts',
    /expected box of css "#logo" inside the viewport; found .* in a 600×400 viewport: not inside/,
  ],
  [
    'hud',
    'hud',
    'hud-no-score',
    ['score-up', 'shows-ten', 'ten-approx'],
    'score-up',
    /expected the number in css "canvas" \(OCR\) \[0, 0 \+ 300×60\] > the s0 read; found 0 \(s0 was 0\): not > 0/,
  ],
  ['worker', 'worker', 'worker-once', ['animates'], 'animates', /expected canvas moving .*; found 0 of 480000 pixels changed in 500 ms/],
  ['inputs', 'inputs', 'inputs-no-menu', ['right-click'], 'right-click', /expected "Menu opened" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-middle', ['middle-click'], 'middle-click', /expected "Middle click" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-hold', ['hold'], 'hold', /expected "Held" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-at', ['at'], 'at', /expected "Clicked top-left" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-stroke', ['stroke'], 'stroke', /expected "\/Drawn a stroke of .+ points\/" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-tap', ['swipe', 'tap'], 'tap', /expected "Tapped" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-swipe', ['swipe'], 'swipe', /expected "Swiped left" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-chord', ['chord'], 'chord', /expected "Run and jump" visible; found not shown/],
  ['inputs', 'inputs', 'inputs-no-modifiers', ['ctrl-click'], 'ctrl-click', /expected "Ctrl-clicked" visible; found not shown/],
  [
    'flower',
    'flower',
    'flower-aside',
    ['centred'],
    'centred',
    /expected box of css "\.core" at the center; found 252,330 60×60 in a 1280×800 viewport: inside, covering 0.004, centre at the left/,
  ],
  [
    'svg-sun',
    'svg-sun',
    'svg-sun-no-sea',
    ['sea'],
    'sea',
    /expected the main colour of screen \[0, 0.8 \+ 1×0.2 of it\] is #1e5f8c; found main colour #e9c46a \(100 % of 1280×160\)/,
  ],
];

describe('the requirement-test language on its fixtures', () => {
  const working = new Map<string, Promise<RequirementTestResult[]>>();
  for (const [req, good, bad, fails, named, reason] of CASES) {
    it(`${req}: ${good} passes every test; ${bad} fails exactly ${fails.join(', ')}, saying what it saw`, async () => {
      const key = `${req}/${good}`;
      if (!working.has(key)) working.set(key, run(good, req));
      const ok = await working.get(key)!;
      assert.deepEqual(failing(ok), [], show(ok));
      const broken = await run(bad, req);
      assert.deepEqual(failing(broken), fails, show(broken));
      const first = broken.find((r) => r.id === named)!;
      assert.equal(first.passed, false);
      assert.match(first.reason!, reason);
    });
  }

  it('a game without a start screen passes the same tests: the optional Start click is skipped and named', async () => {
    const rs = await run('game-no-start-screen', 'game');
    assert.deepEqual(failing(rs), [], show(rs));
    const jump = rs.find((r) => r.id === 'jump')!;
    assert.equal(jump.steps[0]!.skipped, true);
    assert.match(jump.steps[0]!.note!, /skipped: "\/\^\(start\|play\)\/" found nothing/);
  });

  it('observing tests share one restore (named), the others restore their own; results stay in file order', async () => {
    const rs = await run('flower', 'flower');
    assert.deepEqual(
      rs.map((r) => [r.id, r.sharedWith ?? null]),
      [
        ['animates', null],
        ['petals', 'animates'],
        ['centred', 'animates'],
        ['no-errors', 'animates'],
        ['blooms-since', 'animates'],
        ['petal-grows', 'animates'],
        ['animated-style', 'animates'],
      ],
    );
    const game = await run('game', 'game');
    assert.ok(game.every((r) => r.sharedWith === undefined));
  });

  it('a test over its time limit is not run to the end (not failed), and the next test still runs', async () => {
    const requirement = {
      id: 'slow',
      requirement: 'x',
      tests: [
        { id: 'long', timeLimit: 600, steps: [{ wait: 2000, real: true }], expect: [{ noErrors: true as const }] },
        { id: 'after', steps: [], expect: [{ visible: 'Input lab' }] },
      ],
    };
    const { evidence } = await scorer.scoreWithEvidence(fixture('requirement-tests', 'language', 'inputs.html'), { requirement });
    const rs = (evidence.requirementTests as { value: RequirementTestsEvidence }).value.results;
    assert.equal(rs[0]!.passed, null, show(rs));
    assert.match(rs[0]!.reason!, /over its time limit of 0.6 s/);
    assert.equal(rs[1]!.passed, true, show(rs));
  });
});
