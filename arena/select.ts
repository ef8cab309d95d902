/**
 * Which pair the arena shows next: among the pairs the rater has not judged, the one that teaches `weights fit`
 * the most.
 *
 * A candidate is two models' pages of one requirement (only pages of one requirement are compared: that is what
 * `weights fit` and `analyse --pairs` learn from). Its priority is the product of factors:
 *
 * - **What it adds to what the votes know** (`weights fit` learns a weight per metric from the differences of
 *   two pages' metric z, d = z_a − z_b): 1 + dᵀM⁻¹d, with M = I + Σ d dᵀ over the pairs already voted or shown
 *   (the D-optimal design's increment: log det(M + d dᵀ) − log det M = log(1 + dᵀM⁻¹d)). A pair whose pages
 *   differ in a way earlier votes did not cover comes first; two near-identical pages, or a difference earlier
 *   votes covered many times, come last. It reads only the results' scores, never the votes' outcomes.
 * - **The requirement's share of attention**: (1 + v_min) / (1 + v_r), with v_r the votes on requirement r plus
 *   its pairs shown and not voted yet, v_min the least over requirements with candidates left: requirements with
 *   few votes come first (the fit's cross-validation and every interval resample requirements).
 * - **How close the two models are** in the people's Bradley–Terry strengths from the votes so far
 *   (weights/bradley-terry.ts): 4p(1 − p), p = σ(θ_a − θ_b), the arenas' way of spending votes where the ranking
 *   is undecided. Off by default: measured in bench/arena-pairs.ts (docs/arena.md), it made both the fitted
 *   weights and the people's ranking worse (it spends the votes on a few close models, and the others are barely
 *   compared). Choosing pages by how uncertain their outcome looks (from the votes so far) was worse still for the
 *   ranking: it picks pages on which strong models happen to be weak, which shrinks the models' differences.
 *
 * The highest priority wins; exact ties are drawn at random (before any vote, with no metric scores, every pair
 * is equal). Without metric scores (a batch that scored nothing) the first factor is 1 for every pair.
 *
 * A rater never sees a pair (requirement and the two models, in either order) they judged before, unless
 * `repeatPairs` is set: then, once they have judged every pair, the pairs they judged least are shown again. Which
 * model is model_a, and which side it is shown on, are fair coins; the side is recorded as the vote's `position`.
 */
import { choleskySolve, DEFAULT_BT_L2, fitBradleyTerry, sigmoid, type BtComparison } from '../weights/bradley-terry.js';

export type Side = 'left' | 'right';
export type ArenaWinner = 'a' | 'b' | 'tie' | 'both-bad';

/** A vote as the chooser counts it. */
export interface ChooserVote {
  requirement: string;
  modelA: string;
  modelB: string;
  winner: ArenaWinner;
  rater: string;
}

/** The pair to show: model_a on `position`. */
export interface ChosenPair {
  requirement: string;
  modelA: string;
  modelB: string;
  position: Side;
  /** The priority it was chosen with, and its factors (module comment). */
  priority: number;
  adds: number;
  closeness: number;
}

export interface ChooserOptions {
  rand: () => number;
  repeatPairs?: boolean;
  l2?: number;
  /** Each page's metric z, by `requirement\0model` (arena/catalogue.ts); absent or empty: the first factor is 1. */
  features?: ReadonlyMap<string, Float64Array>;
  /** Leave a factor out or in (bench/arena-pairs.ts compares them); default: DEFAULT_FACTORS. */
  factors?: { adds?: boolean; closeness?: boolean; attention?: boolean };
  /** Share of pairs drawn uniformly among the open ones instead (default DEFAULT_EXPLORE). */
  explore?: number;
  /** `best`: the highest priority; `proportional`: a draw with probability ∝ priority (default DEFAULT_DRAW). */
  draw?: 'best' | 'proportional';
}

export function pairKey(requirement: string, m1: string, m2: string): string {
  return m1 < m2 ? `${requirement}\u0000${m1}\u0000${m2}` : `${requirement}\u0000${m2}\u0000${m1}`;
}

export const DEFAULT_FACTORS = { adds: true, closeness: false, attention: true };
export const DEFAULT_EXPLORE = 0;
export const DEFAULT_DRAW: 'best' | 'proportional' = 'best';

const target = (w: ArenaWinner): number => (w === 'a' ? 1 : w === 'b' ? 0 : 0.5);

export class PairChooser {
  private readonly byReq = new Map<string, string[]>();
  private readonly models: string[];
  private readonly modelIndex: Map<string, number>;
  private readonly votes: ChooserVote[] = [];
  private readonly seen = new Map<string, Map<string, number>>();
  private readonly dim: number;
  private theta: Float64Array;
  private dirty = false;

  constructor(
    pages: ReadonlyArray<{ requirement: string; model: string }>,
    private readonly opts: ChooserOptions,
  ) {
    for (const p of pages) {
      const list = this.byReq.get(p.requirement) ?? [];
      if (!list.includes(p.model)) list.push(p.model);
      this.byReq.set(p.requirement, list);
    }
    for (const [r, list] of this.byReq) {
      if (list.length < 2) this.byReq.delete(r);
      else list.sort();
    }
    this.models = [...new Set(pages.map((p) => p.model))].sort();
    this.modelIndex = new Map(this.models.map((m, i) => [m, i]));
    this.theta = new Float64Array(this.models.length);
    const first = opts.features?.values().next().value;
    this.dim = opts.factors?.adds === false ? 0 : (first?.length ?? 0);
  }

  /** Requirements with at least two models' pages (the only ones a pair can come from). */
  requirements(): string[] {
    return [...this.byReq.keys()].sort();
  }

  /** Every pair there is (requirement × two models). */
  pairCount(): number {
    let n = 0;
    for (const list of this.byReq.values()) n += (list.length * (list.length - 1)) / 2;
    return n;
  }

  /** Count a vote (votes on pages the results do not have count for the model strengths only). */
  add(v: ChooserVote): void {
    this.votes.push(v);
    const mine = this.seen.get(v.rater) ?? new Map<string, number>();
    const k = pairKey(v.requirement, v.modelA, v.modelB);
    mine.set(k, (mine.get(k) ?? 0) + 1);
    this.seen.set(v.rater, mine);
    this.dirty = true;
  }

  /** Take back a vote counted with `add` (the arena's undo). */
  remove(v: ChooserVote): void {
    const i = this.votes.findLastIndex(
      (x) => x.requirement === v.requirement && x.modelA === v.modelA && x.modelB === v.modelB && x.rater === v.rater && x.winner === v.winner,
    );
    if (i < 0) return;
    this.votes.splice(i, 1);
    const mine = this.seen.get(v.rater);
    const k = pairKey(v.requirement, v.modelA, v.modelB);
    const n = (mine?.get(k) ?? 0) - 1;
    if (mine && n > 0) mine.set(k, n);
    else mine?.delete(k);
    this.dirty = true;
  }

  /** Distinct pairs `rater` has judged. */
  judgedBy(rater: string): number {
    return this.seen.get(rater)?.size ?? 0;
  }

  /** The models' current Bradley–Terry strengths (centred). */
  strengths(): Map<string, number> {
    this.refit();
    return new Map(this.models.map((m, i) => [m, this.theta[i]!]));
  }

  private refit(): void {
    if (!this.dirty) return;
    const comps: BtComparison[] = [];
    for (const v of this.votes) {
      const a = this.modelIndex.get(v.modelA);
      const b = this.modelIndex.get(v.modelB);
      if (a !== undefined && b !== undefined) comps.push({ a, b, y: target(v.winner) });
    }
    this.theta = fitBradleyTerry(this.models.length, comps, this.opts.l2 ?? DEFAULT_BT_L2, this.theta).theta;
    this.dirty = false;
  }

  private difference(r: string, a: string, b: string): Float64Array | null {
    const fa = this.opts.features?.get(`${r}\u0000${a}`);
    const fb = this.opts.features?.get(`${r}\u0000${b}`);
    if (!fa || !fb || fa.length !== this.dim || fb.length !== this.dim) return null;
    return fa.map((v, k) => v - fb[k]!);
  }

  /** M⁻¹ as columns (module comment), or null without features. */
  private inverseInformation(shown: ReadonlyArray<{ requirement: string; modelA: string; modelB: string }>): Float64Array[] | null {
    const m = this.dim;
    if (m === 0) return null;
    const M = new Float64Array(m * m);
    for (let i = 0; i < m; i++) M[i * m + i] = 1;
    for (const v of shown) {
      const d = this.difference(v.requirement, v.modelA, v.modelB);
      if (!d) continue;
      for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) M[i * m + j]! += d[i]! * d[j]!;
    }
    const cols: Float64Array[] = [];
    for (let j = 0; j < m; j++) {
      const e = new Float64Array(m);
      e[j] = 1;
      const c = choleskySolve(M, e, m);
      if (!c) return null;
      cols.push(c);
    }
    return cols;
  }

  /**
   * The next pair for `rater` (module comment); `pending` are the pairs shown and not voted yet (every rater's),
   * `skip` pairs that cannot be shown. Null when the rater has judged every pair and repeats are off.
   */
  next(
    rater: string,
    pending: ReadonlyArray<{ requirement: string; modelA: string; modelB: string }> = [],
    skip: (requirement: string, m1: string, m2: string) => boolean = () => false,
  ): ChosenPair | null {
    this.refit();
    const use = { ...DEFAULT_FACTORS, ...this.opts.factors };
    const attention = new Map<string, number>();
    for (const v of [...this.votes, ...pending]) if (this.byReq.has(v.requirement)) attention.set(v.requirement, (attention.get(v.requirement) ?? 0) + 1);
    const inv = use.adds ? this.inverseInformation([...this.votes, ...pending]) : null;
    const mine = this.seen.get(rater);
    const open: Array<{ r: string; a: string; b: string; seen: number }> = [];
    for (const [r, list] of this.byReq) {
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          const seen = mine?.get(pairKey(r, list[i]!, list[j]!)) ?? 0;
          if ((seen > 0 && !this.opts.repeatPairs) || skip(r, list[i]!, list[j]!)) continue;
          open.push({ r, a: list[i]!, b: list[j]!, seen });
        }
      }
    }
    if (open.length === 0) return null;
    // With repeats on, the pairs the rater judged least come first: every pair once before any twice.
    const least = Math.min(...open.map((c) => c.seen));
    if (this.opts.repeatPairs) open.splice(0, open.length, ...open.filter((c) => c.seen === least));
    if (this.opts.rand() < (this.opts.explore ?? DEFAULT_EXPLORE)) {
      const c = open[Math.floor(this.opts.rand() * open.length)]!;
      return this.chosen(c.r, c.a, c.b, 0, 1, 1);
    }
    let vMin = Infinity;
    for (const c of open) vMin = Math.min(vMin, attention.get(c.r) ?? 0);
    let best = -Infinity;
    const scored = open.map((c) => {
      let adds = 1;
      const d = inv ? this.difference(c.r, c.a, c.b) : null;
      if (inv && d) for (let j = 0; j < d.length; j++) adds += d[j]! * inv[j]!.reduce((s, v, i) => s + v * d[i]!, 0);
      const p = sigmoid(this.theta[this.modelIndex.get(c.a)!]! - this.theta[this.modelIndex.get(c.b)!]!);
      const closeness = use.closeness ? 4 * p * (1 - p) : 1;
      const share = use.attention ? (1 + vMin) / (1 + (attention.get(c.r) ?? 0)) : 1;
      const priority = adds * closeness * share;
      best = Math.max(best, priority);
      return { ...c, adds, closeness, priority };
    });
    let pick = scored[scored.length - 1]!;
    if ((this.opts.draw ?? DEFAULT_DRAW) === 'proportional') {
      let u = this.opts.rand() * scored.reduce((a, c) => a + c.priority, 0);
      for (const c of scored)
        if ((u -= c.priority) < 0) {
          pick = c;
          break;
        }
    } else {
      const top = scored.filter((c) => c.priority >= best * (1 - 1e-12));
      pick = top[Math.min(top.length - 1, Math.floor(this.opts.rand() * top.length))]!;
    }
    return this.chosen(pick.r, pick.a, pick.b, pick.priority, pick.adds, pick.closeness);
  }

  /** The pair with fair coins for which model is model_a and which side it is shown on. */
  private chosen(r: string, a: string, b: string, priority: number, adds: number, closeness: number): ChosenPair {
    const swap = this.opts.rand() < 0.5;
    return {
      requirement: r,
      modelA: swap ? b : a,
      modelB: swap ? a : b,
      position: this.opts.rand() < 0.5 ? 'left' : 'right',
      priority,
      adds,
      closeness,
    };
  }
}
