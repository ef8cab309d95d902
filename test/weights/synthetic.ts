/** Synthetic result rows for the weights tests. */
import { findMetric as catalogEntry } from '../../metrics/registry.js';
import type { ResultRow } from '../../runner/results-file.js';
import type { MetricResult } from '../../runner/score.js';

export function row(model: string, requirement: string, scores: Record<string, number | null>, labels?: Record<string, string>): ResultRow {
  const metrics = Object.entries(scores).map(([id, score]) => {
    const c = catalogEntry(id);
    const m: MetricResult = { id, perspective: c?.perspective ?? 'code', kind: c?.kind ?? 'rule', title: c?.title ?? id, score, details: {}, ms: 0 };
    if (score === null) m.reason = 'nothing to measure';
    return m;
  });
  const r: ResultRow = { model, requirement, status: 'ok', artifact: `runs/${model}/${requirement}.html`, metrics };
  if (labels) r.labels = labels;
  return r;
}

export function failedRow(model: string, requirement: string): ResultRow {
  return { model, requirement, status: 'failed', error: 'worker crashed', artifact: `runs/${model}/${requirement}.html`, metrics: [] };
}

/** A row of one repeat (`batch --repeats`): `repeat` 1..n. */
export function repeatRow(model: string, requirement: string, repeat: number, scores: Record<string, number | null>, labels?: Record<string, string>): ResultRow {
  return { ...row(model, requirement, scores, labels), repeat };
}
