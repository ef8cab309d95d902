/**
 * accessibility (SPEC #17): Lighthouse accessibility category × 100 (axe-core audits weighted by Lighthouse),
 * from the artifact's one Lighthouse run. Equal to Lighthouse's own category score for the same page.
 * Unscorable when Lighthouse did not run or gave no score; see metrics/performance/lighthouse-category.ts.
 */
import { type MetricDefinition } from '../../core/metric.js';
import { lighthouseCategoryScore } from '../performance/lighthouse-category.js';

const accessibility: MetricDefinition = {
  number: 17,
  id: 'accessibility',
  perspective: 'accessibility',
  kind: 'rule',
  needs: ['lighthouse'],
  title: 'Accessibility',
  question: 'Can people using assistive technology, keyboards or low vision use the page?',
  suite: 'study',
  score: (evidence) => lighthouseCategoryScore(evidence, 'accessibility'),
};

export default accessibility;
