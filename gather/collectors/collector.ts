/**
 * The shape of an in-page collector (see index.ts, which lists them): a self-contained function evaluated in the
 * page that fills one field of BrowserEvidence.
 */
import type { CDPSession } from 'puppeteer-core';
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
  /**
   * How the step collects, when not by one evaluation of `fn(arg)` (../isolated-world.ts `evaluateIsolated`): for a
   * collector with a part that may wait on the page (media's image probes), bounded here rather than in the page.
   */
  collect?: (cdp: CDPSession) => Promise<unknown>;
}
