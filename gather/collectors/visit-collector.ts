/**
 * The shape of a visit collector (index.ts lists them in the order the visit runner, ../visit.ts, takes them):
 * one piece of BrowserEvidence, asked of the page or its protocol session. The runner owns the page, the
 * navigation, the clock and the faults; a collector only says what to start before navigation, what to ask
 * after the settle (one guarded step), and where the answer goes.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import type { Artifact } from '../../core/artifact/model.js';
import type { BrowserEvidence } from '../../core/browser-evidence.js';

/** Faults of a visit, and why an optional field of the evidence is absent. */
export class PageFaults {
  faults: string[] = [];
  unavailable: Record<string, string> = {};
  add(f: string): void {
    if (!this.faults.includes(f)) this.faults.push(f);
  }
  skip(field: string, reason: string): void {
    this.unavailable[field] ??= reason;
  }
}

/** What a collector is given: the visit's page and protocol session, the artifact, and where faults go. */
export interface VisitContext {
  page: Page;
  cdp: CDPSession;
  artifact: Artifact;
  origin: string;
  entryUrl: string;
  faults: PageFaults;
  /** Main-frame documents the page showed so far, the entry first. */
  documents: readonly string[];
  /** The DOM and CSS domains of `cdp` enabled (sent once, however many collectors ask). */
  enableCss(): Promise<void>;
  /**
   * The page runs on the visit's page clock of our own (visit-clock.ts), which stands still between its moves:
   * CDP virtual time is then not needed to stop it, and not used.
   */
  pageClock?: boolean;
}

/** One piece of browser evidence. Phases run in this order, each for every collector in index.ts's order. */
export interface VisitCollector<T = unknown> {
  /** The BrowserEvidence field it fills; named in `unavailable` when its step fails or is skipped. */
  readonly field: keyof BrowserEvidence;
  /** The step's name in faults and timings. */
  readonly name: string;
  /** The step's time limit (default STEP_TIMEOUT_MS). */
  readonly limit?: number;
  /** Taken only when the screenshots are wanted. */
  readonly screenshots?: boolean;
  /** Before navigation: listeners first (synchronously, before any await), then protocol set-up. */
  start?(ctx: VisitContext): Promise<unknown> | void;
  /** After the settle, as one guarded step: the evidence as plain data. */
  collect?(ctx: VisitContext): Promise<T>;
  /** Into the evidence (`value` is undefined when the step failed or was skipped). */
  fill?(ev: BrowserEvidence, value: T | undefined, ctx: VisitContext): void;
  /** At the end of the visit, after the phone visit: what the listeners recorded. */
  finish?(ev: BrowserEvidence, ctx: VisitContext): void;
}
