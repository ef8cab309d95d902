/**
 * The shape of an in-page collector (see index.ts, which lists them): a self-contained function evaluated in the
 * page that fills one field of BrowserEvidence.
 */
import type { BrowserEvidence } from '../../core/browser-evidence.js';

export interface PageCollector {
  /** The BrowserEvidence field it fills. */
  key: keyof BrowserEvidence;
  /** Runs in the page. */
  fn: (arg: unknown) => unknown;
  /** Argument passed to `fn` (JSON-serialisable). */
  arg?: unknown;
  /** Convert the page's JSON result into the evidence value (e.g. base64 to Buffer), in Node. */
  finish?: (raw: unknown) => unknown;
}
