/**
 * render-validity (extended suite, interaction; SPEC "Suites"): UI2App's executability probe on the first view,
 * generalised to what the screen shows (below); 100 or 0. The first view is the state after the probe's first load and settle (gather/interaction/).
 *
 * It counts as rendered when all of these hold (UI2App's thresholds):
 * - the body has at least 3 descendant elements;
 * - and at least one of: 20 characters of visible text (body.innerText, whitespace collapsed; none when the body
 *   is not rendered, e.g. `html { display: none }`, where innerText would give the source text: found by
 *   mutation testing), 2 visuals, 2
 *   interactive elements. Visuals are visible `svg` (outermost only), `img` that decoded, `video`, and `canvas`
 *   that drew something: a canvas of one colour throughout (never drawn on, or only cleared) is blank and does
 *   not count. Interactive elements are visible, enabled button, input (not hidden), textarea, select, a[href]
 *   and [role=button];
 * - and no uncaught error before the first render: an uncaught exception or unhandled promise rejection raised
 *   before the first contentful paint (timed on the page's own performance timeline), or before the first view
 *   when nothing was ever painted. An error the page raises after it rendered (a handler, a timer) does not
 *   fail it (that is interaction-errors' and console-errors' business). As in console-errors, when a CDN script
 *   was withheld (offline mode) the errors a missing library causes are webgrade's doing and do not fail it.
 *
 * UI2App's rule was made for form-and-list apps and calls a full-screen canvas scene with no text "not
 * rendered". The screenshot is what a person sees, so (this metric is in the extended suite; UI2App's rule stays
 * its reference point, reported as `ui2app` in the details) the first view also counts as rendered, with no
 * error before the first render, when the viewport of the probe's start-state screenshot shows a scene
 * (gather/interaction/probe/screen.ts reads the pixels):
 * - a visual covering at least 10 % of the viewport whose region shows a drawing: at least 8 colours and at
 *   least 0.5 % of its pixels off its most common colour (a canvas, WebGL included, an image, a video, an svg);
 * - or the viewport as a whole: at least 15 % of it off the background colour, at least 16 colours and at
 *   least 0.5 % edge pixels (a scene built of elements).
 * - or a drawing on a plain background, the start of many animations and the whole of some (a flower in a pot on
 *   a pale wall, a logo bouncing on black, a shape drawn by SMIL): at least 0.5 % of the viewport off its background
 *   in at least 8 colours, with at least 0.03 % edge pixels (an outline, not a smooth gradient) but at most 0.3 edge
 *   pixels per pixel off the background (filled shapes, not lines of text). Calibrated on pages rendered in the
 *   probe's viewport (2026-11-27, fixtures/first-view/ and the negatives in test/metrics/interaction/
 *   render-validity.test.ts): a CSS flower (0.86 % off its background, 13 colours, 0.08 % edges), a logo on black
 *   (0.93–1.5 %, 12–13, 0.05–0.08 %) and an SMIL shape (2.5 %, 16, 0.1 %) pass; an error message alone (0.27 % at
 *   16 px; 1.1 % at 40 px with 0.55 edge pixels per pixel), a stuck spinner (0.13 %, 5 colours), "Loading…" (0.05 %),
 *   a bordered empty box (3 colours) and a lone header bar (5.6 %, 6 colours) do not.
 *
 * What "first view" means for an animated page: the page as a person sees it once it has started, over its first
 * seconds. The probe reads it after its first load and settle, on a page clock that also runs the page's CSS, Web
 * and SVG animations (gather/interaction/page/main/animations.ts), then again a moment later on the same clock
 * (`samples`: the end of its first observation, about 2.3 s, and 4 s when the view was still changing); any of these
 * frames that shows a scene counts, and the first that does decides, so the probe reads no frame after it (since
 * 2026-11-30: the thresholds below are in core/screen-scene.ts, which the probe reads too). UI2App's executability
 * check looks once, after load; an animation that grows from nothing (a bloom from `scale(0)`) shows almost nothing
 * at that instant, and a person rates it on what it becomes. The errors before the first render still fail it, whatever a later frame shows.
 *
 * And within UI2App's rule, a canvas counts as a visual when its region of the screenshot is not one colour,
 * though it read back blank (a canvas read before the compositor's frame) or was not read back (a WebGL canvas:
 * its read back waits for the GPU to draw every queued frame, and without `preserveDrawingBuffer` it reads
 * blank; the screenshot is what a person sees). A WebGL canvas whose region is one colour is blank. A blank first view (one colour, or a border), a view of text only that fails UI2App's
 * counts (an error message alone) and a page whose script threw before its first render still score 0.
 *
 * A page that does not answer after load (a busy main thread) did not render: 0, with the reason. Since
 * 2026-11-28 the probe waits START_UP_MS (6 s) for that answer and for the first move of the page clock, not 2–3 s:
 * a page that starts a WebAssembly runtime on its main thread after load (Pyodide: 3.7–4.6 s on the corpus's
 * pages) was taken as hung and scored 0 though it renders (4 of 23 corpus pages sampled). Unscorable
 * only when the probe could not run (no browser, no time left); the leaderboard shows the share of executable
 * artifacts (this metric at 100) per model.
 */
import type { FirstView, ScreenReading } from '../../core/browser-evidence.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { SCENE_DRAWING, SCENE_VIEW, SCENE_VISUAL, sceneOn } from '../../core/screen-scene.js';
import { MISSING_LIBRARY_ERROR } from '../lib/console.js';
import { probeEvidence } from './probe-evidence.js';

export const MIN_ELEMENTS = 3;
export const MIN_TEXT_CHARS = 20;
export const MIN_VISUALS = 2;
export const MIN_INTERACTIVE = 2;
// The scene thresholds (calibrated above) live in the contract: the probe stops sampling once a reading shows one.
export { SCENE_DRAWING, SCENE_VIEW, SCENE_VISUAL };
/** A canvas region of the screenshot that is not one colour: the canvas drew. */
const CANVAS_SHOWN = { colours: 2, content: 0.001 } as const;

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)} %`;

/** "(in any of N frames over the first seconds)" when more than the first view was read. */
const frameCount = (fv: FirstView) => (fv.samples?.length ? ` (in none of ${fv.samples.length + 1} frames over its first seconds)` : '');

type ScreenVerdict = { scene: string | null; shownCanvases: number; shownBlank: number; unreadBlank: number; reading: string; atMs?: number };

/** Every frame read of the first view: the first view itself, then the later samples, on the page clock. */
function frames(fv: FirstView): Array<{ atMs?: number; screen: ScreenReading }> {
  const out: Array<{ atMs?: number; screen: ScreenReading }> = [];
  if (fv.screen) out.push({ ...(fv.atMs !== undefined ? { atMs: fv.atMs } : {}), screen: fv.screen });
  for (const s of fv.samples ?? []) out.push(s);
  return out;
}

/**
 * The frames' verdict: the first frame that shows a scene; else the frame whose canvases show the most (UI2App's
 * counts take those), else the first view.
 */
function onScreen(fv: FirstView): ScreenVerdict {
  const all = frames(fv).map((f) => ({ ...onFrame(fv, f.screen), ...(f.atMs !== undefined ? { atMs: f.atMs } : {}) }));
  if (!all.length) return { scene: null, shownCanvases: 0, shownBlank: 0, unreadBlank: 0, reading: 'no screenshot of the first view' };
  return all.find((v) => v.scene) ?? all.reduce((best, v) => (v.shownCanvases > best.shownCanvases ? v : best), all[0]!);
}

const pageTime = (ms: number | undefined) => (ms === undefined ? '' : ` at ${(ms / 1000).toFixed(1)} s of the page clock`);

/**
 * One frame's verdict: which visuals show a drawing, canvases not counted from their read back that show
 * (`shownCanvases`; `shownBlank` of them had read back blank), WebGL canvases (not read back) that show
 * nothing (`unreadBlank`), and why.
 */
function onFrame(fv: FirstView, s: ScreenReading): ScreenVerdict {
  const boxes = fv.visualBoxes ?? [];
  let shownCanvases = 0;
  let shownBlank = 0;
  let unreadBlank = 0;
  let largest = -1;
  boxes.forEach((b, i) => {
    const r = s.visuals[i];
    if (!r) return;
    if (b.kind === 'canvas' && b.drawn !== true) {
      const shown = r.colours >= CANVAS_SHOWN.colours && r.content >= CANVAS_SHOWN.content;
      if (shown) shownCanvases++;
      if (shown && b.drawn === false) shownBlank++;
      if (!shown && b.drawn === undefined) unreadBlank++;
    }
    if (largest < 0 || r.share > s.visuals[largest]!.share) largest = i;
  });
  const scene = sceneOn(boxes, s);
  const big =
    largest >= 0
      ? `; largest visual: a ${boxes[largest]!.kind} over ${pct(s.visuals[largest]!.share)} of it, ${s.visuals[largest]!.colours} colours, ${pct(s.visuals[largest]!.content)} off its main colour`
      : '';
  const reading = `the screen shows no scene: ${pct(s.content)} of the viewport off its background ${s.background}, ${s.colours} colours, ${pct(s.edges)} edges${big}`;
  return { scene, shownCanvases, shownBlank, unreadBlank, reading };
}

/**
 * The visit's desktop screenshot shows a scene that no frame of the probe shows: the probe's start state is not the
 * page a person sees (the verdict then rests on a view the visit contradicts). Undefined when they agree or the
 * visit took no screenshot.
 */
function visitDisagrees(fv: FirstView, probe: ScreenVerdict): string | undefined {
  if (!fv.visit || probe.scene) return undefined;
  const visit = onFrame(fv, fv.visit);
  if (!visit.scene) return undefined;
  return `the visit's screenshot shows what no frame of the probe shows (${visit.scene}): the probe's start state may not be the page a person sees`;
}

/** UI2App's counts (a canvas that shows in the screenshot counted as a visual); what they miss. */
function ui2app(fv: FirstView, screen: ReturnType<typeof onScreen>): { visuals: number; blank: number; failed: string[] } {
  const visuals = fv.visuals + screen.shownCanvases;
  const blank = Math.max(0, fv.blankCanvases - screen.shownBlank) + screen.unreadBlank;
  const failed: string[] = [];
  if (fv.elements < MIN_ELEMENTS) failed.push(`only ${fv.elements} element${fv.elements === 1 ? '' : 's'} in the body (at least ${MIN_ELEMENTS})`);
  if (fv.textChars < MIN_TEXT_CHARS && visuals < MIN_VISUALS && fv.interactive < MIN_INTERACTIVE) {
    failed.push(
      `no content: ${fv.textChars} characters of text (at least ${MIN_TEXT_CHARS}), ${visuals} visuals (at least ${MIN_VISUALS}${blank ? `; ${blank} blank canvas${blank === 1 ? '' : 'es'} not counted` : ''}), ${fv.interactive} interactive elements (at least ${MIN_INTERACTIVE})`,
    );
  }
  return { visuals, blank, failed };
}

const renderValidity: MetricDefinition = {
  number: 26,
  id: 'render-validity',
  perspective: 'interaction',
  kind: 'rule',
  needs: ['interaction'],
  title: 'Render validity',
  question: 'Does the page run and show a first view with content, without an error before it renders?',
  suite: 'extended',
  score(evidence) {
    const v = probeEvidence(evidence);
    const fv = v.firstView;
    if (!fv) {
      const why = v.unavailable?.firstView ?? 'the first view could not be read';
      if (v.hung) return scored(0, `not rendered: ${why}`, { rendered: false, failed: [why], faults: v.faults });
      return unscorable(why, { faults: v.faults });
    }
    const withheld = (v.network ?? []).some((e) => e.withheld && (e.destination === 'script' || e.destination === 'empty'));
    const excused = withheld ? fv.errorsBeforeRender.filter((e) => MISSING_LIBRARY_ERROR.test(e.message)) : [];
    const errors = fv.errorsBeforeRender.filter((e) => !excused.includes(e));
    const screen = onScreen(fv);
    const ref = ui2app(fv, screen);
    const warning = visitDisagrees(fv, screen);
    const failed: string[] = ref.failed.length && !screen.scene ? [...ref.failed, `${screen.reading}${frameCount(fv)}`] : [];
    if (errors.length)
      failed.push(
        `${errors[0]!.kind === 'exception' ? 'uncaught exception' : 'unhandled rejection'} before the first render: ${errors[0]!.message.slice(0, 160)}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`,
      );
    const details = {
      rendered: failed.length === 0,
      elements: fv.elements,
      textChars: fv.textChars,
      visuals: ref.visuals,
      visualsByKind: fv.visualsByKind,
      blankCanvases: ref.blank,
      ...(screen.shownCanvases ? { canvasesShownOnScreen: screen.shownCanvases } : {}),
      ui2app: ref.failed.length === 0,
      ...(screen.scene ? { scene: `${screen.scene}${pageTime(screen.atMs)}` } : {}),
      ...(warning ? { warning } : {}),
      ...(fv.samples?.length
        ? { frames: frames(fv).map((f) => ({ atMs: f.atMs ?? null, content: f.screen.content, colours: f.screen.colours, edges: f.screen.edges })) }
        : {}),
      ...(fv.screen ? { screen: { content: fv.screen.content, colours: fv.screen.colours, edges: fv.screen.edges, background: fv.screen.background } } : {}),
      interactive: fv.interactive,
      firstPaintMs: fv.firstPaintMs,
      errorsBeforeRender: errors,
      ...(excused.length
        ? { excusedErrors: excused, excusedBecause: "a CDN script was withheld (offline mode): errors a missing library causes are not the page's" }
        : {}),
      loaded: fv.loaded,
      failed,
      thresholds: {
        elements: MIN_ELEMENTS,
        textChars: MIN_TEXT_CHARS,
        visuals: MIN_VISUALS,
        interactive: MIN_INTERACTIVE,
        sceneVisual: SCENE_VISUAL,
        sceneView: SCENE_VIEW,
        sceneDrawing: SCENE_DRAWING,
      },
    };
    if (failed.length) return scored(0, `not rendered: ${failed.join('; ')}`, details);
    const parts = [`${fv.elements} elements`, `${fv.textChars} characters of text`, `${ref.visuals} visuals`, `${fv.interactive} interactive elements`];
    const how = ref.failed.length === 0 ? parts.join(', ') : `${screen.scene}${pageTime(screen.atMs)} (UI2App's counts: ${parts.join(', ')})`;
    return scored(100, `rendered: ${how}; no error before the first render`, details);
  },
};

export default renderValidity;
