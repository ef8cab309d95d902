/**
 * best-practices (SPEC #2): Lighthouse best-practices category × 100, from the artifact's one Lighthouse run.
 * Equal to Lighthouse's own category score for the same page.
 *
 * Note: Lighthouse loads the page with every request outside the artifact's loopback server failing (webgrade's
 * isolation); a page that pulls scripts or styles from a CDN therefore logs "Failed to load resource" errors,
 * which Lighthouse's `errors-in-console` audit counts. That is Lighthouse's verdict on the page as it runs
 * offline, and we keep it (the artifact should be self-contained). Unscorable when Lighthouse did not run or
 * gave no score; see metrics/lib/lighthouse-category.ts.
 */
import { type MetricDefinition } from '../../core/metric.js';
import { lighthouseCategoryScore } from '../lib/lighthouse-category.js';

const bestPractices: MetricDefinition = {
  number: 2,
  id: 'best-practices',
  perspective: 'code',
  kind: 'rule',
  needs: ['lighthouse'],
  title: 'Best practices',
  question: 'Does the page follow modern web best practices (HTTPS, no deprecated APIs, no browser errors)?',
  suite: 'study',
  score: (evidence) => lighthouseCategoryScore(evidence, 'best-practices'),
};

export default bestPractices;
