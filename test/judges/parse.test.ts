import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractJson, validateChecklist, validateCriteria, validateVerdicts, validateVisual } from '../../judges/parse.js';
import { CRITERIA_IDS } from '../../judges/prompts/functionality.js';
import { criteriaJson, verdictsJson, visualJson } from './answers.js';

const ten = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];

function parsed(text: string): Record<string, unknown> {
  const r = extractJson(text);
  assert.ok(r.ok, `not parsed: ${!r.ok && r.error}`);
  return r.value;
}

describe('extractJson (tolerant parse)', () => {
  it('reads a bare JSON object', () => {
    assert.deepEqual(parsed('{"a": 1}'), { a: 1 });
  });
  it('reads a ```json fenced block with prose around it', () => {
    assert.deepEqual(parsed('Here is my rating:\n```json\n{"a": {"b": [1, 2]}}\n```\nHope this helps!'), { a: { b: [1, 2] } });
  });
  it('reads an object followed by trailing text, with braces inside strings', () => {
    assert.deepEqual(parsed('{"reason": "uses { and } in text", "score": 3} — that is all.'), { reason: 'uses { and } in text', score: 3 });
  });
  it('skips a <think> preamble that itself contains braces', () => {
    assert.deepEqual(parsed('<think>maybe {"score": 1}?</think>{"score": 4}'), { score: 4 });
  });
  it('rejects an answer with no JSON object, and an empty answer', () => {
    assert.equal(extractJson('I think it deserves a 7.').ok, false);
    assert.equal(extractJson('').ok, false);
    assert.equal(extractJson('[1, 2, 3]').ok, false);
  });
});

describe('validateCriteria (strict: ten numbers in range)', () => {
  it('accepts exactly the ten criteria and returns them in criteria order', () => {
    const shuffled = JSON.parse(criteriaJson(ten));
    shuffled.criteria.reverse();
    const r = validateCriteria(shuffled, CRITERIA_IDS);
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.criteria.map((c) => c.id),
      CRITERIA_IDS,
    );
    assert.deepEqual(
      r.value.criteria.map((c) => c.score),
      ten,
    );
  });
  it('accepts the object form keyed by criterion id', () => {
    const v = { criteria: Object.fromEntries(CRITERIA_IDS.map((id) => [id, { score: 5, reason: 'x' }])) };
    assert.ok(validateCriteria(v, CRITERIA_IDS).ok);
  });
  const bad: Array<[string, unknown, RegExp]> = [
    ['nine criteria', { criteria: JSON.parse(criteriaJson(ten)).criteria.slice(0, 9) }, /expected 10 criteria, got 9/],
    ['a score above 10', JSON.parse(criteriaJson([11, 9, 8, 7, 6, 5, 4, 3, 2, 1])), /not a number from 0 to 10/],
    ['a negative score', JSON.parse(criteriaJson([-1, 9, 8, 7, 6, 5, 4, 3, 2, 1])), /not a number from 0 to 10/],
    ['a score given as a string', JSON.parse(criteriaJson(ten).replace('"score":10', '"score":"10"')), /not a number/],
    ['an unknown criterion id', JSON.parse(criteriaJson(ten).replace('"completeness"', '"style"')), /unknown criterion id "style"/],
    ['a criterion rated twice', JSON.parse(criteriaJson(ten).replace('"security"', '"completeness"')), /unknown criterion|rated twice/],
    ['no criteria at all', { score: 80 }, /"criteria" is missing/],
  ];
  for (const [name, value, re] of bad) {
    it(`rejects ${name}`, () => {
      const r = validateCriteria(value as Record<string, unknown>, CRITERIA_IDS);
      assert.equal(r.ok, false);
      assert.match((r as { error: string }).error, re);
    });
  }
});

describe('validateVerdicts (exactly one verdict per item, matched to the item)', () => {
  const ids = ['F1', 'F2', 'F3'];
  it('accepts one verdict per item in any order and returns item order', () => {
    const v = JSON.parse(verdictsJson(['F3', 'F1', 'F2'], [true, false, true]));
    const r = validateVerdicts(v, ids);
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.verdicts.map((x) => [x.item, x.passed]),
      [
        ['F1', false],
        ['F2', true],
        ['F3', true],
      ],
    );
  });
  const bad: Array<[string, string, RegExp]> = [
    ['too few verdicts', verdictsJson(['F1', 'F2'], [true, true]), /expected 3 verdicts/],
    ['too many verdicts', verdictsJson(['F1', 'F2', 'F3', 'F4'], [true, true, true, true]), /expected 3 verdicts/],
    ['a verdict for an item not on the checklist', verdictsJson(['F1', 'F2', 'F9'], [true, true, true]), /unknown item "F9"/],
    ['two verdicts for one item', verdictsJson(['F1', 'F1', 'F2'], [true, true, true]), /more than one verdict/],
    ['a verdict that is not a boolean', verdictsJson(['F1', 'F2', 'F3'], [true, true, true]).replace('"passed":true', '"passed":"yes"'), /true or false/],
  ];
  for (const [name, text, re] of bad) {
    it(`rejects ${name}`, () => {
      const r = validateVerdicts(JSON.parse(text), ids);
      assert.equal(r.ok, false);
      assert.match((r as { error: string }).error, re);
    });
  }
});

describe("validateVisual: the study's 0–4 scale with two decimals", () => {
  const cases: Array<{ name: string; score: number; kept: number; rounded: boolean }> = [
    { name: 'a whole number is kept', score: 3, kept: 3, rounded: false },
    { name: 'two decimals are kept as given (3.25)', score: 3.25, kept: 3.25, rounded: false },
    { name: 'one decimal is kept (2.3)', score: 2.3, kept: 2.3, rounded: false },
    { name: 'binary-inexact two decimals are not "rounded" (0.07)', score: 0.07, kept: 0.07, rounded: false },
    { name: 'more than two decimals are rounded to two and said so (3.14159 → 3.14)', score: 3.14159, kept: 3.14, rounded: true },
    { name: 'rounding follows the written decimals (2.675 → 2.68)', score: 2.675, kept: 2.68, rounded: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = validateVisual({ ...JSON.parse(visualJson(2)), score: c.score });
      assert.ok(r.ok);
      assert.equal(r.value.score, c.kept);
      assert.deepEqual(r.value.rounded, c.rounded ? [{ field: 'score', given: c.score, kept: c.kept }] : undefined);
    });
  }
  it('4.001 is outside the scale: rejected, not clamped or rounded into it', () => {
    assert.equal(validateVisual({ ...JSON.parse(visualJson(2)), score: 4.001 }).ok, false);
  });
});

describe('validateVisual and validateChecklist', () => {
  it('accepts a 0–4 rating with its four aspects', () => {
    const r = validateVisual(JSON.parse(visualJson(3)));
    assert.ok(r.ok);
    assert.equal(r.value.score, 3);
  });
  it('rejects a rating of 5 and a missing aspect', () => {
    assert.match((validateVisual(JSON.parse(visualJson(5))) as { error: string }).error, /"score" 5/);
    const v = JSON.parse(visualJson(2));
    delete v.hierarchy;
    assert.match((validateVisual(v) as { error: string }).error, /"hierarchy"/);
  });
  it('accepts three lists of strings with at least one item, and rejects an empty checklist', () => {
    assert.ok(validateChecklist({ functional: ['Adds a task'], visual: [], content: [] }).ok);
    assert.equal(validateChecklist({ functional: [], visual: [], content: [] }).ok, false);
    assert.equal(validateChecklist({ functional: ['x'], visual: [] }).ok, false);
    assert.equal(validateChecklist({ functional: [''], visual: [], content: [] }).ok, false);
  });
});
