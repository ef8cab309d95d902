/**
 * What a queue worker accepts from Redis (docs/many-machines.md "Security: the work queue's trust model"). Anyone who can write
 * to the queue's Redis may make jobs fail or add scoring work, but must not run code or write files on a worker:
 * so every job payload and the stored settings record are checked here, field by field, against an allow-list
 * of types and bounds before a worker acts on them. Nothing read from Redis chooses a program, a folder or a
 * network mode: those come from the worker's own command line.
 */
import { JOB_LIMITS } from '../lib/limits.js';
import { isObj, type Obj } from '../lib/dict.js';
import { posix } from 'node:path';
import { SUITES, type SuiteId } from '../core/metric.js';
import { NETWORK_MODES, type NetworkModeId } from '../core/network.js';
import { ALIGNMENT_STANCES, type AlignmentStance } from '../core/judge-answer.js';
import { parseRequirement, type Requirement } from '../core/requirements.js';
import type { ViewportSpec } from '../core/fidelity.js';
import type { ScoringSettings } from '../core/results.js';
import { COMPARED_SETTINGS } from '../runner/scoring-settings.js';
import { VISIT_CLOCKS, type VisitClockMode } from '../core/visit-clock.js';

/** A job or settings record a worker refuses; the message says which field and why. */
export class RefusedPayload extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedPayload';
  }
}

/** What a queued job names, the same on the wire (`JobData`, queue-jobs.ts) and once checked (`ValidJob`). */
export interface JobFields {
  model: string;
  requirement: string;
  repeat?: number;
  /** Content hash of the artifact. */
  hash: string;
  settingsId: string;
  /** The artifact's path where it was added (rows name it, as batch rows do). */
  artifact: string;
  /** One file (`<name>.html`) or a folder with index.html. */
  kind: 'file' | 'dir';
  req?: Requirement;
}

/** A job as the worker acts on it: every field checked (see `validateJobData`). */
export interface ValidJob extends JobFields {
  /** Relative path (normalised, confined) and decoded bytes of every file; absent with `shared`. */
  files?: Array<[string, Buffer]>;
  shared?: true;
}

function onlyKeys(o: Obj, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new RefusedPayload(`${where}: unknown field ${JSON.stringify(k.slice(0, 64))}`);
}

// Control characters (NUL included) are refused in names: they end up in log lines, rows and file names.
const CONTROL = /[\u0000-\u001f\u007f]/;

function boundedString(v: unknown, max: number, where: string): string {
  if (typeof v !== 'string') throw new RefusedPayload(`${where}: expected a string`);
  if (v.length === 0) throw new RefusedPayload(`${where}: empty`);
  if (v.length > max) throw new RefusedPayload(`${where}: longer than ${max} characters`);
  if (CONTROL.test(v)) throw new RefusedPayload(`${where}: holds a control character`);
  return v;
}

function intIn(v: unknown, min: number, max: number, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new RefusedPayload(`${where}: expected a whole number from ${min} to ${max}`);
  return v;
}

function numberIn(v: unknown, min: number, max: number, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= min || v > max) throw new RefusedPayload(`${where}: expected a number above ${min}, at most ${max}`);
  return v;
}

function hex(v: unknown, length: number, where: string): string {
  if (typeof v !== 'string' || v.length !== length || !/^[0-9a-f]+$/.test(v)) throw new RefusedPayload(`${where}: expected ${length} lowercase hex digits`);
  return v;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], where: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw new RefusedPayload(`${where}: expected one of ${allowed.join(', ')}`);
  return v as T;
}

/**
 * A relative path inside an artifact, checked and normalised: forward slashes only, no empty, `.` or `..`
 * segment, not absolute, no backslash or drive letter (a Windows-style escape), no control character.
 */
export function confinedRelPath(v: unknown, where: string): string {
  const p = boundedString(v, JOB_LIMITS.pathChars, where);
  if (p.includes('\\')) throw new RefusedPayload(`${where}: holds a backslash`);
  if (posix.isAbsolute(p)) throw new RefusedPayload(`${where}: is absolute`);
  if (/^[A-Za-z]:/.test(p)) throw new RefusedPayload(`${where}: starts with a drive letter`);
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.' || seg === '..')
      throw new RefusedPayload(`${where}: ${JSON.stringify(p)} is not a plain relative path (empty, "." or ".." segment)`);
    if (seg.length > JOB_LIMITS.segmentChars) throw new RefusedPayload(`${where}: a segment is longer than ${JOB_LIMITS.segmentChars} characters`);
  }
  if (posix.normalize(p) !== p) throw new RefusedPayload(`${where}: not normalised`);
  return p;
}

/** The artifact's own name (the last segment of its path): the copy's folder or file name, so one plain segment. */
export function artifactName(artifact: string): string {
  const name = posix.basename(artifact);
  if (name === '' || name === '.' || name === '..' || name.includes('\\') || name.length > JOB_LIMITS.segmentChars) {
    throw new RefusedPayload(`artifact: ${JSON.stringify(artifact.slice(0, 200))} does not end in a plain file or folder name`);
  }
  return name;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded size of checked base64, without decoding it. */
function base64Bytes(s: string): number {
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return (s.length / 4) * 3 - pad;
}

const JOB_KEYS = ['model', 'requirement', 'repeat', 'hash', 'settingsId', 'artifact', 'kind', 'files', 'shared', 'req'] as const;

/**
 * Check a job payload read from Redis; throws RefusedPayload naming the first bad field. `maxBytes` caps the
 * artifact's decoded bytes; `decode` false checks the files' shapes and sizes without decoding them (collect).
 */
export function validateJobData(raw: unknown, opts: { maxBytes?: number; decode?: boolean } = {}): ValidJob {
  const maxBytes = opts.maxBytes ?? JOB_LIMITS.defaultMaxBytes;
  if (!isObj(raw)) throw new RefusedPayload('job: expected an object');
  onlyKeys(raw, JOB_KEYS, 'job');
  const artifact = boundedString(raw.artifact, JOB_LIMITS.artifactChars, 'artifact');
  const out: ValidJob = {
    model: boundedString(raw.model, JOB_LIMITS.nameChars, 'model'),
    requirement: boundedString(raw.requirement, JOB_LIMITS.nameChars, 'requirement'),
    hash: hex(raw.hash, 64, 'hash'),
    settingsId: hex(raw.settingsId, 16, 'settingsId'),
    artifact,
    kind: oneOf(raw.kind, ['file', 'dir'] as const, 'kind'),
  };
  const name = artifactName(artifact);
  if (raw.repeat !== undefined) out.repeat = intIn(raw.repeat, 1, JOB_LIMITS.repeat, 'repeat');
  if (raw.shared !== undefined) {
    if (raw.shared !== true) throw new RefusedPayload('shared: expected true or absent');
    if (raw.files !== undefined) throw new RefusedPayload('files: a shared job carries no files');
    if (!posix.isAbsolute(artifact)) throw new RefusedPayload('artifact: a shared job names an absolute path');
    out.shared = true;
  } else {
    if (!Array.isArray(raw.files)) throw new RefusedPayload('files: expected a list of [relative path, base64] pairs');
    if (raw.files.length === 0) throw new RefusedPayload('files: empty');
    if (raw.files.length > JOB_LIMITS.files) throw new RefusedPayload(`files: more than ${JOB_LIMITS.files}`);
    if (out.kind === 'file' && raw.files.length !== 1) throw new RefusedPayload('files: a file artifact carries exactly one file');
    const seen = new Set<string>();
    let total = 0;
    const files: Array<[string, Buffer]> = [];
    raw.files.forEach((pair: unknown, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw new RefusedPayload(`files[${i}]: expected [relative path, base64]`);
      const rel = confinedRelPath(pair[0], `files[${i}] path`);
      if (out.kind === 'file' && rel !== name) throw new RefusedPayload(`files[${i}] path: a file artifact's one file is named as the artifact (${name})`);
      const b64 = pair[1];
      if (typeof b64 !== 'string' || b64.length % 4 !== 0 || !BASE64.test(b64)) throw new RefusedPayload(`files[${i}]: content is not base64`);
      if (seen.has(rel)) throw new RefusedPayload(`files[${i}] path: ${rel} twice`);
      seen.add(rel);
      total += base64Bytes(b64);
      if (total > maxBytes) throw new RefusedPayload(`files: more than ${(maxBytes / 1024 / 1024).toFixed(0)} MB decoded (the worker's --max-job-mb)`);
      files.push([rel, opts.decode === false ? Buffer.alloc(0) : Buffer.from(b64, 'base64')]);
    });
    // A file that is also another's folder (a and a/b) cannot both be written: refuse it here, not half-way.
    for (const rel of seen) {
      const segs = rel.split('/');
      for (let k = 1; k < segs.length; k++)
        if (seen.has(segs.slice(0, k).join('/'))) throw new RefusedPayload(`files: ${segs.slice(0, k).join('/')} is both a file and a folder`);
    }
    if (opts.decode !== false) out.files = files;
  }
  if (raw.req !== undefined) out.req = validateRequirement(raw.req, out.requirement);
  return out;
}

/** A job's requirement: the requirements-file rules (core/requirements.ts), bounded, and with no path in it. */
function validateRequirement(raw: unknown, requirement: string): Requirement {
  let size: number;
  try {
    size = JSON.stringify(raw).length;
  } catch {
    throw new RefusedPayload('req: not JSON');
  }
  if (size > JOB_LIMITS.reqChars) throw new RefusedPayload(`req: larger than ${JOB_LIMITS.reqChars} characters`);
  let req: Requirement;
  try {
    req = parseRequirement(raw);
  } catch (err) {
    throw new RefusedPayload(`req: ${(err as Error).message}`);
  }
  if (req.id !== requirement) throw new RefusedPayload(`req: id ${JSON.stringify(req.id)} is not the job's requirement`);
  // A reference is a path on the machine that added the job: a worker never reads a path named by Redis.
  delete req.reference;
  return req;
}

/** The pool settings a queue may store: scoring choices only, never a program, a folder or a network mode. */
export interface QueuePoolSettings {
  suite?: SuiteId;
  only?: string[];
  /** The network mode the queue was added with: workers compare it with their own (`worker --network`). */
  network?: { mode: NetworkModeId };
  lighthouseRuns?: number;
  /** The visit's page clock the queue was added with (`--visit-clock`); workers use it. */
  visitClock?: VisitClockMode;
  budgetMs: number;
  /** Whether the queue was added with --check-network: workers compare it with their own. */
  checkNetwork?: boolean;
  alignment?: AlignmentStance;
  viewports?: ViewportSpec[];
  hardLimitMs?: number;
}

/** The most Lighthouse runs a queue may ask for (as `--lighthouse-runs` allows). */
const MAX_LIGHTHOUSE_RUNS = 9;
const POOL_KEYS = ['suite', 'only', 'network', 'lighthouseRuns', 'visitClock', 'budgetMs', 'checkNetwork', 'alignment', 'viewports', 'hardLimitMs'] as const;
/** A row's scoring settings: the compared ones and the browser. */
const SCORING_KEYS: ReadonlyArray<keyof ScoringSettings> = [...COMPARED_SETTINGS, 'browser'];
const DAY_MS = 24 * 3600 * 1000;

function idList(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || v.length > 200) throw new RefusedPayload(`${where}: expected a list of at most 200 ids`);
  return v.map((x, i) => {
    const s = boundedString(x, 100, `${where}[${i}]`);
    if (!/^[\w.:-]+$/.test(s)) throw new RefusedPayload(`${where}[${i}]: not an id`);
    return s;
  });
}

function validatePool(raw: unknown): QueuePoolSettings {
  if (!isObj(raw)) throw new RefusedPayload('settings.pool: expected an object');
  onlyKeys(raw, POOL_KEYS, 'settings.pool');
  const out: QueuePoolSettings = { budgetMs: numberIn(raw.budgetMs, 0, DAY_MS, 'settings.pool.budgetMs') };
  if (raw.suite !== undefined) out.suite = oneOf(raw.suite, SUITES, 'settings.pool.suite');
  if (raw.only !== undefined) out.only = idList(raw.only, 'settings.pool.only');
  if (raw.network !== undefined) {
    if (!isObj(raw.network)) throw new RefusedPayload('settings.pool.network: expected an object');
    // Only the mode's name: a folder, a host list or a cache folder from Redis would choose what a worker reads,
    // writes or reaches.
    onlyKeys(raw.network, ['mode'], 'settings.pool.network');
    out.network = { mode: oneOf(raw.network.mode, NETWORK_MODES, 'settings.pool.network.mode') };
  }
  if (raw.lighthouseRuns !== undefined) out.lighthouseRuns = intIn(raw.lighthouseRuns, 1, MAX_LIGHTHOUSE_RUNS, 'settings.pool.lighthouseRuns');
  if (raw.visitClock !== undefined) out.visitClock = oneOf(raw.visitClock, VISIT_CLOCKS, 'settings.pool.visitClock');
  if (raw.checkNetwork !== undefined) {
    if (typeof raw.checkNetwork !== 'boolean') throw new RefusedPayload('settings.pool.checkNetwork: expected true or false');
    out.checkNetwork = raw.checkNetwork;
  }
  if (raw.alignment !== undefined) out.alignment = oneOf(raw.alignment, ALIGNMENT_STANCES, 'settings.pool.alignment');
  if (raw.viewports !== undefined) {
    if (!Array.isArray(raw.viewports) || raw.viewports.length === 0 || raw.viewports.length > 10)
      throw new RefusedPayload('settings.pool.viewports: expected a list of 1 to 10 viewports');
    out.viewports = raw.viewports.map((v: unknown, i) => {
      const where = `settings.pool.viewports[${i}]`;
      if (!isObj(v)) throw new RefusedPayload(`${where}: expected an object`);
      onlyKeys(v, ['name', 'width', 'height'], where);
      const name = boundedString(v.name, 64, `${where}.name`);
      return { name, width: intIn(v.width, 100, 9999, `${where}.width`), height: intIn(v.height, 100, 9999, `${where}.height`) };
    });
  }
  if (raw.hardLimitMs !== undefined) out.hardLimitMs = numberIn(raw.hardLimitMs, 0, DAY_MS, 'settings.pool.hardLimitMs');
  return out;
}

function validateScoring(raw: unknown): ScoringSettings {
  if (!isObj(raw)) throw new RefusedPayload('settings.scoring: expected an object');
  onlyKeys(raw, SCORING_KEYS, 'settings.scoring');
  const w = (k: string) => `settings.scoring.${k}`;
  if (typeof raw.checkNetwork !== 'boolean') throw new RefusedPayload(`${w('checkNetwork')}: expected true or false`);
  const out: ScoringSettings = {
    webgrade: boundedString(raw.webgrade, 64, w('webgrade')),
    suite: oneOf(raw.suite, SUITES, w('suite')),
    metrics: idList(raw.metrics, w('metrics')),
    network: oneOf(raw.network, NETWORK_MODES, w('network')),
    lighthouseRuns: intIn(raw.lighthouseRuns, 1, MAX_LIGHTHOUSE_RUNS, w('lighthouseRuns')),
    budgetSeconds: numberIn(raw.budgetSeconds, 0, DAY_MS / 1000, w('budgetSeconds')),
    checkNetwork: raw.checkNetwork,
  };
  if (raw.visitClock !== undefined) out.visitClock = oneOf(raw.visitClock, VISIT_CLOCKS, w('visitClock'));
  if (raw.alignment !== undefined) out.alignment = oneOf(raw.alignment, ALIGNMENT_STANCES, w('alignment'));
  if (raw.viewports !== undefined) {
    if (!Array.isArray(raw.viewports) || raw.viewports.length > 10) throw new RefusedPayload(`${w('viewports')}: expected a list of at most 10`);
    out.viewports = raw.viewports.map((v: unknown, i) => boundedString(v, 64, `${w('viewports')}[${i}]`));
  }
  // The adding machine's browser, for information only: rows record the browser of the worker that scored them.
  if (raw.browser !== undefined) out.browser = boundedString(raw.browser, 128, w('browser'));
  return out;
}

/** A queue's settings record as read from Redis: `{id, pool, scoring}`, each field on the allow-list. */
export function validateQueueSettings(raw: unknown): { id: string; pool: QueuePoolSettings; scoring: ScoringSettings } {
  if (!isObj(raw)) throw new RefusedPayload('settings: expected an object');
  onlyKeys(raw, ['id', 'pool', 'scoring'], 'settings');
  return { id: hex(raw.id, 16, 'settings.id'), pool: validatePool(raw.pool), scoring: validateScoring(raw.scoring) };
}
