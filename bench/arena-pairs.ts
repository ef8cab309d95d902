/**
 * Does the arena's choice of pairs (arena/select.ts) teach `weights fit --pairs` with fewer votes than random
 * pairs? And how many votes do the people's Bradley–Terry intervals need? (docs/arena.md quotes both.)
 *
 * Simulated population (seeded): `--models` models × `--requirements` requirements, six metrics. Models differ:
 * each has its own mean on each metric (N(0, 0.6²) in units of the page spread), each page adds N(0, 1), and the
 * results hold the rounded scores 60 + 15 × that. People follow a known metric: a page's quality is
 * 0.7 × z(copywriting) + 0.3 × z(lint) (the leaderboard's z over the population) plus N(0, `--noise`²) that no
 * metric explains (default 1: as large as the signal); a vote's winner is the page with the higher quality plus
 * N(0, 0.5²) of the moment, a tie when the two are within 0.1 (test/weights/synthetic.ts `judgedPages`' rule).
 * Four raters with that taste vote in turn; none is shown a pair twice.
 *
 * Strategies (`--strategies`, default random,arena,arena+closeness), each on the same populations and people:
 *   random             a uniform draw among the pairs the rater has not judged;
 *   arena              the arena's PairChooser as `webgrade arena` runs it (arena/select.ts: what a pair adds to
 *                      the votes' coverage of metric differences × its requirement's share of attention), fed
 *                      only the results' scores and the votes;
 *   arena+closeness    the same with the models' closeness factor (off in the arena: this measures why);
 *   adds-only, attention-only, arena-half-random   ablations (one factor; every other pair a random one).
 * After 100, 200, 400, 800 and 1600 votes (`--steps`): the weight misplaced by `weights fit --pairs`' fit
 * (fitWeights: its point estimate, no bootstrap), ½ Σ |ŵ − w*| (0: the truth; 1: all weight elsewhere); the
 * people's Bradley–Terry ranking of the models (rankModels, 200 bootstrap resamples of the requirements): the
 * Pearson correlation of its strengths with the models' true mean quality, the mean half-width of the strengths'
 * 95% intervals (log-odds), and the share of populations where every model's true rank lies in its rank
 * interval. Means over `--seeds` populations; then, per strategy, the votes at which the mean misplaced weight
 * first reaches each of `--targets` (linear between steps).
 *
 *   node dist/bench/arena-pairs.js [--models 8] [--requirements 80] [--steps 100,200,400,800,1600] [--seeds 16] [--noise 1]
 *     [--targets 0.2,0.15,0.12] [--strategies random,arena,arena+closeness]
 */
import { populationFromRows, populationNorms } from '../weights/aggregate.js';
import { mulberry32 } from '../lib/random.js';
import { rankModels } from '../weights/bradley-terry.js';
import { fitWeights } from '../weights/fit.js';
import { judgementsFromPairs } from '../weights/judgements.js';
import { NOISE_GUARD_OFF } from '../weights/noise.js';
import { matchPairs, type Preference } from '../weights/pairs.js';
import { presetWeights } from '../weights/personas.js';
import { metricProfiles } from '../arena/catalogue.js';
import { PairChooser, pairKey, type ChooserOptions } from '../arena/select.js';
import { row } from '../test/weights/synthetic.js';
import { benchArgs, usageError } from './common.js';
import type { ResultRow } from '../store/results-file.js';

const METRICS = ['lint', 'comment-rate', 'copywriting', 'accessibility', 'performance', 'layout-sparsity'];
const TRUTH: Record<string, number> = { copywriting: 0.7, lint: 0.3 };
const RATERS = ['r1', 'r2', 'r3', 'r4'];
/** Strategies: `random`, or a PairChooser with factors and exploration (see the module comment). */
const VARIANTS: Record<string, Pick<ChooserOptions, 'factors' | 'explore' | 'draw'> | null> = {
  random: null,
  arena: {},
  'arena+closeness': { factors: { closeness: true } },
  'adds-only': { factors: { adds: true, closeness: false, attention: false } },
  'attention-only': { factors: { adds: false, closeness: false, attention: true } },
  'arena-half-random': { explore: 0.5 },
  'arena-proportional': { draw: 'proportional' },
};
type Strategy = string;

const USAGE =
  'usage: node dist/bench/arena-pairs.js [--models 8] [--requirements 80] [--steps 100,200,400,800,1600] [--seeds 16] [--noise 1] [--targets 0.2,0.15,0.12] [--strategies random,arena,arena+closeness]';
const { values: args } = benchArgs(USAGE, {
  models: { type: 'number', default: 8 },
  requirements: { type: 'number', default: 80 },
  seeds: { type: 'number', default: 16 },
  noise: { type: 'number', default: 1 },
  targets: { type: 'numbers', default: [0.2, 0.15, 0.12] },
  steps: { type: 'numbers', default: [100, 200, 400, 800, 1600] },
  strategies: { type: 'string', default: 'random,arena,arena+closeness' },
});
const atLeast = (name: string, v: number, min: number) => {
  if (!Number.isFinite(v) || v < min) usageError(USAGE, `--${name} must be a number ≥ ${min}, got ${v}`);
  return v;
};
const MODELS = atLeast('models', args.models, 2);
const REQS = atLeast('requirements', args.requirements, 2);
const SEEDS = atLeast('seeds', args.seeds, 1);
const NOISE = atLeast('noise', args.noise, 0);
const TARGETS = args.targets;
if (TARGETS.some((t) => !Number.isFinite(t) || t <= 0)) usageError(USAGE, '--targets must be positive numbers');
const STEPS = args.steps;
const STRATEGIES = args.strategies.split(',');
const unknown = STRATEGIES.filter((s) => !(s in VARIANTS));
if (unknown.length) usageError(USAGE, `--strategies: unknown ${unknown.join(', ')} (known: ${Object.keys(VARIANTS).join(', ')})`);
if (STEPS.some((n) => !Number.isInteger(n) || n < 1) || STEPS.some((n, i) => i > 0 && n <= STEPS[i - 1]!))
  usageError(USAGE, '--steps must be increasing whole numbers ≥ 1');
const PAIRS = (REQS * MODELS * (MODELS - 1)) / 2;
if (STEPS[STEPS.length - 1]! > PAIRS * RATERS.length)
  usageError(USAGE, `--steps: at most ${PAIRS * RATERS.length} votes (${PAIRS} pairs × ${RATERS.length} raters)`);

interface World {
  rows: ResultRow[];
  quality: Map<string, number>;
  /** Each model's true mean quality. */
  modelQuality: Map<string, number>;
}

function world(seed: number): World {
  const rand = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const models = Array.from({ length: MODELS }, (_, i) => `m${i + 1}`);
  const shift = new Map(models.map((m) => [m, Object.fromEntries(METRICS.map((id) => [id, 0.6 * gauss()]))]));
  const rows: ResultRow[] = [];
  for (let r = 0; r < REQS; r++)
    for (const m of models)
      rows.push(
        row(
          m,
          `q${r}`,
          Object.fromEntries(METRICS.map((id) => [id, Math.round(Math.min(100, Math.max(0, 60 + 15 * (shift.get(m)![id]! + gauss()))) * 100) / 100])),
        ),
      );
  const norms = populationNorms(populationFromRows(rows));
  const quality = new Map<string, number>();
  const sums = new Map<string, number>();
  for (const x of rows) {
    let q = NOISE * gauss();
    for (const [id, w] of Object.entries(TRUTH)) q += (w * (x.metrics.find((m) => m.id === id)!.score! - norms[id]!.mean!)) / norms[id]!.sd!;
    quality.set(`${x.requirement}\u0000${x.model}`, q);
    sums.set(x.model, (sums.get(x.model) ?? 0) + q);
  }
  return { rows, quality, modelQuality: new Map([...sums].map(([m, s]) => [m, s / REQS])) };
}

/** `n` votes chosen by `strategy`, four raters in turn. */
function session(w: World, strategy: Strategy, n: number, seed: number): Preference[] {
  const rand = mulberry32(seed * 7919 + Object.keys(VARIANTS).indexOf(strategy));
  const people = mulberry32(seed * 104729);
  const gauss = () => Math.sqrt(-2 * Math.log(people() + 1e-12)) * Math.cos(2 * Math.PI * people());
  const pages = w.rows.map((r) => ({ requirement: r.requirement, model: r.model }));
  const { features } = metricProfiles(w.rows, new Set(w.rows.map((r) => `${r.model}\u0000${r.requirement}`)));
  const opts: ChooserOptions = { rand, features, ...VARIANTS[strategy] };
  const chooser = new PairChooser(pages, opts);
  const all: Array<{ requirement: string; a: string; b: string }> = [];
  for (const req of chooser.requirements()) {
    const ms = pages.filter((p) => p.requirement === req).map((p) => p.model);
    for (let i = 0; i < ms.length; i++) for (let j = i + 1; j < ms.length; j++) all.push({ requirement: req, a: ms[i]!, b: ms[j]! });
  }
  const seen = new Map(RATERS.map((r) => [r, new Set<string>()]));
  const out: Preference[] = [];
  for (let k = 0; k < n; k++) {
    const rater = RATERS[k % RATERS.length]!;
    let pick: { requirement: string; modelA: string; modelB: string } | null;
    if (strategy === 'random') {
      const open = all.filter((p) => !seen.get(rater)!.has(pairKey(p.requirement, p.a, p.b)));
      const p = open[Math.floor(rand() * open.length)]!;
      pick = rand() < 0.5 ? { requirement: p.requirement, modelA: p.a, modelB: p.b } : { requirement: p.requirement, modelA: p.b, modelB: p.a };
    } else pick = chooser.next(rater);
    if (!pick) break;
    const d = w.quality.get(`${pick.requirement}\u0000${pick.modelA}`)! - w.quality.get(`${pick.requirement}\u0000${pick.modelB}`)! + 0.5 * gauss();
    const winner = Math.abs(d) < 0.1 ? 'tie' : d > 0 ? 'a' : 'b';
    seen.get(rater)!.add(pairKey(pick.requirement, pick.modelA, pick.modelB));
    chooser.add({ ...pick, winner, rater });
    out.push({ line: k + 1, ...pick, winner, rater });
  }
  return out;
}

interface Figures {
  misplaced: number;
  r: number;
  halfWidth: number;
  ranksCovered: boolean;
}

function figures(w: World, prefs: readonly Preference[]): Figures {
  const pop = populationFromRows(w.rows);
  const j = judgementsFromPairs(matchPairs(prefs, pop.samples).pairs, pop.samples);
  const data = { file: 'simulated', sha256: '', rows: prefs.length, matched: prefs.length, unmatched: 0 };
  const fit = fitWeights(pop, j, data, 'simulated', {
    survey: [presetWeights('all')],
    suite: 'study',
    iterations: 0,
    folds: 2,
    seed: 1,
    noiseGuard: NOISE_GUARD_OFF,
  });
  const misplaced = fit.weights ? METRICS.reduce((a, id) => a + Math.abs((fit.weights![id] ?? 0) - (TRUTH[id] ?? 0)), 0) / 2 : 1;
  const ranking = rankModels(prefs, { iterations: 200, seed: 1, models: [...w.modelQuality.keys()] });
  const truthOrder = [...w.modelQuality.keys()].sort((a, b) => w.modelQuality.get(b)! - w.modelQuality.get(a)!);
  const xs = ranking.models.map((m) => m.strength);
  const ys = ranking.models.map((m) => w.modelQuality.get(m.model)!);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i]! - my);
    sxx += (x - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  });
  return {
    misplaced,
    r: sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0,
    halfWidth: ranking.models.reduce((a, m) => a + (m.ci ? (m.ci[1] - m.ci[0]) / 2 : 0), 0) / ranking.models.length,
    ranksCovered: ranking.models.every((m) => {
      const t = truthOrder.indexOf(m.model) + 1;
      return m.rankCi !== null && t >= m.rankCi[0] && t <= m.rankCi[1];
    }),
  };
}

const started = performance.now();
const all = new Map(STRATEGIES.map((s) => [s, STEPS.map(() => [] as Figures[])]));
for (let seed = 1; seed <= SEEDS; seed++) {
  const w = world(seed);
  for (const s of STRATEGIES) {
    const prefs = session(w, s, STEPS[STEPS.length - 1]!, seed);
    STEPS.forEach((n, i) => all.get(s)![i]!.push(figures(w, prefs.slice(0, n))));
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
process.stdout.write(
  `arena-pairs: ${MODELS} models × ${REQS} requirements (${PAIRS} pairs), people follow copywriting 0.7 + lint 0.3 with unexplained noise ${NOISE}, ${RATERS.length} raters, ${SEEDS} simulated populations\n`,
);
process.stdout.write(
  'strategy | votes | misplaced weight (mean) | BT strengths vs truth (r) | BT CI half-width (log-odds) | true order in every rank interval\n',
);
for (const s of STRATEGIES) {
  STEPS.forEach((n, i) => {
    const f = all.get(s)![i]!;
    process.stdout.write(
      `${s} | ${n} | ${mean(f.map((x) => x.misplaced)).toFixed(3)} | ${mean(f.map((x) => x.r)).toFixed(3)} | ${mean(f.map((x) => x.halfWidth)).toFixed(2)} | ${Math.round((100 * f.filter((x) => x.ranksCovered).length) / f.length)}%\n`,
    );
  });
}
/** The votes at which the mean misplaced weight first reaches `target`, linear between steps; null: not within the steps. */
function votesFor(s: Strategy, target: number): number | null {
  const m = STEPS.map((_, i) => mean(all.get(s)![i]!.map((x) => x.misplaced)));
  for (let i = 0; i < STEPS.length; i++) {
    if (m[i]! > target) continue;
    if (i === 0) return STEPS[0]!;
    return Math.round(STEPS[i - 1]! + ((STEPS[i]! - STEPS[i - 1]!) * (m[i - 1]! - target)) / (m[i - 1]! - m[i]!));
  }
  return null;
}
for (const t of TARGETS)
  process.stdout.write(
    `votes until the mean misplaced weight is ≤ ${t}: ${STRATEGIES.map((s) => `${s} ${votesFor(s, t) ?? `more than ${STEPS[STEPS.length - 1]}`}`).join(', ')}\n`,
  );
process.stdout.write(`${((performance.now() - started) / 1000).toFixed(0)} s\n`);
