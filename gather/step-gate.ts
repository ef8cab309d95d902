/**
 * The step gate: while a page is in Lighthouse's measured phase, no other browser work of ours starts.
 * Lighthouse's own advice (docs/variability.md) is one measured run at a time per machine with nothing else
 * competing for the CPU; the measurement lock (measure-lock.ts) gives the first half, this gate the second.
 *
 * Design. Every browser step of ours (the visit and its collectors' expensive parts, the phone visit, each probe
 * phase and each restore of the probe, the fidelity and reference renders, Lighthouse's unmeasured set-up) calls
 * `await gate.step(name)` at its boundary. The call returns at once unless another page is being measured, which
 * the gate learns from the measurement lock only, never from other processes' files or signals:
 * - the lock directory exists and its mtime is fresh (its holder refreshes it every STALE_MS / 4, so a holder that
 *   died stops holding anyone within STALE_MS: the same staleness rule proper-lockfile applies);
 * - its holder is another page: the lock's holder writes a marker inside the lock directory (`holder`: its process
 *   id and thread id), and a step is never held by the measurement of its own page. Which page a step belongs to
 *   is the Lighthouse thread that measures that page: the browser gatherer runs each artifact inside `gate.scope`
 *   with its Lighthouse thread's id; outside a scope a step belongs to the thread it runs on (so Lighthouse's own
 *   set-up, in its thread, is never held by its own lock). A marker that cannot be read (the holder between
 *   taking the lock and writing it) counts as another page's.
 * Then the step polls every POLL_MS until the lock is gone, stale or ours, at most MAX_HOLD_MS (a holder stuck in
 * a live process never stalls us longer). A page's steps are held at most MAX_PAGE_HOLD_MS in all: the wait comes
 * out of the page's own time budget, and a heavy page measured for 20 s (Lighthouse waits up to 30 s for a load),
 * or several processes measuring in turn, would otherwise leave our page no time for its own load (measured: two
 * pages held 30 s each lost their visit and Lighthouse at concurrency 2 on the shared machine). Past the cap the
 * page's steps overlap the measurement, as they did without the gate.
 *
 * What is held is the start of a step, not work in flight: a step already running when another process takes
 * the lock finishes. Steps are short (a load, a settle, one probe action), so the overlap is at most one step.
 * A page of ours that keeps computing in a background context between its steps (timers, animation frames)
 * could also be frozen with CDP `Page.setWebLifecycleState`; it is not done, and whether it matters is not
 * measured yet: a page's own contexts are closed before its own measurement, but another worker's page keeps
 * running between two of its steps.
 *
 * Every wait is counted (`gate.stats`): the score document's timings carry the held time (`gateHeldMs`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { HOLDER_FILE, STALE_MS, lockDirectory, measureLockPath } from './measure-lock.js';

/** Longest wait of one step, whatever the lock says. */
export const MAX_HOLD_MS = 10_000;
/** Longest wait of all the steps of one page (one `scope`). */
export const MAX_PAGE_HOLD_MS = 10_000;
/** How often a held step looks at the lock again. */
export const POLL_MS = 25;

/** Who holds the measurement lock, from the marker inside its directory. */
export interface LockHolder {
  pid: number;
  thread: number;
}

export interface StepGateOptions {
  /** The measurement lock's path (default measureLockPath()). */
  lockPath?: string;
  maxHoldMs?: number;
  maxPageHoldMs?: number;
  pollMs?: number;
  staleMs?: number;
}

/** What the gate held, for the timings. */
export interface GateStats {
  /** Steps that waited. */
  held: number;
  /** Milliseconds waited in all. */
  heldMs: number;
  /** Steps let go because their wait reached maxHoldMs. */
  timedOut: number;
}

export class StepGate {
  readonly stats: GateStats = { held: 0, heldMs: 0, timedOut: 0 };
  private readonly pages = new AsyncLocalStorage<PageScope>();
  private readonly dir: string;

  constructor(private readonly options: StepGateOptions = {}) {
    this.dir = lockDirectory(options.lockPath ?? measureLockPath());
  }

  /**
   * Run `fn` as the steps of the page that the Lighthouse thread `thread()` measures (read at each step: the
   * thread starts on demand and is replaced after a failure; undefined while there is none). Several calls with
   * one `page` (one artifact's gatherers, one after another) share its bound on the time held.
   */
  scope<T>(thread: () => number | undefined, fn: () => Promise<T>, page: { heldMs: number } = { heldMs: 0 }): Promise<T> {
    const scope: PageScope = {
      thread,
      get heldMs() {
        return page.heldMs;
      },
      set heldMs(v: number) {
        page.heldMs = v;
      },
    };
    return this.pages.run(scope, fn);
  }

  /** Whether a step of the current page must wait now: another page holds a fresh measurement lock. */
  heldByOther(): boolean {
    let mtime: number;
    try {
      mtime = statSync(this.dir).mtimeMs;
    } catch {
      return false;
    }
    if (Date.now() - mtime > (this.options.staleMs ?? STALE_MS)) return false;
    const holder = readHolder(this.dir);
    if (!holder) return true;
    return holder.pid !== process.pid || holder.thread !== (this.pages.getStore()?.thread() ?? threadId);
  }

  /** Wait until no other page is measured (bounded); `name` says which step, for debugging. */
  async step(name: string): Promise<void> {
    const page = this.pages.getStore();
    const pageLeft = (this.options.maxPageHoldMs ?? MAX_PAGE_HOLD_MS) - (page?.heldMs ?? 0);
    if (pageLeft <= 0 || !this.heldByOther()) return;
    const t = performance.now();
    const max = Math.min(this.options.maxHoldMs ?? MAX_HOLD_MS, pageLeft);
    this.stats.held++;
    while (this.heldByOther()) {
      if (performance.now() - t >= max) {
        this.stats.timedOut++;
        if (process.env.WEBGRADE_DEBUG) process.stderr.write(`step gate: ${name} let go after ${max} ms\n`);
        break;
      }
      await new Promise((r) => setTimeout(r, this.options.pollMs ?? POLL_MS));
    }
    const held = Math.round(performance.now() - t);
    this.stats.heldMs += held;
    if (page) page.heldMs += held;
  }
}

/** The page a step belongs to: the thread that measures it, and how long its steps were held so far. */
interface PageScope {
  thread: () => number | undefined;
  heldMs: number;
}

/** The marker's content, or undefined when it is absent or unreadable. */
export function readHolder(dir: string): LockHolder | undefined {
  try {
    const [pid, thread] = readFileSync(join(dir, HOLDER_FILE), 'utf8').trim().split(' ').map(Number);
    return Number.isInteger(pid) && Number.isInteger(thread) ? { pid: pid!, thread: thread! } : undefined;
  } catch {
    return undefined;
  }
}

/** The process's gate (one per thread: each thread's module instance), on the default measurement lock. */
export const gate = new StepGate();
