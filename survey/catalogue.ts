/**
 * What the survey asks: the respondent roles, the perspectives of the suite it serves (the study's 9, or the
 * extended suite's, which adds its own perspectives) with one plain sentence each, and the metrics inside every
 * perspective (ids, titles and questions from the metric modules, through the registry). The server, the page
 * and the `survey weights` command all read this one description.
 */
import { DEFAULT_SUITE, type PerspectiveId, type SuiteId } from '../core/metric.js';
import { metricsOf as registryMetricsOf, suitePerspectives } from '../metrics/registry.js';
import { PERSONA_TITLES } from '../weights/personas.js';

/** Respondent roles: SPEC's 7 persona columns plus `other`. `all` is not a role: it pools every respondent. */
export const ROLE_IDS = ['dev', 'qa', 'ds', 'pm', 'ops', 'legal', 'designer', 'other'] as const;
export type RoleId = (typeof ROLE_IDS)[number];

/** The persona titles of the leaderboard, so that a role reads the same in the survey and in the results. */
export const ROLE_TITLES: Record<RoleId, string> = {
  dev: PERSONA_TITLES.dev,
  qa: PERSONA_TITLES.qa,
  ds: PERSONA_TITLES.ds,
  pm: PERSONA_TITLES.pm,
  ops: PERSONA_TITLES.ops,
  legal: PERSONA_TITLES.legal,
  designer: PERSONA_TITLES.designer,
  other: 'Other',
};

export function isRoleId(id: unknown): id is RoleId {
  return typeof id === 'string' && (ROLE_IDS as readonly string[]).includes(id);
}

export const PERSPECTIVE_TITLES: Record<PerspectiveId, string> = {
  code: 'Code quality',
  visual: 'Visual design',
  content: 'Content',
  performance: 'Performance',
  accessibility: 'Accessibility and compatibility',
  maintainability: 'Maintainability',
  'functional-alignment': 'Does what was asked',
  'visual-alignment': 'Looks as asked',
  'content-alignment': 'Says what was asked',
  interaction: 'Works when used',
  fidelity: 'Matches the reference design',
};

/** One plain sentence per perspective, shown next to it in the survey. */
export const PERSPECTIVE_DESCRIPTIONS: Record<PerspectiveId, string> = {
  code: 'The code works correctly, handles errors, follows good practice and runs without errors.',
  visual: 'The app looks attractive and tidy, with consistent components, icons, alignment, spacing and colours.',
  content: 'The text is well written and the images, videos and other files are real, sharp and actually load.',
  performance: 'The app loads fast and responds quickly.',
  accessibility: 'Everyone can use the app: with assistive technology, in any major browser and on a phone.',
  maintainability: 'The code is lean and explained, so that someone else can change it later.',
  'functional-alignment': 'The app has every feature and behaviour the person asked for.',
  'visual-alignment': 'The app looks the way the person asked it to look.',
  'content-alignment': 'The app contains the text and information the person asked for.',
  interaction: 'The app runs, its buttons and controls do something, and its pages and tabs can be reached.',
  fidelity: 'The app reproduces the reference page or picture it was asked to copy, on desktop, tablet and phone.',
};

export interface SurveyMetric {
  id: string;
  title: string;
  description: string;
}

/** Metrics of a perspective in a suite, in SPEC order. */
export function metricsOf(perspective: PerspectiveId, suite: SuiteId = DEFAULT_SUITE): SurveyMetric[] {
  return registryMetricsOf(perspective, suite).map((m) => ({ id: m.id, title: m.title, description: m.question }));
}

/** The perspectives respondents rank for a suite (every perspective of the suite). */
export function surveyPerspectives(suite: SuiteId = DEFAULT_SUITE): PerspectiveId[] {
  return suitePerspectives(suite);
}

/** Perspectives with more than one metric in the suite: the ones whose metrics respondents rank. */
export function rankedMetricPerspectives(suite: SuiteId = DEFAULT_SUITE): PerspectiveId[] {
  return surveyPerspectives(suite).filter((p) => metricsOf(p, suite).length > 1);
}

/** Everything the page needs, as plain JSON. */
export interface SurveyDefinition {
  suite: SuiteId;
  roles: { id: RoleId; title: string }[];
  perspectives: { id: PerspectiveId; title: string; description: string }[];
  metrics: { perspective: PerspectiveId; title: string; items: SurveyMetric[] }[];
}

export function surveyDefinition(suite: SuiteId = DEFAULT_SUITE): SurveyDefinition {
  return {
    suite,
    roles: ROLE_IDS.map((id) => ({ id, title: ROLE_TITLES[id] })),
    perspectives: surveyPerspectives(suite).map((id) => ({ id, title: PERSPECTIVE_TITLES[id], description: PERSPECTIVE_DESCRIPTIONS[id] })),
    metrics: rankedMetricPerspectives(suite).map((p) => ({ perspective: p, title: PERSPECTIVE_TITLES[p], items: metricsOf(p, suite) })),
  };
}
