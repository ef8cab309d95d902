/**
 * accessibility (SPEC #17): Lighthouse accessibility category × 100 (axe-core audits weighted by Lighthouse),
 * from the artifact's one Lighthouse run. Equal to Lighthouse's own category score for the same page.
 * Unscorable when Lighthouse did not run or gave no score; see metrics/lib/lighthouse-category.ts.
 *
 * Blind spot (mutation testing, issue 20; bench/mutate.ts): the category is a weighted mean of pass/fail audits,
 * so a defect whose audit already fails on the page does not lower it. Faint text (`low-contrast`) was missed on
 * 3 of 12 pages (fixtures and corpus) where it applied, pages already failing `color-contrast` (checked on octave-explainer: 81,
 * failing color-contrast and label); over all accessibility operators 27 of 30 (90 %, 12 pages).
 */
import { type MetricDefinition } from '../../core/metric.js';
import { lighthouseCategoryScore } from '../lib/lighthouse-category.js';

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
