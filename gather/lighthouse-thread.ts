/**
 * Lighthouse in a worker thread. Most of a Lighthouse run's own Node work is synchronous and long: resolving
 * its configuration (about 0.4 s, mostly localising audit strings), processing the trace, and the audits
 * (0.5–0.9 s). On the main thread those blocks stall everything else for their whole length: the browser
 * visit's protocol round trips, the metrics scored meanwhile. In a worker they run beside the main thread, so
 * the visit and the scoring can overlap Lighthouse's set-up (bench/browser-suite.ts measures it).
 *
 * The worker (lighthouse-thread-worker.ts) keeps one puppeteer connection to the current Chrome, and runs each
 * Lighthouse run in a tab of a fresh browser context of its own (the sandbox proxy of the run's phase, downloads
 * denied; closed after the run), so that nothing one artifact stores (cookies, caches, service workers) reaches
 * the next. Each connection attaches only to the contexts it created. Runs are serialised.
 *
 * Protocol: main → worker `run` (url, port, time limit, mobile measurement, whether to hold and to report the
 * CPU benchmark) and `verdict` (the hold's answer); worker → main `benchmark`, `done` (the run) or `failed`
 * (message, whether it was the time limit). If the worker itself does not answer within the time limit plus
 * THREAD_GRACE_MS, it is terminated and the run fails as timed out; `terminate()` also ends an abandoned run
 * at once (the caller kills Chrome, as for any Lighthouse timeout). A new worker starts with the next run.
 */
import { Worker } from 'node:worker_threads';
import { LighthouseTimeout, type LighthouseRun, type PageState } from './lighthouse.js';
import type { HoldVerdict } from './lighthouse-mobile.js';

export const THREAD_GRACE_MS = 5_000;

export interface ThreadRunOptions {
  port: number;
  /** The sandbox proxy for the run's browser context (sandbox/sandbox.ts `endpoint('lighthouse')`). */
  proxyServer: string;
  timeoutMs: number;
  /** Lighthouse runs per artifact (`--lighthouse-runs`; the performance score is their median). */
  runs?: number;
  mobile?: { screenshot: boolean; before?: Promise<HoldVerdict> };
  onBenchmark?: () => void;
  /** What the visit saw of the page, for a run that is not held (a held run learns it with its verdict). */
  page?: PageState;
}

/** Messages from the main thread to the worker. */
export type ToWorker =
  | {
      type: 'run';
      id: number;
      url: string;
      port: number;
      proxyServer: string;
      timeoutMs: number;
      runs?: number;
      mobile?: { screenshot: boolean };
      hold: boolean;
      benchmark: boolean;
      page?: PageState;
    }
  | { type: 'verdict'; id: number; verdict: HoldVerdict };

/** Messages from the worker to the main thread. */
export type FromWorker =
  { type: 'benchmark'; id: number } | { type: 'done'; id: number; run: LighthouseRun } | { type: 'failed'; id: number; message: string; timeout: boolean };

interface Pending {
  resolve(run: LighthouseRun): void;
  reject(err: Error): void;
  onBenchmark?: () => void;
}

export class LighthouseThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** The worker's thread id while there is one (the step gate tells this page's measurement by it). */
  get threadId(): number | undefined {
    return this.worker?.threadId;
  }

  private start(): Worker {
    const worker = new Worker(new URL('./lighthouse-thread-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (msg: FromWorker) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      if (msg.type === 'benchmark') return p.onBenchmark?.();
      this.pending.delete(msg.id);
      if (msg.type === 'done') p.resolve(msg.run);
      else p.reject(msg.timeout ? new LighthouseTimeout(msg.message) : new Error(msg.message));
    });
    const failAll = (why: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error(`Lighthouse failed: ${why}`));
      }
    };
    worker.on('error', (err) => failAll(`its worker thread crashed (${err.message})`));
    worker.on('exit', (code) => failAll(`its worker thread exited (code ${code})`));
    return worker;
  }

  /** Start the worker now (it imports Lighthouse, about a second) rather than with the first run. */
  warm(): void {
    this.worker ??= this.start();
  }

  /** One Lighthouse run in the worker; rejects with LighthouseTimeout when over `timeoutMs`. */
  run(url: string, opts: ThreadRunOptions): Promise<LighthouseRun> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<LighthouseRun>((resolve, reject) => {
      const guard = setTimeout(
        () => {
          if (!this.pending.has(id)) return;
          this.pending.delete(id);
          void this.terminate();
          reject(new LighthouseTimeout(`Lighthouse did not finish within ${Math.round(opts.timeoutMs / 1000)} s (its worker thread stopped answering)`));
        },
        Math.max(0, opts.timeoutMs) + THREAD_GRACE_MS,
      );
      guard.unref();
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          clearTimeout(guard);
          f(v);
        };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject), ...(opts.onBenchmark ? { onBenchmark: opts.onBenchmark } : {}) });
      const before = opts.mobile?.before;
      const msg: ToWorker = {
        type: 'run',
        id,
        url,
        port: opts.port,
        proxyServer: opts.proxyServer,
        timeoutMs: opts.timeoutMs,
        ...(opts.runs ? { runs: opts.runs } : {}),
        ...(opts.mobile ? { mobile: { screenshot: opts.mobile.screenshot } } : {}),
        hold: !!before,
        benchmark: !!opts.onBenchmark,
        ...(opts.page ? { page: opts.page } : {}),
      };
      worker.postMessage(msg);
      before?.then(
        (verdict) => this.worker === worker && worker.postMessage({ type: 'verdict', id, verdict } satisfies ToWorker),
        () => this.worker === worker && worker.postMessage({ type: 'verdict', id, verdict: 'skip' } satisfies ToWorker),
      );
    });
  }

  /** Stop the worker (ends any run in it); the next `run` starts a new one. */
  async terminate(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
