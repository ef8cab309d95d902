/**
 * Running one metric's pure `score` function into a MetricResult, shared by the scorer (runner/score.ts) and
 * its static worker thread (static-worker.ts). A metric that throws becomes unscorable with the error as its
 * reason ("metric failed: ..."), except a parse failure of the artifact (ArtifactParseError), whose message is
 * the reason as it stands: the page could not be parsed, or its parse ran out of time, and that is what the
 * user should read.
 *
 * Missing evidence is handled here once, as Lighthouse's runner does for an audit's required artifacts: before a
 * metric is scored, each evidence it declares in `needs` (core/metric.ts) is checked in the order declared, and
 * the first one missing makes the metric unscorable with the gatherer's reason (`missingEvidence`). Optional
 * evidence (`optional`) is never checked: the metric reads it when it is there. What each need requires:
 * - `source`, `dom`: nothing (the artifact is always there; a page that cannot be parsed fails the metric with
 *   the parse's reason);
 * - `browser`: the visit's evidence; `screenshot`: that and its desktop screenshot; `mobile`: that and the phone
 *   measurement (each with the visit's faults in the details);
 * - `lighthouse`, `interaction`, `reference` (the fidelity renders): their evidence, with a reference given;
 * - `requirement`: the user's requirement; `checklist`: a requirement with checklist items of the metric's kind;
 * - `judge`: the judge's answer for this metric; `network`: the remote checks; `runtime`: the runtime watch.
 */
import { ArtifactParseError } from '../core/artifact/model.js';
import { errorMessage } from '../core/errors.js';
import type { Evidence, Gathered } from '../core/evidence.js';
import { NO_REQUIREMENT_REASON, noChecklistReason } from '../core/judge-answer.js';
import { allNeeds, type EvidenceNeed, type MetricDefinition, type MetricDetails } from '../core/metric.js';
import type { MetricResult } from '../core/results.js';
import { round2 } from '../metrics/lib/formula.js';

/** Metrics that read nothing but the artifact model (source and static DOM): scored in the static worker. */
export function isStaticMetric(m: Pick<MetricDefinition, 'needs'>): boolean {
  return allNeeds(m).every((n) => n === 'source' || n === 'dom');
}

/** Why a required evidence is missing, with what explains it. */
export interface MissingEvidence {
  reason: string;
  details?: MetricDetails;
}

type Check = (evidence: Evidence, metric: MetricDefinition) => MissingEvidence | undefined;

/** A gathered part's absence: never gathered (`absent`), or the gatherer's reason. */
function part(g: Gathered<unknown> | undefined, absent: string): MissingEvidence | undefined {
  if (!g) return { reason: absent };
  return g.ok ? undefined : { reason: g.reason };
}

const browser: Check = (e) => part(e.browser, 'the browser session was not run');

const CHECKS: Record<EvidenceNeed, Check> = {
  source: () => undefined,
  dom: () => undefined,
  browser,
  screenshot: (e, m) => {
    const b = e.browser;
    if (!b?.ok) return browser(e, m);
    if (b.value.screenshots.desktop) return undefined;
    const why = b.value.unavailable?.screenshots ?? b.value.unavailable?.desktop;
    return { reason: `no desktop screenshot${why ? `: ${why}` : ' in the browser evidence'}`, details: { faults: b.value.faults } };
  },
  mobile: (e, m) => {
    const b = e.browser;
    if (!b?.ok) return browser(e, m);
    if (b.value.mobile) return undefined;
    return { reason: b.value.unavailable?.mobile ?? 'mobile emulation was not measured', details: { faults: b.value.faults } };
  },
  lighthouse: (e) => part(e.lighthouse, 'Lighthouse was not run'),
  interaction: (e) => part(e.interaction, 'the interaction probe was not run'),
  reference: (e) =>
    e.reference || e.fidelity
      ? part(e.fidelity, 'the page and its reference were not rendered (fidelity evidence not gathered)')
      : { reason: 'no reference given (--reference)' },
  requirement: (e) => (e.requirement ? undefined : { reason: NO_REQUIREMENT_REASON }),
  checklist: (e, m) => {
    if (!e.requirement) return { reason: NO_REQUIREMENT_REASON };
    const kind = m.judge?.prompt === 'alignment' ? m.judge.items : undefined;
    if (!kind) return undefined;
    return (e.requirement.checklist?.[kind] ?? []).length ? undefined : { reason: noChecklistReason(kind) };
  },
  judge: (e, m) => part(e.judges?.[m.id], 'the judge did not run (no judge gatherer)'),
  network: (e) => part(e.remote, 'remote URLs were not checked'),
  'requirement-tests': (e) => part(e.requirementTests, 'the requirement tests were not run'),
  runtime: (e) => part(e.runtime, 'the page was not watched while it runs (runtime evidence not gathered)'),
};

/** The first required evidence of `metric` that is missing, or undefined when it can be scored. */
export function missingEvidence(metric: MetricDefinition, evidence: Evidence): MissingEvidence | undefined {
  for (const need of metric.needs) {
    const why = CHECKS[need](evidence, metric);
    if (why) return why;
  }
  return undefined;
}

export function metricBase(metric: MetricDefinition): Pick<MetricResult, 'id' | 'perspective' | 'kind' | 'title'> {
  return { id: metric.id, perspective: metric.perspective, kind: metric.kind, title: metric.title };
}

export async function runMetric(metric: MetricDefinition, evidence: Evidence): Promise<MetricResult> {
  const t0 = performance.now();
  const base = metricBase(metric);
  const absent = missingEvidence(metric, evidence);
  if (absent) return { ...base, score: null, reason: absent.reason, details: absent.details ?? {}, ms: 0 };
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
      details: { error: err instanceof Error ? (err.stack ?? err.message) : String(err) },
      ms,
    };
  }
}
