/**
 * Bradley–Terry strengths from pairwise votes (the model behind Chatbot Arena's and WebDev Arena's rankings):
 * P(i beats j) = σ(θ_i − θ_j), θ in log-odds. Used for the people's ranking of models beside webgrade's
 * (`leaderboard --pairs`, people.ts) and by the arena's choice of the next pair (arena/select.ts).
 *
 * Interpretations:
 * - A tie (and a both-bad vote, which SPEC counts as a tie) is half a win for each side, the reading `weights fit
 *   --ties half` uses: target ½ on the pair's logistic loss. Rao–Kupper or Davidson tie models would add a
 *   parameter the leaderboard does not need.
 * - A weak Gaussian prior on every strength, N(0, 1/λ) with λ = DEFAULT_BT_L2 (sd ≈ 3.2 log-odds): a model
 *   that won every one of its votes gets a finite strength, and a model with dozens of votes is moved by less
 *   than the votes' own noise. The loss is the sum over votes (not the mean), so the prior weighs as one vote
 *   does, whatever the number of votes.
 * - Strengths are reported centred (mean 0 over the models): a strength says how a model fares against the
 *   average model of the set, and does not depend on which model is first.
 * - Solver: Newton's method with a halving line search (the problem is strictly convex with the prior; n is the
 *   number of models, so the n × n system is solved directly by Cholesky). No package among the dependencies
 *   fits Bradley–Terry (simple-statistics has no logistic models), and the fit is 60 lines.
 * - Intervals: percentile bootstrap (seeded mulberry32), resampling requirements when every vote names one (all
 *   the votes of a drawn requirement, as the leaderboard and `analyse --pairs` resample), else votes (the arenas'
 *   own method). Votes on one requirement share its pages, whose quality the metrics do not fully explain, so
 *   they are not independent: in bench/arena-pairs.ts, 95% rank intervals from a bootstrap over votes held the
 *   true order of 8 models in only 63–88% of simulated populations. Each resample refits; a model's interval is
 *   the 2.5th–97.5th percentile of its centred strength, its rank interval the same percentiles of its rank.
 */
import { quantileSorted } from 'simple-statistics';
import { mulberry32 } from './bootstrap.js';

export const DEFAULT_BT_L2 = 0.1;
const MAX_NEWTON_STEPS = 100;

/** One vote between items `a` and `b` (indices): y = 1 a won, 0 b won, ½ a tie. */
export interface BtComparison {
  a: number;
  b: number;
  y: number;
}

export interface BtFit {
  /** Strengths, centred to mean 0. */
  theta: Float64Array;
  steps: number;
  converged: boolean;
}

export function sigmoid(t: number): number {
  return t >= 0 ? 1 / (1 + Math.exp(-t)) : Math.exp(t) / (1 + Math.exp(t));
}

function softplus(t: number): number {
  return (t > 0 ? t : 0) + Math.log1p(Math.exp(-Math.abs(t)));
}

function loss(comps: readonly BtComparison[], theta: Float64Array, l2: number): number {
  let f = 0;
  for (const c of comps) {
    const t = theta[c.a]! - theta[c.b]!;
    f += softplus(t) - c.y * t;
  }
  let r = 0;
  for (const v of theta) r += v * v;
  return f + (l2 / 2) * r;
}

/** Solve H x = g for a symmetric positive definite H (n × n, row-major), by Cholesky; null when H is not SPD. */
export function choleskySolve(H: Float64Array, g: Float64Array, n: number): Float64Array | null {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = H[i * n + j]!;
      for (let k = 0; k < j; k++) s -= L[i * n + k]! * L[j * n + k]!;
      if (i === j) {
        if (!(s > 0)) return null;
        L[i * n + i] = Math.sqrt(s);
      } else L[i * n + j] = s / L[j * n + j]!;
    }
  }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = g[i]!;
    for (let k = 0; k < i; k++) s -= L[i * n + k]! * y[k]!;
    y[i] = s / L[i * n + i]!;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= L[k * n + i]! * x[k]!;
    x[i] = s / L[i * n + i]!;
  }
  return x;
}

/** Bradley–Terry strengths of `n` items from `comps` (module comment); `start` warm-starts Newton. */
export function fitBradleyTerry(n: number, comps: readonly BtComparison[], l2 = DEFAULT_BT_L2, start?: Float64Array): BtFit {
  if (!(l2 > 0)) throw new RangeError('the prior weight l2 must be positive');
  const theta = start ? Float64Array.from(start) : new Float64Array(n);
  let f = loss(comps, theta, l2);
  let steps = 0;
  let converged = false;
  const H = new Float64Array(n * n);
  const g = new Float64Array(n);
  const next = new Float64Array(n);
  while (steps < MAX_NEWTON_STEPS) {
    steps++;
    H.fill(0);
    for (let i = 0; i < n; i++) {
      g[i] = l2 * theta[i]!;
      H[i * n + i] = l2;
    }
    for (const c of comps) {
      const p = sigmoid(theta[c.a]! - theta[c.b]!);
      const r = p - c.y;
      const w = p * (1 - p);
      g[c.a]! += r;
      g[c.b]! -= r;
      H[c.a * n + c.a]! += w;
      H[c.b * n + c.b]! += w;
      H[c.a * n + c.b]! -= w;
      H[c.b * n + c.a]! -= w;
    }
    const dx = choleskySolve(H, g, n);
    if (!dx) break;
    let size = 0;
    for (const v of dx) size = Math.max(size, Math.abs(v));
    let step = 1;
    let fn = f;
    for (let halvings = 0; halvings < 30; halvings++) {
      for (let i = 0; i < n; i++) next[i] = theta[i]! - step * dx[i]!;
      fn = loss(comps, next, l2);
      if (fn <= f + 1e-12 * Math.abs(f)) break;
      step /= 2;
    }
    if (fn > f + 1e-12 * Math.abs(f)) break;
    theta.set(next);
    f = fn;
    if (size * step < 1e-9) {
      converged = true;
      break;
    }
  }
  let mean = 0;
  for (const v of theta) mean += v;
  mean = n ? mean / n : 0;
  for (let i = 0; i < n; i++) theta[i] = theta[i]! - mean;
  return { theta, steps, converged };
}

/** Votes between named models (pairs.ts `Preference` fits), as the ranking reads them. */
export interface NamedVote {
  modelA: string;
  modelB: string;
  winner: 'a' | 'b' | 'tie';
  /** The requirement whose pages were compared (the bootstrap's unit when every vote has one). */
  requirement?: string;
}

export interface RankedModel {
  model: string;
  /** Centred strength, log-odds against the average model. */
  strength: number;
  /** 95% percentile bootstrap interval of the strength; null without a bootstrap. */
  ci: [number, number] | null;
  /** 1 = strongest. */
  rank: number;
  /** 95% bootstrap interval of the rank (best, worst); null without a bootstrap. */
  rankCi: [number, number] | null;
  votes: number;
  wins: number;
  losses: number;
  ties: number;
}

export interface BtRanking {
  models: RankedModel[];
  votes: number;
  ties: number;
  l2: number;
  bootstrap: { iterations: number; seed: number; unit: 'requirement' | 'vote' } | null;
  converged: boolean;
  /** Each resample's strengths by model (only with `keepSamples`; not serialised). */
  samples?: Array<Map<string, number>>;
}

function ranksOf(theta: Float64Array): number[] {
  const order = [...theta.keys()].sort((a, b) => theta[b]! - theta[a]! || a - b);
  const rank = new Array<number>(theta.length);
  order.forEach((i, k) => (rank[i] = k + 1));
  return rank;
}

/** The people's ranking of `models` (every model named by a vote is added) from `votes`, with bootstrap intervals. */
export function rankModels(
  votes: readonly NamedVote[],
  opts: { iterations: number; seed: number; l2?: number; models?: readonly string[]; keepSamples?: boolean },
): BtRanking {
  const l2 = opts.l2 ?? DEFAULT_BT_L2;
  const names = [...new Set([...(opts.models ?? []), ...votes.flatMap((v) => [v.modelA, v.modelB])])].sort();
  const index = new Map(names.map((m, i) => [m, i]));
  const comps: BtComparison[] = votes.map((v) => ({ a: index.get(v.modelA)!, b: index.get(v.modelB)!, y: v.winner === 'a' ? 1 : v.winner === 'b' ? 0 : 0.5 }));
  const main = fitBradleyTerry(names.length, comps, l2);
  const rank = ranksOf(main.theta);
  const boot: number[][] = names.map(() => []);
  const bootRanks: number[][] = names.map(() => []);
  const samples: Array<Map<string, number>> = [];
  // The bootstrap's clusters: one per requirement, or one per vote (module comment).
  const byRequirement = votes.every((v) => v.requirement !== undefined);
  const clusters: BtComparison[][] = [];
  if (byRequirement) {
    const groups = new Map<string, BtComparison[]>();
    votes.forEach((v, k) => groups.set(v.requirement!, [...(groups.get(v.requirement!) ?? []), comps[k]!]));
    clusters.push(...[...groups.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, c]) => c));
  } else clusters.push(...comps.map((c) => [c]));
  if (opts.iterations > 0 && comps.length > 0) {
    const rand = mulberry32(opts.seed);
    for (let it = 0; it < opts.iterations; it++) {
      const sample: BtComparison[] = [];
      for (let k = 0; k < clusters.length; k++) sample.push(...clusters[Math.floor(rand() * clusters.length)]!);
      const fit = fitBradleyTerry(names.length, sample, l2, main.theta);
      const r = ranksOf(fit.theta);
      if (opts.keepSamples) samples.push(new Map(names.map((m, i) => [m, fit.theta[i]!])));
      fit.theta.forEach((v, i) => {
        boot[i]!.push(v);
        bootRanks[i]!.push(r[i]!);
      });
    }
  }
  const interval = (xs: number[]): [number, number] | null => {
    if (xs.length === 0) return null;
    const s = [...xs].sort((a, b) => a - b);
    return [quantileSorted(s, 0.025), quantileSorted(s, 0.975)];
  };
  const models: RankedModel[] = names.map((model, i) => {
    const mine = votes.filter((v) => v.modelA === model || v.modelB === model);
    const won = (v: NamedVote) => (v.modelA === model ? v.winner === 'a' : v.winner === 'b');
    const lost = (v: NamedVote) => (v.modelA === model ? v.winner === 'b' : v.winner === 'a');
    return {
      model,
      strength: main.theta[i]!,
      ci: interval(boot[i]!),
      rank: rank[i]!,
      rankCi: interval(bootRanks[i]!),
      votes: mine.length,
      wins: mine.filter(won).length,
      losses: mine.filter(lost).length,
      ties: mine.filter((v) => v.winner === 'tie').length,
    };
  });
  models.sort((a, b) => a.rank - b.rank);
  const out: BtRanking = {
    models,
    votes: votes.length,
    ties: votes.filter((v) => v.winner === 'tie').length,
    l2,
    bootstrap: opts.iterations > 0 && comps.length > 0 ? { iterations: opts.iterations, seed: opts.seed, unit: byRequirement ? 'requirement' : 'vote' } : null,
    converged: main.converged,
  };
  if (opts.keepSamples) Object.defineProperty(out, 'samples', { value: samples, enumerable: false });
  return out;
}
