/**
 * What counts as a scene in a reading of the first view's pixels (core/screen-scene.ts): the thresholds
 * render-validity scores with and the probe stops sampling on, table-driven on synthetic readings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PixelReading, ScreenReading, VisualBox } from '../../core/browser-evidence.js';
import { SCENE_DRAWING, SCENE_VIEW, SCENE_VISUAL, sceneOn } from '../../core/screen-scene.js';

const px = (content: number, colours: number, edges: number): PixelReading => ({ content, colours, edges });
const box = (kind: VisualBox['kind']): VisualBox => ({ kind, x: 0, y: 0, width: 640, height: 400 });
const reading = (whole: PixelReading, visuals: Array<PixelReading & { share: number }> = []): ScreenReading => ({
  ...whole,
  width: 1280,
  height: 800,
  background: '#ffffff',
  visuals,
});

const blank = px(0, 1, 0);

describe('a scene in a reading of the first view', () => {
  const cases: Array<{ name: string; boxes: VisualBox[]; s: ScreenReading; scene: RegExp | null }> = [
    { name: 'a blank viewport shows none', boxes: [], s: reading(blank), scene: null },
    {
      name: 'a canvas over a tenth of the viewport with a drawing in it',
      boxes: [box('canvas')],
      s: reading(blank, [{ ...px(SCENE_VISUAL.content, SCENE_VISUAL.colours, 0), share: SCENE_VISUAL.share }]),
      scene: /^a canvas covering 10\.0 % of the viewport shows a drawing/,
    },
    {
      name: 'the same canvas over less than a tenth shows none',
      boxes: [box('canvas')],
      s: reading(blank, [{ ...px(0.5, 40, 0), share: SCENE_VISUAL.share - 0.01 }]),
      scene: null,
    },
    {
      name: 'the first visual that shows a drawing is named, in document order',
      boxes: [box('img'), box('canvas'), box('svg')],
      s: reading(blank, [
        { ...px(0.5, 3, 0), share: 0.5 },
        { ...px(0.5, 40, 0), share: 0.2 },
        { ...px(0.5, 40, 0), share: 0.9 },
      ]),
      scene: /^a canvas covering 20\.0 % /,
    },
    {
      name: 'a viewport of elements over its thresholds',
      boxes: [],
      s: reading(px(SCENE_VIEW.content, SCENE_VIEW.colours, SCENE_VIEW.edges)),
      scene: /^the viewport shows a scene/,
    },
    {
      name: 'a drawing on a plain background',
      boxes: [],
      s: reading(px(0.01, SCENE_DRAWING.colours, 0.001)),
      scene: /^the viewport shows a drawing on its background #ffffff/,
    },
    {
      name: 'lines of text (more edge pixels than a drawing has per pixel off its background) show none',
      boxes: [],
      s: reading(px(0.011, 16, 0.006)),
      scene: null,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const scene = sceneOn(c.boxes, c.s);
      if (c.scene === null) assert.equal(scene, null);
      else assert.match(scene ?? '', c.scene);
    });
  }
});
