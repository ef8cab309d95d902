/**
 * The interaction probe's main-world agent: the only part of the probe that lives in the page's own JavaScript
 * world, because it must replace what the page calls (the clock, dialogs, sound, clipboard, canvas contexts, form
 * getters). It decides nothing: every verdict is made by the readers in the probe's isolated world (../index.ts)
 * or by the host from the browser's own protocol. Installed in the top document before any page script
 * (`Page.addScriptToEvaluateOnNewDocument`, bundled by ../../page-script.ts).
 *
 * The host reaches it through one function, a non-enumerable, non-writable, non-configurable property of the
 * window under a random name, which answers only when called with the run's random secret and answers with one
 * string (primordials.ts `encode`): the page cannot replace or shadow it, cannot learn the secret (it is a closure
 * value, never in any function's source), and cannot change its answers, whose state lives in this closure.
 * The host calls it as `window[name](secret, op, args)`, an expression the page cannot redirect (`window` is
 * unforgeable), and validates what comes back like any other page data.
 */
import { advance, installClock, pending, setFrameMs, clock, type Moved } from './clock.js';
import { agentConfig, w, type AgentConfig } from './config.js';
import { installNetworkWatch } from './network.js';
import {
  JSONParse,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  ObjectKeys,
  PromiseCtor,
  add,
  docBody,
  elQuerySelectorAll,
  encode,
  nodeListItem,
  nodeListLength,
  record,
  settled,
  stringStartsWith,
} from './primordials.js';
import {
  canvasKinds,
  deepStorage,
  eventMarks,
  eventsSince,
  installRecorders,
  installWorkerWatch,
  startReads,
  stopReads,
  tag,
  workersStarted,
} from './recorders.js';

/** What the host sends at install: where the agent answers, and the clock's settings. */
export interface AgentInit extends AgentConfig {
  /** The window property the agent's function is defined under. */
  name: string;
  /** The value the first argument must have for the agent to answer. */
  secret: string;
  /**
   * Only the clock and the count of workers started (which paces it), no recorders: the visit's page clock
   * (gather/visit-clock.ts), whose page keeps its own dialogs, sound, clipboard and canvas contexts.
   */
  clockOnly?: boolean;
}

const REACT: Record<string, string> = {
  onClick: 'click',
  onMouseDown: 'mousedown',
  onMouseUp: 'mouseup',
  onPointerDown: 'pointerdown',
  onPointerUp: 'pointerup',
  onDoubleClick: 'dblclick',
  onKeyDown: 'keydown',
  onKeyUp: 'keyup',
  onTouchStart: 'touchstart',
};
const REACT_PROPS = ObjectKeys(REACT);

/**
 * React keeps handlers in props, expando properties of the page's own element objects that an isolated world
 * does not see: the elements under body (by position in `body.querySelectorAll('*')`) with handler props, and
 * React's root containers. Looked for in the first 200 elements, then everywhere once React is seen. A page can
 * put such properties on any element; that only makes the probe try that element.
 */
function reactMarks(): { handlers: Record<string, string[]>; roots: number[] } {
  const handlers = record<string[]>();
  const roots: number[] = [];
  const body = docBody(document);
  if (!body) return { handlers, roots };
  const all = elQuerySelectorAll(body, '*');
  const n = nodeListLength(all) as number;
  let react = false;
  for (let i = 0; i < n; i++) {
    if (!react && i > 200) break;
    const el = nodeListItem(all, i) as unknown as Record<string, unknown>;
    const keys = ObjectKeys(el);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (stringStartsWith(key, '__reactContainer$') || key === '_reactRootContainer') add(roots, i);
      if (!stringStartsWith(key, '__reactProps$')) continue;
      react = true;
      let props: Record<string, unknown> | null = null;
      try {
        props = el[key] as Record<string, unknown> | null;
      } catch {
        props = null;
      }
      if (!props || typeof props !== 'object') continue;
      const types: string[] = [];
      for (let p = 0; p < REACT_PROPS.length; p++) {
        let f: unknown;
        try {
          f = props[REACT_PROPS[p]!];
        } catch {
          f = undefined;
        }
        if (typeof f === 'function') add(types, REACT[REACT_PROPS[p]!]!);
      }
      if (types.length) handlers[i + ''] = types;
    }
  }
  return { handlers, roots };
}

/** Event marks taken when an action's observation starts. */
let marks = record<number>();

/** The agent's operations, by name (each answers plain data, encoded to one string by `answer`). */
const ops: Record<string, (a: unknown[]) => unknown> = record();
/**
 * Move the clock; with a second argument `true`, then start noting events and reads (an action comes next); with a
 * third `true`, paced by real time even without a worker (a requirement test's real-time wait).
 */
ops.advance = async (a) => {
  const m = (await settled(advance(a[0] as number, workersStarted() > 0 || a[2] === true))) as Moved & { kinds?: string[]; workers?: number };
  m.workers = workersStarted();
  m.kinds = canvasKinds();
  if (a[1] === true) track();
  return m;
};
ops.setFrameMs = (a) => setFrameMs(a[0] as number, a[1] === true);
ops.now = () => clock.vnow;
ops.pending = () => pending();
ops.kinds = () => canvasKinds();
ops.tag = (a) => tag(a[0] as Array<string | null>);
ops.deep = () => deepStorage();
ops.react = () => reactMarks();
function track(): void {
  marks = eventMarks();
  startReads();
}
ops.track = track;
ops.untrack = () => ({ events: eventsSince(marks), reads: stopReads(), kinds: canvasKinds() });

/** Run one operation and encode its answer; '' for a wrong secret or an unknown operation. */
function answer(secret: string, run: string, op: unknown, args: unknown): string | Promise<string> {
  if (run !== secret || typeof op !== 'string' || typeof args !== 'string') return '';
  const fn = ops[op];
  if (!fn) return '';
  let a: unknown[];
  try {
    a = JSONParse(args) as unknown[];
  } catch {
    return '';
  }
  const out = fn(a);
  if (out instanceof PromiseCtor) return (async () => encode(await settled(out)))();
  return encode(out);
}

/** Only the top document of the page gets the agent, once. */
function wanted(name: string): boolean {
  try {
    if (w !== w.top) return false;
  } catch {
    return false;
  }
  return ObjectGetOwnPropertyDescriptor(w, name) === undefined;
}

/** Runs in the page before any script: installs the clock and the recorders, then the answering function. */
export function agentInit(init: AgentInit): void {
  if (!wanted(init.name)) return;
  const secret = init.secret;
  agentConfig.epochMs = init.epochMs;
  agentConfig.frameMs = init.frameMs;
  agentConfig.maxFires = init.maxFires;
  agentConfig.maxAdvanceRealMs = init.maxAdvanceRealMs;
  agentConfig.maxNetworkWaitMs = init.maxNetworkWaitMs;
  installClock();
  installNetworkWatch();
  if (init.clockOnly === true) installWorkerWatch();
  else installRecorders();
  const fn = function (run: unknown, op: unknown, args: unknown) {
    return answer(secret, run as string, op, args);
  };
  ObjectDefineProperty(w, init.name, { value: fn, enumerable: false, configurable: false, writable: false });
}
