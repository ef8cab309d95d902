/**
 * Dialogs (BrowserEvidence.dialogs) and `window.close` calls. Before any page script runs, `alert`/`confirm`/
 * `prompt`/`print` are replaced by functions that return what a dismissed dialog returns (undefined/false/null)
 * and count the call, and `window.close` by a no-op that counts too (`dialogGuard`); puppeteer's `dialog` event
 * dismisses whatever still opens (e.g. beforeunload). So an alert storm costs nothing and a page cannot close its
 * own window. The in-page counts are read after the settle; dismissed dialogs are counted to the end of the visit.
 *
 * The guard must live in the page's own world (it replaces what the page calls), so its counts are kept in its
 * closure and read through a function under a random name that answers only to a random secret (the main-world
 * agent's scheme, interaction/page/main/index.ts): a page cannot lower its own dialog count.
 */
import { randomBytes } from 'node:crypto';
import type { CDPSession } from 'puppeteer-core';
import type { BrowserEvidence } from '../../core/browser-evidence.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

/** More dialogs than this in one visit is a fault. */
const DIALOG_STORM = 20;

/** Where a guard's counts are read, and the secret they are read with (new for every page). */
export interface GuardKeys {
  name: string;
  secret: string;
}

export const guardKeys = (): GuardKeys => ({ name: `_${randomBytes(9).toString('hex')}`, secret: randomBytes(24).toString('hex') });
/** `dialogGuard`'s arguments for a page whose counts are never read. */
export const guardArgs = (): [string, string] => {
  const k = guardKeys();
  return [k.name, k.secret];
};

/**
 * Runs in the page before any script: dialogs answer as dismissed, window.close is a no-op; both counted, the
 * counts read back only by `window[name](secret)` (one string "dialogs,closes").
 */
export function dialogGuard(name: string, secret: string): void {
  const w = window as unknown as Record<string, unknown>;
  const counts = { dialogs: 0, closes: 0 };
  Object.defineProperty(w, name, {
    value: (s: unknown) => (s === secret ? counts.dialogs + ',' + counts.closes : ''),
    enumerable: false,
    writable: false,
    configurable: false,
  });
  const answer = (ret: unknown) =>
    function () {
      counts.dialogs++;
      return ret;
    };
  w.alert = answer(undefined);
  w.confirm = answer(false);
  w.prompt = answer(null);
  w.print = answer(undefined);
  w.close = function () {
    counts.closes++;
  };
}

interface GuardCounts {
  dialogs: number;
  closes: number;
}

export class DialogsCollector implements VisitCollector<GuardCounts> {
  readonly field = 'dialogs';
  readonly name = 'guard counts';
  private dismissed = 0;
  private guard: GuardCounts | undefined;
  private readonly keys = guardKeys();

  start({ page }: VisitContext): Promise<unknown> {
    page.on('dialog', (d) => {
      this.dismissed++;
      d.dismiss().catch(() => undefined);
    });
    return page.evaluateOnNewDocument(dialogGuard, this.keys.name, this.keys.secret);
  }

  collect({ cdp }: VisitContext): Promise<GuardCounts> {
    return readGuard(cdp, this.keys);
  }

  fill(_ev: BrowserEvidence, guard: GuardCounts | undefined, { faults }: VisitContext): void {
    this.guard = guard;
    if (guard?.closes) faults.add(`the page called window.close() ${guard.closes} time(s) (ignored)`);
  }

  finish(ev: BrowserEvidence, { faults }: VisitContext): void {
    ev.dialogs = this.dismissed + (this.guard?.dialogs ?? 0);
    if (ev.dialogs > DIALOG_STORM) faults.add(`dialog storm: ${ev.dialogs} dialogs dismissed`);
  }
}

/** The guard's counts in the page's top document (zero when the guard is not there: a document it did not reach). */
export async function readGuard(cdp: CDPSession, keys: GuardKeys): Promise<GuardCounts> {
  const expression = `window[${JSON.stringify(keys.name)}] ? window[${JSON.stringify(keys.name)}](${JSON.stringify(keys.secret)}) : ''`;
  const r = (await cdp.send('Runtime.evaluate', { expression, returnByValue: true })) as { result: { value?: unknown } };
  const m = typeof r.result.value === 'string' ? /^(\d{1,9}),(\d{1,9})$/.exec(r.result.value) : null;
  return m ? { dialogs: Number(m[1]), closes: Number(m[2]) } : { dialogs: 0, closes: 0 };
}
