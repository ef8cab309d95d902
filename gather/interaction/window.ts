/**
 * What the probe's driver (driver.ts) records of a page, by window: one action and its observation, or a baseline's
 * PREP and OBSERVE. Every entry is the browser's own report over the protocol, not the page's word.
 */
import type { InteractionError } from '../../core/browser-evidence.js';

export interface RecordedError extends InteractionError {
  id?: number;
  /** When the browser reported it (epoch ms): errors before the first paint count against the first view. */
  at?: number;
  /** Raised in the top document's own world (not a frame's). */
  top?: boolean;
  /** For console lines about a resource: its URL (to tell the sandbox's refusals apart). */
  url?: string;
}

export interface RecordedRequest {
  url: string;
  method: string;
  type: string;
  navigation: boolean;
}

/** What the page did during one window (an action and its observation). */
export interface Window {
  errors: RecordedError[];
  requests: RecordedRequest[];
  dialogs: string[];
  fileChoosers: number;
  popups: string[];
  /** Main-frame documents committed (a navigation away from the current document). */
  documents: Array<{ url: string; loaderId: string }>;
  /** Same-document navigations (fragment, pushState). */
  sameDocument: number;
  /** Requests the sandbox refused (or that failed to connect), by URL. */
  refused: string[];
}

export const newWindow = (): Window => ({ errors: [], requests: [], dialogs: [], fileChoosers: 0, popups: [], documents: [], sameDocument: 0, refused: [] });
