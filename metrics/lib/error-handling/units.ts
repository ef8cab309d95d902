/**
 * What the error-handling analysis records: units (functions, top-level code, handler attributes), their risky
 * sites and the uses of their names. The rules it applies are stated in metrics/code/error-handling.ts.
 */
import type * as acorn from 'acorn';
import type { SourceBlock } from '../../../core/artifact/model.js';

export type AnyNode = acorn.AnyNode;
export type FnNode = acorn.FunctionDeclaration | acorn.FunctionExpression | acorn.ArrowFunctionExpression;

export const RISKY_NAME_PREFIXES = [
  'load',
  'fetch',
  'save',
  'upload',
  'download',
  'parse',
  'import',
  'sync',
  'request',
  'persist',
  'restore',
  'retrieve',
  'connect',
  'submit',
  'send',
] as const;

const RISKY_NAME_RE = new RegExp(`^(?:${RISKY_NAME_PREFIXES.map((p) => `[${p[0]}${p[0]!.toUpperCase()}]${p.slice(1)}`).join('|')})(?:$|[A-Z0-9_$])`);

/** Does a function's name say it does I/O (one of RISKY_NAME_PREFIXES, then the end or a new word)? */
export function isRiskyName(name: string): boolean {
  return RISKY_NAME_RE.test(name);
}

export interface Site {
  what: string;
  io: boolean;
  line: number;
  protected: boolean;
  how?: string;
  /** Objects that get an error callback protect the site (resolved after all blocks are read). */
  handlerTarget?: string;
  /** `X.send()`/`X.open()`: a site only when X is an XMLHttpRequest somewhere in the page. */
  xhrCandidate?: string;
}

export interface TimerRef {
  timer: string;
  line: number;
  callback: Unit | string;
}

export interface Unit {
  block: SourceBlock;
  node: AnyNode;
  name: string;
  /** Last name segment used for the risky-name test and to match calls; undefined for callbacks/anonymous. */
  simpleName?: string;
  kind: 'function' | 'top-level' | 'attribute';
  async: boolean;
  line: number;
  sites: Site[];
  timers: TimerRef[];
  hasTryCatch: boolean;
  hasCatchChain: boolean;
  /**
   * Callbacks whose failure flows into a promise the enclosing unit holds: `.then/.catch/.finally(cb)`, and
   * `Promise.all|allSettled|race|any(xs.map(cb))`.
   */
  flowsInto?: { unit: Unit; protected: boolean; how: string | null; awaited: boolean };
}

export interface Use {
  name: string;
  /** Protected at the use itself (try/catch around it, caught chain). */
  protected: boolean;
  /** The unit the use is written in. */
  unit: Unit;
  /** A call whose failure flows to the caller: awaited or returned (any callee), or a plain call (sync callee). */
  call: 'awaited' | 'plain' | 'reference';
}

export interface FunctionReport {
  file: string;
  line: number;
  name: string;
  reasons: string[];
  protected: boolean;
  how: string | null;
  unprotected?: Array<{ line: number; what: string }>;
}

export interface PageState {
  units: Unit[];
  uses: Use[];
  xhrNames: Set<string>;
  handlerTargets: Set<string>;
  /** Inline timer callbacks: function node → its unit, filled as units are created. */
  unitByNode: Map<AnyNode, Unit>;
  pendingTimerFns: Array<{ owner: Unit; timer: string; line: number; fn: AnyNode }>;
}
