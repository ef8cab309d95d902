import assert from 'node:assert/strict';
import interactionErrors from '../../../metrics/interaction/interaction-errors.js';
import { testMetric } from '../../metric-tester.js';
import { action, control, interactionEvidence, recorded } from './synthetic.js';

const err = (message: string, kind: 'exception' | 'console' | 'unhandled-rejection' = 'exception') => ({ kind, message });

testMetric(interactionErrors, [
  {
    name: 'recorded: the button that throws is named with its error; 2 of 3 actions clean',
    html: '<p>x</p>',
    evidence: { interaction: recorded('throws') },
    near: [66.67, 0.01],
    details: (d) => {
      const e = (d.errors as Array<{ action: string; errors: Array<{ message: string }> }>)[0]!;
      assert.match(e.action, /Load settings/);
      assert.match(e.errors[0]!.message, /Cannot read properties of null/);
    },
  },
  { name: 'recorded: the todo app raises nothing', html: '<p>x</p>', evidence: { interaction: recorded('todo') }, score: 100 },
  {
    name: '100 × clean actions / actions; several errors of one action count once',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0), control(1), control(2), control(3)],
        actions: [action(0, ['dom']), action(1, [], { errors: [err('a'), err('b'), err('c', 'console')] }), action(2), action(3)],
      }),
    },
    score: 75,
  },
  {
    name: 'filling the form counts as one action, with its errors',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0)],
        actions: [action(0, ['dom'])],
        filled: ['#a = test'],
        fillErrors: [err('input handler broke')],
      }),
    },
    score: 50,
  },
  {
    name: 'a hang is an error of its action',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0), control(1)],
        actions: [action(0, ['dom']), action(1, [], { outcome: 'hung', errors: [err('the page stopped responding after this action')] })],
      }),
    },
    score: 50,
  },
  {
    name: "errors a refused request causes are webgrade's doing: not counted, listed",
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0), control(1)],
        actions: [
          action(0, ['request'], {
            refused: ['https://api.example.com/x'],
            errors: [
              err('TypeError: Failed to fetch', 'unhandled-rejection'),
              err("Access to fetch at 'https://api.example.com/x' has been blocked by CORS policy", 'console'),
              err('Error: HTTP error! status: 403', 'console'),
            ],
          }),
          action(1, ['dom']),
        ],
      }),
    },
    score: 100,
    details: (d) => assert.equal((d.notCounted as unknown[]).length, 3),
  },
  {
    name: 'the same network-shaped error without a refused request counts',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ controls: [control(0)], actions: [action(0, [], { errors: [err('TypeError: Failed to fetch')] })] }) },
    score: 0,
  },
  {
    name: 'not-found and timed-out actions are not counted',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0), control(1)],
        actions: [action(0, ['dom']), action(1, [], { outcome: 'timeout', errors: [err('x')] })],
      }),
    },
    score: 100,
  },
  { name: 'unscorable when nothing was acted on', html: '<p>x</p>', evidence: { interaction: interactionEvidence({}) }, unscorable: /nothing was acted on/ },
]);
