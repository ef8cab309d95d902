/**
 * Phase 2, the baselines: runs without an action. The unfilled one (L going on) tells what changes by itself;
 * a filled one (R1) when the page has text fields, since buttons act on a filled form; a second run of the same
 * (R2) tells what is unstable (depends on real time) and never counts as an effect. When the keyboard control
 * is acted on, the unfilled run (and R2 when it is unfilled too) also snapshots the moments its keys are read.
 * The start view is read at the end, leaving out what changes by itself or is unstable.
 *
 * A heavy page that holds its frames (`ProbeRun.holdsFrames`: its frames adapted early, so it started no worker) and
 * has nothing left on real time gets no R2 (`twinSkipped`): every source of change in it runs on the page clock,
 * and R2 costs a reload, a settle and PREP + OBSERVE of its costliest frames (0.6–0.9 s of the probe on the heavy
 * fixtures with controls, 2026-11-29, where R2 never found anything unstable). Left on real time, and R2 kept: a
 * worker (such a page does not hold its frames), a request the page made after its load (in the restore's settle,
 * PREP or OBSERVE: network timing; an image does not hold the clock as a fetch does), a video or audio element (media
 * plays on real time), an audio context or a WebSocket (Chrome reports both).
 */
import type { InteractionView } from '../../../core/browser-evidence.js';
import { differing, plain, topmost } from './effects.js';
import type { Baseline } from './page-answers.js';
import { keyCheckpoints, playedKeys } from './play.js';
import { LAST_SAMPLE_MS, sampleFirstView, sampleLater } from './discover.js';
import type { ProbeRun } from './run.js';

/**
 * PREP then OBSERVE without an action (after a restore when `reload`), the form filled when `fill`; with
 * `moments` (virtual ms after PREP), a snapshot at each of those too, the clock going on past OBSERVE if need be.
 * With `lastFrame` (a heavy page with nothing to act on: no run is compared with this one) only the frame at the end
 * of OBSERVE is drawn (ProbeRun.advanceToLastFrame): what changes by itself still shows, at a frame's cost; and
 * OBSERVE runs on to the later sample's moment (discover.ts LAST_SAMPLE_MS), so that the frame drawn there is the one
 * the first view is read again in, once: one costly frame instead of two (the fractal's costs about a second).
 */
async function baseline(run: ProbeRun, fill: boolean, reload: boolean, moments: number[] = [], lastFrame = false): Promise<Baseline> {
  const { settings, ev } = run;
  if (reload) await run.restore();
  const observe = lastFrame ? Math.max(settings.observeMs, LAST_SAMPLE_MS - run.clockNow - settings.prepMs) : settings.observeMs;
  const w = run.d.startWindow();
  const prepare = () => run.prepare({ fill, target: null, exclude: null, prepMs: settings.prepMs });
  const prep = lastFrame ? await run.holding(prepare) : await prepare();
  if (fill && prep.filled) ev.filled = prep.filled;
  if (prep.storm) run.clockBehind('in the PREP of a baseline');
  const fillErrors = w.errors.map(plain);
  const before = await run.call<Record<string, string>>('snapshot', ['A', null, true]);
  const w2 = run.d.startWindow();
  const at: Record<number, Record<string, string>> = {};
  let now = 0;
  for (const ms of [...new Set([...moments, observe])].sort((a, b) => a - b)) {
    if (lastFrame) await run.advanceToLastFrame(ms - now);
    else await run.advance(ms - now);
    now = ms;
    await run.quiet();
    at[ms] = await run.call<Record<string, string>>('snapshot', ['B', null, true]);
  }
  const after = at[observe]!;
  if (fill && fillErrors.length) ev.fillErrors = fillErrors;
  // The errors of the whole run count as the page's own (a key's window may run past OBSERVE).
  return {
    before,
    after,
    spontaneous: differing(before, after),
    errors: w2.errors.map(plain),
    requests: (reload ? run.settleRequests : 0) + w.requests.length + w2.requests.length,
    view: undefined as unknown as InteractionView,
    ...(moments.length ? { at } : {}),
  };
}

/**
 * Why R2 is not run on this page (a heavy page with nothing on real time, see above), or null when it is. `media`:
 * the page has a video or audio element, or Chrome saw it start an audio context or a WebSocket (driver.ts
 * `realTime`); a page whose readers did not answer the question counts as having media (R2 kept, the probe goes on).
 */
export function twinSkipped(holdsFrames: boolean, plain: Pick<Baseline, 'requests'>, media: boolean): string | null {
  if (!holdsFrames || plain.requests > 0 || media) return null;
  return 'a heavy page held to the page clock with no worker, no request after load, no media, audio context or WebSocket: nothing in it runs on real time';
}

/** Paths that differ between the two identical runs `a` and `b` at any moment both snapshotted. */
function unstableOf(a: Baseline, b: Baseline): string[] {
  const out = [...differing(a.before, b.before), ...differing(a.after, b.after)];
  for (const [ms, snap] of Object.entries(a.at ?? {})) {
    const twin = b.at?.[Number(ms)];
    if (twin) out.push(...differing(snap, twin));
  }
  return topmost(out);
}

export async function baselines(run: ProbeRun): Promise<void> {
  const tb = performance.now();
  await run.tag(run.selectors);
  const keyboard = run.chosen.find((c) => c.kind === 'keyboard');
  const moments = keyboard ? keyCheckpoints(playedKeys(keyboard).length) : [];
  // Frames adapted in the first settle: the first document ran its first frames at 16 ms, the restores run at the
  // adapted interval from their start, so a page whose runs are compared (it has controls) reloads for this run.
  // Otherwise (a page paced by a worker) frames adapt here: the document so far ran at 16 ms, and it reloads.
  const reload = run.adaptedEarly ? run.controls.length > 0 : run.adaptFrames();
  // A heavy page with nothing to act on: only the baseline's last frame (its frames are its cost, nothing compares).
  const plainBase = await baseline(run, false, reload, moments, run.holdsFrames && run.controls.length === 0);
  const needFill = run.hasTextField && run.chosen.some((c) => c.kind !== 'keyboard');
  // The first view read again at the end of that run, and later still once the document is no longer needed.
  const reloadsNext = needFill || run.controls.length > 0;
  await sampleFirstView(run);
  if (reloadsNext) await sampleLater(run);
  const filledBase = needFill ? await baseline(run, true, true) : plainBase;
  // Nothing to act on or follow: no comparison needs the second run (a canvas scene alone saves a reload).
  const skipped = run.controls.length
    ? twinSkipped(
        run.holdsFrames,
        { requests: plainBase.requests + (filledBase === plainBase ? 0 : filledBase.requests) },
        run.holdsFrames && (run.d.realTime.size > 0 || (await run.call<boolean>('hasMedia', []).catch(() => true)) !== false),
      )
    : null;
  if (skipped) run.ev.unstableUnchecked = skipped;
  const twin = run.controls.length && !skipped ? await baseline(run, needFill, true, needFill ? [] : moments) : null;
  const ref = needFill ? filledBase : plainBase;
  const unstable = twin ? unstableOf(ref, twin) : [];
  if (unstable.length) run.ev.unstable = unstable.slice(0, 50);
  // The start view is read after the last moment snapshotted: what changed by itself by any of them is left out.
  const drift = Object.values(plainBase.at ?? {}).flatMap((snap) => differing(plainBase.before, snap));
  run.ignoreInViews = topmost([...unstable, ...[...plainBase.spontaneous, ...ref.spontaneous, ...drift].filter((p) => !p.startsWith('~'))]);
  ref.view = await run.call<InteractionView>('view', [null, run.ignoreInViews]);
  if (plainBase !== ref) plainBase.view = ref.view;
  run.ev.navigation.startView = ref.view;
  run.plainBase = plainBase;
  run.ref = ref;
  run.unstable = unstable;
  run.mark('baselines', tb);
  if (!reloadsNext) await sampleLater(run);
}
