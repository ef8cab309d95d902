/**
 * The DOM after load and settle (BrowserEvidence.domHtml, .domNodeCount, .finalUrl): the document serialised as
 * puppeteer's `page.content()` does, read in an isolated world (../isolated-world.ts) and cut at DOM_CAP_CHARS, and
 * the element count; and the main-frame navigations after the entry (a reload loop, a link
 * followed within the artifact), which change what the DOM and the coverage describe.
 */
import type { BrowserEvidence } from '../../core/browser-evidence.js';
import { COLLECTOR_BOUNDS, evaluateIsolated } from '../isolated-world.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

export const DOM_CAP_CHARS = 5_000_000;

interface DomSnapshot {
  html: string;
  /** The serialised document's whole length (`html` is cut at DOM_CAP_CHARS). */
  length: number;
  count: number;
  url: string;
}

/** Runs in an isolated world: the document as markup (doctype and comments outside <html> included), cut at `cap`. */
export function serialiseDocument(cap: number): { html: string; length: number; count: number } {
  let html = '';
  for (const node of Array.from(document.childNodes)) {
    html += node === document.documentElement ? document.documentElement.outerHTML : new XMLSerializer().serializeToString(node);
  }
  return { html: html.slice(0, cap), length: html.length, count: document.getElementsByTagName('*').length };
}

export const domCollector: VisitCollector<DomSnapshot> = {
  field: 'domHtml',
  name: 'dom',

  async collect({ page, cdp }: VisitContext): Promise<DomSnapshot> {
    const d = await evaluateIsolated(cdp, serialiseDocument, DOM_CAP_CHARS, { ...COLLECTOR_BOUNDS, maxString: DOM_CAP_CHARS });
    return { html: String(d.html ?? ''), length: Number(d.length) || 0, count: Number(d.count) || 0, url: page.url() };
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
    ev.domHtml = dom.html;
    if (dom.length > DOM_CAP_CHARS) {
      ev.domTruncated = true;
      faults.add(`DOM of ${dom.length} characters cut at ${DOM_CAP_CHARS}`);
    }
  },
};
