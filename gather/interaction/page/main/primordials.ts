/**
 * The built-ins the main-world agent uses, captured before any page script runs (Node.js's "primordials"
 * pattern). The agent shares the page's JavaScript world: a page may replace any prototype method, getter,
 * setter or global after load (`Array.prototype.push`, `Map.prototype.get`, `Node.prototype.contains`,
 * `JSON.stringify`, `Promise.prototype.then`...). Every call the agent makes on its own data goes through these
 * captured functions, uncurried (`mapGet(m, k)` instead of `m.get(k)`), so that a page cannot see or change the
 * agent's state through them.
 *
 * Rules for code that runs in the main world (page/main/): no method call on a built-in object (use these); no
 * `for…of`, spread, array destructuring or `Array.from` (they call the page's `Symbol.iterator`); no regular
 * expressions (`RegExp.prototype.test` looks up the page's `exec`); arrays grow through `add` (an index write
 * beyond the length would call a setter the page put on `Array.prototype`); records keyed by data are
 * null-prototype objects; answers leave as one primitive string (`encode`), never as an object the page could
 * give a `toJSON` or a getter.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Fn = (...a: any[]) => any;
type Uncurried<F extends Fn> = (self: unknown, ...args: Parameters<F>) => ReturnType<F>;

const FP = Function.prototype;
/** `uncurry(Map.prototype.get)(m, k)` is `m.get(k)` without looking anything up on `m` or its prototype. */
export const uncurry = FP.bind.bind(FP.call) as <F extends Fn>(fn: F) => Uncurried<F>;

const getterOf = (proto: any, prop: string): Uncurried<() => any> => {
  const d = Object.getOwnPropertyDescriptor(proto, prop);
  return d?.get ? uncurry(d.get) : () => undefined;
};
const setterOf = (proto: any, prop: string): Uncurried<(v: any) => void> => {
  const d = Object.getOwnPropertyDescriptor(proto, prop);
  return d?.set ? uncurry(d.set) : () => undefined;
};

export const ReflectApply = Reflect.apply;
export const ObjectCreate = Object.create;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const ObjectKeys = Object.keys;
export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;
export const StringCtor = String;
export const NumberCtor = Number;
export const MathMax = Math.max;
export const MathMin = Math.min;
export const MathFloor = Math.floor;
export const MathRound = Math.round;
export const MathImul = Math.imul;
export const NumberIsFinite = Number.isFinite;
export const PromiseCtor = Promise;
export const MapCtor = Map;
export const WeakMapCtor = WeakMap;
export const SetCtor = Set;
export const WeakSetCtor = WeakSet;
export const MessageChannelCtor = MessageChannel;

export const stringSlice = uncurry(String.prototype.slice);
export const stringStartsWith = uncurry(String.prototype.startsWith);
export const stringToLowerCase = uncurry(String.prototype.toLowerCase);
export const stringIndexOf = uncurry(String.prototype.indexOf);
export const stringCharCodeAt = uncurry(String.prototype.charCodeAt);
export const numberToString = uncurry(Number.prototype.toString);

export const mapGet = uncurry(Map.prototype.get);
export const mapSet = uncurry(Map.prototype.set);
export const mapDelete = uncurry(Map.prototype.delete);
export const mapSize = getterOf(Map.prototype, 'size');
export const mapValues = uncurry(Map.prototype.values);
export const mapEntries = uncurry(Map.prototype.entries);
export const mapIteratorNext = uncurry(Object.getPrototypeOf(new Map().values()).next as Fn);
export const weakMapGet = uncurry(WeakMap.prototype.get);
export const weakMapSet = uncurry(WeakMap.prototype.set);
export const weakMapHas = uncurry(WeakMap.prototype.has);
export const setAdd = uncurry(Set.prototype.add);
export const setHas = uncurry(Set.prototype.has);
export const setClear = uncurry(Set.prototype.clear);
export const setValues = uncurry(Set.prototype.values);
export const setIteratorNext = uncurry(Object.getPrototypeOf(new Set().values()).next as Fn);
export const weakSetAdd = uncurry(WeakSet.prototype.add);
export const weakSetHas = uncurry(WeakSet.prototype.has);

export const portPostMessage = uncurry(MessagePort.prototype.postMessage);
export const setPortOnMessage = setterOf(MessagePort.prototype, 'onmessage');

export const docQuerySelector = uncurry(Document.prototype.querySelector);
export const docQuerySelectorAll = uncurry(Document.prototype.querySelectorAll);
export const elQuerySelectorAll = uncurry(Element.prototype.querySelectorAll);
export const elClosest = uncurry(Element.prototype.closest);
export const elHasAttribute = uncurry(Element.prototype.hasAttribute);
export const elGetAttribute = uncurry(Element.prototype.getAttribute);
export const elTagName = getterOf(Element.prototype, 'tagName');
export const nodeListLength = getterOf(NodeList.prototype, 'length');
export const nodeListItem = uncurry(NodeList.prototype.item);
export const docBody = getterOf(Document.prototype, 'body');
export const docCookie = getterOf(Document.prototype, 'cookie');
export const anchorHref = getterOf(HTMLAnchorElement.prototype, 'href');
export const anchorDownload = getterOf(HTMLAnchorElement.prototype, 'download');
export const inputLabels = getterOf(HTMLInputElement.prototype, 'labels');
export const eventTarget = getterOf(Event.prototype, 'target');
export const mediaCurrentSrc = getterOf(HTMLMediaElement.prototype, 'currentSrc');
export const mediaSrc = getterOf(HTMLMediaElement.prototype, 'src');
export const docGetAnimations = uncurry(Document.prototype.getAnimations);
export const animPlayState = getterOf(Animation.prototype, 'playState');
export const animCurrentTime = getterOf(Animation.prototype, 'currentTime');
export const setAnimCurrentTime = setterOf(Animation.prototype, 'currentTime');
export const animPlaybackRate = getterOf(Animation.prototype, 'playbackRate');
export const animEffect = getterOf(Animation.prototype, 'effect');
export const effectComputedTiming = uncurry(AnimationEffect.prototype.getComputedTiming);
export const svgGetCurrentTime = uncurry(SVGSVGElement.prototype.getCurrentTime);
export const svgSetCurrentTime = uncurry(SVGSVGElement.prototype.setCurrentTime);
export const svgAnimationsPaused = uncurry(SVGSVGElement.prototype.animationsPaused);
export const elQuerySelector = uncurry(Element.prototype.querySelector);
export const perfNow = performance.now.bind(performance);
export const realSetTimeout = setTimeout.bind(window);
export const realRequestAnimationFrame = requestAnimationFrame.bind(window);
export const reportErrorNative: ((e: unknown) => void) | null = typeof reportError === 'function' ? reportError.bind(window) : null;

/** A null-prototype record (no `Object.prototype` getter or `toJSON` is ever found on it). */
export const record = <T>(): Record<string, T> => ObjectCreate(null) as Record<string, T>;

/**
 * `await settled(p)` awaits our own promise `p` without asking the page's `Promise.prototype` anything: `await`
 * reads a promise's `constructor`, and one of its own makes the engine take the promise as it is.
 */
export function settled<T>(p: Promise<T>): Promise<T> {
  ObjectDefineProperty(p, 'constructor', { value: PromiseCtor });
  return p;
}

/** Wait `ms` real milliseconds (the page's own `setTimeout`, captured before the clock replaced it). */
export const sleepReal = (ms: number): Promise<void> =>
  settled(
    new PromiseCtor<void>((r) => {
      realSetTimeout(r, ms);
    }),
  );

/** Append `v` to an array of ours as an own property (never through a setter on `Array.prototype`). */
export function add<T>(list: T[], v: T): void {
  ObjectDefineProperty(list, list.length, { value: v, writable: true, enumerable: true, configurable: true });
}

/**
 * One answer as JSON text, written by hand from our own data: strings, finite numbers, booleans, null, arrays and
 * null-prototype records. A string is the only thing that leaves the agent, so nothing the page set up on a
 * prototype takes part in what is sent.
 */
export function encode(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  const t = typeof v;
  if (t === 'string') return JSONStringify(v);
  if (t === 'number') return NumberIsFinite(v) ? numberToString(v as number) : 'null';
  if (t === 'boolean') return v ? 'true' : 'false';
  if (t !== 'object') return 'null';
  let out = '';
  if (ObjectGetOwnPropertyDescriptor(v, 'length') !== undefined) {
    const list = v as unknown[];
    for (let i = 0; i < list.length; i++) out += (i ? ',' : '') + encode(list[i]);
    return '[' + out + ']';
  }
  const keys = ObjectKeys(v as object);
  for (let i = 0; i < keys.length; i++) out += (i ? ',' : '') + JSONStringify(keys[i]) + ':' + encode((v as Record<string, unknown>)[keys[i]!]);
  return '{' + out + '}';
}
/* eslint-enable @typescript-eslint/no-explicit-any */
