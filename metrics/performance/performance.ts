/**
 * performance (SPEC #16): Lighthouse performance category × 100, from the artifact's one Lighthouse run
 * (gather/lighthouse.ts: Lighthouse's mobile form factor with the screen and user agent of an iPhone
 * 12 Pro — the same phone mobile-compat measures in that run — and simulated throttling; shortened quiet
 * windows, checked to give the same category scores). The run's tab has `Math.random` and `crypto` seeded as the
 * visit's is (gather/seeded-random.ts, since 2026-11-28), so a page that sizes its work at random loads the same
 * work in two runs; the page's code is not otherwise touched. Unscorable when Lighthouse did not run or could not
 * compute the category (e.g. NO_FCP, NO_LCP); see lighthouse-category.ts.
 */
import { type MetricDefinition } from '../../core/metric.js';
import { lighthouseCategoryScore } from '../lib/lighthouse-category.js';

const performanceMetric: MetricDefinition = {
  number: 16,
  id: 'performance',
  perspective: 'performance',
  kind: 'rule',
  needs: ['lighthouse'],
  title: 'Performance',
  question: 'Does the page load and become usable quickly?',
  suite: 'study',
  score: (evidence) => lighthouseCategoryScore(evidence, 'performance'),
};

export default performanceMetric;
