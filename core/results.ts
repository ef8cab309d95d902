/**
 * The result formats (contract): one metric's result, the ScoreDocument of one artifact (what `webgrade score
 * --json` prints, SPEC "Machine-readable output") and the results row of a batch (a ScoreDocument plus who and
 * what it scored). runner/ writes them; weights/ reads them.
 */
import type { ProjectEvidence } from './project.js';
import type { MetricDetails, MetricKind, PerspectiveId, SuiteId } from './metric.js';
import type { NetworkRecord } from './network.js';
import type { ReferenceInput, ReferenceRecord } from './fidelity.js';

/** The reference of a score: what was used, or what was given and why it could not be used. */
export type ScoreReference = ReferenceRecord | { input: string; kind: ReferenceInput['kind']; unavailable: string };
import type { AlignmentStance } from './judge-answer.js';
import type { VisitClockMode } from './visit-clock.js';

export interface MetricResult {
  id: string;
  perspective: PerspectiveId;
  kind: MetricKind;
  title: string;
  score: number | null;
  reason?: string;
  summary?: string;
  details: MetricDetails;
  ms: number;
}

export interface PerspectiveSummary {
  /** Mean raw score (0–100) of the scorable metrics of the perspective that ran, or null. */
  meanScore: number | null;
  scored: number;
  unscorable: number;
}

export interface ScoreDocument {
  artifact: string;
  entry: string;
  /** The suite scored (SPEC "Suites"). */
  suite: SuiteId;
  /** The network mode and every CDN library version served while gathering (absent when no browser ran). */
  network?: NetworkRecord;
  /** The browser that gathered the evidence (`Chromium 150.0.7871.100`; absent when no browser ran). */
  browser?: string;
  requirement?: string;
  /** The reference the fidelity metrics compared against (absent without one). */
  reference?: ScoreReference;
  metrics: MetricResult[];
  perspectives: Partial<Record<PerspectiveId, PerspectiveSummary>>;
  /** Norm-based overall (see weights/); null when no norms apply. */
  overall: Record<string, unknown> | null;
  /** Milliseconds by phase (load, each gatherer, scoring). */
  timings: Record<string, number>;
  /** The pictures kept for the row (a batch worker with an evidence folder). */
  evidence?: RowEvidence;
  /** What the judges of this artifact cost (absent when no judge metric ran; runner/judge-cost.ts). */
  judgeCost?: JudgeCost;
  /** A project's install, build and output (core/project.ts); absent for pages and static folders. */
  project?: ProjectEvidence;
}

/** Tokens and money of one artifact's judge calls (cached answers cost nothing). */
export interface JudgeCost {
  calls: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  /** USD; null when a judge model has no price configured. */
  costUsd: number | null;
}

/** What decides a row's scores besides the page (runner/scoring-settings.ts); `webgrade merge` compares them. */
export interface ScoringSettings {
  /** webgrade's version. */
  webgrade: string;
  suite: SuiteId;
  /** The metric ids run (the suite's, or the `--only` selection), in suite order. */
  metrics: string[];
  /** Network mode (record/replay folders are machine paths and are left out). */
  network: string;
  lighthouseRuns: number;
  /** The visit's page clock (`--visit-clock`); absent in rows from before the option (they visited on real time). */
  visitClock?: VisitClockMode;
  budgetSeconds: number;
  checkNetwork: boolean;
  /** The alignment judges' stance (`--alignment`); absent = the study's. */
  alignment?: AlignmentStance;
  /** The fidelity viewports as `name:WxH` (`--viewports`); absent = the default set. */
  viewports?: string[];
  /**
   * The browser that gathered the evidence (`Chromium 150.0.7871.100`), as the scoring machine reports it.
   * Results of different browsers may be merged, with a warning: a release can change what pages show.
   */
  browser?: string;
}

export type RowStatus = 'ok' | 'failed';

/** One kept picture of a row (store/evidence-keep.ts). */
export interface EvidencePicture {
  /** Path relative to the results file's folder (WebP). */
  file: string;
  kind: 'desktop' | 'phone' | 'full-page' | 'metric' | 'crop';
  caption: string;
  /** The metric whose `illustrate` drew it (kind `metric`). */
  metric?: string;
  width: number;
  height: number;
  bytes: number;
}

/** The pictures a batch kept for a row (`batch`, unless `--no-evidence`). */
export interface RowEvidence {
  /** The row's folder, relative to the results file's folder. */
  folder: string;
  pictures: EvidencePicture[];
  /** Bytes of all pictures kept. */
  bytes: number;
  /** The per-artifact cap they were kept under. */
  cap: number;
  /** Pictures left out, each with why (over the cap, cannot be drawn). */
  dropped?: string[];
}

export interface ResultRow {
  model: string;
  requirement: string;
  /**
   * Which scoring of the artifact this row is (`batch --repeats n`: 1..n, each gathered anew); absent means 1.
   * A results file keeps one row per (model, requirement, repeat).
   */
  repeat?: number;
  /** The suite the artifact was scored with (absent in rows written before suites existed: study). */
  suite?: SuiteId;
  labels?: Record<string, string>;
  /** The reference the fidelity metrics compared against (absent without one). */
  reference?: ScoreReference;
  /** The scoring settings (batch and queue rows; absent in older rows). */
  settings?: ScoringSettings;
  status: RowStatus;
  error?: string;
  artifact: string;
  entry?: string;
  metrics: MetricResult[];
  perspectives?: Partial<Record<PerspectiveId, PerspectiveSummary>>;
  overall?: Record<string, unknown> | null;
  timings?: Record<string, number>;
  judgeCost?: JudgeCost;
  ms?: number;
  finishedAt?: string;
  /** The network mode and CDN libraries served (from the ScoreDocument; absent when no browser ran). */
  network?: NetworkRecord;
  /** The browser that gathered the evidence (from the ScoreDocument). */
  browser?: string;
  /** The pictures kept beside the results (absent with `--no-evidence` or in older rows). */
  evidence?: RowEvidence;
}
