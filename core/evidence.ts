/**
 * Evidence: everything gathered about one artifact before any metric scores it. Metrics are pure functions of
 * this object. Each gathered part is either present or carries the reason it is missing, so that a metric can
 * say "unscorable: <reason>" instead of guessing.
 */
import type { ProjectEvidence } from './project.js';
import type { Artifact } from './artifact/model.js';
import type { BrowserEvidence, InteractionEvidence } from './browser-evidence.js';
import type { Requirement } from './requirements.js';
import type { RequirementTestsEvidence } from './requirement-tests.js';
import type { NetworkModeId, NetworkRecord } from './network.js';
import type { FidelityEvidence, ReferenceInput } from './fidelity.js';
import type { RuntimeEvidence } from './runtime-evidence.js';

/** A gathered part: the value, or why it could not be gathered. */
export type Gathered<T> = { ok: true; value: T } | { ok: false; reason: string };

export function gathered<T>(value: T): Gathered<T> {
  return { ok: true, value };
}

export function missing<T = never>(reason: string): Gathered<T> {
  return { ok: false, reason };
}

/**
 * The value of a part a metric declared in its `needs`: the runner scores the metric only when the part is there
 * (runner/run-metric.ts `missingEvidence`), so a metric reads it without a guard. Throws when called otherwise.
 */
export function present<T>(part: Gathered<T> | undefined, what: string): T {
  if (!part?.ok) throw new Error(`${what} is missing (the metric was scored without the runner's evidence check)`);
  return part.value;
}

/** The parts of a Lighthouse result (LHR) that metrics read; the full report is kept for `--save-evidence`. */
export interface LighthouseEvidence {
  lighthouseVersion: string;
  /** Category scores 0..1 (null when Lighthouse could not compute one, e.g. no LCP). */
  categories: Record<string, { score: number | null; title: string }>;
  /** Audit results by id: score 0..1 or null, and Lighthouse's display value. */
  audits: Record<string, { score: number | null; scoreDisplayMode: string; title: string; displayValue?: string; errorMessage?: string }>;
  runWarnings: string[];
  /** Lighthouse's runtimeError code, when the run finished with one (e.g. NO_FCP). */
  runtimeError?: string;
  /**
   * With `--lighthouse-runs N` > 1: the performance score (0–1, null when Lighthouse could not compute one) of
   * every run, in run order; `categories.performance` and the performance audits are those of the median run
   * (`performanceRun`, 0-based). The other categories come from the first, full run.
   */
  performanceRuns?: Array<number | null>;
  performanceRun?: number;
  /**
   * Set when the first run's trace could not be read (gather/lighthouse.ts `traceFault`: Chrome's tracing, not the
   * page) and this report is from a second run: the first run's fault.
   */
  remeasured?: string;
  /** The whole LHR, for saving; metrics should not depend on it. */
  lhr?: unknown;
}

/** A remote URL check made with `--check-network`. */
export interface RemoteCheck {
  url: string;
  ok: boolean;
  status?: number;
  error?: string;
  /** How it was checked: over the network (`--check-network`), or through the CDN cache (network mode `cdn`). */
  via?: 'network' | 'cdn cache';
  /**
   * Not verified after all, with why (the CDN cache could not serve this URL form, or the registry could not be
   * reached): neither valid nor invalid.
   */
  unverified?: string;
}

/** What a judge answered, already parsed and validated (see `judges/`). */
export interface JudgeAnswer {
  model: string;
  promptVersion: string;
  /** Parsed, validated payload; its shape depends on the judge. */
  payload: unknown;
  /** Token and cost accounting, repeats, cache hits. */
  usage?: Record<string, unknown>;
  /** What judged (absent in evidence saved before it was recorded). */
  pin?: JudgePin;
}

/**
 * What judged an answer: the model asked, the models the provider says it served (`model` of each response, in
 * order of first appearance over repeats and retries), the `system_fingerprint`s it sent, its host and the prompt
 * version.
 */
export interface JudgePin {
  asked: string;
  served: string[];
  systemFingerprints: string[];
  host: string;
  promptVersion: string;
}

export interface EvidenceOptions {
  /** Remote URLs were checked (resource-validity); otherwise they are reported as unverified. */
  checkNetwork: boolean;
  /** The network mode (core/network.ts); absent means `cdn`. */
  network?: NetworkModeId;
}

export interface Evidence {
  artifact: Artifact;
  options: EvidenceOptions;
  requirement?: Requirement;
  /** Present when a metric that needs the browser was requested. */
  browser?: Gathered<BrowserEvidence>;
  lighthouse?: Gathered<LighthouseEvidence>;
  /** The interaction probe's log (present when a metric that needs `interaction` was requested). */
  interaction?: Gathered<InteractionEvidence>;
  /** The requirement's tests run in the browser (present when `requirement-tests` was requested). */
  requirementTests?: Gathered<RequirementTestsEvidence>;
  /** Remote URL checks keyed by URL (only with --check-network). */
  remote?: Gathered<Record<string, RemoteCheck>>;
  /** Judge answers keyed by metric id. */
  judges?: Record<string, Gathered<JudgeAnswer>>;
  /** The network mode and the CDN libraries served while gathering (set by the browser gatherer). */
  network?: NetworkRecord;
  /** The reference the page should reproduce (`--reference`; the fidelity metrics), as given. */
  reference?: ReferenceInput;
  /** Both pages rendered at every fidelity viewport (present when a reference was given and a fidelity metric ran). */
  fidelity?: Gathered<FidelityEvidence>;
  /** A project's install, build and output (core/project.ts); absent for pages and static folders. */
  project?: ProjectEvidence;
  /** The page watched while it runs and is used, on real time (present when a runtime performance metric ran). */
  runtime?: Gathered<RuntimeEvidence>;
}

/** Evidence with only the static parts, for rule metrics that read source and DOM. */
export function staticEvidence(artifact: Artifact, options: Partial<EvidenceOptions> = {}): Evidence {
  return { artifact, options: { checkNetwork: false, ...options } };
}
