/**
 * A batch worker process (child_process.fork of the compiled module): one long-lived Scorer, so one Chrome and
 * one Lighthouse per process (Lighthouse cannot run twice at once in one Node process; TOOLCHAIN.md).
 *
 * Protocol (IPC messages):
 *   parent → worker  {type: 'init', suite?, network?, lighthouseRuns?, alignment?, viewports?, only?, budgetMs, checkNetwork, deferJudges?, judge?}   then any number of
 *                    {type: 'job', jobId, path, requirement?, reference?, shotPath?}
 *   worker → parent  {type: 'ready'} after init and the Scorer's warm-up (Chrome, threads: Scorer.warmUp);
 *                    {type: 'shot', jobId, shot} as soon as the visit's screenshot is ready (with `shotPath`);
 *                    {type: 'done', jobId, doc, shot?} or {type: 'error', jobId, message} per job;
 *                    {type: 'chrome', pid, profile} whenever it starts a Chrome (if the worker is killed, the
 *                    parent kills that Chrome and removes its profile: chrome-launcher starts Chrome detached).
 * With `deferJudges` the worker asks no judge (the parent's judge stage does: distribute/judge-stage.ts): it saves
 * the desktop screenshot to `shotPath` and reports its file and size (`shot`), or why there is none.
 * The worker closes its Scorer (and so its Chrome) and exits when the parent disconnects (including when the
 * parent dies, even by `kill -9`) or on SIGTERM/SIGINT.
 */
import { errorMessage } from '../core/errors.js';
import type { Requirement } from '../core/requirements.js';
import { Scorer, type ScoreHooks } from '../runner/score.js';
import { onChromeLaunch } from '../gather/chrome-process.js';
import type { VisitClockMode } from '../core/visit-clock.js';
import type { SuiteId } from '../core/metric.js';
import type { NetworkSettings } from '../core/network.js';
import type { AlignmentStance } from '../core/judge-answer.js';
import type { JudgeSettings } from '../judges/settings.js';
import type { ReferenceInput, ViewportSpec } from '../core/fidelity.js';
import { keepEvidence, type EvidenceKey, type EvidenceTarget } from '../store/evidence-keep.js';
import type { Evidence } from '../core/evidence.js';
import type { SavedShot } from './judge-stage.js';
import { writeFileSync } from 'node:fs';

export interface InitMessage {
  type: 'init';
  suite?: SuiteId;
  network?: NetworkSettings;
  lighthouseRuns?: number;
  visitClock?: VisitClockMode;
  only?: string[];
  budgetMs: number;
  checkNetwork: boolean;
  /** The alignment judges' stance (`batch --alignment`); the worker's judge settings come from its environment. */
  alignment?: AlignmentStance;
  /** The fidelity viewports. */
  viewports?: ViewportSpec[];
  /** Where to keep each row's pictures (evidence-keep.ts); absent = keep none. */
  evidence?: EvidenceTarget;
  /** Leave the judges to the parent (see the module comment). */
  deferJudges?: boolean;
  /** The judge settings from the parent's flags and config (the requirement tests' agent uses them here). */
  judge?: JudgeSettings;
}
export interface JobMessage {
  type: 'job';
  jobId: number;
  path: string;
  requirement?: Requirement;
  /** The design the artifact should reproduce (fidelity metrics). */
  reference?: ReferenceInput;
  /** Which row the pictures belong to (with `init.evidence`). */
  key?: EvidenceKey;
  /** Where to save the desktop screenshot for the parent's judges (with `deferJudges`). */
  shotPath?: string;
}
export type ToWorker = InitMessage | JobMessage;
export type FromWorker =
  | { type: 'ready' }
  | { type: 'shot'; jobId: number; shot: SavedShot }
  | { type: 'done'; jobId: number; doc: unknown; shot?: SavedShot }
  | { type: 'error'; jobId: number; message: string }
  | { type: 'chrome'; pid: number; profile: string };

let scorer: Scorer | null = null;
let keep: EvidenceTarget | undefined;
let closing = false;

async function shutdown(code: number): Promise<void> {
  if (closing) return;
  closing = true;
  const s = scorer;
  scorer = null;
  const force = setTimeout(() => process.exit(code), 5_000);
  force.unref();
  try {
    await s?.close();
  } finally {
    process.exit(code);
  }
}

function send(msg: FromWorker): void {
  if (process.connected) process.send!(msg);
}

onChromeLaunch(({ pid, profile }) => send({ type: 'chrome', pid, profile }));

/** Save the desktop screenshot for the parent's judges; say why there is none otherwise. */
function saveShot(evidence: Evidence, path: string): SavedShot {
  const b = evidence.browser;
  if (!b) return { reason: 'no screenshot: the browser did not run' };
  if (!b.ok) return { reason: `no screenshot: ${b.reason}` };
  const shot = b.value.screenshots.desktop;
  if (!shot) return { reason: 'no screenshot: the browser session took no desktop screenshot' };
  try {
    writeFileSync(path, shot.png);
  } catch (err) {
    return { reason: `no screenshot: it could not be saved for the judges (${errorMessage(err)})` };
  }
  return { path, width: shot.width, height: shot.height };
}

process.on('message', (msg: ToWorker) => {
  if (msg.type === 'init') {
    try {
      const opts: ConstructorParameters<typeof Scorer>[0] = { budgetMs: msg.budgetMs, checkNetwork: msg.checkNetwork };
      if (msg.only) opts.only = msg.only;
      if (msg.suite) opts.suite = msg.suite;
      if (msg.network) opts.network = msg.network;
      if (msg.lighthouseRuns) opts.lighthouseRuns = msg.lighthouseRuns;
      if (msg.visitClock) opts.visitClock = msg.visitClock;
      if (msg.alignment) opts.alignment = msg.alignment;
      if (msg.viewports) opts.viewports = msg.viewports;
      if (msg.deferJudges) opts.deferJudges = true;
      if (msg.judge) opts.judge = msg.judge;
      const s = (scorer = new Scorer(opts));
      keep = msg.evidence;
      // Chrome, the threads and the linters' first use before the first job, not inside its budget.
      void s.warmUp().then(() => send({ type: 'ready' }));
    } catch (err) {
      process.stderr.write(`batch worker: ${errorMessage(err)}\n`);
      void shutdown(1);
    }
    return;
  }
  if (msg.type === 'job') {
    const s = scorer;
    if (!s) {
      send({ type: 'error', jobId: msg.jobId, message: 'worker not initialised' });
      return;
    }
    const extra = { ...(msg.requirement ? { requirement: msg.requirement } : {}), ...(msg.reference ? { reference: msg.reference } : {}) };
    const target = keep;
    const key = msg.key;
    const shotPath = msg.shotPath;
    // The parent's screenshot judges start when the visit's screenshot is ready, not when the job is done.
    let shot: SavedShot | undefined;
    const hooks: ScoreHooks = shotPath
      ? {
          ready: (evidence, done) => {
            if (!done.includes('screenshot') || shot) return;
            shot = saveShot(evidence, shotPath);
            send({ type: 'shot', jobId: msg.jobId, shot });
          },
        }
      : {};
    s.scoreWithEvidence(msg.path, extra, hooks)
      .then(async ({ doc, evidence }) => {
        const kept = target && key ? { evidence: await keepEvidence(target, key, evidence, s.metrics, doc.metrics) } : {};
        if (shotPath && !shot) shot = saveShot(evidence, shotPath);
        return { type: 'done' as const, jobId: msg.jobId, doc: { ...doc, ...kept }, ...(shot ? { shot } : {}) };
      })
      .then(
        (done) => send(done),
        (err) => send({ type: 'error', jobId: msg.jobId, message: errorMessage(err) }),
      );
  }
});
process.on('disconnect', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
