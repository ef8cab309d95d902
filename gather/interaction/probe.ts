/**
 * The interaction probe: uses the page the way a tester would, in its own browser context (sandbox phase
 * `interaction`), and records what every action did. The interaction metrics (metrics/interaction/) and
 * dead-code read its log (core/browser-evidence.ts `InteractionEvidence`).
 *
 * Steps, every one bounded by the probe's deadline (INTERACTION_DEFAULTS.budgetMs, or less when the artifact's
 * budget is shorter) and each action by a per-action timeout:
 * 1. First load (L): load, then SETTLE virtual ms of the page clock (page/main/clock.ts: timers, animation
 *    frames, `Date` and `performance.now` run on a clock the probe moves, and so do CSS, Web and SVG animations,
 *    page/main/animations.ts, so the settle costs only the callbacks' own work; a page that started a worker gets
 *    the same real time as page time, so that what the worker posts is there). The first view is measured
 *    (render-validity), and its pixels read from the start state's viewport, captured without resizing the page's
 *    view (probe/screen.ts, driver.ts `screenshot`); listeners are listed with CDP `DOMDebugger.getEventListeners`
 *    (every element, window and document); controls are enumerated in document order; the start state is
 *    screenshotted. Then PREP + OBSERVE virtual ms pass without any action: what changes meanwhile changes by
 *    itself (a clock, an animation, a game loop), and the errors raised then are the page's own, not an action's;
 *    the viewport is read again at its end, and later on the same clock while it still changes, until a reading
 *    shows a scene (the first view of an animated page is the page over its first seconds: discover.ts
 *    `sampleFirstView`).
 * 2. When the page has empty text fields, a filled baseline (R1): reload, fill them, PREP, OBSERVE. Then a
 *    second baseline (R2), the same as the first: what differs between two identical runs is unstable (it
 *    depends on real time: network timing, a video) and never counts as an effect. A heavy page held to the page
 *    clock with nothing left on real time (no worker, no request after load, no media) gets no R2 (baselines.ts).
 * 3. Controls (at most `maxControls`, keyboard first, then document order; with more, that many spread evenly
 *    over document order): for each, the start state is restored (storage and cookies of the origin cleared,
 *    the entry page loaded again, SETTLE), the other empty text fields are filled (not for the keyboard), the
 *    control is scrolled into view if needed, PREP passes (debounced input handlers and scroll reactions happen
 *    before the "before" snapshot), then the action, the mouse moves off the page, OBSERVE passes, the network
 *    goes quiet, and the state is compared with the "before" snapshot (elements, text, attributes, form values,
 *    which elements are rendered and their sizes, canvas pixels, address, storage), except that what changes by
 *    itself is compared with the baseline at the same virtual moment instead, and unstable parts are left out.
 *    Events recorded during the action also count (page/main/recorders.ts: dialogs, sound, clipboard, downloads,
 *    popups, file choosers, requests, focus moved by the page, scrolling by the page, the field's value read by
 *    the page's code). A control with none of these is inert. The keyboard control is played key by key, each
 *    held for frames and read at its own moment against the baseline's snapshot of that moment (probe/play.ts).
 *    On a heavy page (its first frames costly in main-thread CPU time) animation frames come PROBE_HEAVY_FRAME_MS
 *    apart from its first settle on (from its first frame when that alone costs the mark, else from MEASURE_MS;
 *    ProbeRun.adaptEarly), its later settles draw one frame and hold the rest, and its later sample of the first
 *    view draws only the frame at its moment, so that the budget reaches the controls. Such a page without controls
 *    keeps its first document for its baseline (nothing compares it with another load), which runs on to the later
 *    sample's moment and draws its frame there only; one with controls reloads
 *    for it (its first frames ran at 16 ms, the restores' at the adapted interval from their start).
 * 4. In-app navigation, breadth first: every navigation element (links to other files, fragments, hash routes,
 *    tabs, nav buttons, `#` links in navigation) is tried from the start view (reusing the control's action when
 *    it was acted on), then from each new view reached (up to `navDepth` steps, `maxViews` views and
 *    `maxNavActions` tries), until each led somewhere or every reached view was tried.
 * 5. Coverage (V8 block coverage of every load, coverage.ts), crops of the inert controls, close.
 *
 * Determinism: the page clock, seeded randomness and a fixed start date make two runs of one page go through the
 * same states; the order of controls is fixed; the only source of variation left is real time (a slow machine
 * hitting the budget or a per-action timeout), which the log records (`outcome`, `unavailable.actions`).
 *
 * The run's shared state is a `ProbeRun` (probe/run.ts); each step is a file of probe/: first-load.ts,
 * discover.ts, baselines.ts, actions.ts (with act.ts and second-chance.ts), navigation.ts, finish.ts.
 */
import type { BrowserContext } from 'puppeteer-core';
import type { Artifact } from '../../core/artifact/model.js';
import type { InteractionEvidence } from '../../core/browser-evidence.js';
import { errorMessage } from '../../core/errors.js';
import { actOnControls } from './probe/actions.js';
import { baselines } from './probe/baselines.js';
import { discoverControls, screenshot } from './probe/discover.js';
import { closePage, crops } from './probe/finish.js';
import { firstLoad } from './probe/first-load.js';
import { INTERACTION_DEFAULTS, PROBE_HEAVY_FRAME_MS, RESTORE } from './probe/limits.js';
import { navigation } from './probe/navigation.js';
import { OutOfBudget, ProbeRun, type ProbeOptions } from './probe/run.js';
import { secondChances, valueReads } from './probe/second-chance.js';

export {
  FINISH_RESERVE_MS,
  FIRST_LOAD_TIMEOUT_MS,
  INTERACTION_DEFAULTS,
  MAX_HANGS,
  NETWORK_QUIET_CAP_MS,
  PROBE_CONFIG,
  RELOAD_TIMEOUT_MS,
  SCREENSHOT_CAP_PX,
} from './probe/limits.js';
export { DEFAULT_KEYS, keysOf } from './probe/keys.js';
export { sampleFile } from './probe/samples.js';
export { cropAround } from './probe/finish.js';
export type { ProbeOptions } from './probe/run.js';

/** Steps 1–4; false when the page did not respond after its first load (nothing more to probe). */
async function steps(run: ProbeRun): Promise<boolean> {
  if (!(await firstLoad(run))) return false;
  await discoverControls(run);
  await screenshot(run);
  await baselines(run);
  const ta = performance.now();
  await actOnControls(run);
  await secondChances(run);
  valueReads(run);
  run.mark('actions', ta);
  await navigation(run);
  return true;
}

/**
 * Probe the artifact served at `entryUrl` in `context` (a sandbox context of phase `interaction`). Never throws
 * for page faults (they are in the evidence); throws only when the browser itself is unusable.
 */
export async function probeInteraction(
  context: BrowserContext,
  artifact: Artifact,
  origin: string,
  entryUrl: string,
  opts: ProbeOptions,
): Promise<InteractionEvidence> {
  // A heavy page gets frames at its own pace from MEASURE_MS into the first settle (ProbeRun.adaptEarly).
  const run = new ProbeRun(context, artifact, origin, entryUrl, {
    onCostKnown: async (r) => {
      await r.adaptEarly();
    },
    holdSettleFrames: true,
    heavyFrameMs: PROBE_HEAVY_FRAME_MS,
    ...opts,
  });
  const to = performance.now();
  await run.openPage();
  run.mark('open', to);
  let probed = true;
  try {
    probed = await steps(run);
  } catch (err) {
    if (err instanceof OutOfBudget) run.unavailable.actions ??= "the probe's time budget ran out";
    else run.faults.push(errorMessage(err));
  } finally {
    await closePage(run);
  }
  // A page that did not respond has no actions to crop, and its log no total.
  if (!probed) return run.ev;
  await crops(run);
  run.timings.total = Math.round(performance.now() - run.t0);
  if (!Object.keys(run.unavailable).length) delete run.ev.unavailable;
  return run.ev;
}

/** The evidence of a page that was not probed because it does not answer. */
export function unresponsiveEvidence(reason: string): InteractionEvidence {
  return {
    settings: { ...INTERACTION_DEFAULTS, restore: RESTORE },
    controls: [],
    actions: [],
    navigation: { views: [], links: [], untried: [] },
    loadErrors: [],
    filled: [],
    timings: {},
    faults: [reason],
    unavailable: { firstView: reason },
    hung: true,
  };
}
