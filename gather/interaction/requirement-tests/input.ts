/**
 * Input as a person gives it, over CDP `Input.*` (trusted events: the page cannot tell them from a person's):
 * mouse presses with any button and modifier keys, press-and-hold, moves with the button down, touches and
 * swipes, and keys pressed together. Every pause between events is on the page clock (`advance`), so a held
 * button or key lasts the same page time on every run.
 *
 * Interpretations: a modifier is both a key held down (keydown before, keyup after: a page that tracks Shift by
 * its key events sees it) and the event's modifier flag (a page that reads `event.shiftKey` sees it); a drag or a
 * move sequence goes in MOVE_STEPS moves, one frame (16 page-clock ms) apart; a touch is one finger
 * (`Input.dispatchTouchEvent`, which also gives pointer events of type "touch").
 */
import type { Modifier, MouseButton } from '../../../core/requirement-tests.js';
import type { ProbeRun } from '../probe/run.js';

/** Moves of a drag, a swipe or a `move` of a mouse sequence. */
export const MOVE_STEPS = 10;
/** Page-clock milliseconds between two moves (one frame). */
export const MOVE_MS = 16;

const MOD_BITS: Record<Modifier, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
const BUTTON_BITS: Record<MouseButton, number> = { left: 1, right: 2, middle: 4 };

/** How a mouse step presses. */
export interface Press {
  button: MouseButton;
  modifiers: readonly Modifier[];
}

export const LEFT: Press = { button: 'left', modifiers: [] };

const bits = (mods: readonly Modifier[]) => mods.reduce((n, m) => n | MOD_BITS[m], 0);

/** One mouse event; `down`: whether the press's button is held during it. */
export async function mouseEvent(
  run: ProbeRun,
  type: 'mouseMoved' | 'mousePressed' | 'mouseReleased',
  x: number,
  y: number,
  p: Press,
  down: boolean,
  clickCount = 1,
): Promise<void> {
  await run.d.cdp.send('Input.dispatchMouseEvent', {
    type,
    x,
    y,
    modifiers: bits(p.modifiers),
    button: type === 'mouseMoved' && !down ? 'none' : p.button,
    buttons: down ? BUTTON_BITS[p.button] : 0,
    clickCount,
  });
}

/** Hold the modifier keys down for the duration of `act`. */
export async function withModifiers<T>(run: ProbeRun, mods: readonly Modifier[], act: () => Promise<T>): Promise<T> {
  const held: Modifier[] = [];
  try {
    for (const m of mods) {
      await run.d.keyDown(m);
      held.push(m);
    }
    return await act();
  } finally {
    for (const m of held.reverse()) await run.d.keyUp(m).catch(() => undefined);
  }
}

/** A click (or double click) at a point; `hold` keeps the button down that many page-clock ms. */
export async function clickAt(run: ProbeRun, x: number, y: number, p: Press, count: 1 | 2, hold = 0): Promise<void> {
  await withModifiers(run, p.modifiers, async () => {
    await mouseEvent(run, 'mouseMoved', x, y, p, false);
    for (let c = 1; c <= count; c++) {
      await mouseEvent(run, 'mousePressed', x, y, p, true, c);
      if (hold > 0) await run.advance(hold, false);
      await mouseEvent(run, 'mouseReleased', x, y, p, false, c);
    }
  });
}

/** Moves with the button down from one point to another, MOVE_STEPS of them (or `steps`). */
export async function moveDown(
  run: ProbeRun,
  from: { x: number; y: number },
  to: { x: number; y: number },
  p: Press,
  down: boolean,
  steps = MOVE_STEPS,
): Promise<void> {
  for (let k = 1; k <= steps; k++) {
    await mouseEvent(run, 'mouseMoved', from.x + ((to.x - from.x) * k) / steps, from.y + ((to.y - from.y) * k) / steps, p, down);
    await run.advance(MOVE_MS, false);
  }
}

/** A drag from one point to another with the press's button and modifiers. */
export async function dragBetween(run: ProbeRun, from: { x: number; y: number }, to: { x: number; y: number }, p: Press): Promise<void> {
  await withModifiers(run, p.modifiers, async () => {
    await mouseEvent(run, 'mouseMoved', from.x, from.y, p, false);
    await mouseEvent(run, 'mousePressed', from.x, from.y, p, true);
    await moveDown(run, from, to, p, true);
    await mouseEvent(run, 'mouseReleased', to.x, to.y, p, false);
  });
}

async function touchEvent(run: ProbeRun, type: 'touchStart' | 'touchMove' | 'touchEnd', at?: { x: number; y: number }): Promise<void> {
  await run.d.cdp.send('Input.dispatchTouchEvent', { type, touchPoints: at ? [{ x: at.x, y: at.y, id: 1, radiusX: 4, radiusY: 4, force: 1 }] : [] });
}

/** A tap (`hold` page-clock ms long), or a swipe to `to`. */
export async function touch(run: ProbeRun, from: { x: number; y: number }, opts: { hold?: number; to?: { x: number; y: number } }): Promise<void> {
  await touchEvent(run, 'touchStart', from);
  if (opts.to) {
    for (let k = 1; k <= MOVE_STEPS; k++) {
      await touchEvent(run, 'touchMove', { x: from.x + ((opts.to.x - from.x) * k) / MOVE_STEPS, y: from.y + ((opts.to.y - from.y) * k) / MOVE_STEPS });
      await run.advance(MOVE_MS, false);
    }
  } else if (opts.hold) await run.advance(opts.hold, false);
  await touchEvent(run, 'touchEnd');
}

/** Keys pressed together: down in order, held `hold` page-clock ms (frames run), up in reverse order. */
export async function chord(run: ProbeRun, keys: readonly string[], hold: number): Promise<void> {
  const down: string[] = [];
  try {
    for (const k of keys) {
      await run.d.keyDown(k);
      down.push(k);
    }
    await run.advance(hold, false);
  } finally {
    for (const k of down.reverse()) await run.d.keyUp(k).catch(() => undefined);
  }
}
