/**
 * A batch worker process (child_process.fork of the compiled module): one long-lived Scorer, so one Chrome and
 * one Lighthouse per process (Lighthouse cannot run twice at once in one Node process; TOOLCHAIN.md).
 *
 * Protocol (IPC messages):
 *   parent → worker  {type: 'init', suite?, network?, lighthouseRuns?, alignment?, viewports?, only?, budgetMs, checkNetwork}   then any number of
 *                    {type: 'job', jobId, path, requirement?, reference?}
 *   worker → parent  {type: 'ready'} after init;
 *                    {type: 'done', jobId, doc} or {type: 'error', jobId, message} per job;
 *                    {type: 'chrome', pid, profile} whenever it starts a Chrome (if the worker is killed, the
 *                    parent kills that Chrome and removes its profile: chrome-launcher starts Chrome detached).
 * The worker closes its Scorer (and so its Chrome) and exits when the parent disconnects (including when the
 * parent dies, even by `kill -9`) or on SIGTERM/SIGINT.
 */
import { errorMessage } from '../core/errors.js';
import type { Requirement } from '../core/requirements.js';
import { Scorer } from './score.js';
import { onChromeLaunch } from './gather/chrome-process.js';
import type { SuiteId } from '../core/metric.js';
import type { NetworkSettings } from '../core/network.js';
import type { AlignmentStance } from '../core/judge-answer.js';
import type { ReferenceInput, ViewportSpec } from '../core/fidelity.js';
import { keepEvidence, type EvidenceKey, type EvidenceTarget } from './evidence-keep.js';

export interface InitMessage {
  type: 'init';
  suite?: SuiteId;
  network?: NetworkSettings;
  lighthouseRuns?: number;
  only?: string[];
  budgetMs: number;
  checkNetwork: boolean;
  /** The alignment judges' stance (`batch --alignment`); the worker's judge settings come from its environment. */
  alignment?: AlignmentStance;
  /** The fidelity viewports. */
  viewports?: ViewportSpec[];
  /** Where to keep each row's pictures (evidence-keep.ts); absent = keep none. */
  evidence?: EvidenceTarget;
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
}
export type ToWorker = InitMessage | JobMessage;
export type FromWorker =
  | { type: 'ready' }
  | { type: 'done'; jobId: number; doc: unknown }
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

process.on('message', (msg: ToWorker) => {
  if (msg.type === 'init') {
    try {
      const opts: ConstructorParameters<typeof Scorer>[0] = { budgetMs: msg.budgetMs, checkNetwork: msg.checkNetwork };
      if (msg.only) opts.only = msg.only;
      if (msg.suite) opts.suite = msg.suite;
      if (msg.network) opts.network = msg.network;
      if (msg.lighthouseRuns) opts.lighthouseRuns = msg.lighthouseRuns;
      if (msg.alignment) opts.alignment = msg.alignment;
      if (msg.viewports) opts.viewports = msg.viewports;
      scorer = new Scorer(opts);
      keep = msg.evidence;
      send({ type: 'ready' });
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
    const scored = target && key ? s.scoreWithEvidence(msg.path, extra).then(async ({ doc, evidence }) => ({ ...doc, evidence: await keepEvidence(target, key, evidence, s.metrics, doc.metrics) })) : s.score(msg.path, extra);
    scored.then(
      (doc) => send({ type: 'done', jobId: msg.jobId, doc }),
      (err) => send({ type: 'error', jobId: msg.jobId, message: errorMessage(err) }),
    );
  }
});
process.on('disconnect', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
