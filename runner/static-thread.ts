/**
 * The static metrics (those that read only the artifact model: `source` and `dom`) are scored in a worker
 * thread, not on the scorer's thread. Parsing a hostile page can take long (jsdom builds megabytes of DOM) or
 * fail in ways no try/catch stops in time (stack overflow deep inside a parser); in a thread it runs under the
 * artifact's deadline and can be stopped (`Worker.terminate` interrupts even a tight loop), while the scorer's
 * thread stays free to drive the browser and to answer SIGINT/SIGTERM.
 *
 * One thread per scorer, started with it (its imports, about a second, overlap whatever the scorer does first)
 * and reused for every artifact; jobs run one at a time. Per job the thread loads the artifact from its path
 * (so nothing large is copied in), parses it, scores the metrics asked for and reports as it goes: the phase it
 * is in, the parse's blocks and references (which the scorer adopts, so that its own artifact never parses
 * the page again), each metric's result.
 *
 * At the deadline the thread is terminated: the metrics without a result become unscorable with
 * "time budget of N s exceeded while <phase> (static analysis)", and the scorer's artifact is marked unparsed
 * with that reason, so no metric on the scorer's thread parses the page afterwards. A thread that crashes (out
 * of memory: its heap is capped at STATIC_HEAP_MB) fails its job the same way, with the cause. A new thread
 * starts with the next job.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ResourceRef, SourceBlock } from '../core/artifact/model.js';
import { allNeeds, type MetricDefinition } from '../core/metric.js';
import type { MetricResult } from '../core/results.js';
import { metricBase } from './run-metric.js';

/** Heap cap of the static thread: a page that needs more makes its static metrics unscorable, not the run fail. */
export const STATIC_HEAP_MB = 3072;

/** At most this long for the warm-up job (`warm`), whose page is written in a temporary folder of this prefix. */
export const WARM_MS = 30_000;
export const WARM_DIR_PREFIX = 'webgrade-warm-';

/** A small page with markup, a style sheet, a script and a form: every static metric has something to score. */
export const WARM_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Warm-up</title>
<style>
  body { font: 16px system-ui, sans-serif; margin: 2rem; color: #222; }
  .card { border: 1px solid #ccc; border-radius: 8px; padding: 1rem; }
</style>
</head>
<body>
<main class="card">
  <h1>Counter</h1>
  <p>Count the clicks on the button below.</p>
  <label for="step">Step</label> <input id="step" type="number" value="1">
  <button id="add" type="button">Add</button>
  <output id="total">0</output>
  <ul class="steps">
    <li class="step"><b>1</b> <span>Choose a step.</span></li>
    <li class="step"><b>2</b> <span>Press the button.</span></li>
    <li class="step"><b>3</b> <span>Read the total.</span></li>
  </ul>
</main>
<script>
  // Adds the step to the total on each click, and keeps it.
  const total = document.getElementById('total');
  function load() {
    try {
      return JSON.parse(localStorage.getItem('total') || '0');
    } catch (err) {
      return 0;
    }
  }
  total.textContent = String(load());
  document.getElementById('add').addEventListener('click', () => {
    try {
      const step = Number(document.getElementById('step').value) || 0;
      total.textContent = String(Number(total.textContent) + step);
      localStorage.setItem('total', total.textContent);
    } catch (err) {
      console.error(err);
    }
  });
</script>
</body>
</html>
`;

export interface ParseResults {
  sources: SourceBlock[];
  resources: ResourceRef[];
  depth: number;
}

export interface ToStaticWorker {
  type: 'job';
  id: number;
  path: string;
  project?: { output?: string };
  metrics: string[];
  checkNetwork: boolean;
  /** Build the static DOM before scoring (some metric needs it; its phase is then named). */
  buildDom: boolean;
}

export type FromStaticWorker =
  | { type: 'phase'; id: number; phase: string }
  | { type: 'parsed'; id: number; parse?: ParseResults; error?: string }
  | { type: 'result'; id: number; result: MetricResult }
  | { type: 'done'; id: number; domError?: string }
  | { type: 'failed'; id: number; message: string };

export interface StaticJob {
  /** Absolute path of the artifact (file or folder). */
  path: string;
  /** The path is a project: its sources are read (project/source-view.ts), with the output folder it names left out. */
  project?: { output?: string };
  metrics: readonly MetricDefinition[];
  checkNetwork: boolean;
  /** performance.now() by which the job must be over. */
  deadline: number;
  /** The artifact's budget, for the reason given when the deadline passes. */
  budgetMs: number;
}

export interface StaticOutcome {
  /** A result for every metric of the job (unscorable ones say why). */
  results: Map<string, MetricResult>;
  /** The parse's results, when the page was parsed. */
  parse?: ParseResults;
  /** Why the page has no parse (a parse failure, the deadline, a crash), when it has none. */
  parseError?: string;
  /** Why the static DOM could not be built (or not in time), when that is known. */
  domError?: string;
  /** Milliseconds from sending the job to its end. */
  ms: number;
}

/** "60 s", "2.5 s". */
function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export class StaticThread {
  private readonly heapMb: number;
  private worker?: Worker;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  /** How many threads were started (tests). */
  starts = 0;

  constructor(opts: { heapMb?: number } = {}) {
    this.heapMb = opts.heapMb ?? STATIC_HEAP_MB;
  }

  /** Start the thread now (its imports take about a second), so that it is ready for the first job. */
  start(): void {
    this.thread();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./static-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: this.heapMb } });
    worker.unref();
    this.starts++;
    this.worker = worker;
    const forget = () => {
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', forget);
    worker.on('exit', forget);
    return worker;
  }

  /**
   * Score WARM_PAGE with `metrics` and forget the results: the thread's first job loads what its linters and parsers
   * load on first use (2.1 s alone on a 2-core VM, 10–14 s beside two browsers starting, 2026-11-29; later jobs
   * 0.1–0.3 s), and an artifact's budget should not pay for that. The page is written in a folder made in `parent`
   * and removed after. Never rejects; resolves with the job's outcome.
   */
  async warm(metrics: readonly MetricDefinition[], parent = tmpdir()): Promise<StaticOutcome> {
    const dir = mkdtempSync(join(parent, WARM_DIR_PREFIX));
    try {
      const path = join(dir, 'index.html');
      writeFileSync(path, WARM_PAGE);
      return await this.run({ path, metrics, checkNetwork: false, deadline: performance.now() + WARM_MS, budgetMs: WARM_MS });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Run one job; never rejects (every metric gets a result). Jobs run one after another. */
  run(job: StaticJob): Promise<StaticOutcome> {
    const next = this.queue.then(() => this.runNow(job));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private runNow(job: StaticJob): Promise<StaticOutcome> {
    const t0 = performance.now();
    const worker = this.thread();
    const id = this.nextId++;
    const results = new Map<string, MetricResult>();
    // A job that comes after the deadline (the browser session or Lighthouse used the whole budget) never starts.
    let phase = job.deadline <= t0 ? 'never started: the budget was spent before it, by the browser session' : 'waiting for the thread to start';
    const outcome: Omit<StaticOutcome, 'ms'> = { results };
    return new Promise<StaticOutcome>((resolve) => {
      let over = false;
      /** End the job; on a failure, every metric without a result gets the reason (`failure(id)` per metric). */
      const finish = (failure?: (metricId: string | undefined) => string) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (failure !== undefined) {
          for (const m of job.metrics) if (!results.has(m.id)) results.set(m.id, { ...metricBase(m), score: null, reason: failure(m.id), details: {}, ms: 0 });
          if (!outcome.parse) outcome.parseError ??= failure(undefined);
          outcome.domError ??= failure(undefined);
        }
        resolve({ ...outcome, ms: Math.round(performance.now() - t0) });
      };
      const onMessage = (msg: FromStaticWorker) => {
        if (msg.id !== id) return;
        switch (msg.type) {
          case 'phase':
            phase = msg.phase;
            break;
          case 'parsed':
            if (msg.parse) outcome.parse = msg.parse;
            else if (msg.error !== undefined) outcome.parseError = msg.error;
            break;
          case 'result':
            results.set(msg.result.id, msg.result);
            break;
          case 'done':
            if (msg.domError !== undefined) outcome.domError = msg.domError;
            finish();
            break;
          case 'failed':
            finish(() => msg.message);
            break;
        }
      };
      const onError = (err: Error) => finish(() => `static analysis failed: its worker thread crashed while ${phase} (${err.message})`);
      const onExit = (code: number) => finish(() => `static analysis failed: its worker thread exited (code ${code}) while ${phase}`);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      const timer = setTimeout(
        () => {
          const budget = `time budget of ${formatSeconds(job.budgetMs)} exceeded`;
          finish((metricId) =>
            metricId === undefined
              ? `${budget} while ${phase} (static analysis)`
              : phase === `scoring ${metricId}`
                ? `${budget} while scoring it (static analysis)`
                : `${budget} before it was scored (the static analysis was ${phase})`,
          );
          // A new thread starts at once, so that its imports are done by the time the next artifact needs it.
          void this.terminate(worker).then(() => this.start());
        },
        Math.max(0, job.deadline - performance.now()),
      );
      // The heavy ones last (MetricDefinition `cost`), so that when the budget runs out the quick ones have results.
      const ids = [...job.metrics].sort((a, b) => Number(a.cost === 'heavy') - Number(b.cost === 'heavy')).map((m) => m.id);
      const msg: ToStaticWorker = {
        type: 'job',
        id,
        path: job.path,
        ...(job.project ? { project: job.project } : {}),
        metrics: ids,
        checkNetwork: job.checkNetwork,
        buildDom: job.metrics.some((m) => allNeeds(m).includes('dom')),
      };
      worker.postMessage(msg);
    });
  }

  /** Stop the thread (ends a job in it); the next job starts a new one. */
  async terminate(worker = this.worker): Promise<void> {
    if (!worker) return;
    if (this.worker === worker) this.worker = undefined;
    await worker.terminate();
  }
}
