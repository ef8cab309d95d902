/**
 * dead-code (extended suite, maintainability; SPEC "Suites"): our byte-coverage measure of unused JS and CSS of
 * the artifact's own code; score = (jsScore + cssScore) / 2 × 100, where each language's score = used bytes /
 * total bytes of that language (so 1 − the unused share). The study's `code-redundancy` (#20) takes Lighthouse's
 * unused-javascript/unused-css-rules audits, which ignore small files, so nearly every small page scores 100
 * there; this measure counts every byte and separates them.
 *
 * Interpretations:
 * - Own code = scripts and stylesheets served from the artifact's loopback server: its .js/.css files and the
 *   inline `<script>`/`<style>` blocks of its HTML. Remote (blocked) code, `style`/`on*` attributes and code
 *   created by `eval` without a URL are not counted.
 * - Bytes are measured on the text the browser ran (UTF-16 code units, V8's and Chrome's coverage offsets;
 *   equal to bytes for ASCII source). No size threshold: unlike Lighthouse's unused-css/unused-javascript
 *   audits (which ignore less than 10–20 KiB of waste, making every small page perfect), every byte counts, so
 *   a page with half its CSS dead scores 75 when it has no JS, and a page with none dead scores 100.
 * - JS: V8 block coverage over the page's load and the interaction probe (SPEC "Suites": code that runs only on
 *   user interaction, such as click handlers, input listeners and the functions only they call, must not count
 *   as dead). The probe (gather/interaction/probe.ts) loads the page once per action in its own context,
 *   with block coverage on throughout; its coverage is the union over all those loads and actions, the first of
 *   which repeats the visit's load (details: `interactionCovered: true`). This metric needs the probe, so its
 *   score does not depend on which other metrics were selected. When the probe's coverage is missing (the probe
 *   failed, or saved evidence from before the probe), the visit's coverage after load and settle is used and
 *   the details say so (`interactionCovered: false`): interaction-only code then counts as unused. Per source,
 *   the larger of the two used counts is taken (the probe's normally contains the visit's). Function bodies
 *   that never ran and branches never taken are unused; top-level code that ran is used.
 * - CSS: a style rule is used when Chrome's rule-usage tracking saw it match at 1280×800 after load. A rule
 *   whose selector matches an element once user-action pseudo-classes and pseudo-elements are removed
 *   (`.btn:hover`, `input:focus`, `li::before`) counts as used, since it styles existing elements. Rules
 *   inside `@media` blocks that do not apply at 1280×800 count as unused (they are dead on this screen).
 *   Only style rules count; `@font-face`, `@keyframes`, `@import` and similar at-rules are neither used nor
 *   unused (gather/css-rules.ts).
 * - A language with no own code has nothing unused: its sub-score is 1. With no own JS and no own CSS at all
 *   the metric is unscorable (nothing to measure).
 * - Unscorable when the browser session failed or coverage could not be collected (page unresponsive).
 */
import { round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { CoverageEntry } from '../../core/browser-evidence.js';
import { present } from '../../core/evidence.js';

function sum(entries: readonly CoverageEntry[], css: boolean): { total: number; used: number } {
  let total = 0;
  let used = 0;
  for (const e of entries) {
    total += e.totalBytes;
    used += Math.min(e.totalBytes, e.usedBytes + (css ? (e.interactionBytes ?? 0) : 0));
  }
  return { total, used };
}

/** Path and query of a URL (the artifact server's port differs per run). */
function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** The probe's JS coverage (its sources are authoritative), each source's used bytes at least the visit's for the same source. */
function mergeJs(visit: readonly CoverageEntry[], probed: readonly CoverageEntry[]): CoverageEntry[] {
  const out = probed.map((e) => ({ ...e }));
  for (const v of visit) {
    const p = out.find((e) => e.source === v.source && e.totalBytes === v.totalBytes);
    if (p) p.usedBytes = Math.max(p.usedBytes, v.usedBytes);
  }
  return out;
}

const deadCode: MetricDefinition = {
  number: 25,
  id: 'dead-code',
  perspective: 'maintainability',
  kind: 'rule',
  needs: ['browser'],
  optional: ['interaction'],
  title: 'Dead code',
  question: "How much of the page's own JavaScript and CSS is never used, byte for byte?",
  suite: 'extended',
  score({ browser: visited, interaction }) {
    const browser = present(visited, 'the browser evidence');
    const visit = browser.coverage;
    if (!visit) return unscorable(browser.unavailable?.coverage ?? 'coverage was not collected', { faults: browser.faults });
    const probed = interaction?.ok ? interaction.value.coverage?.js : undefined;
    const why = !interaction
      ? 'the interaction probe was not run'
      : !interaction.ok
        ? interaction.reason
        : !probed
          ? (interaction.value.unavailable?.firstView ?? 'the probe took no coverage')
          : '';
    const cov = { js: probed ? mergeJs(visit.js, probed) : visit.js, css: visit.css };
    const js = sum(cov.js, false);
    const css = sum(cov.css, true);
    if (js.total === 0 && css.total === 0) {
      const nav = browser.navigations;
      if (nav)
        return unscorable(
          `the page navigated away from its entry (${nav} navigation${nav === 1 ? '' : 's'}, to ${pathOf(browser.finalUrl)}): the document it ended on holds none of the artifact's JavaScript or CSS`,
          { faults: browser.faults },
        );
      return unscorable('the page has no own JavaScript or CSS rules to measure');
    }
    const jsScore = js.total === 0 ? 1 : js.used / js.total;
    const cssScore = css.total === 0 ? 1 : css.used / css.total;
    const score = ((jsScore + cssScore) / 2) * 100;
    const pct = (u: number, t: number) => (t === 0 ? 'none' : `${round2(100 - (100 * u) / t)}% unused of ${t} B`);
    return scored(score, `JS ${pct(js.used, js.total)}; CSS ${pct(css.used, css.total)}`, {
      js: { totalBytes: js.total, usedBytes: js.used, score: round2(jsScore), sources: cov.js },
      css: { totalBytes: css.total, usedBytes: css.used, score: round2(cssScore), sources: cov.css },
      interactionCovered: !!probed,
      note: probed
        ? 'JS coverage over the load and the interaction probe (every control acted on); CSS rule usage after load'
        : `JS coverage after load and settle only (${why}): code that runs only on interaction counts as unused`,
    });
  },
};

export default deadCode;
