/**
 * One step of a requirement test, acted as a person would: the element is found by its locator in the page
 * (page/locate.ts), brought into view, and acted on with CDP input events at its centre (typing through the
 * keyboard, a select's option through the page's own setter with input and change events, as a person's pick
 * would fire them). After each action STEP_SETTLE_MS of the page clock pass (handlers with short timers run);
 * `wait` moves the clock by its own amount.
 *
 * Interpretations: `type` focuses the field with a click, clears it (an input event), then types; `check` and
 * `uncheck` click only when the box is not already in the wanted state and fail when a click does not get it
 * there; `drag` is mouse down, ten moves, mouse up (pointer and mouse events; HTML5 drag-and-drop events are not
 * synthesised); `hover` moves the mouse there; `press` goes to the focused element, else the page; `reload`
 * loads the current address again with storage kept.
 */
import { describeLocator, describeStep, isOffset, type Locator, type TestBox, type TestStep } from '../../../core/requirement-tests.js';
import { errorMessage } from '../../../core/errors.js';
import { OutOfBudget, type ProbeRun } from '../probe/run.js';
import { INTERACTION_DEFAULTS, RELOAD_TIMEOUT_MS } from '../probe/limits.js';
import { withTimeout } from '../../time.js';

/** Page-clock milliseconds after each action (a debounce or a short animation finishes). */
export const STEP_SETTLE_MS = 300;

type Found = { found: true; i: number; point: { x: number; y: number }; box: TestBox; tag: string } | { found: false; nearest: string[] };

export interface StepOutcome {
  ok: boolean;
  note?: string;
  /** The element acted on (page coordinates). */
  box?: TestBox;
}

/** A failed lookup, naming the locator and what the page offers instead. */
export class NotFound extends Error {}

async function find(run: ProbeRun, loc: Locator): Promise<Extract<Found, { found: true }>> {
  const f = await run.call<Found>('tests.find', [loc]);
  if (!f.found)
    throw new NotFound(
      `${describeLocator(loc)} found nothing; the page offers ${f.nearest.length ? f.nearest.map((t) => JSON.stringify(t)).join(', ') : 'no texts'}`,
    );
  return f;
}

async function mouse(run: ProbeRun, type: 'mouseMoved' | 'mousePressed' | 'mouseReleased', x: number, y: number): Promise<void> {
  await run.d.cdp.send('Input.dispatchMouseEvent', {
    type,
    x,
    y,
    button: type === 'mouseMoved' ? 'none' : 'left',
    buttons: type === 'mouseReleased' ? 0 : type === 'mousePressed' ? 1 : 0,
    clickCount: 1,
  });
}

async function drag(run: ProbeRun, step: Extract<TestStep, { drag: Locator }>): Promise<TestBox> {
  const from = await find(run, step.drag);
  let to: { x: number; y: number };
  if (isOffset(step.to)) to = { x: from.point.x + step.to.dx, y: from.point.y + step.to.dy };
  else to = (await find(run, step.to)).point;
  await mouse(run, 'mouseMoved', from.point.x, from.point.y);
  await mouse(run, 'mousePressed', from.point.x, from.point.y);
  for (let k = 1; k <= 10; k++) {
    const x = from.point.x + ((to.x - from.point.x) * k) / 10;
    const y = from.point.y + ((to.y - from.point.y) * k) / 10;
    await run.d.cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'left', buttons: 1 });
    await run.agent('advance', [16]);
  }
  await mouse(run, 'mouseReleased', to.x, to.y);
  return from.box;
}

async function check(run: ProbeRun, loc: Locator, want: boolean): Promise<TestBox> {
  const f = await find(run, loc);
  const state = await run.call<boolean | null>('tests.checked', [f.i]);
  if (state === want) return f.box;
  await run.d.click(f.point.x, f.point.y);
  await run.agent('advance', [STEP_SETTLE_MS]);
  const after = await run.call<boolean | null>('tests.checked', [f.i]);
  if (after !== null && after !== want) throw new NotFound(`${describeLocator(loc)} is still ${after ? 'checked' : 'unchecked'} after a click`);
  return f.box;
}

async function press(run: ProbeRun, key: string, hold?: number): Promise<void> {
  const k = key as Parameters<ProbeRun['d']['page']['keyboard']['press']>[0];
  if (!hold) {
    await run.d.press(key);
    return;
  }
  await run.d.page.keyboard.down(k);
  await run.agent('advance', [hold]);
  await run.d.page.keyboard.up(k);
}

/** Act one step; the element's box when it acted on one. Throws NotFound (the test fails) or page faults. */
async function act(run: ProbeRun, step: TestStep): Promise<TestBox | undefined> {
  if ('wait' in step) {
    await run.agent('advance', [step.wait]);
    return undefined;
  }
  if ('reload' in step) {
    const url = await run.call<string>('href', [], 1000);
    const nav = await run.d.navigate(url, run.bound(RELOAD_TIMEOUT_MS));
    if (nav.error) throw new NotFound(`reload failed: ${nav.error}`);
    await run.settle();
    return undefined;
  }
  if ('press' in step) {
    await press(run, step.press, step.hold);
  } else if ('drag' in step) {
    const box = await drag(run, step);
    await run.agent('advance', [STEP_SETTLE_MS]);
    return box;
  } else if ('check' in step || 'uncheck' in step) {
    return check(run, 'check' in step ? step.check : step.uncheck, 'check' in step);
  } else if ('select' in step) {
    const f = await find(run, step.select);
    const chosen = await run.call<string | null>('tests.choose', [f.i, step.option]);
    if (chosen === null) throw new NotFound(`${describeLocator(step.select)} has no option matching ${JSON.stringify(step.option)}`);
    await run.agent('advance', [STEP_SETTLE_MS]);
    return f.box;
  } else {
    const loc = 'click' in step ? step.click : 'dblclick' in step ? step.dblclick : 'hover' in step ? step.hover : step.type;
    const f = await find(run, loc);
    if ('hover' in step) await mouse(run, 'mouseMoved', f.point.x, f.point.y);
    else await run.d.click(f.point.x, f.point.y, 'dblclick' in step ? 2 : 1);
    if ('type' in step) {
      await run.call('tests.clear', [f.i]);
      await run.d.type(step.text);
    }
    await run.agent('advance', [STEP_SETTLE_MS]);
    return f.box;
  }
  await run.agent('advance', [STEP_SETTLE_MS]);
  return undefined;
}

/**
 * Run one step; a locator that finds nothing or a key the browser does not know is a failed step. A step over
 * the probe's per-action time throws (the runner calls the page hung).
 */
export async function runStep(run: ProbeRun, step: TestStep): Promise<StepOutcome> {
  try {
    // A step takes at most the probe's per-action time (a wait on the page clock included): longer, the page hung.
    const box = await withTimeout(
      act(run, step),
      run.bound(INTERACTION_DEFAULTS.actionTimeoutMs + ('wait' in step || 'press' in step ? 2000 : 0)),
      describeStep(step),
    );
    return box ? { ok: true, box } : { ok: true };
  } catch (err) {
    if (err instanceof NotFound) return { ok: false, note: err.message };
    if (err instanceof OutOfBudget) throw err;
    const msg = errorMessage(err);
    if (/Unknown key/i.test(msg)) return { ok: false, note: `${describeStep(step)}: ${msg}` };
    throw err;
  }
}
