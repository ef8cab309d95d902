/**
 * The contract between the judge gatherer (judges/) and the judge metrics (metrics/): the shape of a judge's
 * validated answer for each prompt, the functionality criteria and visual aspects both sides name, and the
 * reasons given when a judge cannot be asked. The gatherer fills `Evidence.judges[metricId]` with a
 * `JudgeAnswer` whose `payload` is a `JudgePayload` of one of these answer types; the metrics read it.
 */
import type { AlignmentKind } from './metric.js';

export type { AlignmentKind };

/** What `JudgeAnswer.payload` holds for every judge metric. */
export interface JudgePayload<T = unknown> {
  /** The valid answers of every repeat (`--judge-repeats`), in repeat order. */
  repeats: T[];
  /** Why the other repeats failed. */
  failedRepeats: string[];
  /** What the prompt held (truncation, items, screenshot or not). */
  context: Record<string, unknown>;
}

// functionality-correctness: ten criteria, 0–10 each (SPEC #1)

/** The ten criteria of SPEC #1, in SPEC order; the prompt asks each question, the metric names them. */
export const FUNCTIONALITY_CRITERIA: ReadonlyArray<{ id: string; title: string; question: string }> = [
  {
    id: 'completeness',
    title: 'Completeness and business logic',
    question: 'Is every feature the requirement asks for present, and is its logic right (rules, calculations, state transitions)?',
  },
  {
    id: 'output-validation',
    title: 'Output validation',
    question: 'Are results shown to the user checked and formatted correctly (numbers, units, rounding, dates, empty results, NaN/undefined never shown)?',
  },
  {
    id: 'forms-flows',
    title: 'Forms and critical flows',
    question:
      'Do forms validate their input and give feedback, and do the main flows (submit, confirm, cancel, navigate, reset) complete without dead buttons or dead ends?',
  },
  {
    id: 'data-plausibility',
    title: 'Data and domain plausibility',
    question: 'Are sample data, formulas and facts (scientific, financial, geographic, ...) plausible and correct for the domain?',
  },
  {
    id: 'list-states',
    title: 'List and card states',
    question: 'Do lists, cards and tables handle their empty, loading, error, single-item and overflowing states?',
  },
  {
    id: 'boundary-conditions',
    title: 'Boundary conditions',
    question: 'Are zero, negative, very large, empty, duplicate and malformed inputs handled without breaking the app?',
  },
  {
    id: 'security',
    title: 'Security',
    question:
      'Is user input kept out of innerHTML/eval/document.write unless escaped, are there no secrets in the code, and are external links and embeds safe?',
  },
  {
    id: 'branch-state-coverage',
    title: 'Branch and state coverage',
    question: 'Is every UI state and mode reachable and consistent (toggles, tabs, modes, game over/restart, reset), with no branch left unimplemented?',
  },
  {
    id: 'data-flow',
    title: 'Data-flow consistency',
    question: 'Do the app state, storage and what is displayed stay in sync after every action (add, edit, delete, reload)?',
  },
  {
    id: 'async-errors',
    title: 'Asynchronous error handling',
    question: 'Do fetches, timers and promises handle failure and slowness (catch, timeout, retry or message to the user)?',
  },
];

export interface CriterionRating {
  id: string;
  score: number;
  reason: string;
}

export interface CriteriaAnswer {
  criteria: CriterionRating[];
}

// visual-experience: one rating plus four aspects (SPEC #6)

export const VISUAL_ASPECTS = ['aesthetics', 'hierarchy', 'consistency', 'fit'] as const;

/** The visual judge's scale: 0–4 with at most this many decimals (the study's). */
export const VISUAL_DECIMALS = 2;

export interface VisualAnswer {
  score: number;
  aspects: Record<(typeof VISUAL_ASPECTS)[number], number>;
  reason: string;
  /** Ratings the judge gave with more than two decimals, as given and as kept (rounded to two). */
  rounded?: Array<{ field: string; given: number; kept: number }>;
}

// alignment: exactly one verdict per checklist item (SPEC #22–#24)

/**
 * How an alignment judge reads "implemented" (a judge setting, `--alignment`):
 * - `study` (the default): the study's stance. The app is an early version; the judge decides at a high level
 *   whether the developer understood and addressed each checklist item, without verifying that the
 *   implementation is correct or complete. An item counts when the code contains the feature for it, even when
 *   it is unfinished, simplified or works on mock data (the study's generation prompt tells models to mock back
 *   ends). Whether the features work is `functionality-correctness`'s question.
 * - `strict`: ours. An item counts only when it is implemented so that it works; stubs, TODOs, fake data in place
 *   of the feature and unreachable code fail.
 * The stance enters the prompt and its version, so answers cached under one stance are never reused for the
 * other, and every alignment result names its stance (`details.stance`, and the summary).
 */
export const ALIGNMENT_STANCES = ['study', 'strict'] as const;
export type AlignmentStance = (typeof ALIGNMENT_STANCES)[number];
export const DEFAULT_ALIGNMENT_STANCE: AlignmentStance = 'study';

export function isAlignmentStance(s: unknown): s is AlignmentStance {
  return typeof s === 'string' && (ALIGNMENT_STANCES as readonly string[]).includes(s);
}

export interface Verdict {
  item: string;
  passed: boolean;
  reason: string;
  excerpt: string;
}

export interface VerdictsAnswer {
  verdicts: Verdict[];
}

export const NO_REQUIREMENT_REASON = 'no requirement given (--requirement <file#id> or --requirement-text)';

export function noChecklistReason(kind: AlignmentKind): string {
  return `no ${kind} checklist items (give a requirement with a checklist, or derive one with \`webgrade checklist\`)`;
}
