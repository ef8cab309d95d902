/**
 * The shapes the in-page probe (../page/) answers with, as the host reads them (every answer is first held to
 * ../../isolated-world.ts `bounded`: what the readers read is the page's DOM, and the agent lives in the page's
 * own world).
 */
import type { ControlKind, InteractionControl, InteractionError, InteractionView, NavKind } from '../../../core/browser-evidence.js';

/** A control as `enumerate` lists it. */
export interface RawControl {
  kind: ControlKind;
  selector: string;
  tag: string;
  text: string;
  box: InteractionControl['box'];
  listeners?: string[];
  href?: string;
  nav?: NavKind;
}

/** `prepare`: where to act, what covers the control, what was filled. */
export interface PrepareResult {
  missing: boolean;
  point?: { x: number; y: number } | null;
  covered?: string | null;
  filled?: string[];
  storm?: boolean;
}

/** `post`: what changed since `prepare`, by category, and what the page did meanwhile. */
export interface PostResult {
  changed: number;
  cat: { dom: string[]; form: string[]; layout: string[]; canvas: string[]; url: string[]; storage: string[] };
  events: Record<string, string[]>;
  focus: string | null;
  scrolled: boolean;
  reads: number[];
  view: InteractionView;
}

/** A baseline: the snapshot records (path → hash) before and after OBSERVE without an action, and its errors. */
export interface Baseline {
  before: Record<string, string>;
  after: Record<string, string>;
  /** Paths that changed by themselves between `before` and `after`. */
  spontaneous: string[];
  errors: InteractionError[];
  /** Requests the page made after its load: in its restore's settle (when it reloaded), PREP and OBSERVE. */
  requests: number;
  view: InteractionView;
  /** Snapshots at more moments (virtual ms after PREP → records): where the keyboard's keys are read. */
  at?: Record<number, Record<string, string>>;
}

/** Where a navigation during an action led: the document's address, HTTP status and view (when readable). */
export interface Navigated {
  url: string;
  status?: number;
  view?: InteractionView;
}
