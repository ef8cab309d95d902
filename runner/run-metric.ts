/**
 * Running one metric's pure `score` function into a MetricResult, shared by the scorer (runner/score.ts) and
 * its static worker thread (static-worker.ts). A metric that throws becomes unscorable with the error as its
 * reason ("metric failed: ..."), except a parse failure of the artifact (ArtifactParseError), whose message is
 * the reason as it stands: the page could not be parsed, or its parse ran out of time, and that is what the
 * user should read.
 */
import { ArtifactParseError } from '../core/artifact/model.js';
import { errorMessage } from '../core/errors.js';
import type { Evidence } from '../core/evidence.js';
import type { MetricDefinition } from '../core/metric.js';
import type { MetricResult } from '../core/results.js';
import { round2 } from '../metrics/formula.js';

/** Metrics that read nothing but the artifact model (source and static DOM): scored in the static worker. */
export function isStaticMetric(m: Pick<MetricDefinition, 'needs'>): boolean {
  return m.needs.every((n) => n === 'source' || n === 'dom');
}

export function metricBase(metric: MetricDefinition): Pick<MetricResult, 'id' | 'perspective' | 'kind' | 'title'> {
  return { id: metric.id, perspective: metric.perspective, kind: metric.kind, title: metric.title };
}

export async function runMetric(metric: MetricDefinition, evidence: Evidence): Promise<MetricResult> {
  const t0 = performance.now();
  const base = metricBase(metric);
  try {
    const outcome = await metric.score(evidence);
    const ms = round2(performance.now() - t0);
    if (outcome.score === null) return { ...base, score: null, reason: outcome.reason, details: outcome.details, ms };
    return { ...base, score: round2(outcome.score), summary: outcome.summary, details: outcome.details, ms };
  } catch (err) {
    const ms = round2(performance.now() - t0);
    if (err instanceof ArtifactParseError) return { ...base, score: null, reason: err.message, details: {}, ms };
    return {
      ...base,
      score: null,
      reason: `metric failed: ${errorMessage(err)}`,
      details: { error: err instanceof Error ? err.stack ?? err.message : String(err) },
      ms,
    };
  }
}
