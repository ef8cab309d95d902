/**
 * interaction-errors (extended suite, interaction; SPEC "Suites"): errors raised by the interaction probe's
 * actions, not by the load. score = 100 × actions without errors / actions.
 *
 * Interpretations:
 * - An action's errors are the uncaught exceptions, unhandled promise rejections (one handled later does not
 *   count) and console messages of level error or assert raised from the action until the end of its
 *   observation (runner/gather/interaction/probe.ts), minus the errors the page raises by itself in the same
 *   stretch of its clock without any action (a timer that throws every second is console-errors' business, not
 *   an action's). "Failed to load resource" lines about requests the sandbox refused are webgrade's doing and
 *   do not count. Each error is named with the action that raised it.
 * - Actions = the control actions that ran (`done`), plus those after which the page stopped responding (an
 *   error: "the page stopped responding after this action"), plus the filling of the page's empty text fields
 *   that precedes the button actions, counted once, when there were fields to fill (its input and change
 *   listeners run then). Navigation tries are not counted (they repeat control actions).
 * - The form of the score: the share of clean actions (not a density per source line like console-errors),
 *   because what is counted is actions, and one broken handler that throws three errors is one broken control.
 * - Unscorable when nothing was acted on.
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { actionLabel, plural, probeEvidence } from './probe-evidence.js';

const interactionErrors: MetricDefinition = {
  number: 28,
  id: 'interaction-errors',
  perspective: 'interaction',
  kind: 'rule',
  needs: ['interaction'],
  title: 'Interaction errors',
  question: 'Does using the page raise errors (uncaught exceptions, rejections, console errors)?',
  suite: 'extended',
  score(evidence) {
    const p = probeEvidence(evidence);
    if ('reason' in p) return unscorable(p.reason);
    const v = p.value;
    const ran = v.actions.filter((a) => a.outcome === 'done' || a.outcome === 'hung');
    const rows = ran.map((a) => ({ action: actionLabel(a, v.controls[a.control]), selector: v.controls[a.control]?.selector ?? '', errors: a.errors }));
    if (v.filled.length) rows.push({ action: `fill ${plural(v.filled.length, 'text field')}`, selector: '', errors: v.fillErrors ?? [] });
    if (rows.length === 0) return unscorable(v.hung ? v.unavailable?.firstView ?? 'the page did not respond' : 'nothing was acted on (the page has no controls)', { faults: v.faults });
    const bad = rows.filter((r) => r.errors.length > 0);
    const byKind: Record<string, number> = {};
    for (const r of bad) for (const e of r.errors) byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
    const score = (100 * (rows.length - bad.length)) / rows.length;
    const summary = bad.length === 0 ? `no errors in ${plural(rows.length, 'action')}` : `${bad.length} of ${plural(rows.length, 'action')} raised errors: ${bad[0]!.action} → ${bad[0]!.errors[0]!.message.slice(0, 80)}${bad.length > 1 ? ' …' : ''}`;
    return scored(score, summary, {
      actions: rows.length,
      withErrors: bad.length,
      errorsByKind: byKind,
      errors: bad.slice(0, 50).map((r) => ({ action: r.action, selector: r.selector, errors: r.errors.slice(0, 5) })),
      loadErrors: v.loadErrors.length,
      note: 'errors of the load itself are console-errors\' business and are not counted here',
    });
  },
};

export default interactionErrors;
