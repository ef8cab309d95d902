/**
 * The implemented metrics, in SPEC order. A metric is listed here only once it works and is tested; the
 * catalogue (`catalog.ts`) names all 24 for weighting.
 */
import { METRIC_CATALOG } from './catalog.js';
import type { MetricDefinition } from './types.js';
import commentRate from './maintainability/comment-rate.js';
import resourceValidity from './content/resource-validity.js';
import copywriting from './content/copywriting.js';
import layoutConsistency from './visual/layout-consistency.js';
import layoutSparsity from './visual/layout-sparsity.js';
import colorHarmony from './visual/color-harmony.js';
import mediaQuality from './content/media-quality.js';
import placeholderQuality from './content/placeholder-quality.js';
import componentConsistency from './visual/component-consistency.js';
import iconConsistency from './visual/icon-consistency.js';
import errorHandling from './code/error-handling.js';
import lint from './code/lint.js';
import functionalityCorrectness from './code/functionality-correctness.js';
import visualExperience from './visual/visual-experience.js';
import functionalAlignment from './functional-alignment/functional-alignment.js';
import visualAlignment from './visual-alignment/visual-alignment.js';
import contentAlignment from './content-alignment/content-alignment.js';
import bestPractices from './code/best-practices.js';
import consoleErrors from './code/console-errors.js';
import performanceMetric from './performance/performance.js';
import accessibility from './accessibility/accessibility.js';
import mobileCompat from './accessibility/mobile-compat.js';
import crossBrowser from './accessibility/cross-browser.js';
import codeRedundancy from './maintainability/code-redundancy.js';

const IMPLEMENTED: MetricDefinition[] = [
  bestPractices,
  consoleErrors,
  performanceMetric,
  accessibility,
  mobileCompat,
  crossBrowser,
  codeRedundancy,
  errorHandling,
  lint,
  commentRate,
  resourceValidity,
  copywriting,
  layoutConsistency,
  layoutSparsity,
  colorHarmony,
  mediaQuality,
  placeholderQuality,
  componentConsistency,
  iconConsistency,
  functionalityCorrectness,
  visualExperience,
  functionalAlignment,
  visualAlignment,
  contentAlignment,
];

const order = new Map(METRIC_CATALOG.map((m, i) => [m.id, i]));

/** All implemented metrics, in SPEC order. */
export const METRICS: readonly MetricDefinition[] = [...IMPLEMENTED].sort(
  (a, b) => (order.get(a.id) ?? 99) - (order.get(b.id) ?? 99),
);

export function findMetric(id: string): MetricDefinition | undefined {
  return METRICS.find((m) => m.id === id);
}
