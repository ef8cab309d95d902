/**
 * Shared scoring of the three Lighthouse-category metrics (best-practices #2, performance #16,
 * accessibility #17): score = the category's score in the artifact's one Lighthouse report × 100, exactly
 * Lighthouse's own number (Lighthouse rounds category scores to two decimals, so scores are whole numbers).
 *
 * Unscorable: no Lighthouse evidence (with the reason it is missing: not run because the page never loaded,
 * time budget, Chrome died, ...), or a category score of null (Lighthouse could not compute it; the reason is
 * Lighthouse's runtimeError, else its run warnings). Details list the audits that lost points (score < 1 among
 * binary/numeric/metric audits), lowest first, with Lighthouse's display value.
 */
import { present, type Evidence } from '../../core/evidence.js';
import { round2 } from './formula.js';
import { scored, unscorable, type MetricOutcome } from '../../core/metric.js';

export function lighthouseCategoryScore(evidence: Evidence, category: string, auditIds?: readonly string[]): MetricOutcome {
  const report = present(evidence.lighthouse, 'the Lighthouse evidence');
  const cat = report.categories[category];
  if (!cat) return unscorable(`the Lighthouse report has no ${category} category`, { runWarnings: report.runWarnings });
  if (cat.score === null) {
    // A category without a score: its failing audits say why (e.g. LanternError NO_LCP on a canvas-only page).
    const lhr0 = report.lhr as { categories?: Record<string, { auditRefs?: Array<{ id: string; weight: number }> }> } | undefined;
    const refs0 = lhr0?.categories?.[category]?.auditRefs?.filter((r) => r.weight > 0).map((r) => r.id) ?? Object.keys(report.audits);
    const errored = refs0
      .map((id) => [id, report.audits[id]] as const)
      .filter(([, a]) => a?.scoreDisplayMode === 'error')
      .map(([id, a]) => `${id}: ${a!.errorMessage ?? 'error'}`);
    const why =
      report.runtimeError ??
      (errored.length
        ? `audits failed (${errored.slice(0, 3).join('; ')})`
        : report.runWarnings.length
          ? report.runWarnings.join(' ')
          : 'Lighthouse gave no score');
    return unscorable(`Lighthouse could not score ${category}: ${why}`, { runtimeError: report.runtimeError, runWarnings: report.runWarnings });
  }
  const lhr = report.lhr as { categories?: Record<string, { auditRefs?: Array<{ id: string; weight: number }> }> } | undefined;
  const refs = lhr?.categories?.[category]?.auditRefs;
  const ids = auditIds ?? (refs ? refs.filter((r) => r.weight > 0).map((r) => r.id) : Object.keys(report.audits));
  const failing = ids
    .map((id) => ({ id, ...report.audits[id] }))
    .filter((a) => a.score !== null && a.score !== undefined && a.score < 1 && ['binary', 'numeric', 'metricSavings'].includes(a.scoreDisplayMode ?? ''))
    .sort((a, b) => (a.score ?? 0) - (b.score ?? 0))
    .map((a) => ({ id: a.id, title: a.title, score: a.score, ...(a.displayValue ? { displayValue: a.displayValue } : {}) }));
  const score = round2(cat.score * 100);
  // With several Lighthouse runs (`--lighthouse-runs`), performance is the median run's score; all are listed.
  const runs =
    category === 'performance' && report.performanceRuns && report.performanceRuns.length > 1
      ? report.performanceRuns.map((s) => (s === null ? null : round2(s * 100)))
      : undefined;
  const median = runs ? `, the median of ${runs.length} runs (${runs.map((r) => r ?? 'n/a').join(', ')})` : '';
  return scored(
    score,
    `Lighthouse ${cat.title}: ${score}${median}${failing.length ? ` (${failing.length} audit${failing.length === 1 ? '' : 's'} lost points)` : ''}`,
    {
      lighthouseVersion: report.lighthouseVersion,
      categoryScore: cat.score,
      failingAudits: failing,
      runWarnings: report.runWarnings,
      ...(runs ? { runs, medianRun: report.performanceRun } : {}),
      // The first run's trace could not be read; this report is a second run's (gather/lighthouse.ts `traceFault`).
      ...(report.remeasured ? { remeasured: report.remeasured } : {}),
    },
  );
}
