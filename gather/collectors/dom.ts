/**
 * The DOM after load and settle (BrowserEvidence.domHtml, .domNodeCount, .finalUrl): `page.content()`, cut at
 * DOM_CAP_CHARS, and the element count; and the main-frame navigations after the entry (a reload loop, a link
 * followed within the artifact), which change what the DOM and the coverage describe.
 */
import type { BrowserEvidence } from '../../core/browser-evidence.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

export const DOM_CAP_CHARS = 5_000_000;

interface DomSnapshot {
  html: string;
  count: number;
  url: string;
}

export const domCollector: VisitCollector<DomSnapshot> = {
  field: 'domHtml',
  name: 'dom',

  async collect({ page }: VisitContext): Promise<DomSnapshot> {
    const html = await page.content();
    const count = await page.evaluate(() => document.getElementsByTagName('*').length);
    return { html, count, url: page.url() };
  },

  /** The navigations are recorded even when the page did not answer (a reload loop is the usual reason). */
  fill(ev: BrowserEvidence, dom: DomSnapshot | undefined, { documents, faults }: VisitContext): void {
    if (documents.length > 1) {
      const last = documents[documents.length - 1]!;
      ev.navigations = documents.length - 1;
      ev.finalUrl = last; // the DOM's own URL, below, is the same when the step succeeded
      faults.add(`the page navigated ${documents.length - 1} time(s) after its entry (last to ${last})`);
    }
    if (!dom) return;
    ev.finalUrl = dom.url;
    ev.domNodeCount = dom.count;
    if (dom.html.length > DOM_CAP_CHARS) {
      ev.domHtml = dom.html.slice(0, DOM_CAP_CHARS);
      ev.domTruncated = true;
      faults.add(`DOM of ${dom.html.length} characters cut at ${DOM_CAP_CHARS}`);
    } else ev.domHtml = dom.html;
  },
};
