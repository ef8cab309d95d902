/**
 * error-handling (SPEC #3): find the functions that need protection against failure, and check that they have
 * it. N = needing but unprotected, R = all needing; score = (1 − log2(1 + N/(R+1))) × 100; unscorable when the
 * artifact has no JavaScript or when R = 0.
 *
 * What is analysed (acorn tree of every JS block via `parseJs`, walked with acorn-walk):
 * - Units: every function (declaration, expression, arrow, class/object method, class-field arrow, callbacks
 *   passed to addEventListener/then/setTimeout/...), the top-level code of each `<script>`/JS file (it runs
 *   once at load, and an uncaught throw there stops the rest of the script), and each event-handler attribute
 *   (`onclick="..."`, one unit per attribute). Broken code is analysed on the acorn-loose tree (`recovered`).
 *   A block that cannot be parsed or walked at all (nesting deeper than the call stack) is left out and listed
 *   in `skippedBlocks`; when every block is, the metric is unscorable.
 * - Names: a declaration's id, the variable/property/assignment target it is assigned to
 *   (`window.onload`, `this.save`), `Class.method` for class members; callbacks are named after the call that
 *   receives them (`click listener`, `then callback`, `setTimeout callback`) and count as anonymous.
 *
 * A unit NEEDS protection when (reasons, all looked for directly in its body, never inside a nested function,
 * which is a unit of its own):
 * - it is `async` (or an async generator);
 * - it calls `fetch(...)`/`window.fetch(...)`, `axios(...)`/`axios.<verb>(...)`, creates
 *   `new XMLHttpRequest()`, calls `.open()/.send()` on a name that some code of the page assigns
 *   `new XMLHttpRequest()` to, or creates `new WebSocket(...)`/`new EventSource(...)`;
 * - it touches `localStorage`, `sessionStorage` (also through `window.`) or calls `indexedDB.open/deleteDatabase`;
 * - it calls `JSON.parse(...)`;
 * - it passes to `setTimeout`/`setInterval` a callback (inline, or a function name) that does one of the I/O
 *   operations above directly. Such a callback is also a unit of its own: a timer that runs unprotected I/O
 *   counts against both the code that schedules it and the callback (deliberate: the scheduler owns the retry /
 *   failure policy);
 * - its name says it does I/O: it starts with one of RISKY_NAME_PREFIXES (`load`, `fetch`, `save`, `upload`,
 *   `download`, `parse`, `import`, `sync`, `request`, `persist`, `restore`, `retrieve`, `connect`, `submit`,
 *   `send`), case-insensitive on the first letter, followed by the end of the name, an upper-case letter, a
 *   digit, `_` or `$` (so `loadData`, `load`, `fetch_users`, `SaveState`, but not `loader`, `ready`).
 *
 * A risky operation (a "site") is PROTECTED when, walking up from it to the boundary of its function:
 * - it lies in the `try` block of a try statement that has a `catch` clause (`try/finally` alone is not
 *   protection; a try in an outer function does not protect a nested callback);
 * - or it is (part of) the object of a promise chain that later calls `.catch(...)` or `.then(ok, err)` with two
 *   arguments (`fetch(u).then(r => r.json()).catch(show)`, `await fetch(u).catch(...)`), or it is inside the
 *   arguments of `Promise.allSettled(...)`;
 * - for XMLHttpRequest, WebSocket, EventSource and indexedDB requests: the object it is assigned to (by its
 *   source text, e.g. `xhr`, `this.ws`, `request`) gets an error callback anywhere in the page:
 *   `X.onerror = ...`, `X.ontimeout = ...`, `X.addEventListener('error' | 'timeout', ...)`.
 * An `await` in an async unit is a site too (protected by the same rules, or when what it awaits is itself
 * handled: `await p.catch(...)`, `await p.then(ok, err)`, `await Promise.allSettled(...)`), as is a timer whose callback does I/O
 * (protected when every I/O site inside the callback is protected, since no try around `setTimeout` can catch it).
 *
 * A unit is protected when:
 * - it has sites and all of them are protected ("own code"); or
 * - it has no site (only async without await, or only a risky name) and its body has a try/catch or a
 *   `.catch`/`.then(ok, err)` chain ("own code"); or
 * - its name is used somewhere in the page and every such use (recursive calls aside) is protected ("by its
 *   callers"): a call `name(...)`/`x.name(...)` inside try/catch or a `.catch` chain, `.then(name)` in a chain
 *   that is caught, or, transitively, a call whose failure flows to a caller that is itself protected by its
 *   callers (the call is awaited or returned, or the callee is not async). Passing the name as a listener or
 *   timer callback (`addEventListener('click', name)`, `el.onclick = name`, `setTimeout(name)`) is a use that
 *   is never protected. A callback given to `.then/.catch/.finally`, or to `.map` inside
 *   `Promise.all/allSettled/race/any`, fails into that promise: it is protected when that promise is (a later
 *   `.catch`, a surrounding try, `allSettled`), or when the promise is awaited/returned by a unit that is
 *   protected by its callers. Uses are matched by the last name segment only, across all JS blocks and attributes of
 *   the artifact; calls with a computed name (`obj[method]()`) cannot be matched. A callee's rejection is
 *   treated as caught by a surrounding try even if the call is not awaited (lenient).
 */
import * as walk from 'acorn-walk';
import type * as acorn from 'acorn';
import type { SourceBlock } from '../../core/artifact/model.js';
import { fileLine, parseJs } from '../../core/js-parse.js';
import { errorMessage } from '../../core/errors.js';
import { logPenalty, round2 } from '../formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';

type AnyNode = acorn.AnyNode;
type FnNode = acorn.FunctionDeclaration | acorn.FunctionExpression | acorn.ArrowFunctionExpression;

export const RISKY_NAME_PREFIXES = [
  'load', 'fetch', 'save', 'upload', 'download', 'parse', 'import', 'sync', 'request', 'persist', 'restore',
  'retrieve', 'connect', 'submit', 'send',
] as const;

const RISKY_NAME_RE = new RegExp(
  `^(?:${RISKY_NAME_PREFIXES.map((p) => `[${p[0]}${p[0]!.toUpperCase()}]${p.slice(1)}`).join('|')})(?:$|[A-Z0-9_$])`,
);

export function isRiskyName(name: string): boolean {
  return RISKY_NAME_RE.test(name);
}


interface Site {
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

interface TimerRef {
  timer: string;
  line: number;
  callback: Unit | string;
}

interface Unit {
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

interface Use {
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

const FN_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const isFn = (n: AnyNode | undefined): n is FnNode => !!n && FN_TYPES.has(n.type);

/** Source-like text of an identifier/`this`/member chain, or null. */
export function exprText(n: AnyNode | null | undefined): string | null {
  if (!n) return null;
  if (n.type === 'Identifier') return n.name;
  if (n.type === 'ThisExpression') return 'this';
  if (n.type === 'MemberExpression') {
    const obj = exprText(n.object as AnyNode);
    if (obj === null) return null;
    if (!n.computed && n.property.type === 'Identifier') return `${obj}.${n.property.name}`;
    if (n.computed && n.property.type === 'Literal') return `${obj}[${JSON.stringify(n.property.value)}]`;
    return null;
  }
  if (n.type === 'ChainExpression') return exprText(n.expression as AnyNode);
  return null;
}

function propName(key: AnyNode, computed: boolean): string | null {
  if (!computed && key.type === 'Identifier') return key.name;
  if (key.type === 'PrivateIdentifier') return '#' + key.name;
  if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')) return String(key.value);
  return null;
}

function lastSegment(text: string): string {
  const i = text.lastIndexOf('.');
  return i >= 0 ? text.slice(i + 1) : text;
}

function calleeName(call: acorn.CallExpression | acorn.NewExpression): string | null {
  const t = exprText(call.callee as AnyNode);
  return t;
}

function stringArg(call: acorn.CallExpression, i: number): string | null {
  const a = call.arguments[i];
  if (a && a.type === 'Literal' && typeof a.value === 'string') return a.value;
  if (a && a.type === 'TemplateLiteral' && a.expressions.length === 0) return a.quasis[0]!.value.cooked ?? null;
  return null;
}

/** Name a function node from its parent context. */
function nameFunction(fn: FnNode, ancestors: AnyNode[]): { name: string; simpleName?: string } {
  if (fn.type !== 'ArrowFunctionExpression' && fn.id) return { name: fn.id.name, simpleName: fn.id.name };
  const parent = ancestors[ancestors.length - 2];
  if (!parent) return { name: '(anonymous)' };
  switch (parent.type) {
    case 'VariableDeclarator':
      if (parent.id.type === 'Identifier') return { name: parent.id.name, simpleName: parent.id.name };
      break;
    case 'AssignmentExpression': {
      const t = exprText(parent.left as AnyNode);
      if (t) return { name: t, simpleName: lastSegment(t) };
      break;
    }
    case 'Property': {
      const k = propName(parent.key as AnyNode, parent.computed);
      if (k) return { name: k, simpleName: k };
      break;
    }
    case 'MethodDefinition':
    case 'PropertyDefinition': {
      const k = propName(parent.key as AnyNode, parent.computed);
      const cls = ancestors[ancestors.length - 4];
      const clsName = cls && (cls.type === 'ClassDeclaration' || cls.type === 'ClassExpression') && cls.id ? cls.id.name : null;
      if (k) {
        const display = parent.type === 'MethodDefinition' && parent.kind === 'constructor' ? 'constructor' : k;
        return { name: clsName ? `${clsName}.${display}` : display, simpleName: display === 'constructor' ? undefined : k };
      }
      break;
    }
    case 'CallExpression':
    case 'NewExpression': {
      if (parent.callee === fn) return { name: '(immediately invoked)' };
      if ((parent.arguments as AnyNode[]).includes(fn)) {
        const callee = parent.callee as AnyNode;
        const text = calleeName(parent);
        const last = text ? lastSegment(text)
          : callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' ? callee.property.name : null;
        if (last === 'addEventListener' && parent.type === 'CallExpression') {
          const ev = stringArg(parent, 0);
          return { name: `${ev ?? 'event'} listener` };
        }
        return { name: `${last ?? 'call'} callback` };
      }
      break;
    }
    default:
      break;
  }
  return { name: '(anonymous)' };
}

/** Is `node` (whose ancestors up to and including it are given) inside a promise chain that handles rejection? */
function chainProtection(ancestors: AnyNode[], from: number, stop: number): string | null {
  for (let i = from; i > stop; i--) {
    const child = ancestors[i]!;
    const parent = ancestors[i - 1]!;
    if (parent.type === 'MemberExpression' && parent.object === child && !parent.computed && parent.property.type === 'Identifier') {
      const call = ancestors[i - 2];
      if (call && call.type === 'CallExpression' && call.callee === parent) {
        const m = parent.property.name;
        if (m === 'catch') return '.catch()';
        if (m === 'then' && call.arguments.length >= 2) return '.then(ok, err)';
      }
    }
    if (parent.type === 'CallExpression' && parent.callee !== child) {
      const c = exprText(parent.callee as AnyNode);
      if (c === 'Promise.allSettled') return 'Promise.allSettled()';
    }
  }
  return null;
}

/** `p.catch(...)`, `p.then(ok, err)` or `Promise.allSettled(...)`: a promise whose rejection is handled. */
function handledPromise(n: AnyNode): string | null {
  const e = n.type === 'ChainExpression' ? (n.expression as AnyNode) : n;
  if (e.type !== 'CallExpression') return null;
  const callee = e.callee as AnyNode;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
    if (callee.property.name === 'catch') return '.catch()';
    if (callee.property.name === 'then' && e.arguments.length >= 2) return '.then(ok, err)';
  }
  return exprText(callee) === 'Promise.allSettled' ? 'Promise.allSettled()' : null;
}

/** Protection of the node at ancestors[from] within its unit (whose node is ancestors[stop]). */
function protection(ancestors: AnyNode[], from: number, stop: number): string | null {
  for (let i = from; i > stop; i--) {
    const parent = ancestors[i - 1]!;
    if (parent.type === 'TryStatement' && parent.block === ancestors[i] && parent.handler) return 'try/catch';
  }
  return chainProtection(ancestors, from, stop);
}

const PROMISE_COMBINATORS = new Set(['Promise.all', 'Promise.allSettled', 'Promise.race', 'Promise.any']);

/**
 * For a function at ancestors[self] passed to `.then/.catch/.finally`, or to `.map` inside a Promise
 * combinator: the promise call its failure flows into, whether that call is protected in the enclosing unit,
 * and whether it is awaited/returned (so that the failure flows on to the enclosing unit's callers).
 */
function promiseCallbackFlow(ancestors: AnyNode[], self: number): { protected: boolean; how: string | null; awaited: boolean } | null {
  const fn = ancestors[self]!;
  const call = ancestors[self - 1];
  if (!call || call.type !== 'CallExpression' || !(call.arguments as AnyNode[]).includes(fn)) return null;
  const callee = call.callee as AnyNode;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return null;
  const m = callee.property.name;
  let outer = -1;
  let how: string | null = null;
  if (m === 'then' || m === 'catch' || m === 'finally') outer = self - 1;
  else if (m === 'map') {
    const comb = ancestors[self - 2];
    if (comb?.type === 'CallExpression' && (comb.arguments as AnyNode[]).includes(call)) {
      const name = exprText(comb.callee as AnyNode);
      if (name && PROMISE_COMBINATORS.has(name)) {
        outer = self - 2;
        if (name === 'Promise.allSettled') how = 'Promise.allSettled()';
      }
    }
  }
  if (outer < 0) return null;
  const ui = unitIndex(ancestors, self);
  how ??= protection(ancestors, outer, ui);
  const p = ancestors[outer - 1];
  const node = ancestors[outer]!;
  const awaited = p?.type === 'AwaitExpression' || p?.type === 'ReturnStatement' || (p?.type === 'ArrowFunctionExpression' && p.body === node);
  return { protected: how !== null, how, awaited };
}

/** Index of the nearest enclosing unit node in ancestors (excluding the node itself at the end). */
function unitIndex(ancestors: AnyNode[], self: number): number {
  for (let i = self - 1; i > 0; i--) if (isFn(ancestors[i])) return i;
  return 0;
}

/** Target text of `X = <expr>` / `const X = <expr>` for the expression at ancestors[i]. */
function assignedTo(ancestors: AnyNode[], i: number): string | null {
  const parent = ancestors[i - 1];
  if (!parent) return null;
  if (parent.type === 'VariableDeclarator' && parent.init === ancestors[i] && parent.id.type === 'Identifier') return parent.id.name;
  if (parent.type === 'AssignmentExpression' && parent.right === ancestors[i]) return exprText(parent.left as AnyNode);
  return null;
}

const TIMERS = new Set(['setTimeout', 'setInterval', 'window.setTimeout', 'window.setInterval']);
const AXIOS_VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'request']);
const ERROR_EVENTS = new Set(['error', 'timeout']);

type Visit = (node: AnyNode, ancestors: AnyNode[]) => void;
type BaseWalker = Record<string, (node: AnyNode, st: unknown, c: (n: AnyNode, st: unknown, override?: string) => void) => void>;

/**
 * acorn-walk's `fullAncestor` calls back after a node's children; units must exist before their bodies are
 * read, so this is the same walk (acorn-walk's `base` visitors) with the callback before the children.
 */
function preOrderWalk(root: AnyNode, visit: Visit): void {
  const base = walk.base as unknown as BaseWalker;
  const ancestors: AnyNode[] = [];
  const c = (node: AnyNode, st: unknown, override?: string): void => {
    const type = override ?? node.type;
    const step = base[type];
    const isNew = node !== ancestors[ancestors.length - 1];
    if (isNew) ancestors.push(node);
    if (!override) visit(node, ancestors);
    if (step) step(node, st, c);
    if (isNew) ancestors.pop();
  };
  c(root, undefined);
}

interface PageState {
  units: Unit[];
  uses: Use[];
  xhrNames: Set<string>;
  handlerTargets: Set<string>;
  /** Inline timer callbacks: function node → its unit, filled as units are created. */
  unitByNode: Map<AnyNode, Unit>;
  pendingTimerFns: Array<{ owner: Unit; timer: string; line: number; fn: AnyNode }>;
}

function analyseBlock(block: SourceBlock, page: PageState): { recovered: boolean; syntaxError?: string } {
  const parsed = parseJs(block);
  const program = parsed.ast;
  const topUnit: Unit = {
    block,
    node: program,
    name: block.origin === 'attribute' ? `${block.attribute ?? 'on…'} attribute` : 'top-level code',
    kind: block.origin === 'attribute' ? 'attribute' : 'top-level',
    async: false,
    // the first statement, not the `<script>` tag line
    line: fileLine(block, program.body[0]?.loc?.start.line ?? 1),
    sites: [],
    timers: [],
    hasTryCatch: false,
    hasCatchChain: false,
  };
  page.units.push(topUnit);
  page.unitByNode.set(program, topUnit);
  const lineOf = (n: AnyNode) => fileLine(block, n.loc?.start.line ?? 1);

  preOrderWalk(program, (node, ancestors) => {
    const self = ancestors.length - 1;
    if (node === program) return;
    const ui = unitIndex(ancestors, self);
    const unit = page.unitByNode.get(ancestors[ui]!);
    if (!unit) return; // cannot happen: enclosing units are visited first
    const addSite = (what: string, io: boolean, extra: Partial<Site> = {}) => {
      const how = protection(ancestors, self, ui);
      unit.sites.push({ what, io, line: lineOf(node), protected: how !== null, ...(how ? { how } : {}), ...extra });
    };

    if (isFn(node)) {
      const { name, simpleName } = nameFunction(node, ancestors);
      const u: Unit = {
        block,
        node,
        name,
        ...(simpleName ? { simpleName } : {}),
        kind: 'function',
        async: node.async === true,
        line: lineOf(node),
        sites: [],
        timers: [],
        hasTryCatch: false,
        hasCatchChain: false,
      };
      const flow = promiseCallbackFlow(ancestors, self);
      if (flow) {
        const enclosing = page.unitByNode.get(ancestors[ui]!);
        if (enclosing) u.flowsInto = { unit: enclosing, ...flow };
      }
      page.units.push(u);
      page.unitByNode.set(node, u);
      return;
    }

    switch (node.type) {
      case 'TryStatement':
        if (node.handler) unit.hasTryCatch = true;
        break;
      case 'AwaitExpression':
        if (unit.async || unit.kind === 'top-level') {
          const handled = handledPromise(node.argument as AnyNode);
          if (handled) unit.sites.push({ what: 'await', io: false, line: lineOf(node), protected: true, how: handled });
          else addSite('await', false);
        }
        break;
      case 'ForOfStatement':
        if (node.await) addSite('for await', false);
        break;
      case 'NewExpression': {
        const c = calleeName(node);
        const ctor = c?.replace(/^window\./, '');
        if (ctor === 'XMLHttpRequest' || ctor === 'WebSocket' || ctor === 'EventSource') {
          const target = assignedTo(ancestors, self);
          if (ctor === 'XMLHttpRequest' && target) page.xhrNames.add(target);
          addSite(`new ${ctor}()`, true, target ? { handlerTarget: target } : {});
        }
        break;
      }
      case 'CallExpression': {
        const c = calleeName(node);
        const callee = node.callee as AnyNode;
        if (c === 'fetch' || c === 'window.fetch' || c === 'globalThis.fetch') addSite('fetch()', true);
        else if (c === 'axios' || (c?.startsWith('axios.') && AXIOS_VERBS.has(c.slice(6)))) addSite(`${c}()`, true);
        else if (c === 'JSON.parse' || c === 'window.JSON.parse') addSite('JSON.parse()', true);
        else if (c === 'indexedDB.open' || c === 'window.indexedDB.open' || c === 'indexedDB.deleteDatabase') {
          const target = assignedTo(ancestors, self);
          addSite(`${c}()`, true, target ? { handlerTarget: target } : {});
        } else if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
          const m = callee.property.name;
          const obj = exprText(callee.object as AnyNode);
          if ((m === 'send' || m === 'open') && obj) addSite(`${obj}.${m}()`, true, { xhrCandidate: obj, handlerTarget: obj });
          if (m === 'catch' || (m === 'then' && node.arguments.length >= 2)) unit.hasCatchChain = true;
          if (m === 'addEventListener' && obj) {
            const ev = stringArg(node, 0);
            if (ev && ERROR_EVENTS.has(ev)) page.handlerTargets.add(obj);
          }
        }
        if (c && TIMERS.has(c)) {
          const cb = node.arguments[0] as AnyNode | undefined;
          if (cb && isFn(cb)) page.pendingTimerFns.push({ owner: unit, timer: lastSegment(c), line: lineOf(node), fn: cb });
          else if (cb && cb.type === 'Identifier') unit.timers.push({ timer: lastSegment(c), line: lineOf(node), callback: cb.name });
        }
        // Uses of named functions: direct calls, and names passed as callbacks.
        const calledName = callee.type === 'Identifier' ? callee.name
          : callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' ? callee.property.name : null;
        if (calledName) {
          const how = protection(ancestors, self, ui);
          const parent = ancestors[self - 1];
          const awaited = parent?.type === 'AwaitExpression' || parent?.type === 'ReturnStatement' || (parent?.type === 'ArrowFunctionExpression' && parent.body === node);
          page.uses.push({ name: calledName, protected: how !== null, unit, call: awaited ? 'awaited' : 'plain' });
        }
        const m = callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' ? callee.property.name : null;
        for (const arg of node.arguments as AnyNode[]) {
          const argName = arg.type === 'Identifier' ? arg.name : arg.type === 'MemberExpression' ? exprText(arg) : null;
          if (!argName) continue;
          // `.then(name)` / `.catch(name)`: protected when the chain is caught after it.
          const viaChain = m === 'then' || m === 'catch' || m === 'finally';
          const prot = viaChain ? chainProtection(ancestors, self, ui) !== null : false;
          const calls = viaChain || m === 'addEventListener' || (c !== null && (TIMERS.has(c) || c === 'requestAnimationFrame'));
          if (calls) page.uses.push({ name: lastSegment(argName), protected: prot, unit, call: 'reference' });
        }
        break;
      }
      case 'MemberExpression': {
        const t = exprText(node);
        // One site per storage reference: `localStorage.x` or `window.localStorage`.
        if (t === 'window.localStorage' || t === 'window.sessionStorage') {
          addSite(t.slice(7), true);
        } else if (node.object.type === 'Identifier' && (node.object.name === 'localStorage' || node.object.name === 'sessionStorage')) {
          addSite(node.object.name, true);
        }
        break;
      }
      case 'AssignmentExpression': {
        const left = node.left as AnyNode;
        if (left.type === 'MemberExpression' && !left.computed && left.property.type === 'Identifier') {
          const prop = left.property.name;
          const obj = exprText(left.object as AnyNode);
          if ((prop === 'onerror' || prop === 'ontimeout') && obj) page.handlerTargets.add(obj);
        }
        const right = node.right as AnyNode;
        if (right.type === 'Identifier' && left.type === 'MemberExpression' && !left.computed && left.property.type === 'Identifier' && /^on/.test(left.property.name)) {
          page.uses.push({ name: right.name, protected: false, unit, call: 'reference' });
        }
        break;
      }
      default:
        break;
    }
  });
  return parsed.recovered ? { recovered: true, ...(parsed.syntaxError ? { syntaxError: parsed.syntaxError.message } : {}) } : { recovered: false };
}

/** Storage sites are found twice for `localStorage.getItem` (object and member): keep one per node line/what. */
function dedupeSites(sites: Site[]): Site[] {
  const seen = new Set<string>();
  const out: Site[] = [];
  for (const s of sites) {
    const key = `${s.line}:${s.what}:${s.protected}`;
    if ((s.what === 'localStorage' || s.what === 'sessionStorage') && seen.has(key)) continue;
    seen.add(key);
    out.push(s);
  }
  return out;
}

export interface ErrorHandlingAnalysis {
  functions: FunctionReport[];
  unitsAnalysed: number;
  jsBlocks: number;
  recoveredBlocks: Array<{ file: string; line: number; syntaxError?: string }>;
  /** Blocks that could not be analysed at all (e.g. nesting deeper than the parser's stack). */
  skippedBlocks: Array<{ file: string; line: number; reason: string }>;
}

/**
 * Protection by callers, transitively (the least set closed under two rules): a unit is protected when its
 * failure flows into a promise chain that is caught, or that is awaited by a unit protected by its callers;
 * or when every use of its name (recursive calls aside) is protected where it is written, or is a call whose
 * failure flows into a unit that is itself protected by its callers. A worklist with a count of the uses still
 * open per unit: linear in units and uses (a fixpoint loop over all units until nothing changes is quadratic
 * on a long chain of callers).
 */
function protectedByCallers(units: readonly Unit[], usesByName: ReadonlyMap<string, Use[]>, byName: ReadonlyMap<string, Unit[]>): Set<Unit> {
  const byCallers = new Set<Unit>();
  const flows = (u: Unit, x: Use) => x.call === 'awaited' || (x.call === 'plain' && !u.async);
  /** Per unit with a name: uses of that name outside it that are not yet known to be protected. */
  const open = new Map<Unit, number>();
  /** Units whose failure flows into a promise held by the key unit, awaited. */
  const flowDependents = new Map<Unit, Unit[]>();
  /** Per unit: the uses written inside it that would count once it is protected by its callers. */
  const usesInside = new Map<Unit, Use[]>();
  const queue: Unit[] = [];
  const add = (u: Unit) => {
    if (byCallers.has(u)) return;
    byCallers.add(u);
    queue.push(u);
  };
  for (const uses of usesByName.values()) {
    for (const x of uses) {
      const list = usesInside.get(x.unit);
      if (list) list.push(x);
      else usesInside.set(x.unit, [x]);
    }
  }
  for (const u of units) {
    if (u.flowsInto) {
      if (u.flowsInto.protected) add(u);
      else if (u.flowsInto.awaited) {
        const list = flowDependents.get(u.flowsInto.unit);
        if (list) list.push(u);
        else flowDependents.set(u.flowsInto.unit, [u]);
      }
    }
    if (!u.simpleName) continue;
    const uses = usesByName.get(u.simpleName) ?? [];
    let total = 0;
    let pending = 0;
    for (const x of uses) {
      if (x.unit === u) continue;
      total++;
      if (!x.protected) pending++;
    }
    if (total === 0) continue;
    open.set(u, pending);
    if (pending === 0) add(u);
  }
  for (let i = 0; i < queue.length; i++) {
    const w = queue[i]!;
    for (const d of flowDependents.get(w) ?? []) add(d);
    for (const x of usesInside.get(w) ?? []) {
      if (x.protected) continue;
      for (const u of byName.get(x.name) ?? []) {
        if (u === w || byCallers.has(u) || !flows(u, x)) continue;
        const left = open.get(u)! - 1;
        open.set(u, left);
        if (left === 0) add(u);
      }
    }
  }
  return byCallers;
}

export function analyseErrorHandling(blocks: readonly SourceBlock[]): ErrorHandlingAnalysis {
  const page: PageState = { units: [], uses: [], xhrNames: new Set(), handlerTargets: new Set(), unitByNode: new Map(), pendingTimerFns: [] };
  const recoveredBlocks: ErrorHandlingAnalysis['recoveredBlocks'] = [];
  const skippedBlocks: ErrorHandlingAnalysis['skippedBlocks'] = [];
  for (const block of blocks) {
    const mark = { units: page.units.length, uses: page.uses.length, timers: page.pendingTimerFns.length };
    let r: ReturnType<typeof analyseBlock>;
    try {
      r = analyseBlock(block, page);
    } catch (err) {
      // Pathological code (nesting deeper than the call stack): leave the block out, say so.
      for (const u of page.units.splice(mark.units)) page.unitByNode.delete(u.node);
      page.uses.splice(mark.uses);
      page.pendingTimerFns.splice(mark.timers);
      skippedBlocks.push({ file: block.file, line: block.line, reason: errorMessage(err) });
      continue;
    }
    if (r.recovered) recoveredBlocks.push({ file: block.file, line: block.line, ...(r.syntaxError ? { syntaxError: r.syntaxError } : {}) });
  }

  // Resolve page-wide facts: XHR objects and error callbacks.
  for (const u of page.units) {
    u.sites = dedupeSites(u.sites).filter((s) => !s.xhrCandidate || page.xhrNames.has(s.xhrCandidate));
    for (const s of u.sites) {
      if (!s.protected && s.handlerTarget && page.handlerTargets.has(s.handlerTarget)) {
        s.protected = true;
        s.how = `${s.handlerTarget}.onerror`;
      }
    }
  }
  // Timers whose callback does I/O.
  const byName = new Map<string, Unit[]>();
  for (const u of page.units) {
    if (!u.simpleName) continue;
    const list = byName.get(u.simpleName);
    if (list) list.push(u);
    else byName.set(u.simpleName, [u]);
  }
  const timerSite = (owner: Unit, timer: string, line: number, cbs: Unit[]) => {
    const io = cbs.flatMap((cb) => cb.sites.filter((s) => s.io));
    if (io.length === 0) return;
    const ok = io.every((s) => s.protected);
    owner.sites.push({ what: `${timer} callback does ${[...new Set(io.map((s) => s.what))].join(', ')}`, io: false, line, protected: ok, ...(ok ? { how: 'callback handles its errors' } : {}) });
  };
  for (const p of page.pendingTimerFns) {
    const cb = page.unitByNode.get(p.fn);
    if (cb) timerSite(p.owner, p.timer, p.line, [cb]);
  }
  for (const u of page.units) {
    for (const t of u.timers) {
      if (typeof t.callback === 'string') timerSite(u, t.timer, t.line, byName.get(t.callback) ?? []);
    }
  }

  const usesByName = new Map<string, Use[]>();
  for (const use of page.uses) {
    const list = usesByName.get(use.name);
    if (list) list.push(use);
    else usesByName.set(use.name, [use]);
  }
  const byCallers = protectedByCallers(page.units, usesByName, byName);
  /** Uses of a unit's name written outside the unit itself (recursive calls aside). */
  const ownUses = new Map<Unit, number>();
  for (const use of page.uses) if (use.unit.simpleName === use.name) ownUses.set(use.unit, (ownUses.get(use.unit) ?? 0) + 1);
  const usesOf = (u: Unit) => (usesByName.get(u.simpleName!)?.length ?? 0) - (ownUses.get(u) ?? 0);

  const functions: FunctionReport[] = [];
  for (const u of page.units) {
    const reasons: string[] = [];
    if (u.async) reasons.push('async');
    for (const s of u.sites) if (s.what !== 'await' && s.what !== 'for await' && !reasons.includes(s.what)) reasons.push(s.what);
    if (u.simpleName && isRiskyName(u.simpleName)) reasons.push(`risky name "${u.simpleName}"`);
    const topAwait = u.kind === 'top-level' && u.sites.some((s) => s.what === 'await' || s.what === 'for await');
    if (topAwait) reasons.push('top-level await');
    if (reasons.length === 0) continue;

    let how: string | null = null;
    const unprotected = u.sites.filter((s) => !s.protected);
    if (u.sites.length > 0) {
      if (unprotected.length === 0) how = [...new Set(u.sites.map((s) => s.how!))].join(', ');
    } else if (u.hasTryCatch) how = 'try/catch';
    else if (u.hasCatchChain) how = '.catch()';
    if (how === null && byCallers.has(u) && u.flowsInto) {
      how = u.flowsInto.protected ? `by the promise chain it is part of (${u.flowsInto.how})` : 'by the callers of the promise it is part of';
    } else if (how === null && byCallers.has(u)) {
      const n = usesOf(u);
      how = `by its callers (${n} use${n === 1 ? '' : 's'})`;
    }
    const report: FunctionReport = {
      file: u.block.file,
      line: u.line,
      name: u.name,
      reasons,
      protected: how !== null,
      how,
    };
    if (how === null && unprotected.length > 0) report.unprotected = unprotected.map((s) => ({ line: s.line, what: s.what }));
    functions.push(report);
  }
  functions.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return { functions, unitsAnalysed: page.units.length, jsBlocks: blocks.length, recoveredBlocks, skippedBlocks };
}

const errorHandling: MetricDefinition = {
  number: 3,
  id: 'error-handling',
  perspective: 'code',
  kind: 'rule',
  needs: ['source'],
  title: 'Error handling',
  question: 'Are risky operations such as network calls, storage and JSON parsing protected against failure?',
  suite: 'study',
  score({ artifact }) {
    const blocks = artifact.sources.filter((b) => b.language === 'js');
    if (blocks.length === 0) return unscorable('no JavaScript', { jsBlocks: 0 });
    const a = analyseErrorHandling(blocks);
    const R = a.functions.length;
    const N = a.functions.filter((f) => !f.protected).length;
    const details = {
      needing: R,
      unprotected: N,
      unitsAnalysed: a.unitsAnalysed,
      jsBlocks: a.jsBlocks,
      recoveredBlocks: a.recoveredBlocks,
      skippedBlocks: a.skippedBlocks,
      functions: a.functions,
    };
    if (a.skippedBlocks.length === blocks.length) return unscorable(`JavaScript could not be analysed: ${a.skippedBlocks[0]!.reason}`, details);
    if (R === 0) return unscorable('no function needs error handling', details);
    const score = logPenalty(N, R);
    return scored(score, `${N} of ${R} functions that need error handling lack it (${round2(score)})`, details);
  },
};

export default errorHandling;
