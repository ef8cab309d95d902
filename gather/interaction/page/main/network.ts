/**
 * The page's own requests in flight (`fetch`, a `Response` body being read, `XMLHttpRequest`), so that the page
 * clock stands still while they are (clock.ts `advance`), as CDP's virtual time does with
 * `pauseIfNetworkFetchesPending`: what a request brings is handled at the page time it was asked for, on every
 * run, however long the network took. Without it a page that fetches at start-up and enables a button or shows a
 * timing when the answer comes (datasette-extras-explorer in the corpus: its "Copy URL" button, its fetch timed
 * with `performance.now()`) showed a different state on each run: the clock went on firing frames and timers
 * while the answer travelled.
 *
 * A request holds the clock for at most HOLD_REAL_MS of real time from its start (a long poll, a request that
 * never answers: the clock then goes on, what it brings lands when it lands, and it is forgotten), and one move
 * waits for requests at most the host's `maxNetworkWaitMs` in all (config.ts). Not counted: scripts, images,
 * styles and modules the page adds (the browser loads them, not the page's code), `EventSource`, `WebSocket`, a
 * `Response` body read as a stream, and what a worker fetches. A page can undo the wrappers for itself (its requests then no longer hold its clock) or make
 * requests to hold it; either only changes when its own clock moves, which it can do anyway.
 */
import { w } from './config.js';
import { MapCtor, ReflectApply, mapDelete, mapEntries, mapIteratorNext, mapSet, perfNow, sleepReal, uncurry } from './primordials.js';

/** Real ms one request may hold the clock, from its start. */
export const HOLD_REAL_MS = 2000;

/** Requests in flight: id → real start time. */
const inflight = new MapCtor<number, number>();
let nextId = 1;

const promiseThen = uncurry(Promise.prototype.then);
const addListener = uncurry(EventTarget.prototype.addEventListener);

function begin(): number {
  const id = nextId++;
  mapSet(inflight, id, perfNow());
  return id;
}

const end = (id: number) => () => {
  mapDelete(inflight, id);
};

/** A function returning a promise counted in flight until it settles (the page's reactions to it run after ours). */
function counted(orig: (...a: unknown[]) => unknown): (...a: unknown[]) => unknown {
  return function (this: unknown, ...args: unknown[]) {
    const out = ReflectApply(orig, this, args);
    const done = end(begin());
    try {
      promiseThen(out, done, done);
    } catch {
      done(); // not a promise
    }
    return out;
  };
}

/** Count the page's fetches, body reads and XHRs in flight. */
export function installNetworkWatch(): void {
  try {
    if (typeof w.fetch === 'function') w.fetch = counted(w.fetch);
    const R = w.Response?.prototype;
    const bodies = ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes'];
    for (let i = 0; R && i < bodies.length; i++) if (typeof R[bodies[i]!] === 'function') R[bodies[i]!] = counted(R[bodies[i]!]);
    const X = w.XMLHttpRequest?.prototype;
    const send = X?.send;
    if (typeof send === 'function')
      X.send = function (this: EventTarget, ...args: unknown[]) {
        const done = end(begin());
        // `loadend` comes after the page's own `load`, `error` and `readystatechange` handlers.
        addListener(this, 'loadend', done, { once: true });
        try {
          return ReflectApply(send, this, args);
        } catch (e) {
          done();
          throw e;
        }
      };
  } catch {
    /* leave it */
  }
}

/** Requests in flight that still hold the clock (started less than HOLD_REAL_MS ago); older ones are forgotten. */
function holding(): number {
  const now = perfNow();
  let n = 0;
  const it = mapEntries(inflight);
  for (let r = mapIteratorNext(it); !r.done; r = mapIteratorNext(it)) {
    const entry = r.value as [number, number];
    if (now - entry[1] < HOLD_REAL_MS) n++;
    else mapDelete(inflight, entry[0]);
  }
  return n;
}

/**
 * Wait (real time) until no request holds the clock, at most `capMs`; the real ms waited. Each poll is a real
 * task, so what the answers started (their promise reactions, the next body read) has run when it returns.
 */
export async function untilAnswered(capMs: number): Promise<number> {
  const t0 = perfNow();
  while (holding() > 0 && perfNow() - t0 < capMs) await sleepReal(2);
  return perfNow() - t0;
}
