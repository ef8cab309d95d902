/**
 * 95% bootstrap confidence intervals on each model's overall, and how often each rank holds.
 *
 * Interpretation: the unit of resampling is the requirement (the study's models all answer the same set of
 * requirements): each iteration draws as many requirement ids as there are, with replacement, takes every
 * model's artifacts for the drawn ids (a requirement drawn twice counts twice), and recomputes everything, μ and σ
 * included, exactly as aggregate.ts does for the point estimate. Intervals are the 2.5th and 97.5th percentiles
 * of the resampled overalls (percentile bootstrap). Two models ranked next to each other are "not clearly apart"
 * when the upper one is ahead in fewer than 95% of the resamples.
 *
 * Seeded (mulberry32, lib/random.ts), so the same input and seed give the same intervals. Several weight sets (personas) are
 * evaluated on the same resamples in one pass.
 *
 * Interpretation: a model with artifacts for only one requirement gets no interval and no rank stability
 * (`ci: null`, `ciReason`): in every resample that does not draw its requirement it has no evidence and sits at
 * the population mean, so its interval would be pinned at 0 and say nothing. It stays in the resamples (others'
 * ranks count it) but is left out of the "not clearly apart" pairs.
 *
 * The noise guard (noise.ts): `sdFloor` per metric (k × its test–retest sd, fixed) bounds σ from below in every
 * resample, as in the point estimate.
 */
import { quantileSorted } from 'simple-statistics';
import { dict, own } from '../lib/dict.js';
import { mulberry32 } from '../lib/random.js';
import type { Population } from './aggregate.js';
import { normFromSums } from './zscore.js';

export interface BootstrapOptions {
  iterations?: number;
  seed?: number;
  /** Per metric id: the least σ (the noise guard's k × retest sd); absent = the study's σ. */
  sdFloor?: Record<string, number>;
}

/** Why a model has no interval (see the module comment). */
export const ONE_REQUIREMENT = 'one requirement';

export interface BootstrapModel {
  model: string;
  /** Point-estimate rank (1 = best). */
  rank: number;
  overall: number;
  /** 95% percentile interval of the overall; null when it says nothing (`ciReason`). */
  ci: [number, number] | null;
  /** Why `ci` is null ("one requirement"). */
  ciReason?: string;
  /** Fraction of resamples in which the model holds its point-estimate rank; null with `ci`. */
  rankHolds: number | null;
  /** Distinct requirements the model has artifacts for. */
  requirements: number;
  /** rankFrequency[k] = fraction of resamples with rank k + 1. */
  rankFrequency: number[];
}

export interface BootstrapResult {
  iterations: number;
  seed: number;
  requirements: number;
  models: BootstrapModel[];
  /** pAhead[a][b] = fraction of resamples in which a's overall is above b's. */
  pAhead: Record<string, Record<string, number>>;
  /** Neighbours in the ranking that are not clearly apart (upper ahead in < 95% of resamples). */
  notApart: Array<{ upper: string; lower: string; pAhead: number }>;
}

export const DEFAULT_ITERATIONS = 1000;
export const DEFAULT_SEED = 1;

function rankOf(overall: Float64Array, models: readonly string[]): Int32Array {
  const idx = [...models.keys()].sort((a, b) => overall[b]! - overall[a]! || models[a]!.localeCompare(models[b]!));
  const rank = new Int32Array(models.length);
  idx.forEach((m, i) => (rank[m] = i));
  return rank;
}

/** Run the bootstrap for each named weight set; returns one result per weight set. */
export function bootstrap(pop: Population, weightSets: Record<string, Record<string, number>>, opts: BootstrapOptions = {}): Record<string, BootstrapResult> {
  const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
  const seed = opts.seed ?? DEFAULT_SEED;
  const models = pop.models;
  const metrics = pop.metrics;
  const reqs = [...new Set(pop.samples.map((s) => s.requirement))].sort();
  const R = reqs.length;
  const M = models.length;
  const J = metrics.length;
  const rIndex = new Map(reqs.map((r, i) => [r, i]));
  const mIndex = new Map(models.map((m, i) => [m, i]));

  // Shift per metric (its population mean) keeps the running-sum variance exact for equal samples.
  const shift = new Float64Array(J);
  metrics.forEach((id, j) => {
    const vs = pop.samples.map((s) => s.scores[id]).filter((v): v is number => typeof v === 'number');
    shift[j] = vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : 0;
  });
  // Per (requirement, model, metric): Σ(x − shift), Σ(x − shift)², n.
  const cell = (r: number, m: number, j: number) => (r * M + m) * J + j;
  const sum = new Float64Array(R * M * J);
  const sq = new Float64Array(R * M * J);
  const cnt = new Float64Array(R * M * J);
  const present = new Uint8Array(R * M); // the model has at least one artifact for the requirement
  for (const s of pop.samples) {
    const r = rIndex.get(s.requirement)!;
    const m = mIndex.get(s.model)!;
    present[r * M + m] = 1;
    metrics.forEach((id, j) => {
      const v = s.scores[id];
      if (typeof v !== 'number') return;
      const d = v - shift[j]!;
      const k = cell(r, m, j);
      sum[k] += d;
      sq[k] += d * d;
      cnt[k] += 1;
    });
  }
  const names = Object.keys(weightSets);
  const W = names.map((n) => Float64Array.from(metrics, (id) => own(weightSets[n], id) ?? 0));
  const floor = Float64Array.from(metrics, (id) => own(opts.sdFloor, id) ?? 0);
  const modelReqs = models.map((m) => new Set(pop.samples.filter((s) => s.model === m).map((s) => s.requirement)).size);

  const rand = mulberry32(seed);
  const overalls = names.map(() => models.map(() => new Float64Array(iterations)));
  const rankCounts = names.map(() => models.map(() => new Float64Array(M)));
  const ahead = names.map(() => models.map(() => new Float64Array(M)));

  const ms = new Float64Array(M * J);
  const mn = new Float64Array(M * J);
  const js = new Float64Array(J);
  const jq = new Float64Array(J);
  const jn = new Float64Array(J);
  const meanZ = new Float64Array(M * J);
  for (let it = 0; it < iterations; it++) {
    ms.fill(0);
    mn.fill(0);
    js.fill(0);
    jq.fill(0);
    jn.fill(0);
    for (let d = 0; d < R; d++) {
      const r = Math.floor(rand() * R);
      for (let m = 0; m < M; m++) {
        if (!present[r * M + m]) continue;
        for (let j = 0; j < J; j++) {
          const k = cell(r, m, j);
          const c = cnt[k]!;
          if (c === 0) continue;
          ms[m * J + j] += sum[k]!;
          mn[m * J + j] += c;
          js[j] += sum[k]!;
          jq[j] += sq[k]!;
          jn[j] += c;
        }
      }
    }
    for (let j = 0; j < J; j++) {
      const norm = normFromSums(js[j]!, jq[j]!, jn[j]!);
      const sd = norm ? Math.max(norm.sd, floor[j]!) : 0;
      for (let m = 0; m < M; m++) {
        const n = mn[m * J + j]!;
        meanZ[m * J + j] = norm && n > 0 ? (ms[m * J + j]! / n - norm.mean) / sd : 0;
      }
    }
    names.forEach((_, p) => {
      const w = W[p]!;
      const ov = new Float64Array(M);
      for (let m = 0; m < M; m++) {
        let o = 0;
        for (let j = 0; j < J; j++) o += w[j]! * meanZ[m * J + j]!;
        ov[m] = o;
        overalls[p]![m]![it] = o;
      }
      const rank = rankOf(ov, models);
      for (let m = 0; m < M; m++) {
        rankCounts[p]![m]![rank[m]!]! += 1;
        for (let o = 0; o < M; o++) if (ov[m]! > ov[o]!) ahead[p]![m]![o]! += 1;
      }
    });
  }

  // Point estimates (same pipeline on the original sample, every requirement once).
  const point = pointOveralls(pop, W, shift, floor);
  const out = dict<BootstrapResult>();
  names.forEach((name, p) => {
    const pointRank = rankOf(point[p]!, models);
    const res: BootstrapModel[] = models.map((model, m) => {
      const sorted = Array.from(overalls[p]![m]!).sort((a, b) => a - b);
      const one = modelReqs[m]! < 2;
      const b: BootstrapModel = {
        model,
        rank: pointRank[m]! + 1,
        overall: point[p]![m]!,
        ci: one ? null : ([quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)] as [number, number]),
        rankHolds: one ? null : rankCounts[p]![m]![pointRank[m]!]! / iterations,
        requirements: modelReqs[m]!,
        rankFrequency: Array.from(rankCounts[p]![m]!, (c) => c / iterations),
      };
      if (one) b.ciReason = ONE_REQUIREMENT;
      return b;
    });
    res.sort((a, b) => a.rank - b.rank);
    const pAhead = dict<Record<string, number>>();
    models.forEach((a, i) => {
      pAhead[a] = dict();
      models.forEach((b, k) => {
        if (i !== k) pAhead[a]![b] = ahead[p]![i]![k]! / iterations;
      });
    });
    const notApart: BootstrapResult['notApart'] = [];
    for (let i = 0; i + 1 < res.length; i++) {
      if (res[i]!.ci === null || res[i + 1]!.ci === null) continue;
      const upper = res[i]!.model;
      const lower = res[i + 1]!.model;
      const pa = pAhead[upper]![lower]!;
      if (pa < 0.95) notApart.push({ upper, lower, pAhead: pa });
    }
    out[name] = { iterations, seed, requirements: R, models: res, pAhead, notApart };
  });
  return out;
}

function pointOveralls(pop: Population, W: Float64Array[], shift: Float64Array, floor: Float64Array): Float64Array[] {
  const M = pop.models.length;
  const J = pop.metrics.length;
  const meanZ = new Float64Array(M * J);
  pop.metrics.forEach((id, j) => {
    let s = 0;
    let q = 0;
    let n = 0;
    const per = new Float64Array(M);
    const pn = new Float64Array(M);
    for (const smp of pop.samples) {
      const v = smp.scores[id];
      if (typeof v !== 'number') continue;
      const d = v - shift[j]!;
      s += d;
      q += d * d;
      n++;
      const m = pop.models.indexOf(smp.model);
      per[m] += d;
      pn[m] += 1;
    }
    const norm = normFromSums(s, q, n);
    const sd = norm ? Math.max(norm.sd, floor[j]!) : 0;
    for (let m = 0; m < M; m++) meanZ[m * J + j] = norm && pn[m]! > 0 ? (per[m]! / pn[m]! - norm.mean) / sd : 0;
  });
  return W.map((w) => {
    const ov = new Float64Array(M);
    for (let m = 0; m < M; m++) for (let j = 0; j < J; j++) ov[m] += w[j]! * meanZ[m * J + j]!;
    return ov;
  });
}
