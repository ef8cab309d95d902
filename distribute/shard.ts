/**
 * `webgrade batch --shard i/n` (array jobs on cluster schedulers) and `webgrade merge` (their results files into one).
 *
 * Shards: an artifact belongs to shard `1 + (h mod n)`, h = the first 32 bits of sha256(model NUL requirement), so
 * the split depends only on the artifact (not on the order or number of other artifacts) and every repeat of an
 * artifact lands in the same shard.
 *
 * Merge: every input's rows must have been scored with the same settings (runner/scoring-settings.ts), else
 * InputError naming the two files and the first setting that differs. Rows are keyed by (model, requirement,
 * repeat); duplicates are settled deterministically: an ok row beats a failed one, then the file later on the
 * command line (and, within a file, the later row) wins, as a resumed results file keeps its last row. Output is
 * sorted by model, requirement, repeat, written to a temporary file and renamed over `--out`.
 */
import { createHash } from 'node:crypto';
import { existsSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import type { ResultRow } from '../core/results.js';
import { readResults, rowKey } from '../store/results-file.js';
import { mixedServedWarnings } from './judge-pins.js';
import { browsersOf, rowSettings, settingsDifference, type ScoringSettings } from '../runner/scoring-settings.js';

export interface Shard {
  index: number;
  count: number;
}

export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!m) throw new InputError(`--shard ${value}: expected i/n, e.g. 1/4`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count)
    throw new InputError(`--shard ${value}: i must be 1..n (shards are numbered from 1; with a 0-based array index use $((index + 1)))`);
  return { index, count };
}

export function shardOf(model: string, requirement: string, count: number): number {
  const h = createHash('sha256').update(`${model}\0${requirement}`).digest().readUInt32BE(0);
  return 1 + (h % count);
}

export function inShard<T extends { model: string; requirement: string }>(items: readonly T[], shard: Shard): T[] {
  return items.filter((j) => shardOf(j.model, j.requirement, shard.count) === shard.index);
}

export interface MergeSummary {
  files: number;
  rows: number;
  duplicates: number;
  /** Duplicates whose scores differ (the kept row decided which). */
  conflicting: number;
  badLines: number;
  /** The browsers the rows were scored with, when more than one (a warning, not a refusal). */
  browsers?: string[];
  /** Judge metrics whose merged rows were served by more than one model (distribute/judge-pins.ts; a warning). */
  judgeWarnings: string[];
}

function scoresOf(r: ResultRow): string {
  return JSON.stringify(r.metrics.map((m) => [m.id, m.score]));
}

export function mergeResults(inputs: readonly string[], out: string): MergeSummary {
  if (inputs.length === 0) throw new InputError('merge: no input files');
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : p);
  if (existsSync(out) && !inputs.some((i) => real(i) === real(out))) {
    throw new InputError(`--out ${out} exists: pass it as an input to merge into it, or remove it`);
  }
  let ref: { file: string; settings: Partial<ScoringSettings> } | null = null;
  const kept = new Map<string, ResultRow>();
  let total = 0;
  let duplicates = 0;
  let conflicting = 0;
  let badLines = 0;
  const seenSettings: Array<Partial<ScoringSettings>> = [];
  for (const file of inputs) {
    const read = readResults(file);
    badLines += read.badLines.length;
    for (const row of read.rows) {
      const s = rowSettings(row);
      seenSettings.push(s);
      if (!ref) ref = { file, settings: s };
      else {
        const diff = settingsDifference(ref.settings, s);
        if (diff) throw new InputError(`${ref.file} and ${file} were scored with different settings (${diff}): merge only results of the same settings`);
        // Fill fields the reference row did not show, so later rows are checked against them too.
        ref.settings = { ...s, ...Object.fromEntries(Object.entries(ref.settings).filter(([, v]) => v !== undefined)) };
      }
      total++;
      const key = rowKey(row.model, row.requirement, row.repeat ?? 1);
      const cur = kept.get(key);
      if (cur) {
        duplicates++;
        if (cur.status === 'ok' && row.status === 'ok' && scoresOf(cur) !== scoresOf(row)) conflicting++;
        if (cur.status === 'ok' && row.status !== 'ok') continue;
      }
      kept.set(key, row);
    }
  }
  const rows = [...kept.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r);
  const tmp = `${out}.merge-${process.pid}.tmp`;
  writeFileSync(tmp, rows.map((r) => JSON.stringify(r) + '\n').join(''));
  renameSync(tmp, out);
  const browsers = browsersOf(seenSettings);
  return {
    files: inputs.length,
    rows: rows.length,
    duplicates,
    conflicting,
    badLines,
    ...(browsers.length > 1 ? { browsers } : {}),
    judgeWarnings: mixedServedWarnings(rows),
  };
}
