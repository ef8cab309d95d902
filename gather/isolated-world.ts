/**
 * Reading a page from where its scripts cannot reach: a function evaluated in a CDP isolated world of the page's
 * top frame (`Page.createIsolatedWorld`, Lighthouse's `useIsolation` and Playwright's utility world are the
 * anchors). An isolated world shares the page's DOM but not its JavaScript objects: `Element.prototype`,
 * `document.querySelectorAll`, the `innerText` and `outerHTML` getters, `JSON` and `Array.prototype` there are the
 * browser's own, whatever the page did to its own; and nothing of ours is visible to the page. Every collector of
 * the visit, the phone check and the fidelity renders reads the page this way; what must live in the page's own
 * world (the dialog guard, the frame hold) only changes what the page can do, never what we read.
 *
 * The answer is still the page's data (its texts, its sizes): `bounded` holds it to plain, finite, cut values
 * before it becomes evidence.
 */
import type { CDPSession, Page } from 'puppeteer-core';

/** The name of our isolated worlds (one per evaluation: nothing of one evaluation is left for the next). */
export const COLLECT_WORLD = 'webgrade-collect';

/** Bounds for an answer from the page. */
export interface Bounds {
  /** Strings are cut at this many characters. */
  maxString: number;
  /** Lists and records are cut at this many entries. */
  maxItems: number;
  /** Deeper values become null. */
  maxDepth: number;
}

/** The bounds of the probe's answers (its longest string is the agent's page text, 4000 characters). */
export const ANSWER_BOUNDS: Bounds = { maxString: 20_000, maxItems: 10_000, maxDepth: 8 };
/** The bounds of the visit's collectors (a video's first frame comes as a base64 PNG of at most 320 px wide). */
export const COLLECTOR_BOUNDS: Bounds = { maxString: 2_000_000, maxItems: 20_000, maxDepth: 10 };

/**
 * An answer from the page as plain, bounded data: strings cut, lists and records cut, numbers finite (else null),
 * nesting at most `maxDepth` deep, anything else (a function, a symbol) null. Record keys are defined as own
 * properties, so that a key such as `__proto__` is only a key.
 */
export function bounded(v: unknown, b: Bounds = ANSWER_BOUNDS, depth = 0): unknown {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
      return v.length > b.maxString ? v.slice(0, b.maxString) : v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'boolean':
      return v;
    case 'object':
      break;
    default:
      return null;
  }
  if (depth >= b.maxDepth) return null;
  if (Array.isArray(v)) return v.slice(0, b.maxItems).map((x) => bounded(x, b, depth + 1));
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (n++ >= b.maxItems) break;
    Object.defineProperty(out, k.slice(0, b.maxString), { value: bounded(x, b, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Evaluate `fn(arg)` in a new isolated world of the top frame of the page behind `cdp`, awaiting a promise, and
 * return its answer bounded by `bounds`. `fn` must be self-contained (it is sent as source text) and answer plain
 * data. Throws the page-side error as an Error.
 */
export async function evaluateIsolated<A, R>(cdp: CDPSession, fn: (arg: A) => R, arg?: A, bounds: Bounds = ANSWER_BOUNDS): Promise<Awaited<R>> {
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const { executionContextId } = (await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: COLLECT_WORLD })) as {
    executionContextId: number;
  };
  const r = (await cdp.send('Runtime.callFunctionOn', {
    functionDeclaration: fn.toString(),
    executionContextId,
    arguments: arg === undefined ? [] : [{ value: arg }],
    returnByValue: true,
    awaitPromise: true,
  })) as { result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } };
  if (r.exceptionDetails) throw new Error((r.exceptionDetails.exception?.description ?? r.exceptionDetails.text).split('\n')[0]!);
  return bounded(r.result.value, bounds) as Awaited<R>;
}

/** Each page's own protocol session for our evaluations (made once per page; it ends with the page). */
const sessions = new WeakMap<Page, Promise<CDPSession>>();

/** `evaluateIsolated` on a puppeteer page. */
export async function evaluateInPage<A, R>(page: Page, fn: (arg: A) => R, arg?: A, bounds: Bounds = ANSWER_BOUNDS): Promise<Awaited<R>> {
  let session = sessions.get(page);
  if (!session) {
    session = page.createCDPSession();
    sessions.set(page, session);
  }
  return evaluateIsolated(await session, fn, arg, bounds);
}
