/**
 * Phase 3, the controls: each chosen control is acted on from the restored start state (the other empty
 * fields filled, PREP, the action, the mouse off the page, OBSERVE, the network quiet) and the state compared
 * with the "before" snapshot, what changes by itself with the baseline at the same virtual moment instead.
 * The keyboard control's keys are played one by one and read after each (play.ts).
 * Each action has its own timeout; a page that stops responding gets a new page, and is given up after
 * MAX_HANGS.
 */
import type { InteractionAction, InteractionControl, InteractionView } from '../../../core/browser-evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { TimeoutError, withTimeout } from '../../time.js';
import type { Window } from '../window.js';
import { act, actionName } from './act.js';
import { actionErrors, effectsOf } from './effects.js';
import { FINISH_RESERVE_MS, MAX_HANGS } from './limits.js';
import type { Navigated, PostResult } from './page-answers.js';
import { playKeys } from './play.js';
import { OutOfBudget, type ProbeRun } from './run.js';

/** Which kinds keep their own state out of the comparison (what the action does to the control itself is ours). */
export const OWN_STATE: ReadonlySet<string> = new Set(['text', 'toggle', 'select', 'range', 'value', 'file']);

/** OBSERVE after an action; a navigation during it may cut the advance short (the document went away). */
export async function observe(run: ProbeRun, w: Window, since: number): Promise<void> {
  try {
    await run.advance(run.settings.observeMs);
  } catch (err) {
    if (!w.documents.length) throw err;
  }
  await run.quiet(since);
}

/** Keep what the action led to: its view (navigation reuses it) and the fields the page read. */
async function recordView(run: ProbeRun, c: InteractionControl, a: InteractionAction, post: PostResult | null, navigated: Navigated | null): Promise<void> {
  if (post && c.nav) {
    // The view a navigation element leads to is read with the mouse off the page (a hover menu is not a view).
    await run.d.mouseOut().catch(() => undefined);
    await run.advance(0);
    post.view = await run.call<InteractionView>('view', [null, run.ignoreInViews]);
  }
  if (post) {
    a.view = post.view.key;
    run.viewAfter.set(c.index, post.view);
    for (const r of post.reads) {
      const s = run.readsOf.get(r) ?? new Set<number>();
      s.add(c.index);
      run.readsOf.set(r, s);
    }
  } else if (navigated?.view) {
    a.view = navigated.view.key;
    run.viewAfter.set(c.index, navigated.view);
  }
}

/** One control's action from the restored start state. */
async function runAction(run: ProbeRun, c: InteractionControl): Promise<InteractionAction> {
  const t = performance.now();
  const a: InteractionAction = { control: c.index, action: actionName(c), outcome: 'done', effects: [], errors: [], ms: 0 };
  const keyboard = c.kind === 'keyboard';
  const base = keyboard ? run.plainBase : run.ref;
  const exclude = OWN_STATE.has(c.kind) ? c.index : null;
  const { missing } = await run.restore();
  const prep =
    !keyboard && missing.includes(c.index)
      ? null
      : await run.prepare({ fill: !keyboard, target: keyboard ? null : c.index, exclude, prepMs: run.settings.prepMs });
  if (!prep || prep.missing) {
    a.outcome = 'not-found';
    a.note = 'not found after the reload';
    return a;
  }
  if (prep.covered) a.note = `covered by ${prep.covered}`;
  if (prep.storm) run.clockBehind('in the PREP before an action');
  const since = performance.now();
  const w = run.d.startWindow();
  let post: PostResult | null;
  let navigated: Navigated | null;
  if (keyboard) {
    const played = await playKeys(run, c, base, w);
    ({ action: a.action, effects: a.effects, post, navigated } = played);
  } else {
    a.action = await act(run, c, prep.point ?? null);
    await observe(run, w, since);
    navigated = w.documents.length ? await run.afterNavigation(w) : null;
    post = navigated ? null : await run.post({ exclude, acted: c.index, ignore: run.unstable, versus: run.versus(base) });
    a.effects = effectsOf(w, post, navigated, base);
  }
  await recordView(run, c, a, post, navigated);
  a.errors = actionErrors(w, base);
  if (w.refused.length) a.refused = [...new Set(w.refused)].slice(0, 20);
  a.ms = Math.round(performance.now() - t);
  return a;
}

const notActedOn = (run: ProbeRun, extra = 0) => `${run.chosen.length - run.ev.actions.length + extra} of ${run.chosen.length} controls not acted on`;

/** A page that stopped responding: its script stopped, and a new page when there is time; 'stop' to give up. */
async function hung(run: ProbeRun, a: InteractionAction, state: { hangs: number }): Promise<'stop' | 'go on'> {
  state.hangs++;
  a.errors.push({ kind: 'exception', message: 'the page stopped responding after this action' });
  await withTimeout(run.d.cdp.send('Runtime.terminateExecution'), 300, 'terminate').catch(() => undefined);
  // Without the time for a new page, the stopped one stays (the finish reads its coverage and closes it).
  const renew = run.left() >= 1500;
  if (renew) {
    await run.d.close().catch(() => undefined);
    await run.openPage();
  }
  if (state.hangs < MAX_HANGS && renew && run.left() >= 1500) return 'go on';
  run.ev.actions.push(a);
  run.unavailable.actions =
    state.hangs >= MAX_HANGS
      ? `the page stopped responding after ${state.hangs} actions: the rest were not acted on`
      : `the probe's time budget ran out after the page stopped responding: ${notActedOn(run)}`;
  return 'stop';
}

/** An action that threw or timed out: logged as failed, timed out or hung; 'stop' when the phase ends here. */
async function failed(run: ProbeRun, c: InteractionControl, err: unknown, t: number, limit: number, state: { hangs: number }): Promise<'stop' | 'go on'> {
  const a: InteractionAction = {
    control: c.index,
    action: actionName(c),
    outcome: 'failed',
    note: errorMessage(err).slice(0, 200),
    effects: [],
    errors: [],
    ms: Math.round(performance.now() - t),
  };
  // Cut short by the probe's budget, not by the per-action timeout: not a slow or hung page, left out.
  // So is a timeout with too little of the budget left to tell a slow page from a hung one fairly.
  const budgetCut = err instanceof TimeoutError && (limit < run.settings.actionTimeoutMs || run.left() + FINISH_RESERVE_MS < 1500 + 700);
  if (err instanceof OutOfBudget || budgetCut) {
    if (budgetCut) {
      run.busy = true;
      a.note = `the probe's time budget ran out during this action (after ${Math.round(performance.now() - t)} ms)`;
      run.ev.actions.push(a);
    }
    run.unavailable.actions = `the probe's time budget ran out: ${notActedOn(run, budgetCut ? 1 : 0)}`;
    return 'stop';
  }
  if (err instanceof TimeoutError) {
    // The reserve for finishing may pay for this check: a page is not called hung on a shorter wait.
    const alive = await run.d.alive(1500).then(
      () => true,
      () => false,
    );
    a.outcome = alive ? 'timeout' : 'hung';
    if (!alive && (await hung(run, a, state)) === 'stop') return 'stop';
  }
  run.ev.actions.push(a);
  return 'go on';
}

/** Act on every chosen control in turn, within the budget. */
export async function actOnControls(run: ProbeRun): Promise<void> {
  const state = { hangs: 0 };
  for (const c of run.chosen) {
    if (run.left() < Math.min(run.settings.actionTimeoutMs, 1500)) {
      run.unavailable.actions = `the probe's time budget ran out: ${notActedOn(run)}`;
      break;
    }
    const t = performance.now();
    const limit = run.bound(run.settings.actionTimeoutMs);
    let a: InteractionAction;
    try {
      a = await withTimeout(runAction(run, c), limit, `action on ${c.selector}`);
    } catch (err) {
      if ((await failed(run, c, err, t, limit, state)) === 'stop') break;
      continue;
    }
    run.ev.actions.push(a);
  }
}
