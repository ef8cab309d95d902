/**
 * render-validity (extended suite, interaction; SPEC "Suites"): UI2App's executability probe on the first view,
 * 100 or 0. The first view is the state after the probe's first load and settle (runner/gather/interaction/).
 *
 * It counts as rendered when all of these hold (UI2App's thresholds):
 * - the body has at least 3 descendant elements;
 * - and at least one of: 20 characters of visible text (body.innerText, whitespace collapsed; none when the body
 *   is not rendered, e.g. `html { display: none }`, where innerText would give the source text: found by
 *   mutation testing), 2 visuals, 2
 *   interactive elements. Visuals are visible `svg` (outermost only), `img` that decoded, `video`, and `canvas`
 *   that drew something: a canvas of one colour throughout (never drawn on, or only cleared) is blank and does
 *   not count. Interactive elements are visible, enabled button, input (not hidden), textarea, select, a[href]
 *   and [role=button];
 * - and no uncaught error before the first render: an uncaught exception or unhandled promise rejection raised
 *   before the first contentful paint (timed on the page's own performance timeline), or before the first view
 *   when nothing was ever painted. An error the page raises after it rendered (a handler, a timer) does not
 *   fail it (that is interaction-errors' and console-errors' business). As in console-errors, when a CDN script
 *   was withheld (offline mode) the errors a missing library causes are webgrade's doing and do not fail it.
 *
 * A page that does not answer after load (a busy main thread) did not render: 0, with the reason. Unscorable
 * only when the probe could not run (no browser, no time left); the leaderboard shows the share of executable
 * artifacts (this metric at 100) per model.
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { MISSING_LIBRARY_ERROR } from '../code/console-errors.js';
import { probeEvidence } from './probe-evidence.js';

export const MIN_ELEMENTS = 3;
export const MIN_TEXT_CHARS = 20;
export const MIN_VISUALS = 2;
export const MIN_INTERACTIVE = 2;

const renderValidity: MetricDefinition = {
  number: 26,
  id: 'render-validity',
  perspective: 'interaction',
  kind: 'rule',
  needs: ['interaction'],
  title: 'Render validity',
  question: 'Does the page run and show a first view with content, without an error before it renders?',
  suite: 'extended',
  score(evidence) {
    const v = probeEvidence(evidence);
    const fv = v.firstView;
    if (!fv) {
      const why = v.unavailable?.firstView ?? 'the first view could not be read';
      if (v.hung) return scored(0, `not rendered: ${why}`, { rendered: false, failed: [why], faults: v.faults });
      return unscorable(why, { faults: v.faults });
    }
    const withheld = (v.network ?? []).some((e) => e.withheld && (e.destination === 'script' || e.destination === 'empty'));
    const excused = withheld ? fv.errorsBeforeRender.filter((e) => MISSING_LIBRARY_ERROR.test(e.message)) : [];
    const errors = fv.errorsBeforeRender.filter((e) => !excused.includes(e));
    const failed: string[] = [];
    if (fv.elements < MIN_ELEMENTS) failed.push(`only ${fv.elements} element${fv.elements === 1 ? '' : 's'} in the body (at least ${MIN_ELEMENTS})`);
    if (fv.textChars < MIN_TEXT_CHARS && fv.visuals < MIN_VISUALS && fv.interactive < MIN_INTERACTIVE) {
      failed.push(`no content: ${fv.textChars} characters of text (at least ${MIN_TEXT_CHARS}), ${fv.visuals} visuals (at least ${MIN_VISUALS}${fv.blankCanvases ? `; ${fv.blankCanvases} blank canvas${fv.blankCanvases === 1 ? '' : 'es'} not counted` : ''}), ${fv.interactive} interactive elements (at least ${MIN_INTERACTIVE})`);
    }
    if (errors.length) failed.push(`${errors[0]!.kind === 'exception' ? 'uncaught exception' : 'unhandled rejection'} before the first render: ${errors[0]!.message.slice(0, 160)}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`);
    const details = {
      rendered: failed.length === 0,
      elements: fv.elements,
      textChars: fv.textChars,
      visuals: fv.visuals,
      visualsByKind: fv.visualsByKind,
      blankCanvases: fv.blankCanvases,
      interactive: fv.interactive,
      firstPaintMs: fv.firstPaintMs,
      errorsBeforeRender: errors,
      ...(excused.length ? { excusedErrors: excused, excusedBecause: 'a CDN script was withheld (offline mode): errors a missing library causes are not the page\'s' } : {}),
      loaded: fv.loaded,
      failed,
      thresholds: { elements: MIN_ELEMENTS, textChars: MIN_TEXT_CHARS, visuals: MIN_VISUALS, interactive: MIN_INTERACTIVE },
    };
    if (failed.length) return scored(0, `not rendered: ${failed.join('; ')}`, details);
    const parts = [`${fv.elements} elements`, `${fv.textChars} characters of text`, `${fv.visuals} visuals`, `${fv.interactive} interactive elements`];
    return scored(100, `rendered: ${parts.join(', ')}; no error before the first render`, details);
  },
};

export default renderValidity;
