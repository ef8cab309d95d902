/**
 * `webgrade tests check` and the language's JSON Schema: every malformed case of the table is caught with its line
 * number and a message naming the part; every valid case (the floor's kinds and every addition) passes both the
 * parser and the schema (Ajv), so the schema editors use says what the runner accepts.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkRequirementsText, schemaProblems } from '../../core/requirement-tests-file.js';
import { parseTests } from '../../core/requirement-tests.js';
import { fixture, runCli, tempDir } from '../helpers.js';

const line = (tests: unknown) => JSON.stringify({ id: 'r', requirement: 'A page.', tests });
const test = (steps: unknown[], expect: unknown[] = [{ noErrors: true }]) => [{ id: 't', steps, expect }];

/** Tests the language accepts: every step and expectation kind and option. */
const VALID: Array<[string, unknown]> = [
  [
    'click with a button, modifiers, a point and a hold',
    test([{ click: 'Pad', button: 'right', modifiers: ['Shift', 'Alt'], at: { fx: 0.2, fy: 0.8 }, hold: 500 }]),
  ],
  ['a drag with Shift from a point by an offset', test([{ drag: { css: 'canvas' }, at: { x: 10, y: 20 }, to: { dx: 300, dy: 0 }, modifiers: ['Shift'] }])],
  [
    'a mouse sequence',
    test([{ mouse: [{ down: { fx: 0.1, fy: 0.5 } }, { move: { x: 200, y: 40 }, steps: 5 }, { wait: 100 }, { up: true }], on: { css: '#pad' } }]),
  ],
  [
    'keys together, touch, swipe',
    test([
      { keys: ['ArrowRight', ' '], hold: 300 },
      { touch: 'Pad', hold: 200 },
      { swipe: 'Pad', to: { dx: -100, dy: 0 } },
    ]),
  ],
  [
    'resize, real wait, waitUntil, repeat, try, optional, named',
    test(
      [
        { resize: { width: 600, height: 400 } },
        { wait: 500, real: true },
        { waitUntil: { visible: 'Ready' }, within: 3000 },
        { repeat: 3, steps: [{ press: ' ' }] },
        { try: [{ click: '/start|play/' }] },
        { click: 'Maybe', optional: true, name: 'after' },
      ],
      [{ changed: 'screen', since: 'after' }],
    ),
  ],
  [
    'read and compare numbers',
    test(
      [
        { read: { css: '#score' }, as: 'before' },
        { read: 'screen', ocr: true, region: { x: 0, y: 0, width: 200, height: 40 }, as: 'hud' },
      ],
      [
        { number: { css: '#score' }, gt: 'before' },
        { number: { css: 'canvas' }, ocr: true, approx: 'hud', tolerance: 2 },
        { number: '#n', lt: 10, eq: 3 },
      ],
    ),
  ],
  [
    'motion, geometry, style, pixels, OCR, anyOf',
    test(
      [],
      [
        { moving: 'screen', over: 300 },
        { still: { css: '#logo' } },
        { unchanged: 'page' },
        { box: '#logo', inside: true, covers: 0.1, at: 'top-left' },
        { style: 'Title', property: 'color', is: 'red' },
        { pixels: { css: 'canvas' }, region: { fx: 0, fy: 0, fw: 0.5, fh: 0.5 }, dominant: '#000' },
        { pixels: 'screen', color: 'orange', min: 0.01, max: 0.5, tolerance: 30 },
        { pixels: 'screen', region: { fx: 0, fy: 0, fw: 0.5, fh: 1 }, differs: { fx: 0.5, fy: 0, fw: 0.5, fh: 1 } },
        { ocr: '/game over/', in: { css: 'canvas' } },
        { anyOf: [{ visible: 'Won' }, { visible: 'Lost' }] },
      ],
    ),
  ],
  ['timeLimit and fresh', [{ id: 't', steps: [], expect: [{ noErrors: true }], timeLimit: 3000, fresh: true }]],
  [
    'the floor: every SPEC kind',
    [
      {
        id: 'f',
        steps: [
          { click: 'A' },
          { dblclick: { role: 'button', name: 'B' } },
          { hover: { text: 'C', nth: 2 } },
          { type: { label: 'D' }, text: 'x' },
          { press: 'Enter', hold: 100 },
          { select: { placeholder: 'E' }, option: 'o' },
          { check: 'F' },
          { uncheck: 'G' },
          { drag: 'H', to: 'I' },
          { wait: 100 },
          { reload: true },
        ],
        expect: [
          { visible: 'a' },
          { hidden: 'b' },
          { count: { css: 'li' }, min: 1 },
          { value: 'D', is: 'x' },
          { value: 'D', matches: '^x' },
          { url: '#/' },
          { storage: 'k' },
          { changed: 'canvas' },
          { changed: 'page' },
          { changed: 'A' },
          { noErrors: true },
        ],
      },
      { id: 'n', task: 'Do it.', expected: 'Done.' },
    ],
  ],
];

/** Malformed tests, with what the error must say (after `reqs.jsonl:<line>: `). */
const INVALID: Array<[string, unknown, RegExp]> = [
  ['an unknown step', test([{ tap: 'A' }]), /test "t" step 1: unknown step/],
  ['an unknown key in a step', test([{ click: 'A', button: 'left', force: true }]), /step 1: unexpected key "force" in a click step/],
  ['an unknown key in an expectation', test([], [{ visible: 'A', exact: true }]), /expectation 1: unexpected key "exact" in a visible expectation/],
  ['an unknown key in a test', [{ id: 't', steps: [], expect: [{ noErrors: true }], retries: 2 }], /test "t": unexpected key "retries" in a scripted test/],
  ['an unknown locator key', test([{ click: { txt: 'A' } }]), /unknown locator key "txt"/],
  ['a locator with two ways', test([{ click: { text: 'A', css: 'b' } }]), /exactly one of text, label, placeholder, role, css/],
  ['a bad regular expression in a locator', test([{ click: '/(/' }]), /\/\(\/ is not a valid regular expression/],
  ['a bad regular expression in visible', test([], [{ visible: '/[a-/' }]), /\/\[a-\/ is not a valid regular expression/],
  ['a bad regular expression in OCR', test([], [{ ocr: '/(score/' }]), /is not a valid regular expression/],
  ['a bad value pattern', test([], [{ value: 'A', matches: '(' }]), /\/\(\/ is not a valid regular expression/],
  ['a CSS selector that does not parse', test([{ click: { css: 'div[' } }]), /css "div\[" is not a valid selector/],
  ['a bad button', test([{ click: 'A', button: 'back' }]), /"button" is one of left, right, middle/],
  ['a bad modifier', test([{ drag: 'A', to: { dx: 1, dy: 1 }, modifiers: ['Ctrl'] }]), /"modifiers" is a list of Shift, Control, Alt, Meta/],
  ['a point with a fraction over 1', test([{ click: 'A', at: { fx: 1.5, fy: 0 } }]), /"fx" must be a number between 0 and 1/],
  ['a point of the wrong shape', test([{ click: 'A', at: { x: 1 } }]), /"at" is a point/],
  ['a region without size', test([], [{ pixels: 'screen', region: { x: 0, y: 0, width: 0, height: 5 }, dominant: '#fff' }]), /"region" is a region/],
  ['a pixels expectation with two ways', test([], [{ pixels: 'screen', dominant: '#fff', color: '#000', min: 0.1 }]), /exactly one of "dominant", "color"/],
  ['a colour share without bounds', test([], [{ pixels: 'screen', color: '#000' }]), /"color" needs "min" or "max"/],
  ['a colour that is not one', test([], [{ pixels: 'screen', dominant: 'blurple' }]), /"dominant" must be a CSS colour/],
  ['a mouse move of the wrong kind', test([{ mouse: [{ press: { x: 1, y: 1 } }] }]), /move 1: a move is/],
  ['an empty mouse sequence', test([{ mouse: [] }]), /"mouse" is a list of 1–50 moves/],
  ['a resize too small', test([{ resize: { width: 100, height: 400 } }]), /"resize" is \{"width", "height"\}/],
  ['a repeat of 0', test([{ repeat: 0, steps: [{ press: ' ' }] }]), /"repeat" must be a whole number from 1 to 100/],
  ['a bad step inside a try', test([{ try: [{ click: '' }] }]), /step 1\.1: an empty locator/],
  ['a waitUntil with a bad expectation', test([{ waitUntil: { count: 'li' } }]), /waitUntil: a count needs "min" or "max"/],
  [
    'a since that names no step',
    test([{ click: 'A' }], [{ changed: 'screen', since: 'later' }]),
    /"since" names "later", which no earlier step has as its "name"/,
  ],
  [
    'a step name used twice',
    test([
      { click: 'A', name: 'x' },
      { click: 'B', name: 'x' },
    ]),
    /the step name "x" is used twice/,
  ],
  ['a number compared with a name never read', test([], [{ number: '#n', gt: 'score' }]), /"gt" names "score", which no earlier read step gives/],
  ['a number without a comparison', test([], [{ number: '#n' }]), /needs "gt", "lt", "eq" or "approx"/],
  ['a tolerance without approx', test([{ read: '#n', as: 'n' }], [{ number: '#n', gt: 'n', tolerance: 1 }]), /"tolerance" goes with "approx"/],
  ['a screen read without OCR', test([{ read: 'screen', as: 'n' }]), /reading "screen" needs "ocr": true/],
  ['a read without a name', test([{ read: '#n' }]), /a read step needs "as"/],
  ['moving over less than a frame', test([], [{ moving: 'screen', over: 5 }]), /"over" must be at least 16 ms/],
  ['a box without a question', test([], [{ box: '#a' }]), /needs "inside", "covers" or "at"/],
  ['a box at an unknown place', test([], [{ box: '#a', at: 'middle' }]), /"at" is one of top-left/],
  ['a style without a property', test([], [{ style: '#a', is: '1' }]), /a style expectation needs "property"/],
  ['an anyOf that is empty', test([], [{ anyOf: [] }]), /"anyOf" is a list of 1–10 expectations/],
  ['a time limit too short', [{ id: 't', steps: [], expect: [{ noErrors: true }], timeLimit: 10 }], /"timeLimit" must be real milliseconds/],
  ['no expectation', [{ id: 't', steps: [{ click: 'A' }], expect: [] }], /test "t": needs "expect" \(a non-empty list\)/],
  ['type without text', test([{ type: 'Name' }]), /step 1: a type step needs "text"/],
  ['a negative wait', test([{ wait: -1 }]), /"wait" must be milliseconds/],
  ['a natural test without expected', [{ id: 't', task: 'Do it' }], /test "t": a natural-language test needs "expected"/],
  [
    'duplicate ids',
    [
      { id: 'a', task: 'x', expected: 'y' },
      { id: 'a', task: 'x', expected: 'y' },
    ],
    /duplicate id "a"/,
  ],
  ['tests not a list', { id: 't' }, /"tests" must be a list/],
];

describe('tests check and the JSON Schema', () => {
  for (const [name, tests] of VALID) {
    it(`accepts ${name} (parser and schema)`, () => {
      assert.doesNotThrow(() => parseTests(tests));
      assert.deepEqual(schemaProblems(JSON.parse(line(tests))), []);
      assert.deepEqual(checkRequirementsText(line(tests), 'reqs.jsonl').problems, []);
    });
  }

  for (const [name, tests, re] of INVALID) {
    it(`catches ${name}, with the line number`, () => {
      const r = checkRequirementsText(`\n${line([])}\n${line(tests)}\n`, 'reqs.jsonl');
      assert.equal(r.problems.length, 1, r.problems.join('\n'));
      assert.match(r.problems[0]!, /^reqs\.jsonl:3: /);
      assert.match(r.problems[0]!, re);
    });
  }

  it('the schema rejects the structural cases too (what JSON Schema can say)', () => {
    // Regular expressions that compile, selectors that parse, colours, names given before use and ids that repeat
    // are beyond JSON Schema: the parser alone catches them.
    const beyond = /regular expression|selector|CSS colour|names "|used twice|duplicate id/;
    for (const [name, tests, re] of INVALID) {
      if (beyond.test(re.source) || name === 'a colour that is not one') continue;
      assert.notDeepEqual(schemaProblems(JSON.parse(line(tests))), [], name);
    }
  });

  it('every fixture requirements file is clean', () => {
    for (const f of ['reqs.jsonl', 'language.jsonl']) {
      const path = fixture('requirement-tests', f);
      assert.deepEqual(checkRequirementsText(readFileSync(path, 'utf8'), f).problems, [], f);
    }
  });

  it('webgrade tests check prints one line per problem and exits 2; a clean file exits 0', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, [line(test([{ click: '/(/' }])), 'not json', line(test([], [{ moving: 'screen', over: 1 }]))].join('\n') + '\n');
    const r = await runCli(['tests', 'check', bad]);
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 3, r.stdout);
    assert.match(lines[0]!, /bad\.jsonl:1: test "t" step 1: \/\(\/ is not a valid regular expression/);
    assert.match(lines[1]!, /bad\.jsonl:2: not JSON/);
    assert.match(lines[2]!, /bad\.jsonl:3: test "t" expectation 1: "over" must be at least 16 ms/);
    assert.match(r.stderr, /tests check: 2 requirements, 2 tests, 3 problems/);
    const good = await runCli(['tests', 'check', fixture('requirement-tests', 'language.jsonl')]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stderr, /9 requirements, 41 tests, no problems/);
  });
});
