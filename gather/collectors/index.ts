/**
 * What the visit runner (../visit.ts) collects, in this order (each phase of VisitCollector runs for every
 * collector in the order of `visitCollectors`):
 *
 * - before navigation (`start`): console and errors, the dialog guard, coverage, the CSS domain for the fonts;
 * - after load, the settle (busy-after-load.ts measures the main thread over it) and the responsiveness probe,
 *   one guarded step each (`collect`, then `fill`): the dialog guard's counts, the DOM (and the navigations), the
 *   in-page collectors (PAGE_COLLECTORS: media, icons), coverage, fonts, then, when screenshots are wanted, the
 *   freeze, the desktop screenshot and the full-page screenshot;
 * - the phone visit (mobile-visit.ts), which the runner starts itself: a page of its own;
 * - at the end (`finish`): the dialog count, the console and errors.
 *
 * In-page collectors are self-contained functions evaluated in an isolated world of the page (../isolated-world.ts:
 * the page's scripts cannot reach them or change what they read), each filling one field of BrowserEvidence. One must not close over anything from Node: it receives only its
 * JSON-serialisable argument and returns JSON-serialisable data (binary data, such as video frames, is returned
 * base64-encoded and converted by its `finish`). A collector that throws or times out leaves its field absent
 * and adds a fault, and the metrics that read it become unscorable with that reason.
 */
import { errorMessage } from '../../core/errors.js';
import type { BrowserEvidence } from '../../core/browser-evidence.js';
import { COLLECTOR_BOUNDS, evaluateIsolated } from '../isolated-world.js';
import { COLLECTOR_TIMEOUT_MS } from '../time.js';
import type { PageCollector } from './collector.js';
import { CoverageCollector } from './coverage.js';
import { DialogsCollector } from './dialogs.js';
import { domCollector } from './dom.js';
import { fontsCollector } from './fonts.js';
import { iconsCollector } from './icons.js';
import { mediaCollector } from './media.js';
import { PageEventsCollector } from './page-events.js';
import { desktopScreenshotCollector, freezeCollector, fullPageScreenshotCollector } from './screenshots.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

export type { PageCollector };

export const PAGE_COLLECTORS: PageCollector[] = [mediaCollector, iconsCollector];

/** An in-page collector as a step of the visit. */
export function inPage(c: PageCollector): VisitCollector {
  const key = String(c.key);
  return {
    field: c.key,
    name: `collector ${key}`,
    limit: COLLECTOR_TIMEOUT_MS,
    collect: ({ cdp }: VisitContext) => (c.collect ? c.collect(cdp) : evaluateIsolated(cdp, c.fn, c.arg, COLLECTOR_BOUNDS)),
    fill(ev: BrowserEvidence, raw: unknown, { faults }: VisitContext): void {
      if (raw === undefined) return;
      try {
        (ev as unknown as Record<string, unknown>)[key] = c.finish ? c.finish(raw) : raw;
      } catch (err) {
        faults.add(`collector ${key} finish failed: ${errorMessage(err)}`);
        faults.skip(key, `collector failed: ${errorMessage(err)}`);
      }
    },
  };
}

/** A visit's collectors, in the order they run (fresh ones: some record what they hear during the visit). */
export function visitCollectors(): VisitCollector[] {
  return [
    new PageEventsCollector(),
    new DialogsCollector(),
    domCollector,
    ...PAGE_COLLECTORS.map(inPage),
    new CoverageCollector(),
    fontsCollector,
    freezeCollector,
    desktopScreenshotCollector,
    fullPageScreenshotCollector,
  ];
}
