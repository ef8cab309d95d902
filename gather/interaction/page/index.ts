/**
 * The interaction probe's readers: everything the probe reads or decides in a page runs here, in an isolated
 * world of the probe's own (`Page.addScriptToEvaluateOnNewDocument` with a world name, bundled by
 * ../page-script.ts), top frame only. An isolated world shares the page's DOM but not its JavaScript objects: its
 * `Element.prototype`, `document.querySelectorAll`, `innerText` getter and `JSON` are the browser's own whatever
 * the page does to its own, and nothing here is reachable from the page's scripts. What must replace the page's
 * own functions (the clock, the recorders of dialogs, sound and reads) lives in the main-world agent (main/),
 * which decides nothing.
 *
 * The host calls `globalThis.__wg.<fn>(...)` in this world (driver.ts `call`); answers are plain data, which the
 * host still validates (its texts and numbers come from the page's DOM).
 */
import { setKinds } from './canvas.js';
import { cfg, type ReaderConfig } from './config.js';
import { enumerate, mark } from './controls.js';
import { fill, fillValue, selectOther, setOwnValue, setValue } from './fill.js';
import { firstView } from './first-view.js';
import { post, prepareEnd, prepareStart } from './action.js';
import { tag, tagging } from './reads.js';
import { snapshot } from './snapshots.js';
import { clearSession } from './storage.js';
import { view } from './view.js';
import { testsApi } from '../requirement-tests/page/index.js';

export type { ReaderConfig } from './config.js';

/** `globalThis.__wg` in the isolated world: what probe/ and driver.ts call. */
const api = {
  setKinds,
  firstView,
  mark,
  enumerate,
  tag,
  el: (i: number) => tagging.tagged[i] ?? null,
  fill,
  prepareStart,
  prepareEnd,
  snapshot,
  post,
  view,
  clearSession,
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
  readyState: () => document.readyState,
  /** A video or audio element in the document (media plays on real time: probe/baselines.ts). */
  hasMedia: () => document.querySelector('video, audio') !== null,
  href: () => location.href,
  pageHeight: () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0),
  /** Requirement tests (../requirement-tests/page/). */
  tests: testsApi,
};

/** Runs in the isolated world of every new document: the readers for the top document. */
export function probeInit(config: ReaderConfig): void {
  try {
    if (window !== window.top) return;
  } catch {
    return;
  }
  Object.assign(cfg, config);
  (globalThis as unknown as { __wg: typeof api }).__wg = api;
}
