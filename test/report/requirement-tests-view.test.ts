/** The report's view of requirement tests: each test of an artifact with its picture, and pass rates across models; hostile fields are dropped. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResultRow } from '../../core/results.js';
import { testRates, testsOf } from '../../report/requirement-tests-view.js';

const row = (model: string, tests: unknown): { model: string; row: ResultRow } => ({
  model,
  row: { model, requirement: 'r', metrics: [{ id: 'requirement-tests', details: { tests } }] } as unknown as ResultRow,
});

describe('requirement tests in the report', () => {
  it('lists each test with its verdict, reason and after-screenshot picture', () => {
    const pic = {
      src: 'img/a/r/requirement-tests-test-jump.png',
      width: 1280,
      height: 800,
      caption: 'test jump failed: expected …; the 1 element acted on boxed',
    };
    const lines = testsOf(
      row('a', [
        { id: 'jump', title: 'Space jumps', passed: false, reason: 'expected x; found y', ms: 900 },
        { id: 'nl', passed: null },
      ]).row,
      [pic],
    );
    assert.deepEqual(lines, [
      { id: 'jump', title: 'Space jumps', passed: false, reason: 'expected x; found y', ms: 900, picture: pic },
      { id: 'nl', passed: null },
    ]);
  });

  it('gives each test its pass rate across models (not-run tests left out of the rate)', () => {
    const rates = testRates([
      row('a', [
        { id: 'jump', passed: true },
        { id: 'run', passed: false, reason: 'no' },
      ]),
      row('b', [
        { id: 'jump', passed: false },
        { id: 'run', passed: null },
      ]),
      row('c', [{ id: 'jump', passed: true }]),
    ]);
    assert.deepEqual(
      rates.map((r) => [r.id, r.passed, r.failed, r.notRun, r.rate]),
      [
        ['jump', 2, 1, 0, 2 / 3],
        ['run', 0, 1, 1, 0],
      ],
    );
    assert.deepEqual(rates[1]!.models, [
      { model: 'a', passed: false, reason: 'no' },
      { model: 'b', passed: null },
    ]);
  });

  it('drops what is not a test (hostile rows): no id, wrong types', () => {
    assert.deepEqual(testsOf(row('a', [null, 3, { passed: true }, { id: 7 }, { id: 'ok', passed: 'yes', reason: {} }]).row), [{ id: 'ok', passed: null }]);
    assert.deepEqual(testsOf(row('a', 'nope').row), []);
  });
});
