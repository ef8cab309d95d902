import assert from 'node:assert/strict';
import renderValidity from '../../../metrics/interaction/render-validity.js';
import { missing } from '../../../core/evidence.js';
import type { FirstView, PixelReading, ScreenReading, VisualBox } from '../../../core/browser-evidence.js';
import { testMetric } from '../../metric-tester.js';
import { interactionEvidence, recorded } from './synthetic.js';

const view = (over: Partial<FirstView>): FirstView => ({
  elements: 12,
  textChars: 120,
  visuals: 0,
  visualsByKind: { svg: 0, img: 0, canvas: 0, video: 0 },
  blankCanvases: 0,
  interactive: 0,
  firstPaintMs: 80,
  errorsBeforeRender: [],
  loaded: true,
  ...over,
});

const px = (content: number, colours: number, edges: number): PixelReading => ({ content, colours, edges });
const screen = (whole: PixelReading, visuals: Array<PixelReading & { share: number }> = []): ScreenReading => ({
  ...whole,
  width: 1280,
  height: 800,
  background: '#000000',
  visuals,
});
const fullCanvas = (drawn: boolean): VisualBox => ({ kind: 'canvas', x: 0, y: 0, width: 1280, height: 800, drawn });
/** A first view of one full-screen canvas and nothing else (2 elements, no text). */
const canvasOnly = (drawn: boolean, region: PixelReading): FirstView =>
  view({
    elements: 2,
    textChars: 0,
    visuals: drawn ? 1 : 0,
    visualsByKind: { svg: 0, img: 0, canvas: drawn ? 1 : 0, video: 0 },
    blankCanvases: drawn ? 0 : 1,
    visualBoxes: [fullCanvas(drawn)],
    screen: screen(region, [{ ...region, share: 1 }]),
  });

testMetric(renderValidity, [
  { name: 'a page with text renders: 100', html: '<p>x</p>', evidence: { interaction: interactionEvidence({ firstView: view({}) }) }, score: 100 },
  { name: 'recorded: the todo fixture renders', html: '<p>x</p>', evidence: { interaction: recorded('todo') }, score: 100 },
  {
    name: 'recorded: the canvas game renders (its canvas drew, plus its text)',
    html: '<p>x</p>',
    evidence: { interaction: recorded('canvas-game') },
    score: 100,
    details: (d) => assert.equal((d.visualsByKind as { canvas: number }).canvas, 1),
  },
  {
    name: 'no text but two visuals renders',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ textChars: 0, visuals: 2, visualsByKind: { svg: 1, img: 1, canvas: 0, video: 0 } }) }) },
    score: 100,
  },
  {
    name: 'no text but two controls renders',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ textChars: 5, interactive: 2 }) }) },
    score: 100,
  },
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
    evidence: {
      interaction: interactionEvidence({
        firstView: view({ textChars: 10, visuals: 1, visualsByKind: { svg: 0, img: 1, canvas: 0, video: 0 }, blankCanvases: 1 }),
      }),
    },
    score: 0,
    details: (d) => assert.match(String((d.failed as string[])[0]), /1 blank canvas not counted/),
  },
  {
    name: 'an uncaught error before the first render fails it even with content',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({ firstView: view({ errorsBeforeRender: [{ kind: 'exception', message: 'TypeError: app is undefined' }] }) }),
    },
    score: 0,
    details: (d) => assert.match(String((d.failed as string[])[0]), /uncaught exception before the first render: TypeError/),
  },
  {
    name: 'a missing-library error is excused when a CDN script was withheld',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: view({ errorsBeforeRender: [{ kind: 'exception', message: 'ReferenceError: Chart is not defined' }] }),
        network: [
          { phase: 'interaction', method: 'GET', url: 'https://cdn.jsdelivr.net/npm/chart.js', destination: 'script', disposition: 'blocked', withheld: true },
        ],
      }),
    },
    score: 100,
    details: (d) => assert.equal((d.excusedErrors as unknown[]).length, 1),
  },
  {
    name: 'a page that did not respond after load did not render: 0',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: undefined,
        hung: true,
        unavailable: { firstView: 'the page did not respond after load (busy main thread)' },
      }),
    },
    score: 0,
  },
  {
    name: 'recorded: a full-screen WebGL scene without text renders by what shows',
    html: '<p>x</p>',
    evidence: { interaction: recorded('webgl-scene') },
    score: 100,
    details: (d) => {
      assert.equal(d.ui2app, false);
      assert.match(String(d.scene), /a canvas covering 100\.0 % of the viewport shows a drawing/);
      // not read back (a WebGL canvas): counted from the screenshot
      assert.equal(d.canvasesShownOnScreen, 1);
      assert.equal(d.visuals, 1);
    },
  },
  {
    name: 'recorded: a full-screen 2D canvas scene without text renders',
    html: '<p>x</p>',
    evidence: { interaction: recorded('canvas-scene') },
    score: 100,
    details: (d) => assert.equal(d.ui2app, false),
  },
  { name: 'recorded: fireworks on black (sparse pixels) render', html: '<p>x</p>', evidence: { interaction: recorded('canvas-spawn') }, score: 100 },
  {
    name: 'recorded: an animation with one button and a short label renders',
    html: '<p>x</p>',
    evidence: { interaction: recorded('restart-animation') },
    score: 100,
  },
  {
    name: 'recorded: a canvas whose script throws before drawing does not render',
    html: '<p>x</p>',
    evidence: { interaction: recorded('canvas-throws') },
    score: 0,
    details: (d) => {
      assert.ok((d.failed as string[]).some((f) => /the screen shows no scene: 0\.00 % of the viewport off its background/.test(f)));
      assert.ok((d.failed as string[]).some((f) => /uncaught exception before the first render: .*makeSpiralArms/.test(f)));
    },
  },
  {
    name: 'a canvas that reads back blank but shows a drawing on screen counts as a visual (a WebGL buffer not preserved)',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: { ...canvasOnly(false, px(0.4, 60, 0.02)), elements: 5, visuals: 1, visualsByKind: { svg: 0, img: 1, canvas: 0, video: 0 } },
      }),
    },
    score: 100,
    details: (d) => {
      assert.equal(d.canvasesShownOnScreen, 1);
      assert.equal(d.visuals, 2);
      assert.equal(d.ui2app, true);
    },
  },
  {
    name: 'a blank full-screen canvas (one colour on screen) does not render',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: canvasOnly(false, px(0, 1, 0)) }) },
    score: 0,
    details: (d) =>
      assert.match(String((d.failed as string[]).at(-1)), /the screen shows no scene: 0\.00 % of the viewport off its background #000000, 1 colours/),
  },
  {
    name: 'a WebGL canvas (not read back) whose region of the screenshot is one colour is a blank canvas',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: { ...canvasOnly(false, px(0, 1, 0)), blankCanvases: 0, visualBoxes: [{ kind: 'canvas', x: 0, y: 0, width: 1280, height: 800 }] },
      }),
    },
    score: 0,
    details: (d) => assert.equal(d.blankCanvases, 1),
  },
  {
    name: 'a canvas that drew a few faint colours only (under 8) is not a scene',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: canvasOnly(true, px(0.3, 5, 0.01)) }) },
    score: 0,
  },
  {
    name: "an error message alone (text under UI2App's counts, a few pixels) does not render",
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ elements: 2, textChars: 16, screen: screen(px(0.004, 9, 0.004)) }) }) },
    score: 0,
  },
  {
    name: 'a scene built of elements: the viewport off its background, colourful, with edges, renders without text',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ elements: 2, textChars: 0, screen: screen(px(0.35, 40, 0.02)) }) }) },
    score: 100,
    details: (d) => assert.match(String(d.scene), /the viewport shows a scene/),
  },
  {
    name: 'a scene on screen does not excuse an error before the first render',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: { ...canvasOnly(true, px(0.5, 80, 0.03)), errorsBeforeRender: [{ kind: 'exception', message: 'TypeError: x is undefined' }] },
      }),
    },
    score: 0,
  },
  // A drawing on a plain background (SCENE_DRAWING), with the readings measured on the calibration pages.
  ...(
    [
      ['a flower in a pot on a pale wall (CSS)', px(0.0086, 13, 0.0008), 100],
      ['a logo on black', px(0.0093, 13, 0.0008), 100],
      ['a single round shape on black', px(0.0152, 12, 0.0005), 100],
      ['an SMIL shape', px(0.025, 16, 0.001), 100],
      ['an error message alone, in 40 px type (lines of text: 0.55 edge pixels a pixel)', px(0.0113, 19, 0.0062), 0],
      ['an error message alone, in 16 px type', px(0.0027, 19, 0.0033), 0],
      ['a stuck spinner', px(0.0013, 5, 0.0001), 0],
      ['"Loading…" alone', px(0.0005, 9, 0.0006), 0],
      ['a bordered empty box (3 colours)', px(0.007, 3, 0.007), 0],
      ['a lone header bar (6 colours)', px(0.0561, 6, 0.0017), 0],
      ['a smooth gradient (no edges)', px(0.6, 120, 0), 0],
    ] as const
  ).map(([what, reading, score]) => ({
    name: `no text, no visuals: ${what} ${score ? 'is a drawing: renders' : 'is no drawing: does not render'}`,
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ firstView: view({ elements: 6, textChars: 0, screen: screen(reading) }) }) },
    score,
    ...(score ? { details: (d: Record<string, unknown>) => assert.match(String(d.scene), /a drawing on its background/) } : {}),
  })),
  {
    name: 'an animation that grows from nothing: the first view shows little, a later frame on the page clock a drawing: renders, naming that frame',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: view({
          elements: 9,
          textChars: 0,
          atMs: 1000,
          screen: screen(px(0.0043, 5, 0.0005)),
          samples: [
            { atMs: 2300, screen: screen(px(0.0079, 18, 0.0007)) },
            { atMs: 4000, screen: screen(px(0.0086, 13, 0.0008)) },
          ],
        }),
      }),
    },
    score: 100,
    details: (d) => {
      assert.match(String(d.scene), /a drawing on its background .* at 2\.3 s of the page clock/);
      assert.equal((d.frames as unknown[]).length, 3);
    },
  },
  {
    name: 'a canvas that stays black in every frame does not render, and says how many frames it looked at',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: { ...canvasOnly(false, px(0, 1, 0)), atMs: 1000, samples: [{ atMs: 2300, screen: screen(px(0, 1, 0), [{ ...px(0, 1, 0), share: 1 }]) }] },
      }),
    },
    score: 0,
    details: (d) => assert.match(String((d.failed as string[]).join(' ')), /in none of 2 frames over its first seconds/),
  },
  {
    name: "the visit's screenshot shows a scene no frame of the probe shows: a warning in the details",
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: { ...canvasOnly(false, px(0, 1, 0)), visit: screen(px(0.0144, 27, 0.0013), [{ ...px(0.0144, 27, 0.0013), share: 1 }]) },
      }),
    },
    score: 0,
    details: (d) => assert.match(String(d.warning), /the visit's screenshot shows what no frame of the probe shows/),
  },
  {
    name: 'the visit and the probe agree: no warning',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        firstView: { ...canvasOnly(true, px(0.0144, 27, 0.0013)), visit: screen(px(0.0144, 27, 0.0013), [{ ...px(0.0144, 27, 0.0013), share: 1 }]) },
      }),
    },
    score: 100,
    details: (d) => assert.equal(d.warning, undefined),
  },
  { name: 'unscorable when the probe was not run', html: '<p>x</p>', evidence: {}, unscorable: /not run/ },
  { name: "unscorable with the probe's failure", html: '<p>x</p>', evidence: { interaction: missing('no time left') }, unscorable: 'no time left' },
]);
