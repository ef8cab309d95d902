/**
 * The registry: the one list of metric modules, in SPEC order (the study's 24, then the extended suite's own).
 * A metric is declared only in its module (number, id, perspective, kind, needs, title, question, suite); the
 * catalogue, the judge list, the survey items, the counts in every output and the README metric table are
 * derived from this list. Adding a metric: its module, its test, one line here.
 */
import { DEFAULT_SUITE, PERSPECTIVES, type MetricDefinition, type PerspectiveId, type SuiteId } from '../core/metric.js';
import functionalityCorrectness from './code/functionality-correctness.js';
import bestPractices from './code/best-practices.js';
import errorHandling from './code/error-handling.js';
import consoleErrors from './code/console-errors.js';
import lint from './code/lint.js';
import visualExperience from './visual/visual-experience.js';
import componentConsistency from './visual/component-consistency.js';
import iconConsistency from './visual/icon-consistency.js';
import layoutConsistency from './visual/layout-consistency.js';
import layoutSparsity from './visual/layout-sparsity.js';
import colorHarmony from './visual/color-harmony.js';
import copywriting from './content/copywriting.js';
import mediaQuality from './content/media-quality.js';
import placeholderQuality from './content/placeholder-quality.js';
import resourceValidity from './content/resource-validity.js';
import performanceMetric from './performance/performance.js';
import accessibility from './accessibility/accessibility.js';
import crossBrowser from './accessibility/cross-browser.js';
import mobileCompat from './accessibility/mobile-compat.js';
import codeRedundancy from './maintainability/code-redundancy.js';
import commentRate from './maintainability/comment-rate.js';
import functionalAlignment from './functional-alignment/functional-alignment.js';
import visualAlignment from './visual-alignment/visual-alignment.js';
import contentAlignment from './content-alignment/content-alignment.js';
import deadCode from './maintainability/dead-code.js';
import renderValidity from './interaction/render-validity.js';
import controlLiveness from './interaction/control-liveness.js';
import interactionErrors from './interaction/interaction-errors.js';
import navigationReachability from './interaction/navigation-reachability.js';
import visualFidelity from './fidelity/visual-fidelity.js';
import componentFidelity from './fidelity/component-fidelity.js';
import requirementTests from './interaction/requirement-tests.js';
import frameSmoothness from './performance/frame-smoothness.js';
import responsiveness from './performance/responsiveness.js';
import memoryStability from './performance/memory-stability.js';

/** Every metric, in SPEC order (by `number`). */
export const METRICS: readonly MetricDefinition[] = [
  functionalityCorrectness,
  bestPractices,
  errorHandling,
  consoleErrors,
  lint,
  visualExperience,
  componentConsistency,
  iconConsistency,
  layoutConsistency,
  layoutSparsity,
  colorHarmony,
  copywriting,
  mediaQuality,
  placeholderQuality,
  resourceValidity,
  performanceMetric,
  accessibility,
  crossBrowser,
  mobileCompat,
  codeRedundancy,
  commentRate,
  functionalAlignment,
  visualAlignment,
  contentAlignment,
  deadCode,
  renderValidity,
  controlLiveness,
  interactionErrors,
  navigationReachability,
  visualFidelity,
  componentFidelity,
  requirementTests,
  frameSmoothness,
  responsiveness,
  memoryStability,
];

/** The study's metrics (suite `study`): exactly SPEC's 24. */
export const STUDY_METRICS: readonly MetricDefinition[] = METRICS.filter((m) => m.suite === 'study');

/** The metrics of a suite: `study` = the study's 24; `extended` = those plus the metrics this project adds. */
export function suiteMetrics(suite: SuiteId = DEFAULT_SUITE): readonly MetricDefinition[] {
  return suite === 'study' ? STUDY_METRICS : METRICS;
}

export function findMetric(id: string): MetricDefinition | undefined {
  return METRICS.find((m) => m.id === id);
}

/** The ids of every metric, in SPEC order. */
export const METRIC_IDS: readonly string[] = METRICS.map((m) => m.id);

/** Metrics of one perspective within a suite, in SPEC order. */
export function metricsOf(perspective: PerspectiveId, suite: SuiteId = 'extended'): MetricDefinition[] {
  return suiteMetrics(suite).filter((m) => m.perspective === perspective);
}

/** Perspectives that have at least one metric in the suite, in SPEC order. */
export function suitePerspectives(suite: SuiteId = DEFAULT_SUITE): PerspectiveId[] {
  const metrics = suiteMetrics(suite);
  return PERSPECTIVES.filter((p) => metrics.some((m) => m.perspective === p));
}

/** Ids of the judge metrics (kind `judge`), in SPEC order. */
export const JUDGE_METRIC_IDS: readonly string[] = METRICS.filter((m) => m.kind === 'judge').map((m) => m.id);

/**
 * The module of a metric, by the layout convention `metrics/<perspective>/<id>.ts` (test/metrics/registry.test.ts
 * checks that every metric's module is there).
 */
export function metricModulePath(m: Pick<MetricDefinition, 'id' | 'perspective'>): string {
  return `metrics/${m.perspective}/${m.id}.ts`;
}

/** Position of a metric in SPEC order (unknown ids sort last), for ordering result columns. */
export function metricOrder(id: string): number {
  const i = METRIC_IDS.indexOf(id);
  return i < 0 ? 1e6 : i;
}
