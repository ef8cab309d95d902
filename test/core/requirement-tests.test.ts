/** The `tests` of a requirement line (SPEC "Requirement tests"): what is accepted, and one-line errors naming the line and the part. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStep, parseTests } from '../../core/requirement-tests.js';
import { parseRequirementsJsonl } from '../../core/requirements.js';
import { InputError } from '../../core/errors.js';

const line = (tests: unknown) => JSON.stringify({ id: 'r', requirement: 'A list.', tests });
const error = (tests: unknown): string => {
  try {
    parseRequirementsJsonl(`\n${line(tests)}\n`, 'reqs.jsonl');
  } catch (err) {
    assert.ok(err instanceof InputError);
    assert.ok(!err.message.includes('\n'));
    return err.message;
  }
  assert.fail('accepted');
};

describe('requirement tests format', () => {
  it('reads scripted tests with every step and expectation kind, and natural-language tests', () => {
    const tests = parseTests([
      {
        id: 'all',
        title: 'every kind',
        steps: [
          { click: 'Add' },
          { dblclick: '/^item \\d+$/' },
          { hover: { role: 'button', name: 'Menu' } },
          { type: { label: 'Email' }, text: 'a@b.co' },
          { press: 'Enter' },
          { press: 'ArrowLeft', hold: 500 },
          { select: { css: '#size' }, option: 'Large' },
          { check: 'Agree' },
          { uncheck: { text: 'News', nth: 2 } },
          { drag: 'Card', to: 'Done' },
          { drag: 'Slider', to: { dx: 40, dy: 0 } },
          { wait: 1000 },
          { reload: true },
        ],
        expect: [
          { visible: 'Saved' },
          { hidden: 'Error' },
          { count: { css: 'li' }, min: 2, max: 3 },
          { value: { placeholder: 'Search' }, is: '' },
          { value: 'Total', matches: '\\d+' },
          { url: '#/done' },
          { storage: 'todos' },
          { changed: 'canvas' },
          { changed: { css: '#board' } },
          { noErrors: true },
        ],
      },
      { id: 7, task: 'Add an item', expected_result: 'It is listed' },
    ]);
    assert.equal(tests.length, 2);
    assert.deepEqual(tests[1], { id: '7', task: 'Add an item', expected: 'It is listed' });
    const steps = (tests[0] as { steps: Parameters<typeof describeStep>[0][] }).steps;
    assert.equal(describeStep(steps[3]!), 'type "a@b.co" into label "Email"');
    assert.equal(describeStep(steps[10]!), 'drag "Slider" to (40, 0)');
    assert.equal(describeStep(steps[8]!), 'uncheck text "News" #2');
  });

  it('names the space bar "Space" in a step, alone or with other keys', () => {
    assert.equal(describeStep({ press: ' ' }), 'press Space');
    assert.equal(describeStep({ press: ' ', hold: 200 }), 'press Space for 200 ms');
    assert.equal(describeStep({ keys: ['ArrowRight', ' '] }), 'press ArrowRight+Space together');
    assert.equal(describeStep({ press: 'Enter' }), 'press Enter');
  });

  it('the requirement line keeps its tests', () => {
    const [r] = parseRequirementsJsonl(line([{ id: 't', steps: [], expect: [{ noErrors: true }] }]), 'reqs.jsonl');
    assert.equal(r!.tests!.length, 1);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['not a list', { id: 't' }, /reqs\.jsonl:2: "tests" must be a list/],
    ['no id', [{ steps: [], expect: [] }], /reqs\.jsonl:2: tests\[0\]: missing "id"/],
    [
      'duplicate ids',
      [
        { id: 'a', task: 'x', expected: 'y' },
        { id: 'a', task: 'x', expected: 'y' },
      ],
      /duplicate id "a"/,
    ],
    ['no expectation', [{ id: 't', steps: [{ click: 'A' }], expect: [] }], /test "t": needs "expect" \(a non-empty list\)/],
    ['an unknown step', [{ id: 't', steps: [{ tap: 'A' }], expect: [{ noErrors: true }] }], /test "t" step 1: unknown step/],
    ['type without text', [{ id: 't', steps: [{ type: 'Name' }], expect: [{ noErrors: true }] }], /step 1: a type step needs "text"/],
    ['a bad regular expression', [{ id: 't', steps: [{ click: '/(/' }], expect: [{ noErrors: true }] }], /\/\(\/ is not a valid regular expression/],
    [
      'a locator with two ways',
      [{ id: 't', steps: [{ click: { text: 'A', css: 'b' } }], expect: [{ noErrors: true }] }],
      /exactly one of text, label, placeholder, role, css/,
    ],
    ['nth 0', [{ id: 't', steps: [{ click: { text: 'A', nth: 0 } }], expect: [{ noErrors: true }] }], /"nth" must be a whole number ≥ 1/],
    ['a count without bounds', [{ id: 't', steps: [], expect: [{ count: 'li' }] }], /expectation 1: a count needs "min" or "max"/],
    ['a value with both', [{ id: 't', steps: [], expect: [{ value: 'A', is: 'x', matches: 'y' }] }], /needs "is" or "matches"/],
    ['a negative wait', [{ id: 't', steps: [{ wait: -1 }], expect: [{ noErrors: true }] }], /"wait" must be milliseconds/],
    ['a natural test without expected', [{ id: 't', task: 'Do it' }], /test "t": a natural-language test needs "expected"/],
  ];
  for (const [name, tests, re] of bad) {
    it(`rejects ${name} with one line naming the line`, () => assert.match(error(tests), re));
  }
});
