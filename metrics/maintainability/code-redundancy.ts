/**
 * code-redundancy (SPEC #20), as the study defines it: the mean of Lighthouse's `unused-javascript` and
 * `unused-css-rules` audit scores × 100, from the artifact's one Lighthouse report.
 *
 * Interpretations:
 * - Lighthouse's audits are opportunities scored 0–1 from the bytes a page could save; they ignore files with
 *   less than about 10 KiB (CSS) or 20 KiB (JS) to save, so most small pages score 100 here. That is the
 *   study's formula; the extended suite's `dead-code` is our byte measure that separates small pages.
 * - "Full marks when neither applies": an audit that does not apply (`notApplicable`: nothing to measure, or
 *   below its thresholds) or that passes counts as 1. So a page with no JS or CSS worth flagging scores 100.
 * - An audit that errored (`error` display mode, null score) or is missing from the report makes the metric
 *   unscorable with the audit's title, rather than guessing from the other one.
 * - Unscorable when Lighthouse was not run or failed (with its reason).
 *
 * Blind spots (mutation testing, issue 20; bench/mutate.ts: 22 of 24 mutants detected, 92 %, 12 pages): an audit
 * already at 0 cannot drop (24 KiB of dead JS on a page whose CDN Leaflet already fails unused-javascript), and
 * Lighthouse scores these opportunities by estimated load-time savings, so 16 KiB of unused inline CSS on a page
 * whose load is dominated by other requests still passes unused-css-rules (species-observation-map: CSS audit 1
 * before and after). `dead-code` (extended suite) measures the bytes and caught both.
 */
import { round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { present } from '../../core/evidence.js';

export const REDUNDANCY_AUDITS = ['unused-javascript', 'unused-css-rules'] as const;

const codeRedundancy: MetricDefinition = {
  number: 20,
  id: 'code-redundancy',
  perspective: 'maintainability',
  kind: 'rule',
  needs: ['lighthouse'],
  title: 'Code redundancy',
  question: 'Does the page ship JavaScript and CSS that Lighthouse finds unused?',
  suite: 'study',
  score(evidence) {
    const lighthouse = present(evidence.lighthouse, 'the Lighthouse evidence');
    const audits: Record<string, { score: number; applies: boolean; displayValue?: string }> = {};
    for (const id of REDUNDANCY_AUDITS) {
      const a = lighthouse.audits[id];
      if (!a) return unscorable(`the Lighthouse report has no ${id} audit`);
      if (a.scoreDisplayMode === 'notApplicable') {
        audits[id] = { score: 1, applies: false };
        continue;
      }
      if (a.score === null) return unscorable(`Lighthouse's ${id} audit gave no score (${a.scoreDisplayMode}${a.displayValue ? `: ${a.displayValue}` : ''})`);
      audits[id] = { score: a.score, applies: true, ...(a.displayValue ? { displayValue: a.displayValue } : {}) };
    }
    const js = audits['unused-javascript']!;
    const css = audits['unused-css-rules']!;
    const score = ((js.score + css.score) / 2) * 100;
    const part = (name: string, a: typeof js) =>
      a.applies ? `${name} ${round2(a.score * 100)}${a.displayValue ? ` (${a.displayValue})` : ''}` : `${name}: not applicable`;
    return scored(score, `Lighthouse unused code: ${part('JS', js)}; ${part('CSS', css)}`, { audits, lighthouseVersion: lighthouse.lighthouseVersion });
  },
};

export default codeRedundancy;
