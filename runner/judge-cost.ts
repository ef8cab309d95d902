/**
 * The judge cost of one artifact (`judgeCost` of a score document and a results row): the sum of its judge
 * metrics' `details.usage` (calls, cache hits, tokens, money). Money is null when any judge that made a call
 * has no price (its share is unknown); judges that were not asked (unscorable before a call) add nothing.
 */
import type { JudgeCost, MetricResult } from '../core/results.js';

export function judgeCostOf(metrics: readonly MetricResult[]): JudgeCost | undefined {
  const judges = metrics.filter((m) => m.kind === 'judge');
  if (judges.length === 0) return undefined;
  const out: JudgeCost = { calls: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };
  for (const m of judges) {
    const u = (m.details as { usage?: Record<string, unknown> } | undefined)?.usage;
    if (!u) continue;
    const n = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : 0);
    out.calls += n('calls');
    out.cacheHits += n('cacheHits');
    out.promptTokens += n('promptTokens');
    out.completionTokens += n('completionTokens');
    if (u.costUsd === null && n('calls') > 0) out.costUsd = null;
    else if (out.costUsd !== null) out.costUsd += n('costUsd');
  }
  return out;
}
