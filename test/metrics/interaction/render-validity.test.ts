import assert from 'node:assert/strict';
import renderValidity from '../../../metrics/interaction/render-validity.js';
import { missing } from '../../../core/evidence.js';
import type { FirstView } from '../../../core/browser-evidence.js';
import { testMetric } from '../../metric-tester.js';
import { interactionEvidence, recorded } from './synthetic.js';

const view = (over: Partial<FirstView>): FirstView => ({ elements: 12, textChars: 120, visuals: 0, visualsByKind: { svg: 0, img: 0, canvas: 0, video: 0 }, blankCanvases: 0, interactive: 0, firstPaintMs: 80, errorsBeforeRender: [], loaded: true, ...over });

testMetric(renderValidity, [
  { name: 'a page with text renders: 100', html: '<p>x</p>', evidence: { interaction: interactionEvidence({ firstView: view({}) }) }, score: 100 },
  { name: 'recorded: the todo fixture renders', html: '<p>x</p>', evidence: { interaction: recorded('todo') }, score: 100 },
  { name: 'recorded: the canvas game renders (its canvas drew, plus its text)', html: '<p>x</p>', evidence: { interaction: recorded('canvas-game') }, score: 100, details: (d) => assert.equal((d.visualsByKind as { canvas: number }).canvas, 1) },
  {
    name: 'no text but two visuals renders',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ textChars: 0, visuals: 2, visualsByKind: { svg: 1, img: 1, canvas: 0, video: 0 } }) }) },
    score: 100,
  },
  { name: 'no text but two controls renders', html: '<p>x</p>', evidence: { interaction: interactionEvidence({ firstView: view({ textChars: 5, interactive: 2 }) }) }, score: 100 },
  {
    name: 'fewer than 3 elements: 0, with the count',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ elements: 2 }) }) },
    score: 0,
    details: (d) => assert.match(String((d.failed as string[])[0]), /only 2 elements/),
  },
  {
    name: 'a blank canvas is not a visual: one blank canvas, one image and 10 characters do not render',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ textChars: 10, visuals: 1, visualsByKind: { svg: 0, img: 1, canvas: 0, video: 0 }, blankCanvases: 1 }) }) },
    score: 0,
    details: (d) => assert.match(String((d.failed as string[])[0]), /1 blank canvas not counted/),
  },
  {
    name: 'an uncaught error before the first render fails it even with content',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ errorsBeforeRender: [{ kind: 'exception', message: 'TypeError: app is undefined' }] }) }) },
    score: 0,
    details: (d) => assert.match(String((d.failed as string[])[0]), /uncaught exception before the first render: TypeError/),
  },
  {
    name: 'a missing-library error is excused when a CDN script was withheld',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: view({ errorsBeforeRender: [{ kind: 'exception', message: 'ReferenceError: Chart is not defined' }] }),
        network: [{ phase: 'interaction', method: 'GET', url: 'https://cdn.jsdelivr.net/npm/chart.js', destination: 'script', disposition: 'blocked', withheld: true }],
      }),
    },
    score: 100,
    details: (d) => assert.equal((d.excusedErrors as unknown[]).length, 1),
  },
  {
    name: 'a page that did not respond after load did not render: 0',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: undefined, hung: true, unavailable: { firstView: 'the page did not respond after load (busy main thread)' } }) },
    score: 0,
  },
  { name: 'unscorable when the probe was not run', html: '<p>x</p>', evidence: {}, unscorable: /not run/ },
  { name: 'unscorable with the probe\'s failure', html: '<p>x</p>', evidence: { interaction: missing('no time left') }, unscorable: 'no time left' },
]);
