/** What a queue holds: its status (counts, rate, time left) and the collection of its rows into a results file. */
import type { Redis } from 'ioredis';
import { errorMessage } from '../core/errors.js';
import type { ResultRow, ScoringSettings } from '../core/results.js';
import { printable } from '../lib/text.js';
import { rowProblem } from '../store/result-row.js';
import { DEFAULT_QUEUE, newQueue, readQueueSettings, type QueueSettings } from './queue.js';
import { validateJobData, type ValidJob } from './queue-trust.js';
import { openResultsForAppend, rowKey } from '../store/results-file.js';
import type { EvidenceTarget } from '../store/evidence-keep.js';
import { unpackEvidence } from './evidence-transfer.js';

export interface QueueStatus {
  waiting: number;
  active: number;
  done: number;
  failed: number;
  delayed: number;
  /** Jobs finished per minute over the last `windowMinutes` (null with none). */
  perMinute: number | null;
  windowMinutes: number;
  /** Milliseconds until the queue is empty at that rate (null when unknown). */
  etaMs: number | null;
  settings: QueueSettings | null;
  /** Why the stored settings were refused (distribute/queue-trust.ts), when they were. */
  settingsError?: string;
}

/** The stored settings for status and collect, which must work even when a worker would refuse them. */
async function settingsOrError(redis: Redis, name: string): Promise<{ settings: QueueSettings | null; error?: string }> {
  try {
    return { settings: await readQueueSettings(redis, name) };
  } catch (err) {
    return { settings: null, error: errorMessage(err) };
  }
}

export async function queueStatus(redis: Redis, name = DEFAULT_QUEUE, windowMinutes = 10): Promise<QueueStatus> {
  const queue = newQueue(redis, name);
  try {
    const c = await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized');
    const now = Date.now();
    const since = now - windowMinutes * 60_000;
    let recent = 0;
    let first = now;
    // Newest first: stop at the first page that reaches past the window.
    for (const type of ['completed', 'failed'] as const) {
      for (let start = 0; ; start += 200) {
        const jobs = await queue.getJobs([type], start, start + 199, false);
        let older = false;
        for (const j of jobs) {
          if (j.finishedOn && j.finishedOn >= since) {
            recent++;
            first = Math.min(first, j.finishedOn);
          } else older = true;
        }
        if (older || jobs.length < 200) break;
      }
    }
    const spanMin = Math.max((now - first) / 60_000, 1 / 60);
    const perMinute = recent > 0 ? recent / Math.min(windowMinutes, Math.max(spanMin, 0.5)) : null;
    const left = (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
    const stored = await settingsOrError(redis, name);
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      done: c.completed ?? 0,
      failed: c.failed ?? 0,
      delayed: c.delayed ?? 0,
      perMinute,
      windowMinutes,
      etaMs: perMinute ? (left / perMinute) * 60_000 : left === 0 ? 0 : null,
      settings: stored.settings,
      ...(stored.error ? { settingsError: stored.error } : {}),
    };
  } finally {
    await queue.close();
  }
}

/** The settings a worker takes from the queue (its network mode and --check-network are its own; its version may differ). */
const QUEUE_CHOSEN: ReadonlyArray<keyof ScoringSettings> = ['suite', 'metrics', 'lighthouseRuns', 'visitClock', 'budgetSeconds', 'alignment', 'viewports'];

/**
 * A row a worker returned, checked before collect writes it. Redis is not trusted with results (docs/many-machines.md "Security:
 * the work queue's trust model"): whoever can write to it can put any return value on a finished job. So a
 * returned row is written only when it is a results row (result-row.ts: the check every reader makes, so the
 * file stays readable for every later collect) and the row of its job: the job's model, requirement, repeat and
 * artifact, the labels of the job's requirement, and, when the queue's stored settings are the job's, the
 * scoring settings a worker takes from them, with no metric outside their list. A forgery that passes is still a
 * forgery; what the check keeps is every row in its job's place, and the file whole.
 */
export function checkReturnedRow(value: unknown, job: ValidJob, scoring: ScoringSettings | null): { row: ResultRow } | { problem: string } {
  const problem = rowProblem(value);
  if (problem !== null) return { problem: `not a results row (${problem})` };
  const row = value as ResultRow;
  const json = (v: unknown) => JSON.stringify(v) ?? 'none';
  const show = (v: unknown) => json(v).slice(0, 80);
  const expect: Array<[string, unknown, unknown]> = [
    ['model', row.model, job.model],
    ['requirement', row.requirement, job.requirement],
    ['repeat', row.repeat ?? 1, job.repeat ?? 1],
    ['artifact', row.artifact, job.artifact],
  ];
  const labels = job.req?.labels ? Object.entries(job.req.labels).filter((e) => typeof e[1] === 'string') : undefined;
  expect.push(['labels', row.labels ? Object.entries(row.labels).sort() : undefined, labels?.sort()]);
  if (scoring) {
    if (!row.settings) return { problem: 'no scoring settings, the queue has them' };
    for (const k of QUEUE_CHOSEN) expect.push([`settings.${k}`, row.settings[k], scoring[k]]);
    const outside = row.metrics.find((m) => !scoring.metrics.includes(m.id));
    if (outside) return { problem: `metric ${show(outside.id)} is not among the queue's` };
  }
  for (const [field, got, want] of expect) if (json(got) !== json(want)) return { problem: `${field} ${show(got)} is not the job's ${show(want)}` };
  return { row };
}

export interface CollectSummary {
  appended: number;
  alreadyInFile: number;
  /** Jobs not finished yet (waiting, active, delayed). */
  unfinished: number;
  failed: number;
  /** Jobs whose payload is refused (distribute/queue-trust.ts): no row is written for them. */
  refused: number;
  /** Finished jobs whose returned row is refused (`checkReturnedRow`): `job <id>: <why>`, none written. */
  refusedRows: string[];
  tornTail: boolean;
}

/** Append the finished rows to `out`; their pictures go to `evidence` (a batch's place for them) or are dropped. */
export async function collect(redis: Redis, out: string, name = DEFAULT_QUEUE, evidence?: EvidenceTarget): Promise<CollectSummary> {
  const queue = newQueue(redis, name);
  try {
    const best = new Map<string, { row: ResultRow; ok: boolean; ts: number; id: string }>();
    const { settings } = await settingsOrError(redis, name);
    let failed = 0;
    let refused = 0;
    const refusedRows: string[] = [];
    for (const type of ['completed', 'failed'] as const) {
      for (let start = 0; ; start += 500) {
        const jobs = await queue.getJobs([type], start, start + 499, true);
        for (const j of jobs) {
          let data: ValidJob;
          try {
            // Not decoded: collect only needs the names, and a refused payload yields no row (it names nothing trustworthy).
            data = validateJobData(j.data, { decode: false, maxBytes: Number.MAX_SAFE_INTEGER });
          } catch {
            refused++;
            continue;
          }
          let row: ResultRow;
          if (type === 'completed') {
            const checked = checkReturnedRow(j.returnvalue, data, settings?.id === data.settingsId ? settings.scoring : null);
            if ('problem' in checked) {
              // The job id is chosen by whoever added the job: no control character of it reaches a log line.
              refusedRows.push(`job ${printable(String(j.id)).slice(0, 80)}: ${printable(checked.problem)}`);
              continue;
            }
            row = checked.row;
          } else {
            failed++;
            row = {
              model: data.model,
              requirement: data.requirement,
              ...(data.repeat ? { repeat: data.repeat } : {}),
              ...(settings?.id === data.settingsId ? { settings: settings.scoring } : {}),
              status: 'failed',
              error: `${j.failedReason} (after ${j.attemptsMade} attempts, ${j.stalledCounter} stalls)`,
              artifact: data.artifact,
              metrics: [],
              ...(j.finishedOn ? { finishedAt: new Date(j.finishedOn).toISOString() } : {}),
            };
            const labels = data.req?.labels;
            if (labels) row.labels = Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string'));
          }
          const key = rowKey(data.model, data.requirement, data.repeat ?? 1);
          const cand = { row, ok: type === 'completed', ts: j.timestamp, id: String(j.id) };
          const cur = best.get(key);
          const better = !cur || (cand.ok !== cur.ok ? cand.ok : cand.ts !== cur.ts ? cand.ts > cur.ts : cand.id > cur.id);
          if (better) best.set(key, cand);
        }
        if (jobs.length < 500) break;
      }
    }
    const { existing, writer } = openResultsForAppend(out);
    const done = new Set(existing.rows.map((r) => rowKey(r.model, r.requirement, r.repeat ?? 1)));
    let appended = 0;
    let alreadyInFile = 0;
    try {
      const keys = [...best.keys()].sort();
      for (const k of keys) {
        if (done.has(k)) {
          alreadyInFile++;
          continue;
        }
        writer.append(unpackEvidence(best.get(k)!.row, evidence));
        appended++;
      }
    } finally {
      writer.close();
    }
    const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return { appended, alreadyInFile, unfinished: Object.values(c).reduce((a, b) => a + b, 0), failed, refused, refusedRows, tornTail: existing.tornTail };
  } finally {
    await queue.close();
  }
}
