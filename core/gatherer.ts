/**
 * The gatherer contract (Lighthouse's model: gather once, score many; its gatherers' `meta.dependencies` and its
 * audits' `requiredArtifacts` are the anchors). A gatherer collects one kind of evidence and says so in its
 * `meta`: the evidence needs it provides, the evidence parts it fills, what it reads or must come after, how
 * much of the artifact's time it must be left, whether it measures time. The runner (runner/gathering.ts)
 * derives everything else from those declarations, once for all gatherers: which gatherers run for the selected
 * metrics, their order, each one's deadline, the shared per-artifact resources' lives (`scope`), what a failure
 * becomes (the parts it fills are `missing` with the reason), and when metrics are scored while gathering goes
 * on (beside every gatherer but an `exclusive` one). A gatherer never calls back into scoring, and returns its
 * parts as plain data. The list of the product's gatherers is orchestration: runner/gatherers.ts.
 */
import type { Evidence } from './evidence.js';
import type { EvidenceNeed, MetricDefinition } from './metric.js';

/** The evidence parts a gatherer can fill (Evidence's gathered keys). */
export type EvidencePart = 'browser' | 'lighthouse' | 'interaction' | 'requirementTests' | 'remote' | 'judges' | 'network' | 'fidelity' | 'runtime';

/** A gatherer's parts of the evidence, as it returns them. */
export type GatheredParts = Partial<Pick<Evidence, EvidencePart>>;

/**
 * Something several gatherers share for one artifact (the browser gatherers' loopback site, their step gate):
 * opened by the first of them that asks, ended by the runner once, after the last gatherer of the artifact that
 * names it, and closed when the scorer closes.
 */
export interface GatherScope {
  readonly id: string;
  /** Runs one gatherer's work for `evidence` inside the scope (the browser's step gate). */
  within<T>(evidence: Evidence, work: () => Promise<T>): Promise<T>;
  /** The artifact's gatherers that use the scope are over: release what it opened, record what it saw. Never throws. */
  end(evidence: Evidence): Promise<void>;
  /**
   * Start what the scope's first artifact would otherwise start inside its time budget (a browser, threads), so a
   * batch's first artifacts are not the ones that pay for it (Scorer.warmUp). Optional; never throws.
   */
  warm?(): Promise<void>;
  /** Release processes and files. */
  close(): Promise<void>;
}

export interface GathererMeta {
  /** Its name: in timings, failures' reasons and other gatherers' `after`. */
  readonly id: string;
  /** The evidence needs it satisfies: it runs when a selected metric has one of them (see `active`). */
  readonly provides: readonly EvidenceNeed[];
  /** The evidence parts it fills (those become `missing` with the reason when it throws). */
  readonly fills: readonly EvidencePart[];
  /**
   * Parts another gatherer fills that it completes in place (the phone check's measurement inside `browser`): it
   * runs after their fillers.
   */
  readonly amends?: readonly EvidencePart[];
  /** Evidence needs it reads: the active gatherers providing them run before it. */
  readonly reads?: readonly EvidenceNeed[];
  /**
   * Evidence needs it reads and cannot measure as designed without (not named in `reads` as well): whenever it
   * runs, the gatherers providing them run too, before it, though no selected metric needs them (Lighthouse takes
   * how long to watch a page from what the visit saw: without the visit, `--only performance` waited 30 s on a
   * page that never rests and scored it over another window than the whole suite did).
   */
  readonly requires?: readonly EvidenceNeed[];
  /** Gatherers it runs after, when they run, though it reads nothing of theirs (so that it competes with none). */
  readonly after?: readonly string[];
  /** It collects what it began in `prepare` and `ready`: it runs after every other gatherer. */
  readonly last?: boolean;
  /** It measures time: nothing else of ours (no scoring) runs meanwhile; scoring started before it is awaited first. */
  readonly exclusive?: boolean;
  /**
   * What the gatherers before it must leave it and those after it of the artifact's budget: `ms`, or `share` of
   * the budget when that is less (a short budget is shared, not taken). A gatherer's deadline is the artifact's
   * deadline less the largest reserve of the active gatherers after it.
   */
  readonly reserve?: { readonly ms: number; readonly share: number };
  /** The shared per-artifact resource it uses. */
  readonly scope?: GatherScope;
}

/** What the runner gives a gatherer for one artifact. */
export interface GatherContext {
  /** The evidence so far: read only what `reads` names; write only what `amends` names. */
  readonly evidence: Evidence;
  /** Every need of the selected metrics. */
  readonly needs: ReadonlySet<EvidenceNeed>;
  /** The selected metrics (a judge gatherer asks only for the judges selected). */
  readonly metrics: readonly MetricDefinition[];
  /** The ids of the gatherers that run for this artifact. */
  readonly active: ReadonlySet<string>;
  /** performance.now() by which this gatherer must be over (its share of the artifact's budget). */
  readonly deadline: number;
  /** The artifact's whole budget in ms (for shares of it). */
  readonly budgetMs: number;
}

export interface Gatherer {
  readonly meta: GathererMeta;
  /**
   * Optional: whether it runs for these needs and this artifact (default: a selected metric needs one of
   * `provides`). Decided once, before any gatherer runs.
   */
  active?(needs: ReadonlySet<EvidenceNeed>, evidence: Evidence): boolean;
  /**
   * Optional: work that begins before any gatherer runs, once the artifact is loaded (Lighthouse's thread, the
   * judges that read only the source); `gather` finishes it. Must not throw.
   */
  prepare?(ctx: GatherContext): void;
  /** Its parts of the evidence. A part it cannot gather for the page's fault is `missing(reason)`, not a throw. */
  gather(ctx: GatherContext): Promise<GatheredParts>;
  /**
   * Optional: told once per need when the gatherers providing it are over (the screenshot judges start as soon
   * as the visit's screenshot is there). Must not throw, and must not wait.
   */
  ready?(evidence: Evidence, done: readonly EvidenceNeed[]): void;
  /** Optional: mark its parts failed where they are not one `fills` slot (the judges' answer per metric). */
  fail?(evidence: Evidence, reason: string): void;
  /** Release processes and files. Called once when the scorer closes. */
  close(): Promise<void>;
}

export interface GathererOptions {
  checkNetwork: boolean;
  /** Per-artifact time budget in ms. */
  budgetMs: number;
}

/**
 * Makes the gatherers of one kind for the scorer's options (several when they share a scope: the browser's).
 * A gatherer with settings of its own (the judges' endpoint, say) declares them by extending GathererOptions;
 * the orchestration passes the union of them all.
 */
export type GathererFactory<O extends GathererOptions = GathererOptions> = (options: O) => Gatherer[];
