/**
 * The metric contract. Every metric is one module exporting a `MetricDefinition`, and that module is the only
 * place where the metric is declared: its number, id, perspective, kind, the evidence it reads (`needs`), its
 * title, its one-sentence question and its suite, next to a `score` function that is a pure function of that
 * evidence (same evidence, same outcome; no I/O of its own). Everything else (the catalogue, the judge list,
 * the survey items, the counts in every output, the README metric table) derives from the registry
 * (`metrics/registry.ts`), which lists the modules. Gathering (browser, Lighthouse, judges, network checks)
 * happens before scoring, in `runner/`.
 */
import type { Evidence } from './evidence.js';

/** The study's 9 perspectives (SPEC "The 24 metrics"), in SPEC order. */
export const STUDY_PERSPECTIVES = [
  'code',
  'visual',
  'content',
  'performance',
  'accessibility',
  'maintainability',
  'functional-alignment',
  'visual-alignment',
  'content-alignment',
] as const;

/** Perspectives the extended suite adds (SPEC "Suites"); `fidelity` exists only when a reference is given. */
export const ADDED_PERSPECTIVES = ['interaction', 'fidelity'] as const;

/** Every perspective id, study ones first. */
export const PERSPECTIVES = [...STUDY_PERSPECTIVES, ...ADDED_PERSPECTIVES] as const;
export type PerspectiveId = (typeof PERSPECTIVES)[number];
export type StudyPerspectiveId = (typeof STUDY_PERSPECTIVES)[number];

/**
 * Suites (SPEC "Suites"): `study` is exactly the study's 24 metrics in its 9 perspectives, scored as the study
 * defines them (the default everywhere); `extended` is the study suite plus the metrics this project adds.
 */
export const SUITES = ['study', 'extended'] as const;
export type SuiteId = (typeof SUITES)[number];
export const DEFAULT_SUITE: SuiteId = 'study';

export function isSuiteId(s: string): s is SuiteId {
  return (SUITES as readonly string[]).includes(s);
}

export type MetricKind = 'rule' | 'judge';

/**
 * What a metric reads. A metric declares the evidence it cannot score without (`needs`) apart from the evidence
 * it reads when there is some (`optional`). The runner gathers both for a `--only` subset, and marks the metric
 * unscorable with the gatherer's reason when a required one is missing (runner/run-metric.ts `missingEvidence`),
 * so a metric's `score` never guards its required inputs. The kinds:
 * - `source`: the static artifact model (files, HTML, CSS/JS blocks, resources); always available;
 * - `dom`: the static DOM of the entry page (jsdom, no scripts run); always available;
 * - `browser`: the browser session evidence (runtime DOM, console, network, coverage, features, icons, media);
 * - `screenshot`: screenshots from the browser session;
 * - `mobile`: the iPhone 12 Pro measurement (`browser.mobile`); usually taken inside the Lighthouse run, so it
 *   is complete later than the rest of the browser evidence;
 * - `lighthouse`: the one Lighthouse report of the artifact;
 * - `interaction`: the interaction probe (`Evidence.interaction`): the first view, the page's controls acted on
 *   one by one from a restored start state, the in-app navigation followed, and the JS coverage over all of it;
 *   gathered only when a selected metric needs it (it loads the page once per action);
 * - `requirement-tests`: the requirement's tests run in the browser from the probe's restored start state
 *   (`Evidence.requirementTests`; gather/interaction/requirement-tests/);
 * - `requirement`: the user's requirement text; `checklist`: its checklist items;
 * - `judge`: an LLM judge answer gathered before scoring;
 * - `network`: remote URL checks (only with `--check-network`);
 * - `reference`: the candidate and the reference rendered at the fidelity viewports (only with a reference).
 */
export type EvidenceNeed =
  | 'source'
  | 'dom'
  | 'browser'
  | 'screenshot'
  | 'mobile'
  | 'lighthouse'
  | 'interaction'
  | 'requirement-tests'
  | 'requirement'
  | 'checklist'
  | 'judge'
  | 'network'
  | 'reference';

/** Free-form but JSON-serialisable explanation of a score: the elements, lines or rules behind it. */
export type MetricDetails = Record<string, unknown>;

export interface ScoredOutcome {
  score: number;
  /** One line that explains the score to a person (shown in the table). */
  summary: string;
  details: MetricDetails;
}

export interface UnscorableOutcome {
  score: null;
  /** Why nothing could be measured: nothing to measure, a tool failed, a time limit hit, no judge configured. */
  reason: string;
  details: MetricDetails;
}

export type MetricOutcome = ScoredOutcome | UnscorableOutcome;

/**
 * Which judge prompt a judge metric asks (judges/gatherer.ts builds it): the functionality criteria, the visual
 * experience rating, or checklist alignment over one kind of checklist items.
 */
export type JudgeSpec = { prompt: 'functionality' } | { prompt: 'visual-experience' } | { prompt: 'alignment'; items: AlignmentKind };
export type AlignmentKind = 'functional' | 'visual' | 'content';

export interface MetricDefinition {
  /** SPEC number: 1–24 for the study's metrics in SPEC order, then the extended metrics in SPEC's order. */
  number: number;
  id: string;
  perspective: PerspectiveId;
  kind: MetricKind;
  /** The evidence the metric cannot score without: when one is missing the runner gives its reason instead. */
  needs: readonly EvidenceNeed[];
  /** Evidence the metric reads when it was gathered and scores without otherwise (gathered like `needs`). */
  optional?: readonly EvidenceNeed[];
  /**
   * `heavy`: static work that takes long on a large page (several linters, every sentence); scored after the
   * others in the static thread, so that when the budget runs out the quick metrics already have their results.
   */
  cost?: 'heavy';
  /** Short human title, e.g. "Console errors". */
  title: string;
  /** One plain-language question the metric answers (help text, survey, README table). */
  question: string;
  /** `study`: one of the study's 24 (in both suites); `extended`: only in the extended suite. */
  suite: SuiteId;
  /** For judge metrics: which prompt the judge gatherer asks. */
  judge?: JudgeSpec;
  score(evidence: Evidence): MetricOutcome | Promise<MetricOutcome>;
  /**
   * Optional: annotated pictures that explain a score (written by `webgrade score --explain <id> --out <dir>`),
   * e.g. detected boxes over the screenshot. Drawn from the same evidence and the outcome `score` returned.
   */
  illustrate?(evidence: Evidence, outcome: MetricOutcome): Promise<MetricPicture[]>;
}

/** One explanatory picture: a PNG and a one-line caption saying what it shows. */
export interface MetricPicture {
  /** File name stem, e.g. "boxes" (written as `<metric-id>-<name>.png`). */
  name: string;
  png: Buffer;
  caption: string;
}

export function scored(score: number, summary: string, details: MetricDetails = {}): ScoredOutcome {
  if (!Number.isFinite(score)) throw new Error(`metric produced a non-finite score (${score})`);
  const clamped = Math.min(100, Math.max(0, score));
  return { score: clamped, summary, details };
}

export function unscorable(reason: string, details: MetricDetails = {}): UnscorableOutcome {
  return { score: null, reason, details };
}

/** Every evidence a metric reads, required and optional: what must be gathered for it. */
export function allNeeds(m: Pick<MetricDefinition, 'needs' | 'optional'>): readonly EvidenceNeed[] {
  return m.optional?.length ? [...m.needs, ...m.optional] : m.needs;
}
