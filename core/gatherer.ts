/**
 * The gatherer contract (Lighthouse's model: gather once, score many). Each gatherer provides some evidence
 * needs; the scorer (runner/score.ts) runs only the gatherers whose needs the selected metrics have, once per
 * artifact, and keeps them alive across artifacts (a batch reuses one browser). The list of the product's
 * gatherers is orchestration: runner/gatherers.ts.
 */
import type { Evidence } from './evidence.js';
import type { EvidenceNeed, MetricDefinition } from './metric.js';

export interface GatherRequest {
  /** Every need of the selected metrics. */
  needs: ReadonlySet<EvidenceNeed>;
  /** The selected metrics (a judge gatherer asks only for the judges selected). */
  metrics: readonly MetricDefinition[];
  /** Milliseconds this artifact may still spend. */
  budgetMs: number;
  /**
   * Scoring work that can run while this gatherer is still busy. Each call scores, now, the selected metrics
   * whose evidence is complete: gathered by earlier gatherers, or among `done`, the needs of this gatherer that
   * it declares finished (it must not change that evidence afterwards). A gatherer calls it at moments when
   * extra CPU work cannot distort what it measures, and awaits it before a timing-sensitive phase. Calls run
   * one after another; the promise settles when everything asked for so far is scored. Whatever is left is
   * scored after `gather`.
   */
  background?: (done?: readonly EvidenceNeed[]) => Promise<void>;
}

export interface Gatherer {
  name: string;
  provides: readonly EvidenceNeed[];
  /** Fill its part of the evidence. Must not throw for page faults: record a `missing(reason)` instead. */
  gather(evidence: Evidence, request: GatherRequest): Promise<void>;
  /**
   * Optional: begin work that needs only the loaded artifact, before any gatherer runs (the judges that read only
   * the source); `gather` finishes it. Must not throw.
   */
  start?(evidence: Evidence, request: Pick<GatherRequest, 'metrics'>): void;
  /**
   * Optional: told once per need when another gatherer's part of the evidence is complete, possibly before that
   * gatherer returns (the visit's screenshot is ready before Lighthouse measures): the screenshot judges start
   * then. Must not throw, and must not wait.
   */
  ready?(evidence: Evidence, done: readonly EvidenceNeed[]): void;
  /** Record `reason` as the cause of every part this gatherer fills (called if `gather` threw anyway). */
  fail(evidence: Evidence, reason: string): void;
  /** Release processes and files (browsers, servers). Called once when the scorer closes. */
  close(): Promise<void>;
}

export interface GathererOptions {
  checkNetwork: boolean;
  /** Per-artifact time budget in ms. */
  budgetMs: number;
}

/**
 * Makes a gatherer for the scorer's options. A gatherer with settings of its own (the judges' endpoint, say)
 * declares them by extending GathererOptions; the orchestration passes the union of them all.
 */
export type GathererFactory<O extends GathererOptions = GathererOptions> = (options: O) => Gatherer;
