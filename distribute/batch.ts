/**
 * `webgrade batch`: score every artifact of a runs folder with N long-lived worker processes, appending one
 * results row per artifact as it finishes (results-file.ts), resuming where an earlier run stopped.
 *
 * Layout (SPEC "runs"): `runs/<model>/<requirement-id>.html` or `runs/<model>/<requirement-id>/index.html`, or
 * `runs/<model>/<requirement-id>/` holding a project (a `package.json` with a build script; docs/projects.md).
 * Hidden entries and other files are ignored; a sub-folder without index.html is reported and skipped.
 *
 * Interpretations:
 * - `--concurrency N` runs N worker processes (batch-worker.ts), each with its own Scorer and Chrome, warmed up
 *   (Chrome, threads, the linters' first use: Scorer.warmUp) before its first job, outside any budget; the judges
 *   run in the parent, as a second stage of a pipeline (distribute/worker-pool.ts, distribute/judge-stage.ts), so the
 *   browsers never wait for them.
 * - The per-artifact time budget goes to the Scorer (gatherers share it). The parent also enforces a hard limit
 *   on the browser work (budget × 2 + 30 s; judges have their own deadline): past it the worker is killed
 *   (SIGTERM, SIGKILL after 5 s), the artifact is recorded as failed, and a fresh worker takes over. A worker
 *   that crashes is replaced the same way; the batch never stops for one artifact.
 * - Rows are written as artifacts complete (browser and judges), in `record`, the one place a row is written.
 *   The pending-evidence folder `<results>.pending/` holds what pages waiting for judges need, so an interrupted
 *   run redoes only their judges (distribute/pending-evidence.ts); it is removed when empty.
 * - Artifacts are dispatched in a fixed order (model, then requirement id), so a resumed run continues in order.
 * - References (fidelity metrics): `--references <dir>` (`<id>.html`, `<id>/index.html`, `<id>.png`), else the
 *   requirement's `reference`; each job carries its reference to the worker. The same reference is scored once per
 *   model: its rendered views are cached (gather/fidelity/reference-cache.ts), in the worker's memory and
 *   on disk, so every worker renders it at most once.
 * - `repeats: n` (≥ 2; `batch --repeats`) scores every artifact n times, each a job of its own (evidence gathered
 *   anew), rows marked `repeat: 1..n`. Repeat-major order (every artifact's repeat 1, then every repeat 2, ...):
 *   an interrupted run has whole earlier repeats, and the repeats of one page are apart in time. With n = 1 rows
 *   carry no `repeat` (as before). Resume skips every (model, requirement, repeat) already in the file, and a row
 *   without `repeat` counts as repeat 1, so raising --repeats over an existing file adds only the new repeats.
 */
import { existsSync, lstatSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { InputError, errorMessage } from '../core/errors.js';
import type { Requirement } from '../core/requirements.js';
import { openResultsForAppend, rowKey, type ResultRow } from '../store/results-file.js';
import { selectMetrics } from '../runner/score.js';
import type { ReferenceInput, ViewportSpec } from '../core/fidelity.js';
import { checkReferencesDir, findReference, resolveReference } from '../runner/reference.js';
import { startWorkerPool, type BatchJob, type PipelineStats, type PoolOptions } from './worker-pool.js';
import { servedNotAskedWarnings } from './judge-pins.js';
import { isProjectFolder } from '../project/manifest.js';

/** The jobs of `repeats` scorings per artifact (see the module comment); the jobs themselves when n = 1. */
export function withRepeats(jobs: readonly BatchJob[], n: number): BatchJob[] {
  if (n <= 1) return [...jobs];
  const out: BatchJob[] = [];
  for (let r = 1; r <= n; r++) for (const j of jobs) out.push({ ...j, repeat: r });
  return out;
}

export interface Discovery {
  jobs: BatchJob[];
  /**
   * Warnings, one per entry: entries that look like artifacts but are not (a folder without index.html) and are
   * left out, and broken entries (dangling links, link loops) that are recorded as failed.
   */
  skipped: string[];
}

function visible(name: string): boolean {
  return !name.startsWith('.');
}

/** What a broken entry is, from the error of `stat` (which follows links) after `lstat` found the entry. */
function brokenReason(p: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  let link = false;
  try {
    link = lstatSync(p).isSymbolicLink();
  } catch {
    /* gone meanwhile */
  }
  if (code === 'ENOENT' && link) return 'a dangling symbolic link (its target does not exist)';
  if (code === 'ELOOP') return 'a symbolic link loop';
  if (code === 'EACCES') return 'not readable (permission denied)';
  return `unreadable (${code ?? errorMessage(err)})`;
}

type Entry =
  | { kind: 'page' | 'folder'; requirement: string; path: string }
  | { kind: 'broken'; requirement: string; path: string; reason: string }
  | { kind: 'skip'; why: string }
  | null;

/** Classify one entry of a model folder (or a pages folder); never throws for one bad entry. */
function classifyEntry(dir: string, name: string): Entry {
  const p = join(dir, name);
  let st;
  try {
    st = statSync(p);
  } catch (err) {
    const reason = brokenReason(p, err);
    // A name that could be an artifact becomes a failed row; anything else is only a warning.
    if (/\.html?$/i.test(name) || extname(name) === '') return { kind: 'broken', requirement: name.replace(/\.html?$/i, ''), path: p, reason };
    return { kind: 'skip', why: `${name} (${reason})` };
  }
  if (st.isFile() && /\.html?$/i.test(name)) return { kind: 'page', requirement: name.replace(/\.html?$/i, ''), path: p };
  if (st.isDirectory()) {
    let index = false;
    try {
      index = statSync(join(p, 'index.html')).isFile();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || lstatExists(join(p, 'index.html'))) {
        return { kind: 'broken', requirement: name, path: p, reason: `its index.html is ${brokenReason(join(p, 'index.html'), err)}` };
      }
    }
    // A project (a package.json with a build script: project/manifest.ts) needs no index.html of its own.
    return index || isProjectFolder(p) ? { kind: 'folder', requirement: name, path: p } : { kind: 'skip', why: `${name}/ (no index.html)` };
  }
  return null;
}

function lstatExists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * The jobs of one folder's entries for `model`. Requirement ids must be unique: `x.html`, `x.htm` and
 * `x/index.html` all name requirement `x`, and two results for one id would silently replace each other (and a
 * resumed run would skip the others), so such a folder is refused, naming the entries.
 */
function folderJobs(dir: string, model: string, label: string, jobs: BatchJob[], skipped: string[]): void {
  const byId = new Map<string, string[]>();
  const mine: BatchJob[] = [];
  for (const name of readdirSync(dir).filter(visible).sort()) {
    const e = classifyEntry(dir, name);
    if (!e) continue;
    if (e.kind === 'skip') {
      skipped.push(`${label}${e.why}`);
      continue;
    }
    const names = byId.get(e.requirement) ?? [];
    names.push(name + (e.kind === 'folder' ? '/' : ''));
    byId.set(e.requirement, names);
    if (e.kind === 'broken') {
      skipped.push(`${label}${name}: ${e.reason} (recorded as failed)`);
      mine.push({ model, requirement: e.requirement, path: e.path, broken: `${label}${name} is ${e.reason}` });
    } else mine.push({ model, requirement: e.requirement, path: e.path });
  }
  const clashes = [...byId].filter(([, names]) => names.length > 1);
  if (clashes.length) {
    const list = clashes.map(([id, names]) => `${names.map((n) => label + n).join(', ')} are all requirement "${id}"`).join('; ');
    throw new InputError(`requirement ids collide: ${list}. Rename or remove all but one of each.`);
  }
  jobs.push(...mine);
}

/** Find the artifacts of a runs folder. */
export function discoverRuns(runsDir: string): Discovery {
  const root = resolve(runsDir);
  if (!existsSync(root)) throw new InputError(`${runsDir}: no such folder`);
  if (!statSync(root).isDirectory()) throw new InputError(`${runsDir}: not a folder (expected runs/<model>/<requirement-id>.html)`);
  const jobs: BatchJob[] = [];
  const skipped: string[] = [];
  for (const model of readdirSync(root).filter(visible).sort()) {
    const mdir = join(root, model);
    let isDir: boolean;
    try {
      isDir = statSync(mdir).isDirectory();
    } catch (err) {
      skipped.push(`${model}: ${brokenReason(mdir, err)} (not a model folder)`);
      continue;
    }
    if (!isDir) continue;
    folderJobs(mdir, model, `${model}/`, jobs, skipped);
  }
  if (jobs.length === 0)
    throw new InputError(`${runsDir}: no artifacts found (expected runs/<model>/<requirement-id>.html or runs/<model>/<requirement-id>/index.html)`);
  return { jobs, skipped };
}

/** Artifacts of one folder of pages (norms build): every .html file and every sub-folder with index.html. */
export function discoverPages(dir: string, model = 'corpus'): Discovery {
  const root = resolve(dir);
  if (!existsSync(root)) throw new InputError(`${dir}: no such folder`);
  if (!statSync(root).isDirectory()) throw new InputError(`${dir}: not a folder`);
  const jobs: BatchJob[] = [];
  const skipped: string[] = [];
  folderJobs(root, model, '', jobs, skipped);
  if (jobs.length === 0) throw new InputError(`${dir}: no .html pages or folders with index.html`);
  return { jobs, skipped };
}

export interface BatchProgress {
  done: number;
  total: number;
  ok: number;
  failed: number;
  /** The row just written. */
  row: ResultRow;
  elapsedMs: number;
  /** Where the browser and judge stages stand. */
  stages: PipelineStats;
}

export interface BatchOptions extends Omit<PoolOptions, 'pendingDir'> {
  out: string;
  /** Scorings per artifact (default 1; see the module comment). */
  repeats?: number;
  requirements?: Requirement[];
  /**
   * A folder with one reference per requirement id (`<id>.html`, `<id>/index.html` or `<id>.png`) for the fidelity
   * metrics; it takes precedence over a requirement's own `reference`.
   */
  references?: string;
  /** The fidelity viewports (default desktop, tablet, phone). */
  viewports?: ViewportSpec[];
  onStart?: (info: { total: number; alreadyDone: number; tornTail: boolean; badLines: number[] }) => void;
  onProgress?: (p: BatchProgress) => void;
}

export interface BatchSummary {
  total: number;
  alreadyDone: number;
  scored: number;
  failed: number;
  /** Per metric id: how many of this run's ok artifacts were unscorable. */
  unscorable: Record<string, number>;
  /** Failure messages (first 20). */
  failures: Array<{ model: string; requirement: string; repeat?: number; error: string }>;
  missingRequirement: number;
  elapsedMs: number;
  interrupted: boolean;
  /** The two stages at the end (judges: tokens, money, refused calls). */
  stages?: PipelineStats;
  /** Served-model warnings of this run's rows (distribute/judge-pins.ts). */
  judgeWarnings: string[];
}

export async function runBatch(inputJobs: readonly BatchJob[], opts: BatchOptions): Promise<BatchSummary> {
  const allJobs = withRepeats(inputJobs, opts.repeats ?? 1);
  selectMetrics(opts.only, opts.suite); // bad --only is an InputError before anything starts
  const reqById = new Map((opts.requirements ?? []).map((r) => [r.id, r]));
  // References per requirement id, resolved (and checked) before anything starts.
  const refsDir = opts.references ? checkReferencesDir(opts.references) : undefined;
  const refById = new Map<string, ReferenceInput>();
  for (const id of new Set(allJobs.map((j) => j.requirement))) {
    const fromDir = refsDir ? findReference(refsDir, id) : undefined;
    const own = reqById.get(id)?.reference;
    const ref = fromDir ?? (own ? resolveReference(own, `requirement ${id}: reference`) : undefined);
    if (ref) refById.set(id, ref);
  }
  const { existing, writer } = openResultsForAppend(opts.out);
  const done = new Set(existing.rows.map((r) => rowKey(r.model, r.requirement, r.repeat ?? 1)));
  const queue = allJobs.filter((j) => !done.has(rowKey(j.model, j.requirement, j.repeat ?? 1)));
  const alreadyDone = allJobs.length - queue.length;
  opts.onStart?.({ total: allJobs.length, alreadyDone, tornTail: existing.tornTail, badLines: existing.badLines });

  const summary: BatchSummary = {
    total: allJobs.length,
    alreadyDone,
    scored: 0,
    failed: 0,
    unscorable: {},
    failures: [],
    missingRequirement: 0,
    elapsedMs: 0,
    interrupted: false,
    judgeWarnings: [],
  };
  const start = Date.now();
  if (queue.length === 0) {
    writer.close();
    return summary;
  }
  if (opts.requirements) summary.missingRequirement = queue.filter((j) => !reqById.has(j.requirement)).length;

  let finished = 0;
  let resolveAll!: () => void;
  let rejectAll!: (err: Error) => void;
  const allDone = new Promise<void>((res, rej) => {
    resolveAll = res;
    rejectAll = rej;
  });

  const written: ResultRow[] = [];
  // The one place a finished row is written (a hook that saves a row's pictures beside the results goes here).
  const record = (job: BatchJob, row: ResultRow) => {
    writer.append(row);
    written.push({
      model: row.model,
      requirement: row.requirement,
      status: row.status,
      artifact: row.artifact,
      metrics: row.metrics.filter((m) => m.kind === 'judge'),
    });
    finished++;
    if (row.status === 'ok') {
      summary.scored++;
      for (const m of row.metrics) if (m.score === null) summary.unscorable[m.id] = (summary.unscorable[m.id] ?? 0) + 1;
    } else {
      summary.failed++;
      if (summary.failures.length < 20)
        summary.failures.push({ model: job.model, requirement: job.requirement, ...(job.repeat ? { repeat: job.repeat } : {}), error: row.error ?? '' });
    }
    opts.onProgress?.({
      done: alreadyDone + finished,
      total: allJobs.length,
      ok: summary.scored,
      failed: summary.failed,
      row,
      elapsedMs: Date.now() - start,
      stages: pool.stats(),
    });
    if (finished === queue.length) resolveAll();
  };

  const { out: _out, repeats: _repeats, requirements: _reqs, references: _refs, onStart: _onStart, onProgress: _onProgress, ...poolOpts } = opts;
  const pendingDir = `${resolve(opts.out)}.pending`;
  let pool: ReturnType<typeof startWorkerPool>;
  try {
    pool = startWorkerPool({ ...poolOpts, pendingDir, concurrency: Math.max(1, Math.min(opts.concurrency, queue.length)) });
  } catch (err) {
    writer.close(); // bad judge settings (a budget without prices): nothing was scored
    throw err;
  }
  const onSignal = () => {
    summary.interrupted = true;
    resolveAll();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const job of queue) {
      const req = reqById.get(job.requirement);
      const reference = refById.get(job.requirement);
      pool.run({ ...job, ...(req ? { req } : {}), ...(reference ? { reference } : {}) }).then((outcome) => {
        if (outcome) record(job, outcome.row); // null: still in flight when the pool closed (interrupted)
      }, rejectAll);
    }
    await allDone;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await pool.close();
    writer.close();
    removeIfEmpty(pendingDir);
  }
  summary.stages = pool.stats();
  summary.judgeWarnings = servedNotAskedWarnings(written);
  summary.elapsedMs = Date.now() - start;
  return summary;
}

/** The pending-evidence folder goes once nothing in it waits for judges (distribute/pending-evidence.ts). */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    /* absent, or it holds evidence for the next run */
  }
}

export { startWorkerPool, type BatchJob, type PipelineStats, type PoolJob, type PoolOptions, type PoolOutcome, type WorkerPool } from './worker-pool.js';
export { errorMessage };
