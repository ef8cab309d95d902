/**
 * Phase 3, second chances: a control inert from the start state (an already selected tab, Undo with no
 * history, Clear with nothing to clear) is tried once more right after another control acted: a live sibling
 * in its group (same parent), else the nearest live control before it, else after it. Then the value reads:
 * a field whose value the page's code read while some action was observed feeds something.
 */
import type { InteractionAction, InteractionControl, InteractionEffect, InteractionError } from '../../../core/browser-evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { withTimeout } from '../../time.js';
import { act } from './act.js';
import { OWN_STATE, observe } from './actions.js';
import { actionErrors, describeControl, effectsOf, topmost } from './effects.js';
import { OutOfBudget, type ProbeRun } from './run.js';

const parentOf = (sel: string) => sel.replace(/ > [^>]+$/, '');

/**
 * The control to act on first. A sibling that was itself live only right after another control (a game's
 * direction buttons, live once Start was pressed) hands on that control: the siblings need the same state.
 */
function precursor(run: ProbeRun, c: InteractionControl): InteractionControl | undefined {
  const live = (i: number) => run.ev.actions.some((x) => x.control === i && x.outcome === 'done' && x.effects.length > 0);
  const pool = run.chosen.filter((x) => x !== c && x.kind !== 'keyboard' && live(x.index));
  const p =
    pool.find((x) => x.tag === c.tag && parentOf(x.selector) === parentOf(c.selector) && x.selector.includes(' > ') && c.selector.includes(' > ')) ??
    pool.find((x) => x.tag === c.tag && x.nav !== undefined && x.nav === c.nav) ??
    [...pool].reverse().find((x) => x.index < c.index) ??
    pool.find((x) => x.index > c.index);
  const via = p ? run.ev.actions.find((x) => x.control === p.index)?.after : undefined;
  return via !== undefined && via !== c.index ? run.controls[via] : p;
}

/** Act on `p`, then on `c` from the state it left; null when either is missing or `p` navigated away. */
async function tryAfter(
  run: ProbeRun,
  c: InteractionControl,
  p: InteractionControl,
  ignore: string[],
): Promise<{ effects: InteractionEffect[]; errors: InteractionError[]; refused: string[] } | null> {
  await run.restore();
  const pp = await run.prepare({ fill: true, target: p.index, exclude: OWN_STATE.has(p.kind) ? p.index : null, prepMs: 0 });
  if (pp.missing) return null;
  const w0 = run.d.startWindow();
  await act(run, p, pp.point ?? null);
  await run.advance(run.settings.observeMs);
  await run.quiet();
  if (w0.documents.length) return null;
  await run.tag(run.selectors);
  const exclude = OWN_STATE.has(c.kind) ? c.index : null;
  const prep = await run.prepare({ fill: false, target: c.index, exclude, prepMs: run.settings.prepMs });
  if (prep.missing) return null;
  const since = performance.now();
  const w = run.d.startWindow();
  await act(run, c, prep.point ?? null);
  await observe(run, w, since);
  const navigated = w.documents.length ? await run.afterNavigation(w) : null;
  const post = navigated ? null : await run.post({ exclude, acted: c.index, ignore, versus: {} });
  return { effects: effectsOf(w, post, navigated, run.ref), errors: actionErrors(w, run.ref), refused: w.refused };
}

/** The second chance of one inert action `a` after `p`; 'out of budget' when the budget ran out during it. */
async function secondChance(
  run: ProbeRun,
  a: InteractionAction,
  c: InteractionControl,
  p: InteractionControl,
  ignore: string[],
): Promise<'out of budget' | undefined> {
  try {
    const second = await withTimeout(tryAfter(run, c, p, ignore), run.bound(run.settings.actionTimeoutMs), `second chance for ${c.selector}`);
    if (second && second.effects.length) {
      a.effects = second.effects;
      a.after = p.index;
      a.note = [a.note, `inert from the start state; it responded right after ${describeControl(p)} acted`].filter(Boolean).join('; ');
      for (const e of second.errors) if (!a.errors.some((x) => x.message === e.message)) a.errors.push(e);
      if (second.refused.length) a.refused = [...new Set([...(a.refused ?? []), ...second.refused])];
    }
  } catch (err) {
    if (err instanceof OutOfBudget) {
      a.undecided = `inert from the start state; the probe's time budget ran out during its second chance (after ${describeControl(p)})`;
      return 'out of budget';
    }
    run.faults.push(`second chance for ${c.selector}: ${errorMessage(err)}`);
    a.undecided = `inert from the start state; its second chance (after ${describeControl(p)}) failed: ${errorMessage(err)}`;
  }
  return undefined;
}

export async function secondChances(run: ProbeRun): Promise<void> {
  const tc2 = performance.now();
  const everIgnored = topmost([...run.unstable, ...run.plainBase.spontaneous, ...run.ref.spontaneous]);
  let outOfBudget = false;
  for (const a of [...run.ev.actions]) {
    const c = run.controls[a.control]!;
    if (a.outcome !== 'done' || a.effects.length || c.kind === 'keyboard') continue;
    const p = precursor(run, c);
    if (!p) continue;
    if (outOfBudget || run.left() < run.settings.actionTimeoutMs) {
      if (!outOfBudget) run.faults.push("the probe's time budget ran out before every inert control had its second chance");
      outOfBudget = true;
      a.undecided = `inert from the start state; the probe's time budget ran out before its second chance (after ${describeControl(p)})`;
      continue;
    }
    if ((await secondChance(run, a, c, p, everIgnored)) === 'out of budget') outOfBudget = true;
  }
  run.mark('secondChance', tc2);
}

/** The value of a field read by the page's code while some action was observed: it feeds something. */
export function valueReads(run: ProbeRun): void {
  for (const a of run.ev.actions) {
    const c = run.controls[a.control]!;
    if (!OWN_STATE.has(c.kind)) continue;
    const by = run.readsOf.get(c.index);
    if (!by) continue;
    const names = [...by].map((i) => (i === c.index ? 'its own listener' : describeControl(run.controls[i]!)));
    a.effects.push({
      kind: 'value-read',
      detail: `read by the page when acting on ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}`,
    });
  }
}
