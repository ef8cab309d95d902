/** How the probe acts on each kind of control, as a person would (CDP input events, or the page's own setters). */
import type { InteractionControl } from '../../../core/browser-evidence.js';
import { DEFAULT_KEYS, keyName } from './keys.js';
import { EVAL_MS, KEY_HOLD_MS } from './limits.js';
import type { ProbeRun } from './run.js';

type Point = { x: number; y: number } | null;

/** What `act` does for a kind (before it is done; the log says exactly). */
export function actionName(c: InteractionControl): string {
  switch (c.kind) {
    case 'keyboard':
      return `hold each key ${KEY_HOLD_MS} ms: ${(c.keys ?? DEFAULT_KEYS).map(keyName).join(' ')}`;
    case 'text':
      return 'type + Enter';
    case 'select':
      return 'select another option';
    case 'range':
      return 'click + ArrowRight';
    case 'value':
      return 'set a value';
    case 'file':
      return 'choose a file';
    default:
      return 'click';
  }
}

async function type(run: ProbeRun, c: InteractionControl, point: Point): Promise<string> {
  const value = await run.call<string>('fillValue', [c.index]);
  if (point) await run.d.click(point.x, point.y);
  await run.d.type(value);
  await run.d.press('Enter');
  // Then the field loses focus, as when a person clicks elsewhere: a textarea's change event (Enter adds
  // a line there) and blur handlers fire.
  await run.call('blur', []);
  return `type ${JSON.stringify(value)} + Enter`;
}

async function chooseFile(run: ProbeRun, c: InteractionControl, point: Point): Promise<string> {
  if (c.tag === 'input') {
    const f = await run.d.setFiles(c.index, '', run.bound(EVAL_MS));
    return `choose ${f.split('/').pop()}`;
  }
  if (point) await run.d.click(point.x, point.y);
  return 'click';
}

/** An element with listeners: a double click or a click + Enter when those are all it listens for. */
async function listener(run: ProbeRun, c: InteractionControl, point: Point): Promise<string> {
  const ls = c.listeners ?? [];
  const clicky = ls.some((l) => l !== 'dblclick' && !/^key/.test(l) && l !== 'input' && l !== 'change');
  if (!clicky && ls.includes('dblclick')) {
    if (point) await run.d.click(point.x, point.y, 2);
    return 'double click';
  }
  if (!clicky && ls.some((l) => /^key/.test(l))) {
    if (point) await run.d.click(point.x, point.y);
    await run.d.press('Enter');
    return 'click + Enter';
  }
  if (point) await run.d.click(point.x, point.y);
  return 'click';
}

/** Act on control `c` at `point` (its centre, from `prepare`); returns what was done. */
export async function act(run: ProbeRun, c: InteractionControl, point: Point): Promise<string> {
  switch (c.kind) {
    case 'keyboard':
      // Keys are read one by one as they are played (play.ts), not acted on as one action.
      throw new Error('the keyboard control is played by playKeys');
    case 'text':
      return type(run, c, point);
    case 'select': {
      const chosenOption = await run.call<string | null>('selectOther', [c.index]);
      return chosenOption === null ? 'select (no other option)' : `select ${JSON.stringify(chosenOption)}`;
    }
    case 'range': {
      if (point) await run.d.click(point.x, point.y);
      await run.d.press('ArrowRight');
      return 'click + ArrowRight';
    }
    case 'value': {
      const v = await run.call<string | null>('setOwnValue', [c.index]);
      return `set ${JSON.stringify(v)}`;
    }
    case 'file':
      return chooseFile(run, c, point);
    case 'listener':
      return listener(run, c, point);
    default:
      if (point) await run.d.click(point.x, point.y);
      return 'click';
  }
}
