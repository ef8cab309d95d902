/**
 * The steps of a requirement test, acted as a person would: the element is found by its locator in the page
 * (page/locate.ts), brought into view, and acted on with CDP input events (input.ts) at its centre or at `at`
 * inside it (typing through the keyboard, a select's option through the page's own setter with input and change
 * events, as a person's pick would fire them). After each action STEP_SETTLE_MS of the page clock pass (handlers
 * with short timers run); `wait` moves the clock by its own amount.
 *
 * Interpretations: `type` focuses the field with a click, clears it (an input event), then types; `check` and
 * `uncheck` click only when the box is not already in the wanted state and fail when a click does not get it
 * there; `drag` is mouse down, ten moves, mouse up (pointer and mouse events; HTML5 drag-and-drop events are not
 * synthesised); `hover` moves the mouse there; `press` goes to the focused element, else the page; `reload`
 * loads the current address again with storage kept; `resize` sets the page's view to that size (the page gets
 * its resize event; the next test's restore sets it back); `wait` with `real` moves the page clock paced by real
 * time (a worker, a video or a network answer gets that much real time too); `waitUntil` checks its expectation
 * every WAIT_POLL_MS of page time (WAIT_POLL_PIXELS_MS for one that reads the screen) until it holds, and fails the
 * step when `within` page-clock ms (default 5000) passed without; `repeat` runs its steps n times; `try` runs its
 * steps until one's locator finds nothing, which ends the `try` (named as skipped), not the test; a step with
 * `optional` is a `try` of itself; `read` stores the first number of an element's text (or of the text OCR reads
 * in its region of the screen) under its name.
 */
import {
  describeLocator,
  describeStep,
  describeExpectation,
  isOffset,
  type Locator,
  type TestBox,
  type TestStep,
  WAIT_UNTIL_DEFAULT_MS,
} from '../../../core/requirement-tests.js';
import { errorMessage } from '../../../core/errors.js';
import { OutOfBudget, type ProbeRun } from '../probe/run.js';
import { INTERACTION_DEFAULTS, RELOAD_TIMEOUT_MS } from '../probe/limits.js';
import { withTimeout } from '../../time.js';
import { checkOne, numberIn, takeSamples, textIn, type TestState } from './expect.js';
import { LEFT, chord, clickAt, dragBetween, mouseEvent, moveDown, touch, withModifiers, type Press } from './input.js';
import { pointIn } from './pixels.js';
import type { Expectation } from '../../../core/requirement-tests.js';

/** Page-clock milliseconds after each action (a debounce or a short animation finishes). */
export const STEP_SETTLE_MS = 300;
/** Page-clock milliseconds between two checks of a `waitUntil` (and for one that reads the screen). */
export const WAIT_POLL_MS = 100;
export const WAIT_POLL_PIXELS_MS = 250;
/** Page-clock milliseconds a key chord is held by default (long enough for a game loop to see both keys). */
export const CHORD_MS = 250;

type Rect = { x: number; y: number; width: number; height: number };
type Found = { found: true; i: number; point: { x: number; y: number }; rect: Rect; box: TestBox; tag: string } | { found: false; nearest: string[] };

export interface StepOutcome {
  ok: boolean;
  note?: string;
  /** The element acted on (page coordinates). */
  box?: TestBox;
}

/** A failed lookup, naming the locator and what the page offers instead. */
export class NotFound extends Error {}
/** A step that ran but did not get what it needed (a waitUntil that timed out, a number not read). */
export class StepFailed extends Error {}

const finite = (...xs: unknown[]) => xs.every((x) => typeof x === 'number' && Number.isFinite(x));

async function find(run: ProbeRun, loc: Locator): Promise<Extract<Found, { found: true }>> {
  const f = await run.call<Found>('tests.find', [loc]);
  if (!f || !f.found || !finite(f.point?.x, f.point?.y, f.rect?.x, f.rect?.y, f.rect?.width, f.rect?.height)) {
    const nearest = f && !f.found && Array.isArray(f.nearest) ? f.nearest.filter((t) => typeof t === 'string') : [];
    throw new NotFound(
      `${describeLocator(loc)} found nothing; the page offers ${nearest.length ? nearest.map((t) => JSON.stringify(t)).join(', ') : 'no texts'}`,
    );
  }
  return f;
}

/** Where to act inside the element: its centre, or `at` (kept inside the viewport). */
function aim(run: ProbeRun, f: { point: { x: number; y: number }; rect: Rect }, at?: Parameters<typeof pointIn>[1]): { x: number; y: number } {
  const p = at ? pointIn(f.rect, at) : f.point;
  const v = run.d.viewport;
  return { x: Math.min(Math.max(p.x, 0), v.width - 1), y: Math.min(Math.max(p.y, 0), v.height - 1) };
}

const pressOf = (s: { button?: Press['button']; modifiers?: Press['modifiers'] }): Press => ({ button: s.button ?? 'left', modifiers: s.modifiers ?? [] });

async function check(run: ProbeRun, loc: Locator, want: boolean): Promise<TestBox> {
  const f = await find(run, loc);
  const state = await run.call<boolean | null>('tests.checked', [f.i]);
  if (state === want) return f.box;
  await run.d.click(f.point.x, f.point.y);
  await run.advance(STEP_SETTLE_MS, false);
  const after = await run.call<boolean | null>('tests.checked', [f.i]);
  if (after !== null && after !== want) throw new NotFound(`${describeLocator(loc)} is still ${after ? 'checked' : 'unchecked'} after a click`);
  return f.box;
}

async function press(run: ProbeRun, key: string, hold?: number): Promise<void> {
  if (!hold) {
    await run.d.press(key);
    return;
  }
  await run.d.keyDown(key);
  await run.advance(hold, false);
  await run.d.keyUp(key);
}

async function mouseSequence(run: ProbeRun, step: Extract<TestStep, { mouse: unknown }>): Promise<TestBox | undefined> {
  const f = step.on !== undefined ? await find(run, step.on) : undefined;
  const outer = f?.rect ?? { x: 0, y: 0, ...run.d.viewport };
  const p = pressOf(step);
  let at = f ? f.point : { x: outer.width / 2, y: outer.height / 2 };
  let down = false;
  await withModifiers(run, p.modifiers, async () => {
    try {
      for (const op of step.mouse) {
        if ('wait' in op) {
          await run.advance(op.wait, false);
          continue;
        }
        const to = 'up' in op ? (op.up === true ? at : pointIn(outer, op.up)) : pointIn(outer, 'down' in op ? op.down : op.move);
        if ('down' in op) {
          await mouseEvent(run, 'mouseMoved', to.x, to.y, p, down);
          await mouseEvent(run, 'mousePressed', to.x, to.y, p, (down = true));
        } else if ('move' in op) await moveDown(run, at, to, p, down, op.steps);
        else {
          if (to.x !== at.x || to.y !== at.y) await moveDown(run, at, to, p, down);
          await mouseEvent(run, 'mouseReleased', to.x, to.y, p, (down = false));
        }
        at = to;
      }
    } finally {
      // A sequence that ends with the button down is released where it is (a page must not be left mid-drag).
      if (down) await mouseEvent(run, 'mouseReleased', at.x, at.y, p, false).catch(() => undefined);
    }
  });
  return f?.box;
}

async function waitUntil(run: ProbeRun, st: TestState, step: Extract<TestStep, { waitUntil: unknown }>, path: string): Promise<void> {
  const e: Expectation = step.waitUntil;
  const within = step.within ?? WAIT_UNTIL_DEFAULT_MS;
  const screenLike = /"(pixels|ocr|moving|still)"|"screen"/.test(JSON.stringify(e));
  const poll = screenLike ? WAIT_POLL_PIXELS_MS : WAIT_POLL_MS;
  await takeSamples(run, st, [e], undefined, `w${path}.`);
  let waited = 0;
  for (;;) {
    const v = await checkOne(run, st, e, `w${path}.0`);
    if (v.ok) return;
    if (waited >= within) throw new StepFailed(`waited ${waited} ms: ${describeExpectation(e)} never held; last found ${v.found}`);
    const d = Math.min(poll, within - waited);
    await run.advance(d, false);
    st.shot = undefined;
    waited += d;
  }
}

/** Act one step; the element's box when it acted on one. Throws NotFound/StepFailed (the test fails) or page faults. */
async function act(run: ProbeRun, st: TestState, step: TestStep, path: string): Promise<TestBox | undefined> {
  if ('wait' in step) {
    await run.agent('advance', [step.wait, false, step.real === true], step.real ? step.wait + 3000 : undefined);
    return undefined;
  }
  if ('waitUntil' in step) {
    await waitUntil(run, st, step, path);
    return undefined;
  }
  if ('read' in step) {
    const t = await textIn(run, st, step.read, step.ocr === true, step.region);
    if ('why' in t) throw new NotFound(t.why);
    const n = numberIn(t.text);
    if (n === null) throw new StepFailed(`no number in ${JSON.stringify(t.text.slice(0, 80))}`);
    st.values.set(step.as, n);
    return undefined;
  }
  if ('reload' in step) {
    const url = await run.call<string>('href', [], 1000);
    const nav = await run.d.navigate(String(url), run.bound(RELOAD_TIMEOUT_MS));
    if (nav.error) throw new NotFound(`reload failed: ${nav.error}`);
    await run.settle();
    return undefined;
  }
  if ('resize' in step) {
    await run.d.resize(step.resize.width, step.resize.height, run.bound(3000));
  } else if ('press' in step) {
    await press(run, step.press, step.hold);
  } else if ('keys' in step) {
    await chord(run, step.keys, step.hold ?? CHORD_MS);
  } else if ('mouse' in step) {
    const box = await mouseSequence(run, step);
    await run.advance(STEP_SETTLE_MS, false);
    return box;
  } else if ('drag' in step) {
    const from = await find(run, step.drag);
    const start = aim(run, from, step.at);
    const to = isOffset(step.to) ? { x: start.x + step.to.dx, y: start.y + step.to.dy } : (await find(run, step.to)).point;
    await dragBetween(run, start, to, pressOf(step));
    await run.advance(STEP_SETTLE_MS, false);
    return from.box;
  } else if ('touch' in step || 'swipe' in step) {
    const f = await find(run, 'touch' in step ? step.touch : step.swipe);
    const start = aim(run, f, step.at);
    await touch(run, start, 'swipe' in step ? { to: { x: start.x + step.to.dx, y: start.y + step.to.dy } } : step.hold ? { hold: step.hold } : {});
    await run.advance(STEP_SETTLE_MS, false);
    return f.box;
  } else if ('check' in step || 'uncheck' in step) {
    return check(run, 'check' in step ? step.check : step.uncheck, 'check' in step);
  } else if ('select' in step) {
    const f = await find(run, step.select);
    const chosen = await run.call<string | null>('tests.choose', [f.i, step.option]);
    if (chosen === null) throw new NotFound(`${describeLocator(step.select)} has no option matching ${JSON.stringify(step.option)}`);
    await run.advance(STEP_SETTLE_MS, false);
    return f.box;
  } else if ('click' in step || 'dblclick' in step || 'hover' in step || 'type' in step) {
    const loc = 'click' in step ? step.click : 'dblclick' in step ? step.dblclick : 'hover' in step ? step.hover : step.type;
    const f = await find(run, loc);
    const at = aim(run, f, 'type' in step ? undefined : step.at);
    if ('hover' in step) await mouseEvent(run, 'mouseMoved', at.x, at.y, LEFT, false);
    else if ('type' in step) await run.d.click(at.x, at.y);
    else await clickAt(run, at.x, at.y, pressOf(step), 'dblclick' in step ? 2 : 1, 'click' in step ? (step.hold ?? 0) : 0);
    if ('type' in step) {
      await run.call('tests.clear', [f.i]);
      await run.d.type(step.text);
    }
    await run.advance(STEP_SETTLE_MS, false);
    return f.box;
  }
  await run.advance(STEP_SETTLE_MS, false);
  return undefined;
}

/** Real milliseconds a step may take before the page is called hung (its own page-clock time on top, when long). */
function stepTimeout(step: TestStep): number {
  const own =
    'wait' in step ? step.wait : 'waitUntil' in step ? (step.within ?? WAIT_UNTIL_DEFAULT_MS) : 'press' in step || 'keys' in step ? (step.hold ?? 0) : 0;
  const extra = 'read' in step || 'waitUntil' in step ? 8000 : 0; // OCR's worker start, screen reads
  return INTERACTION_DEFAULTS.actionTimeoutMs + ('wait' in step || 'press' in step || 'keys' in step ? 2000 : 0) + own + extra;
}

/**
 * Run one step; a locator that finds nothing or a key the browser does not know is a failed step. A step over
 * the probe's per-action time (plus its own waiting) throws (the runner calls the page hung).
 */
export async function runStep(run: ProbeRun, st: TestState, step: TestStep, path = '0'): Promise<StepOutcome> {
  try {
    st.shot = undefined;
    const box = await withTimeout(act(run, st, step, path), run.bound(stepTimeout(step)), describeStep(step));
    st.shot = undefined;
    return box ? { ok: true, box } : { ok: true };
  } catch (err) {
    st.shot = undefined;
    if (err instanceof NotFound || err instanceof StepFailed) return { ok: false, note: err.message };
    if (err instanceof OutOfBudget) throw err;
    const msg = errorMessage(err);
    if (/Unknown key/i.test(msg)) return { ok: false, note: `${describeStep(step)}: ${msg}` };
    throw err;
  }
}

/**
 * Run steps in order until one fails; returns the failing step's note, or undefined when all ran. A `repeat` and a
 * `try` run their own steps here; an optional step, or a step inside a `try`, whose locator finds nothing is
 * skipped (listed with `skipped`) and ends its `try`. After a named step, the samples that compare with it are
 * taken (`since`).
 */
export async function runSteps(
  run: ProbeRun,
  st: TestState,
  steps: readonly TestStep[],
  expect: readonly Expectation[],
  prefix = '',
): Promise<string | undefined> {
  for (const [k, step] of steps.entries()) {
    const path = `${prefix}${k + 1}`;
    let failed: string | undefined;
    let skipped = false;
    if ('repeat' in step || 'try' in step) {
      const inner = 'repeat' in step ? step.steps : step.try;
      for (let r = 0; r < ('repeat' in step ? step.repeat : 1) && !failed; r++) {
        failed = await runSteps(run, st, inner, expect, `${path}.`);
        const last = st.steps[st.steps.length - 1];
        if (failed && 'try' in step && last && !last.ok && /found nothing/.test(last.note ?? '')) {
          // The try ends at the step whose locator found nothing: that step was skipped, not failed.
          last.ok = true;
          last.note = `skipped: ${last.note}`;
          last.skipped = true;
          failed = undefined;
          skipped = true;
          break;
        }
      }
      st.steps.push({ step: describeStep(step), ok: !failed, ...(skipped ? { note: 'ended at a step whose locator found nothing' } : {}) });
    } else {
      const docs = run.d.win.documents.length;
      const o = await runStep(run, st, step, path);
      skipped = !o.ok && step.optional === true && /found nothing/.test(o.note ?? '');
      st.steps.push({
        step: describeStep(step),
        ok: o.ok || skipped,
        ...(o.note ? { note: skipped ? `skipped: ${o.note}` : o.note } : {}),
        ...(skipped ? { skipped } : {}),
      });
      if (o.box) st.boxes.push(o.box);
      if (!o.ok && !skipped) failed = `step ${path} (${describeStep(step)}): ${o.note}`;
      // A step that loaded another document: wait for it and settle its clock before the next step.
      if (!failed && run.d.win.documents.length > docs) await run.afterNavigation(run.d.win);
    }
    if (failed) return failed;
    if (step.name !== undefined) await takeSamples(run, st, expect, step.name);
  }
  return undefined;
}
