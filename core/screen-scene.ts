/**
 * What counts as a scene on the screen: the thresholds render-validity (metrics/interaction/render-validity.ts, where
 * they are calibrated and explained) applies to each reading of the first view's pixels. They live in the contract
 * because the probe reads them too: once a reading of the first view shows a scene, render-validity's verdict rests
 * on that reading whatever later frames show, so the probe takes no later sample of it (gather/interaction/probe/
 * discover.ts `sampleFirstView`).
 */
import type { PixelReading, ScreenReading, VisualBox } from './browser-evidence.js';

/** A visual that shows a scene: its share of the viewport, colours, share of pixels off its main colour. */
export const SCENE_VISUAL = { share: 0.1, colours: 8, content: 0.005 } as const;
/** A viewport that shows a scene: share off the background, colours, share of edge pixels. */
export const SCENE_VIEW = { content: 0.15, colours: 16, edges: 0.005 } as const;
/** A viewport that shows a drawing on a plain background: share off it, colours, edges, edges per pixel off it. */
export const SCENE_DRAWING = { content: 0.005, colours: 8, edges: 0.0003, edgesPerContent: 0.3 } as const;

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)} %`;

/** A drawing on a plain background (SCENE_DRAWING): shapes, not a gradient, not lines of text. */
export function isDrawing(s: PixelReading): boolean {
  const d = SCENE_DRAWING;
  return s.content >= d.content && s.colours >= d.colours && s.edges >= d.edges && s.edges <= d.edgesPerContent * s.content;
}

/**
 * The scene the reading `s` shows, said in words, or null: the first visual (of `boxes`, in order) that shows a
 * drawing, else the viewport as a whole, else a drawing on the viewport's background.
 */
export function sceneOn(boxes: readonly VisualBox[], s: ScreenReading): string | null {
  for (let i = 0; i < boxes.length; i++) {
    const r = s.visuals[i];
    if (r && r.share >= SCENE_VISUAL.share && r.colours >= SCENE_VISUAL.colours && r.content >= SCENE_VISUAL.content)
      return `a ${boxes[i]!.kind} covering ${pct(r.share)} of the viewport shows a drawing (${r.colours} colours, ${pct(r.content)} of it off its main colour)`;
  }
  if (s.content >= SCENE_VIEW.content && s.colours >= SCENE_VIEW.colours && s.edges >= SCENE_VIEW.edges)
    return `the viewport shows a scene (${pct(s.content)} off its background, ${s.colours} colours, ${pct(s.edges)} edges)`;
  if (isDrawing(s))
    return `the viewport shows a drawing on its background ${s.background} (${pct(s.content)} off it, ${s.colours} colours, ${pct(s.edges)} edges)`;
  return null;
}
