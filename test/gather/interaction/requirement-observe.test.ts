/**
 * When a scripted test lets the page run (OBSERVE) before its expectations are checked: after an action, or when a
 * test without steps compares with its start; after the author's own wait, or of the page as it starts, at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScriptedTest } from '../../../core/requirement-tests.js';
import { needsObserve } from '../../../gather/interaction/requirement-tests/run.js';

const t = (steps: ScriptedTest['steps'], expect: ScriptedTest['expect']): ScriptedTest => ({ id: 'x', steps, expect });

describe('observing the page before the expectations', () => {
  const cases: Array<[string, ScriptedTest, boolean]> = [
    ['a test ending with an action', t([{ click: 'Start' }], [{ visible: 'Score' }]), true],
    ['a wait, then an action', t([{ wait: 500 }, { press: ' ' }], [{ changed: 'canvas' }]), true],
    ['a wait of nothing', t([{ click: 'Go' }, { wait: 0 }], [{ visible: 'Done' }]), true],
    ["an action, then the author's wait", t([{ click: 'Start' }, { wait: 500 }], [{ visible: 'Score' }]), false],
    ['only a wait', t([{ wait: 2000 }], [{ unchanged: 'page' }]), false],
    ['a wait until', t([{ click: 'Go' }, { waitUntil: { visible: 'Done' }, within: 2000 }], [{ noErrors: true }]), false],
    ['a repeat ending with a wait', t([{ repeat: 3, steps: [{ press: 'ArrowUp' }, { wait: 100 }] }], [{ changed: 'screen' }]), false],
    ['a repeat ending with an action', t([{ repeat: 3, steps: [{ wait: 100 }, { press: 'ArrowUp' }] }], [{ changed: 'screen' }]), true],
    ['no steps, an element changed since the start', t([], [{ changed: 'canvas' }]), true],
    ['no steps, the page unchanged', t([], [{ unchanged: 'page' }]), true],
    ['no steps, a comparison inside anyOf', t([], [{ anyOf: [{ visible: 'Go' }, { changed: 'screen' }] }]), true],
    ['no steps, start-up errors', t([], [{ noErrors: true }]), false],
    ['no steps, motion (it samples its own time)', t([], [{ moving: 'screen' }, { still: { css: 'h1' } }]), false],
    [
      'no steps, geometry and pixels',
      t(
        [],
        [
          { box: { css: 'canvas' }, covers: 0.9 },
          { pixels: 'screen', dominant: '#000' },
        ],
      ),
      false,
    ],
  ];
  for (const [name, test, want] of cases) it(`${want ? 'observes' : 'checks at once'}: ${name}`, () => assert.equal(needsObserve(test), want));
});
