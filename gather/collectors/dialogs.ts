/**
 * Dialogs (BrowserEvidence.dialogs) and `window.close` calls. Before any page script runs, `alert`/`confirm`/
 * `prompt`/`print` are replaced by functions that return what a dismissed dialog returns (undefined/false/null)
 * and count the call, and `window.close` by a no-op that counts too (`dialogGuard`); puppeteer's `dialog` event
 * dismisses whatever still opens (e.g. beforeunload). So an alert storm costs nothing and a page cannot close its
 * own window. The in-page counts are read after the settle; dismissed dialogs are counted to the end of the visit.
 */
import type { BrowserEvidence } from '../../core/browser-evidence.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

/** More dialogs than this in one visit is a fault. */
const DIALOG_STORM = 20;

/** Runs in the page before any script: dialogs answer as dismissed, window.close is a no-op; both counted. */
export function dialogGuard(): void {
  const w = window as unknown as Record<string, unknown>;
  const counts = { dialogs: 0, closes: 0 };
  Object.defineProperty(w, '__webgradeGuard', { value: counts, enumerable: false });
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

  start({ page }: VisitContext): Promise<unknown> {
    page.on('dialog', (d) => {
      this.dismissed++;
      d.dismiss().catch(() => undefined);
    });
    return page.evaluateOnNewDocument(dialogGuard);
  }

  collect({ page }: VisitContext): Promise<GuardCounts> {
    return page.evaluate(() => (window as unknown as { __webgradeGuard?: { dialogs: number; closes: number } }).__webgradeGuard ?? { dialogs: 0, closes: 0 });
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
