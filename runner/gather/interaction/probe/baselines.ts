/**
 * Phase 2, the baselines: runs without an action. The unfilled one (L going on) tells what changes by itself;
 * a filled one (R1) when the page has text fields, since buttons act on a filled form; a second run of the same
 * (R2) tells what is unstable (depends on real time) and never counts as an effect. The start view is read at
 * the end, leaving out what changes by itself or is unstable.
 */
import type { InteractionView } from '../../../../core/browser-evidence.js';
import { differing, plain, topmost } from './effects.js';
import type { Baseline, PrepareResult } from './page-answers.js';
import type { ProbeRun } from './run.js';

/** PREP then OBSERVE without an action (after a restore when `reload`), the form filled when `fill`. */
async function baseline(run: ProbeRun, fill: boolean, reload: boolean): Promise<Baseline> {
  const { settings, ev } = run;
  if (reload) await run.restore();
  const w = run.d.startWindow();
  const prep = await run.call<PrepareResult>('prepare', [{ fill, target: null, exclude: null, prepMs: settings.prepMs, frames: false }]);
  if (fill && prep.filled) ev.filled = prep.filled;
  const fillErrors = w.errors.map(plain);
  const before = await run.call<Record<string, string>>('snapshot', ['A', null, true]);
  const w2 = run.d.startWindow();
  await run.call('advance', [settings.observeMs]);
  await run.quiet();
  const after = await run.call<Record<string, string>>('snapshot', ['B', null, true]);
  if (fill && fillErrors.length) ev.fillErrors = fillErrors;
  return { before, after, spontaneous: differing(before, after), errors: w2.errors.map(plain), view: undefined as unknown as InteractionView };
}

export async function baselines(run: ProbeRun): Promise<void> {
  const tb = performance.now();
  await run.call('tag', [run.selectors]);
  const plainBase = await baseline(run, false, false);
  const needFill = run.hasTextField && run.chosen.some((c) => c.kind !== 'keyboard');
  const filledBase = needFill ? await baseline(run, true, true) : plainBase;
  const twin = await baseline(run, needFill, true);
  const ref = needFill ? filledBase : plainBase;
  const unstable = topmost([...differing(ref.before, twin.before), ...differing(ref.after, twin.after)]);
  if (unstable.length) run.ev.unstable = unstable.slice(0, 50);
  run.ignoreInViews = topmost([...unstable, ...plainBase.spontaneous.filter((p) => !p.startsWith('~')), ...ref.spontaneous.filter((p) => !p.startsWith('~'))]);
  ref.view = await run.call<InteractionView>('view', [null, run.ignoreInViews]);
  if (plainBase !== ref) plainBase.view = ref.view;
  run.ev.navigation.startView = ref.view;
  run.plainBase = plainBase;
  run.ref = ref;
  run.unstable = unstable;
  run.mark('baselines', tb);
}
