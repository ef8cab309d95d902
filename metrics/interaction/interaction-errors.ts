/**
 * interaction-errors (extended suite, interaction; SPEC "Suites"): errors raised by the interaction probe's
 * actions, not by the load. score = 100 × actions without errors / actions.
 *
 * Interpretations:
 * - An action's errors are the uncaught exceptions, unhandled promise rejections (one handled later does not
 *   count) and console messages of level error or assert raised from the action until the end of its
 *   observation (gather/interaction/probe.ts), minus the errors the page raises by itself in the same
 *   stretch of its clock without any action (a timer that throws every second is console-errors' business, not
 *   an action's). "Failed to load resource" lines about requests the sandbox refused are webgrade's doing and
 *   do not count. Each error is named with the action that raised it.
 * - Actions = the control actions that ran (`done`), plus those after which the page stopped responding (an
 *   error: "the page stopped responding after this action"), plus the filling of the page's empty text fields
 *   that precedes the button actions, counted once, when there were fields to fill (its input and change
 *   listeners run then). Navigation tries are not counted (they repeat control actions).
 * - Webgrade's doing is not counted (listed apart): errors of the kinds a refused request causes ("Failed to
 *   fetch", a CORS or network error, an HTTP 4xx status, "Failed to load resource") in an action that made a
 *   request the sandbox refused (an API the page calls is unreachable by design), and, when a CDN script was
 *   withheld (offline mode), the errors a missing library causes (as console-errors does). A heuristic,
 *   documented: such an error could rarely be the page's own.
 * - The form of the score: the share of clean actions (not a density per source line like console-errors),
 *   because what is counted is actions, and one broken handler that throws three errors is one broken control.
 * - Unscorable when nothing was acted on.
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { InteractionError } from '../../core/browser-evidence.js';
import { MISSING_LIBRARY_ERROR } from '../lib/console.js';
import { actionLabel, plural, probeEvidence } from './probe-evidence.js';

/** The errors a refused request causes. */
export const REFUSED_REQUEST_ERROR =
  /(Failed to fetch|NetworkError|network error|Load failed|CORS|ERR_[A-Z_]+|Failed to load resource|status(?: code)?(?: of)?:? 4\d\d|\b4\d\d\b.*(Forbidden|error)|HTTP error|Forbidden)/i;

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
    const v = probeEvidence(evidence);
    const ran = v.actions.filter((a) => a.outcome === 'done' || a.outcome === 'hung');
    const withheld = (v.network ?? []).some((e) => e.withheld && (e.destination === 'script' || e.destination === 'empty'));
    const notCounted: Array<{ action: string; error: string; because: string }> = [];
    const own = (label: string, errors: readonly InteractionError[], refused: boolean): InteractionError[] =>
      errors.filter((e) => {
        const because =
          refused && REFUSED_REQUEST_ERROR.test(e.message)
            ? 'a request the sandbox refused'
            : withheld && MISSING_LIBRARY_ERROR.test(e.message)
              ? 'a CDN script webgrade withheld'
              : '';
        if (because) notCounted.push({ action: label, error: e.message.slice(0, 200), because });
        return !because;
      });
    const rows = ran.map((a) => {
      const action = actionLabel(a, v.controls[a.control]);
      return { action, selector: v.controls[a.control]?.selector ?? '', errors: own(action, a.errors, !!a.refused?.length) };
    });
    if (v.filled.length) {
      const action = `fill ${plural(v.filled.length, 'text field')}`;
      rows.push({ action, selector: '', errors: own(action, v.fillErrors ?? [], false) });
    }
    if (rows.length === 0)
      return unscorable(v.hung ? (v.unavailable?.firstView ?? 'the page did not respond') : 'nothing was acted on (the page has no controls)', {
        faults: v.faults,
      });
    const bad = rows.filter((r) => r.errors.length > 0);
    const byKind: Record<string, number> = {};
    for (const r of bad) for (const e of r.errors) byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
    const score = (100 * (rows.length - bad.length)) / rows.length;
    const summary =
      bad.length === 0
        ? `no errors in ${plural(rows.length, 'action')}`
        : `${bad.length} of ${plural(rows.length, 'action')} raised errors: ${bad[0]!.action} → ${bad[0]!.errors[0]!.message.slice(0, 80)}${bad.length > 1 ? ' …' : ''}`;
    return scored(score, summary, {
      actions: rows.length,
      withErrors: bad.length,
      errorsByKind: byKind,
      errors: bad.slice(0, 50).map((r) => ({ action: r.action, selector: r.selector, errors: r.errors.slice(0, 5) })),
      ...(notCounted.length ? { notCounted: notCounted.slice(0, 50) } : {}),
      loadErrors: v.loadErrors.length,
      note: "errors of the load itself are console-errors' business and are not counted here",
    });
  },
};

export default interactionErrors;
