/**
 * The interaction probe's in-page half: installed in every document of the probe's page before any page script
 * (`Page.addScriptToEvaluateOnNewDocument`, bundled by ../page-script.ts), top frame only.
 *
 * What it installs (each a documented choice, ../probe.ts explains why): the page clock (clock.ts), seeded
 * randomness (../../seeded-random.ts, run before this), effect recorders (effects.ts, canvas.ts, storage.ts),
 * value-read tracking (reads.ts) and uncaught errors on the real clock (errors.ts). The probe drives it through
 * `window.__wgProbe` (a non-enumerable property), whose methods are listed below.
 */
import { installCanvas, makeScratch } from './canvas.js';
import { advance, clock, installClock, setFrameMs } from './clock.js';
import { cfg, w, type ProbeConfig } from './config.js';
import { enumerate, mark } from './controls.js';
import { installEffects, events } from './effects.js';
import { errs, installErrors } from './errors.js';
import { fill, fillValue, selectOther, setOwnValue, setValue } from './fill.js';
import { firstView } from './first-view.js';
import { post, prepare } from './action.js';
import { captureNatives } from './natives.js';
import { installReads, tag, tagging } from './reads.js';
import { snapshot } from './snapshots.js';
import { clearSession, installStorageWatch } from './storage.js';
import { view } from './view.js';
import { testsApi } from '../tests/page/index.js';

export type { ProbeConfig } from './config.js';

/** Only the top document of the page is probed, once. */
function wanted(): boolean {
  try {
    if (w !== w.top) return false;
  } catch {
    return false;
  }
  return !Object.prototype.hasOwnProperty.call(w, '__wgProbe');
}

/** `window.__wgProbe`: what probe.ts and driver.ts call. */
const api = {
  advance,
  setFrameMs,
  now: () => clock.vnow,
  pending: () => clock.timers.size,
  firstView,
  mark,
  enumerate,
  tag,
  el: (i: number) => tagging.tagged[i] ?? null,
  fill,
  prepare,
  snapshot,
  post,
  view,
  clearSession,
  events: () => events,
  errors: () => errs.map((e) => ({ kind: e.kind, message: e.message })),
  setValue,
  selectOther,
  setOwnValue,
  fillValue: (i: number) => {
    const el = tagging.tagged[i];
    return el ? fillValue(el) : 'test';
  },
  stripTarget(i: number) {
    tagging.tagged[i]?.removeAttribute('target');
  },
  blur() {
    (document.activeElement as HTMLElement | null)?.blur?.();
  },
  docId: () => performance.timeOrigin,
  /** Requirement tests (../tests/page/). */
  tests: testsApi,
};

/** Runs in the page before any script: installs everything, in the order the page would meet it. */
export function probeInit(config: ProbeConfig): void {
  if (!wanted()) return;
  Object.assign(cfg, config);
  captureNatives();
  installClock();
  installEffects();
  installCanvas();
  installStorageWatch();
  installReads();
  installErrors();
  makeScratch();
  Object.defineProperty(w, '__wgProbe', { value: api, enumerable: false, configurable: false, writable: false });
}
