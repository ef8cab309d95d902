/**
 * The gatherers' runner: everything about gathering one artifact that is not one gatherer's own business,
 * derived from the gatherers' declarations (core/gatherer.ts), once for all of them.
 *
 * - Which: a gatherer runs when a selected metric needs one of the needs it provides (or its own `active` says),
 *   or when a gatherer that runs `requires` one of them.
 * - Order: a gatherer runs after the active gatherers that provide what it `reads` or `requires`, that fill what it `amends`,
 *   and those it names in `after`; `last` ones after every other; otherwise in the order given (the registry's).
 *   A cycle is a programming error, reported at once (planGathering throws).
 * - Time: a gatherer's deadline is the artifact's deadline less the largest `reserve` of the active gatherers
 *   after it (Lighthouse's 25 s is left to it and everything after it; a short budget is shared by `share`).
 * - Failures: a gatherer that throws has the parts it `fills` marked `missing` with "<id> failed: <error>" (its
 *   `fail` for parts of another shape), and the run goes on; nothing else of it is the runner's concern.
 * - Scopes: a shared per-artifact resource (the browser's site) wraps each of its gatherers' work and is ended
 *   once, after the last of them.
 * - Scoring while gathering: `score(done)` is called with the needs complete so far, as soon as the run starts
 *   (the static metrics need nothing gathered) and after each gatherer; calls run one after another and beside
 *   the next gatherers, except that an `exclusive` gatherer (one that measures time) starts only once scoring
 *   asked for so far is over, and nothing is asked while it runs.
 * - Ready: each need is announced once, when every active gatherer providing it is over, to the other
 *   gatherers' `ready` and to `onReady`.
 */
import type { Evidence } from '../core/evidence.js';
import { missing } from '../core/evidence.js';
import { errorMessage } from '../core/errors.js';
import type { EvidenceNeed, MetricDefinition } from '../core/metric.js';
import type { EvidencePart, GatherContext, Gatherer, GatherScope } from '../core/gatherer.js';

export interface GatheringRequest {
  needs: ReadonlySet<EvidenceNeed>;
  metrics: readonly MetricDefinition[];
  /** The artifact's budget in ms, counted from `start`. */
  budgetMs: number;
  /** performance.now() when the artifact's run began (default now). */
  start?: number;
  /**
   * Scores the selected metrics whose needs are all among `complete` (and not yet scored). Called by the runner
   * only, one call at a time; see the module comment for when.
   */
  score?: (complete: ReadonlySet<EvidenceNeed>) => Promise<void>;
  /** Told once per need when it is complete (after the gatherers' own `ready`). */
  onReady?: (evidence: Evidence, done: readonly EvidenceNeed[]) => void;
}

export interface GatheringReport {
  /** Per gatherer id, ms from its start to its end. */
  timings: Record<string, number>;
  /** The ids in the order they ran. */
  order: string[];
  /** ms spent scoring beside gathering. */
  scoredWhileGatheringMs: number;
}

/** The gatherers that run for `needs` on `evidence`, in the order they run. Throws on a cycle in the declarations. */
export function planGathering(gatherers: readonly Gatherer[], needs: ReadonlySet<EvidenceNeed>, evidence: Evidence): Gatherer[] {
  const active = gatherers.filter((g) => (g.active ? g.active(needs, evidence) : g.meta.provides.some((n) => needs.has(n))));
  // What an active gatherer `requires` makes its providers active too (and so on, for theirs).
  for (let i = 0; i < active.length; i++)
    for (const n of active[i]!.meta.requires ?? [])
      if (!active.some((g) => g.meta.provides.includes(n))) active.push(...gatherers.filter((g) => g.meta.provides.includes(n)));
  active.sort((a, b) => gatherers.indexOf(a) - gatherers.indexOf(b));
  const before = new Map<Gatherer, Set<Gatherer>>();
  for (const g of active) {
    const deps = new Set<Gatherer>();
    for (const h of active) {
      if (h === g) continue;
      const m = g.meta;
      if ([...(m.reads ?? []), ...(m.requires ?? [])].some((n) => h.meta.provides.includes(n))) deps.add(h);
      if (m.amends?.some((p) => h.meta.fills.includes(p))) deps.add(h);
      if (m.after?.includes(h.meta.id)) deps.add(h);
      if (m.last && !h.meta.last) deps.add(h);
    }
    before.set(g, deps);
  }
  const order: Gatherer[] = [];
  const placed = new Set<Gatherer>();
  while (order.length < active.length) {
    const next = active.find((g) => !placed.has(g) && [...before.get(g)!].every((h) => placed.has(h)));
    if (!next) {
      const stuck = active.filter((g) => !placed.has(g)).map((g) => g.meta.id);
      throw new Error(`the gatherers' declarations form a cycle among: ${stuck.join(', ')}`);
    }
    order.push(next);
    placed.add(next);
  }
  return order;
}

/** The deadline of each gatherer of `order`: the artifact's end less the largest reserve of those after it. */
export function deadlines(order: readonly Gatherer[], start: number, budgetMs: number): number[] {
  const end = start + budgetMs;
  const out = new Array<number>(order.length);
  let reserve = 0;
  for (let i = order.length - 1; i >= 0; i--) {
    out[i] = end - reserve;
    const r = order[i]!.meta.reserve;
    if (r) reserve = Math.max(reserve, Math.min(r.ms, budgetMs * r.share));
  }
  return out;
}

/** Gather one artifact's evidence with the gatherers that its needs make active (see the module comment). */
export async function gatherEvidence(gatherers: readonly Gatherer[], evidence: Evidence, req: GatheringRequest): Promise<GatheringReport> {
  const start = req.start ?? performance.now();
  const order = planGathering(gatherers, req.needs, evidence);
  const ends = deadlines(order, start, req.budgetMs);
  const activeIds = new Set(order.map((g) => g.meta.id));
  const report: GatheringReport = { timings: {}, order: order.map((g) => g.meta.id), scoredWhileGatheringMs: 0 };
  const context = (i: number): GatherContext => ({
    evidence,
    needs: req.needs,
    metrics: req.metrics,
    active: activeIds,
    deadline: ends[i]!,
    budgetMs: req.budgetMs,
  });

  // Needs still to come: those an active gatherer provides, until every such gatherer is over.
  const providers = new Map<EvidenceNeed, number>();
  for (const g of order) for (const n of g.meta.provides) providers.set(n, (providers.get(n) ?? 0) + 1);
  const complete = (): ReadonlySet<EvidenceNeed> => {
    const all = new Set<EvidenceNeed>(req.needs);
    for (const [n, left] of providers) if (left > 0) all.delete(n);
    return all;
  };
  const announced = new Set<EvidenceNeed>();
  const announce = (from: Gatherer) => {
    const fresh = from.meta.provides.filter((n) => providers.get(n) === 0 && !announced.has(n));
    if (fresh.length === 0) return;
    for (const n of fresh) announced.add(n);
    for (const g of order) if (g !== from) callSafely(() => g.ready?.(evidence, fresh));
    req.onReady?.(evidence, fresh);
  };

  let scoring: Promise<void> = Promise.resolve();
  const scoreNow = () => {
    if (!req.score) return;
    const done = complete();
    const score = req.score;
    scoring = scoring.then(async () => {
      const t = performance.now();
      await score(done);
      report.scoredWhileGatheringMs += performance.now() - t;
    });
  };

  for (const [i, g] of order.entries()) callSafely(() => g.prepare?.(context(i)));
  scoreNow();

  const lastOfScope = new Map<GatherScope, Gatherer>();
  for (const g of order) if (g.meta.scope) lastOfScope.set(g.meta.scope, g);
  try {
    for (const [i, g] of order.entries()) {
      if (g.meta.exclusive) await scoring;
      const t = performance.now();
      try {
        const work = () => g.gather(context(i));
        const parts = g.meta.scope ? await g.meta.scope.within(evidence, work) : await work();
        Object.assign(evidence, parts);
      } catch (err) {
        markFailed(g, evidence, `${g.meta.id} failed: ${errorMessage(err)}`);
      } finally {
        report.timings[g.meta.id] = Math.round((performance.now() - t) * 100) / 100;
      }
      if (g.meta.scope && lastOfScope.get(g.meta.scope) === g) await g.meta.scope.end(evidence);
      for (const n of g.meta.provides) if (providers.has(n)) providers.set(n, providers.get(n)! - 1);
      announce(g);
      scoreNow();
    }
  } finally {
    // A run cut short by a throw (a cycle cannot get here) still ends its scopes.
    for (const [scope, g] of lastOfScope) if (report.timings[g.meta.id] === undefined) await scope.end(evidence);
  }
  await scoring;
  return report;
}

function markFailed(g: Gatherer, evidence: Evidence, reason: string): void {
  const slots = evidence as Partial<Record<EvidencePart, unknown>>;
  for (const p of g.meta.fills) {
    if (p === 'judges' || p === 'network') continue; // not one Gathered slot: the gatherer's `fail` marks them
    slots[p] ??= missing(reason);
  }
  callSafely(() => g.fail?.(evidence, reason));
}

function callSafely(f: () => void): void {
  try {
    f();
  } catch {
    /* a gatherer's prepare/ready/fail must not throw; if one does, the run goes on */
  }
}
