/**
 * Phase 1, the first load (L): load, SETTLE, and measure the first view (render-validity). A page that does
 * not answer after its load is not probed further: it is hung.
 */
import type { FirstView } from '../../../core/browser-evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { TimeoutError } from '../../time.js';
import type { ProbeDriver } from '../driver.js';
import { plain } from './effects.js';
import { FIRST_LOAD_TIMEOUT_MS, START_UP_MS } from './limits.js';
import { OutOfBudget, type ProbeRun } from './run.js';
import { gate } from '../../step-gate.js';

async function load(run: ProbeRun): Promise<Awaited<ReturnType<ProbeDriver['navigate']>>> {
  let nav: Awaited<ReturnType<ProbeDriver['navigate']>>;
  await gate.step('probe first load');
  try {
    nav = await run.d.navigate(run.entryUrl, run.bound(run.opts.firstLoadMs ?? FIRST_LOAD_TIMEOUT_MS));
  } catch (err) {
    throw new Error(`the first load failed: ${errorMessage(err)}`);
  }
  if (nav.error) throw new Error(`the first load failed: ${nav.error}`);
  if (!nav.loaded) {
    run.firstLoadTimedOut = true;
    run.faults.push("the load event did not fire within the first load's timeout; actions reload without waiting for it");
  }
  return nav;
}

/** Load the entry page and read its first view; false when the page did not respond (the evidence says why). */
export async function firstLoad(run: ProbeRun): Promise<boolean> {
  const tl = performance.now();
  const nav = await load(run);
  try {
    // A page busy with start-up work after its load (a WebAssembly runtime compiling) has START_UP_MS to answer.
    await run.d.alive(run.bound(run.opts.startUpMs ?? START_UP_MS), 'responsiveness probe');
    await run.settle();
  } catch (err) {
    if (err instanceof OutOfBudget) throw err;
    const why = err instanceof TimeoutError ? 'the page did not respond after load (busy main thread)' : `the page could not be probed: ${errorMessage(err)}`;
    run.unavailable.firstView = why;
    run.ev.hung = true;
    run.faults.push(why);
    run.mark('firstLoad', tl);
    return false;
  }
  const read = await run.call<Omit<FirstView, 'errorsBeforeRender'> & { firstPaintEpochMs: number | null }>('firstView', []);
  const { firstPaintEpochMs: paintAt, ...fv } = read;
  // The errors the browser reported in the top document before its first contentful paint (all of them when nothing
  // was painted).
  const before = run.d.allErrors.filter((e) => e.top && e.kind !== 'console' && (typeof paintAt !== 'number' || (e.at !== undefined && e.at < paintAt)));
  run.ev.firstView = { ...fv, errorsBeforeRender: before.map(plain), loaded: nav.loaded && fv.loaded === true, atMs: run.clockNow };
  run.ev.loadErrors = run.d.allErrors.map(plain);
  run.mark('firstLoad', tl);
  return true;
}
