/**
 * Phase 1, the controls: listeners are listed with CDP `DOMDebugger.getEventListeners` (every element, window
 * and document), controls are enumerated in document order (a keyboard control first when the page listens
 * for keys), those to act on are chosen, and the start state is screenshotted.
 */
import type { FirstView, InteractionControl, ScreenReading, Screenshot } from '../../../core/browser-evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { sceneOn } from '../../../core/screen-scene.js';
import { VIEWPORT } from '../driver.js';
import { DEFAULT_KEYS, keysOf } from './keys.js';
import { EVAL_MS, SCREENSHOT_CAP_PX } from './limits.js';
import { readScreen } from './screen.js';
import { OutOfBudget, type ProbeRun } from './run.js';

/** The sources of the document-level key listeners (empty when they could not be listed). */
async function keySources(run: ProbeRun): Promise<string[]> {
  try {
    return (await run.d.listeners(run.bound(EVAL_MS))).documentKeys;
  } catch (err) {
    if (err instanceof OutOfBudget) throw err;
    run.faults.push(`listeners could not be listed: ${errorMessage(err)}`);
    return [];
  }
}

/** The keyboard control, when the page listens for keys other than only Escape/Tab. */
function keyboard(run: ProbeRun, sources: string[]): InteractionControl[] {
  if (!sources.length) return [];
  const named = keysOf(sources);
  const onlyDismiss = named.length > 0 && named.every((k) => k === 'Escape' || k === 'Tab');
  if (!onlyDismiss)
    return [
      {
        index: 0,
        kind: 'keyboard',
        selector: 'document',
        tag: 'document',
        text: 'key listeners on the page',
        keys: named.length ? named : DEFAULT_KEYS,
        acted: false,
      },
    ];
  run.faults.push("the page's key listeners only test Escape/Tab: nothing to dismiss in the start state, not acted on");
  return [];
}

/** At most `maxControls` (keyboard first, then document order), spread evenly over document order when there are more. */
function choose(controls: InteractionControl[], max: number): InteractionControl[] {
  const actable = controls.filter((c) => c.kind !== 'page-link');
  return actable.length <= max ? actable : Array.from({ length: max }, (_, i) => actable[Math.floor((i * actable.length) / max)]!);
}

export async function discoverControls(run: ProbeRun): Promise<void> {
  const te = performance.now();
  const sources = await keySources(run);
  const raw = await run.enumerate();
  const controls = keyboard(run, sources);
  for (const r of raw) controls.push({ index: controls.length, ...r, acted: false });
  run.ev.controls = run.controls = controls;
  run.selectors = controls.map((c) => (c.kind === 'keyboard' ? null : c.selector));
  run.hasTextField = raw.some((c) => c.kind === 'text');
  run.chosen = choose(controls, run.settings.maxControls);
  for (const c of run.chosen) c.acted = true;
  run.mark('enumerate', te);
}

/** The page clock (ms since the document began) at which the first view is read once more, at most. */
export const LAST_SAMPLE_MS = 4000;

/**
 * A reading of the first view so far shows a scene (core/screen-scene.ts): render-validity's verdict rests on the
 * first such reading whatever later frames show, so none is taken (a capture and its reading cost 0.15–0.4 s on a
 * heavy page, 2026-11-30).
 */
const sceneShown = (fv: FirstView) => [fv.screen, ...(fv.samples ?? []).map((s) => s.screen)].some((s) => s && sceneOn(fv.visualBoxes ?? [], s) !== null);

const sameReading = (a: ScreenReading, b: ScreenReading) => a.content === b.content && a.colours === b.colours && a.edges === b.edges;

/**
 * The first view read again at the page clock's current moment (`run.clockNow`), in the document the first view
 * was read in or one restored to the same start: an animation that grows from nothing (a flower that blooms with
 * CSS keyframes, a logo drawn by SMIL, a scene that fades in) shows little at the first view and more a moment
 * later, and render-validity takes any of these frames. Each reading is a viewport capture (no resize of the
 * page's view) and its pixels (screen.ts). None once a reading so far shows a scene (`sceneShown`).
 */
export async function sampleFirstView(run: ProbeRun): Promise<void> {
  const fv = run.ev.firstView;
  if (!fv?.screen || run.ev.unavailable?.screenshot || sceneShown(fv)) return;
  const t = performance.now();
  try {
    const screen = await readScreen(await run.d.viewportShot(run.bound(EVAL_MS)), VIEWPORT, fv.visualBoxes ?? []);
    (fv.samples ??= []).push({ atMs: Math.round(run.clockNow), screen });
  } catch (err) {
    if (err instanceof OutOfBudget) throw err;
    run.faults.push(`the first view could not be read again: ${errorMessage(err)}`);
  }
  run.mark('samples', t);
}

/**
 * Once more, later: the clock of the same document is run on to LAST_SAMPLE_MS and the view read, unless the last
 * reading showed no change from the one before it (a still page, or an animation that is over) or a reading so far
 * shows a scene (`sceneShown`). Only in a
 * document the probe is about to leave (the clock it moves is that document's).
 */
export async function sampleLater(run: ProbeRun): Promise<void> {
  const fv = run.ev.firstView;
  const samples = fv?.samples ?? [];
  const last = samples[samples.length - 1];
  const before = samples.length > 1 ? samples[samples.length - 2]!.screen : fv?.screen;
  if (!fv || !last || !before || sameReading(last.screen, before) || run.clockNow >= LAST_SAMPLE_MS || sceneShown(fv)) return;
  // On a heavy page only the frame at LAST_SAMPLE_MS is drawn (ProbeRun.advanceToLastFrame).
  const t = performance.now();
  await run.advanceToLastFrame(LAST_SAMPLE_MS - run.clockNow);
  run.mark('samples', t);
  await sampleFirstView(run);
}

/**
 * The start state, full page (height capped): the inert controls' crops are cut from it, and its viewport is
 * the first view as shown (render-validity reads its pixels; the clock has not moved since the first view).
 */
export async function screenshot(run: ProbeRun): Promise<void> {
  const ts = performance.now();
  try {
    const shot = await run.d.screenshot(SCREENSHOT_CAP_PX, run.bound(EVAL_MS));
    run.ev.screenshot = { png: shot.png, width: shot.width, height: shot.height, deviceScaleFactor: 1, truncated: shot.truncated } satisfies Screenshot;
    run.startViewport = shot.viewport;
  } catch (err) {
    if (err instanceof OutOfBudget) throw err;
    run.unavailable.screenshot = `screenshot failed: ${errorMessage(err)}`;
  }
  run.mark('screenshot', ts);
  const fv = run.ev.firstView;
  if (!fv || !run.ev.screenshot) return;
  const tp = performance.now();
  try {
    fv.screen = await readScreen(run.startViewport ?? run.ev.screenshot.png, VIEWPORT, fv.visualBoxes ?? []);
  } catch (err) {
    run.faults.push(`the first view's pixels could not be read: ${errorMessage(err)}`);
  }
  run.mark('screen', tp);
}
