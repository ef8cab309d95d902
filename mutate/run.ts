/**
 * The mutation runner: apply operators to a page, one at a time, into a temporary copy of the artifact; score
 * the original and each mutant with the same settings; report, per operator, whether each target metric saw the
 * defect and which other metrics moved.
 *
 * Detection rule (documented choice). The original is scored `repeats` times. For each metric, base = the median
 * of its scores over those runs and noise = their range (max − min). A target **detects** the mutant when both
 * are scorable and `base − mutant > noise`: it dropped by more than the original's own run-to-run spread. With
 * one repeat the noise is 0 and any drop counts (the output says so); use `--repeats 3` for the noisy
 * Lighthouse metrics. A target that cannot drop is not counted as a miss but reported why (`notes`): unscorable
 * on the original, or already at 0 (the floor). A target unscorable on the mutant does not detect. An operator
 * that `inserts` the measured feature with its defect (mutate/operator.ts) is also judged where the target was
 * unscorable on every score of the original (nothing to measure): it detects when the mutant scores below 100.
 * A metric **moved** when `|mutant − base| > noise`, or when it became scorable or unscorable; moves of
 * non-target metrics are listed, each marked `expected` when the operator names that metric as collateral
 * (mutate/operator.ts), otherwise a false move.
 *
 * What is scored, and what it costs (the `--scope` trade-off):
 * - `all` (default): the original and every mutant are scored on every rule metric of the suite, so false moves
 *   are measured everywhere. Cost: a full score per mutant, dominated by its Lighthouse run (about 5 s per page
 *   on an idle 2-core machine, 10–15 s under load), so N operators cost about (N + repeats) full scores. Judge
 *   metrics are left out in every scope: no operator targets them, and each mutant would be new LLM calls.
 * - `targets`: each mutant is scored only on its targets (the Scorer's `only`) plus the metrics whose evidence
 *   those targets gather anyway (a lint mutant needs no browser and costs milliseconds; a layout mutant needs the
 *   visit but no Lighthouse). The original is scored with the same subset, once per distinct subset, so base and
 *   mutant always come from the same gatherers (mobile-compat measured inside Lighthouse or by a separate visit
 *   is not mixed). False moves then cover only those metrics; each operator lists them (`measured`).
 * The gatherers (one Chrome, one Lighthouse thread) are shared by every scorer of the runner and closed once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readArtifactFile } from '../lib/artifact/load.js';
import { errorMessage, InputError } from '../core/errors.js';
import { DEFAULT_SUITE, allNeeds, type EvidenceNeed, type MetricDefinition, type SuiteId } from '../core/metric.js';
import type { NetworkSettings } from '../core/network.js';
import type { ScoreDocument } from '../core/results.js';
import { findMetric, suiteMetrics } from '../metrics/registry.js';
import { closeGatherers, productGatherers, type Gatherer, type ScorerGathererOptions } from '../runner/gatherers.js';
import type { VisitClockMode } from '../core/visit-clock.js';
import { DEFAULT_BUDGET_MS, Scorer } from '../runner/score.js';
import type { MutationOperator } from './operator.js';
import { Mutation, PageModel } from './page.js';
import { OPERATORS, findOperator } from './registry.js';

export const SCOPES = ['all', 'targets'] as const;
export type Scope = (typeof SCOPES)[number];
export const MAX_REPEATS = 10;

export interface MutateOptions {
  suite?: SuiteId;
  scope?: Scope;
  /** Scores of the original (≥ 1); their spread is the noise. */
  repeats?: number;
  /** Operator ids (default: all). */
  operators?: string[];
  network?: NetworkSettings;
  checkNetwork?: boolean;
  budgetMs?: number;
  lighthouseRuns?: number;
  /** The visit's page clock (`--visit-clock`). */
  visitClock?: VisitClockMode;
  /** Write each mutant into `<keepDir>/<operator>/` and keep it (default: a temporary folder, removed). */
  keepDir?: string;
  /** One line per step, for a progress display. */
  progress?: (line: string) => void;
  /** Override the gatherers (tests). */
  gatherers?: Gatherer[];
}

export interface Move {
  id: string;
  base: number | null;
  mutant: number | null;
  /** The operator names this metric as collateral: a consequence of the defect, not a false move. */
  expected: boolean;
}

export interface OperatorResult {
  id: string;
  targets: string[];
  applied: boolean;
  /** Why the operator did not apply, or was skipped. */
  reason?: string;
  /** What the edit changed. */
  edit?: string;
  detected: Record<string, boolean>;
  scores: Record<string, { base: number | null; mutant: number | null }>;
  moved: Move[];
  /** Per target: why it could not be judged (unscorable on the original, at the floor, unscorable on the mutant). */
  notes?: Record<string, string>;
  /** Targets this build or suite lacks, with why (the others were judged). */
  skippedTargets?: Record<string, string>;
  /** Scope `targets`: the metrics scored for this mutant (false moves cover only these). */
  measured?: string[];
  ms?: number;
}

export interface BaseStats {
  base: number | null;
  noise: number;
  values: Array<number | null>;
  reason?: string;
}

export interface MutationReport {
  artifact: string;
  suite: SuiteId;
  scope: Scope;
  repeats: number;
  /** The detection rule in one sentence (see module comment). */
  rule: string;
  /** Per metric: the original's median score, its noise (range over repeats) and each repeat's score. */
  base: Record<string, BaseStats>;
  operators: OperatorResult[];
  timings: { baseMs: number; mutantsMs: number; totalMs: number };
}

export function detectionRule(repeats: number): string {
  return repeats > 1
    ? `detected = the target dropped by more than its noise (range of ${repeats} scores of the original) below their median`
    : 'one score of the original: noise 0, any drop of a target counts as detected (use --repeats 3 to measure noise)';
}

/** Operators by id (all when `ids` is absent); an unknown id is bad input. */
export function selectOperators(ids?: string[]): MutationOperator[] {
  if (!ids || ids.length === 0) return [...OPERATORS];
  return ids.map((id) => {
    const op = findOperator(id);
    if (!op) throw new InputError(`unknown operator ${JSON.stringify(id)} (known: ${OPERATORS.map((o) => o.id).join(', ')})`);
    return op;
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Per-metric base statistics over the original's score documents. */
export function baseStats(docs: readonly ScoreDocument[]): Record<string, BaseStats> {
  const out: Record<string, BaseStats> = {};
  for (const r of docs[0]?.metrics ?? []) {
    const values = docs.map((d) => d.metrics.find((m) => m.id === r.id)?.score ?? null);
    const nums = values.filter((v): v is number => v !== null);
    const reason = docs.map((d) => d.metrics.find((m) => m.id === r.id)).find((m) => m?.score === null)?.reason;
    out[r.id] = {
      base: nums.length ? round2(median(nums)) : null,
      noise: nums.length ? round2(Math.max(...nums) - Math.min(...nums)) : 0,
      values,
      ...(reason ? { reason } : {}),
    };
  }
  return out;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Compare a mutant's scores with the base: detection of targets, moves of the rest. */
export function compare(
  op: Pick<MutationOperator, 'targets' | 'collateral' | 'inserts'>,
  base: Record<string, BaseStats>,
  mutant: ScoreDocument,
  targets: readonly string[],
): Pick<OperatorResult, 'detected' | 'scores' | 'moved' | 'notes'> {
  const detected: Record<string, boolean> = {};
  const notes: Record<string, string> = {};
  const scores: OperatorResult['scores'] = {};
  const moved: Move[] = [];
  const order = [...targets, ...mutant.metrics.map((m) => m.id).filter((id) => !targets.includes(id))];
  for (const id of order) {
    const m = mutant.metrics.find((x) => x.id === id);
    const b = base[id];
    if (!m || !b) continue;
    scores[id] = { base: b.base, mutant: m.score };
    if (targets.includes(id)) {
      if (op.inserts && b.values.every((v) => v === null) && m.score !== null) {
        // the page lacked the feature: the inserted one, with its defect, is all the target measures
        detected[id] = m.score < 100;
        notes[id] = `${INSERTED_NOTE} (the original: ${b.reason ?? 'no score'}); scored on the inserted feature alone`;
        continue;
      }
      detected[id] = b.base !== null && m.score !== null && b.base - m.score > b.noise;
      if (b.base === null)
        notes[id] = `unscorable on the original: ${b.reason ?? 'no score'}${m.score === null ? `; on the mutant: ${m.reason ?? 'no score'}` : ''}`;
      else if (b.base === 0) notes[id] = 'at the floor (0) on the original: cannot drop';
      else if (m.score === null) notes[id] = `unscorable on the mutant: ${m.reason ?? 'no score'}`;
      else if (!detected[id] && m.summary) notes[id] = `the mutant: ${m.summary}`;
      continue;
    }
    const changedScorability = b.values.every((v) => v !== null) !== (m.score !== null) && !(m.score === null && b.values.some((v) => v === null));
    const movedBy = b.base !== null && m.score !== null && Math.abs(m.score - b.base) > b.noise;
    if (movedBy || changedScorability) moved.push({ id, base: b.base, mutant: m.score, expected: (op.collateral ?? []).includes(id) });
  }
  return { detected, scores, moved, ...(Object.keys(notes).length ? { notes } : {}) };
}

/** The note of a target judged on an inserted feature alone (the original had nothing to measure). */
export const INSERTED_NOTE = 'nothing to measure on the original';

/** Can a target be judged on this base (scorable and above the floor, or judged on an inserted feature)? */
export function judgeable(result: OperatorResult, target: string): boolean {
  return (
    result.applied &&
    target in result.detected &&
    !result.notes?.[target]?.startsWith('unscorable on the original') &&
    !result.notes?.[target]?.startsWith('at the floor')
  );
}

export class MutationRunner {
  readonly suite: SuiteId;
  readonly scope: Scope;
  readonly repeats: number;
  private readonly opts: MutateOptions;
  private readonly gatherers: Gatherer[];
  private readonly ruleMetrics: MetricDefinition[];
  private readonly scorers = new Map<string, Scorer>();

  constructor(opts: MutateOptions = {}) {
    this.opts = opts;
    this.suite = opts.suite ?? DEFAULT_SUITE;
    this.scope = opts.scope ?? 'all';
    this.repeats = opts.repeats ?? 1;
    if (!Number.isInteger(this.repeats) || this.repeats < 1 || this.repeats > MAX_REPEATS)
      throw new InputError(`--repeats: expected a whole number from 1 to ${MAX_REPEATS}`);
    this.ruleMetrics = suiteMetrics(this.suite).filter((m) => m.kind === 'rule');
    const gopts: ScorerGathererOptions = { checkNetwork: opts.checkNetwork ?? false, budgetMs: opts.budgetMs ?? DEFAULT_BUDGET_MS };
    if (opts.network) gopts.network = opts.network;
    if (opts.lighthouseRuns) gopts.lighthouseRuns = opts.lighthouseRuns;
    if (opts.visitClock) gopts.visitClock = opts.visitClock;
    this.gatherers = opts.gatherers ?? productGatherers(gopts);
  }

  /** Targets of an operator that this build and suite can score, and why the others cannot. */
  targetsOf(op: MutationOperator): { present: string[]; skipped: Record<string, string> } {
    const present: string[] = [];
    const skipped: Record<string, string> = {};
    for (const t of op.targets) {
      const m = findMetric(t);
      if (!m) skipped[t] = 'target metric not in this build';
      else if (!this.ruleMetrics.includes(m))
        skipped[t] = m.kind !== 'rule' ? 'a judge metric (not run by mutate)' : `not in the ${this.suite} suite (add --suite extended)`;
      else present.push(t);
    }
    return { present, skipped };
  }

  /** The metric ids a mutant with these targets is scored on. */
  measuredFor(targets: readonly string[]): string[] {
    if (this.scope === 'all') return this.ruleMetrics.map((m) => m.id);
    const needs = new Set<EvidenceNeed>(['source', 'dom']);
    for (const t of targets) for (const n of allNeeds(findMetric(t)!)) needs.add(n);
    return this.ruleMetrics.filter((m) => targets.includes(m.id) || allNeeds(m).every((n) => needs.has(n))).map((m) => m.id);
  }

  private scorer(only: string[]): Scorer {
    const key = only.join(',');
    let s = this.scorers.get(key);
    if (!s) {
      s = new Scorer({
        suite: this.suite,
        only,
        gatherers: this.gatherers,
        checkNetwork: this.opts.checkNetwork ?? false,
        budgetMs: this.opts.budgetMs ?? DEFAULT_BUDGET_MS,
      });
      this.scorers.set(key, s);
    }
    return s;
  }

  /** Mutate one artifact with the selected operators and compare. */
  async run(input: string): Promise<MutationReport> {
    const t0 = performance.now();
    const page = PageModel.load(input); // bad input (missing, empty, binary, no index.html) throws InputError here
    const ops = selectOperators(this.opts.operators);
    const progress = this.opts.progress ?? (() => {});
    const bases = new Map<string, Record<string, BaseStats>>();
    let baseMs = 0;
    const baseFor = async (only: string[]): Promise<Record<string, BaseStats>> => {
      const key = only.join(',');
      const known = bases.get(key);
      if (known) return known;
      const tb = performance.now();
      const docs: ScoreDocument[] = [];
      for (let i = 0; i < this.repeats; i++) {
        progress(`original ${i + 1}/${this.repeats}${this.scope === 'targets' ? ` (${only.length} metrics)` : ''}`);
        docs.push(await this.scorer(only).score(input));
      }
      const stats = baseStats(docs);
      bases.set(key, stats);
      baseMs += performance.now() - tb;
      return stats;
    };
    if (this.scope === 'all') await baseFor(this.measuredFor([]));

    const results: OperatorResult[] = [];
    const tm = performance.now();
    for (const [i, op] of ops.entries()) {
      const { present, skipped } = this.targetsOf(op);
      const result: OperatorResult = { id: op.id, targets: [...op.targets], applied: false, detected: {}, scores: {}, moved: [] };
      if (Object.keys(skipped).length) result.skippedTargets = skipped;
      results.push(result);
      if (present.length === 0) {
        result.reason = [...new Set(Object.values(skipped))].join('; ') + `: ${op.targets.join(', ')}`;
        continue;
      }
      const edit = new Mutation(page);
      let outcome;
      try {
        outcome = await op.apply(page, edit);
      } catch (err) {
        outcome = { applied: false as const, reason: `operator failed: ${errorMessage(err)}` };
      }
      if (!outcome.applied) {
        result.reason = outcome.reason;
        continue;
      }
      const changed = edit.changedFiles();
      if (changed.size === 0) {
        result.reason = 'the edit changed nothing';
        continue;
      }
      result.applied = true;
      result.edit = outcome.edit;
      const only = this.measuredFor(present);
      const base = await baseFor(only);
      const started = performance.now();
      progress(`[${i + 1}/${ops.length}] ${op.id}: ${outcome.edit}`);
      const dir = this.opts.keepDir ? join(this.opts.keepDir, op.id) : mkdtempSync(join(tmpdir(), 'webgrade-mutant-'));
      if (this.opts.keepDir) rmSync(dir, { recursive: true, force: true });
      try {
        const path = writeMutant(page, changed, dir);
        const doc = await this.scorer(only).score(path);
        Object.assign(result, compare(op, base, doc, present));
        if (this.scope === 'targets') result.measured = only;
      } finally {
        if (!this.opts.keepDir) rmSync(dir, { recursive: true, force: true });
      }
      result.ms = Math.round(performance.now() - started);
    }
    const mutantsMs = performance.now() - tm;
    const fullBase = bases.get(this.measuredFor([]).join(',')) ?? Object.assign({}, ...[...bases.values()].reverse());
    return {
      artifact: input,
      suite: this.suite,
      scope: this.scope,
      repeats: this.repeats,
      rule: detectionRule(this.repeats),
      base: fullBase,
      operators: results,
      timings: {
        baseMs: Math.round(baseMs),
        mutantsMs: Math.round(mutantsMs - (this.scope === 'targets' ? baseMs : 0)),
        totalMs: Math.round(performance.now() - t0),
      },
    };
  }

  async close(): Promise<void> {
    await closeGatherers(this.gatherers);
  }
}

/** Write the mutant into `dir` (the artifact's files, changed ones replaced); returns the path to score. */
export function writeMutant(page: PageModel, changed: ReadonlyMap<string, string | Buffer>, dir: string): string {
  const a = page.artifact;
  mkdirSync(dir, { recursive: true });
  const files = a.kind === 'file' ? a.files.filter((f) => f.path === a.entry) : a.files;
  for (const f of files) {
    const to = join(dir, f.path);
    mkdirSync(dirname(to), { recursive: true });
    const c = changed.get(f.path);
    writeFileSync(to, c !== undefined ? c : readArtifactFile(f));
  }
  return a.kind === 'file' ? join(dir, a.entry) : dir;
}
