/**
 * Calibrating the noise guard's k (weights/noise.ts, DEFAULT_NOISE_GUARD_K) from measurements: given the same
 * pages scored more than once, how far does noise move things for k = 0 (the study's arithmetic), 1, 2, 3, 5?
 *
 *   node dist/bench/noise-guard.js run1.jsonl run2.jsonl [run3.jsonl ...] [--persona all] [--k 0,1,2,3,5]
 *        [--pseudo-models 10] [--json]
 *   node dist/bench/noise-guard.js repeated.jsonl        (one file from `webgrade batch --repeats n`)
 *
 * Runs: every (file, repeat) pair is one run (two files without repeats: two runs; one file with repeats 1..n:
 * n runs). Each run is ranked on its own, as a leaderboard of that run would be: μ and σ from that run's
 * artifacts, the σ floor k × the test–retest sd estimated from all runs together (what `norms build` would store
 * from these repeats). Printed per k:
 * - metrics whose σ the guard raised (in any run);
 * - page overall moves: for every pair of runs and every page scored in both, |overall_a − overall_b| of the page
 *   (Σ w_j z_j, persona weights), in % of one SD: median, p90, max;
 * - model ranking: Kendall τ-b between the model overalls of every pair of runs (mean and lowest), and τ against
 *   the k = 0 ranking of the same run (how much the guard changes the answer, not only its stability).
 * Models: the rows' models when there are at least 3; otherwise (a corpus of pages from one source) the pages are
 * split into `--pseudo-models` groups (default 10) by a hash of their requirement id, and those are ranked.
 *
 * Before it: per metric, its weight, between-page σ (run 1), test–retest sd, their ratio and the pairs behind it.
 * The lead sets DEFAULT_NOISE_GUARD_K from this on real repeated results (e.g. the smallest k whose p90 page move
 * and between-run τ are acceptable while τ against k = 0 stays high).
 */
import { quantileSorted } from 'simple-statistics';
import { findMetric } from '../metrics/registry.js';
import { dedupeRows, readResults, type ResultRow } from '../store/results-file.js';
import { aggregate, artifactKey, pageOverall, populationFromRows, populationNorms, repeatOf, scoreModels, type Population } from '../weights/aggregate.js';
import { DEFAULT_NOISE_GUARD_K, guardNorms, retestFromPopulation } from '../weights/noise.js';
import { resolveWeights } from '../weights/personas.js';
import { kendallTauB } from '../weights/rank-correlation.js';
import { benchArgs, usageError } from './common.js';

const USAGE = 'usage: node dist/bench/noise-guard.js <results.jsonl> [more.jsonl ...] [--persona all] [--k 0,1,2,3,5] [--pseudo-models 10] [--json]';
const { values: args, positionals: files } = benchArgs(
  USAGE,
  {
    persona: { type: 'string', default: 'all' },
    k: { type: 'numbers', default: [0, 1, 2, 3, 5] },
    'pseudo-models': { type: 'number', default: 10 },
    json: { type: 'boolean' },
  },
  { positionals: true },
);
const json = args.json;
const persona = args.persona;
const ks = args.k;
const pseudo = args['pseudo-models'];
if (files.length === 0) usageError(USAGE, 'no results file given');
if (ks.some((k) => !(k >= 0))) usageError(USAGE, `--k must be numbers ≥ 0, got ${ks.join(',')}`);
if (!(pseudo >= 2)) usageError(USAGE, `--pseudo-models must be ≥ 2, got ${pseudo}`);

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

// Runs: (file, repeat) → rows.
const runs: Array<{ name: string; rows: ResultRow[] }> = [];
for (const [fi, f] of files.entries()) {
  const rows = dedupeRows(readResults(f).rows).rows;
  const reps = [...new Set(rows.map(repeatOf))].sort((a, b) => a - b);
  for (const r of reps)
    runs.push({ name: `${f}${reps.length > 1 ? `#${r}` : ''}`, rows: rows.filter((x) => repeatOf(x) === r).map((x) => ({ ...x, repeat: fi * 1000 + r })) });
}
if (runs.length < 2) {
  console.error('need at least two runs of the same pages: two results files, or one written with `webgrade batch --repeats 2` or more');
  process.exit(2);
}
const realModels = new Set(runs.flatMap((r) => r.rows.map((x) => x.model)));
const usePseudo = realModels.size < 3;
const relabel = (x: ResultRow): ResultRow =>
  usePseudo ? { ...x, model: `pseudo-${String(fnv(`${x.model}/${x.requirement}`) % pseudo).padStart(2, '0')}` } : x;
for (const run of runs) run.rows = run.rows.map(relabel);

const weights = resolveWeights({ persona }).metrics;
const all = populationFromRows(runs.flatMap((r) => r.rows));
const retest = retestFromPopulation(all);
const pops: Population[] = runs.map((r) => populationFromRows(r.rows, new Set(Object.keys(weights))));

const pct = (x: number) => (x * 100).toFixed(2);
const q = (xs: number[], p: number) =>
  xs.length
    ? quantileSorted(
        [...xs].sort((a, b) => a - b),
        p,
      )
    : NaN;

interface KRow {
  k: number;
  raised: string[];
  pagePairs: number;
  moveMedian: number;
  moveP90: number;
  moveMax: number;
  tauMean: number;
  tauMin: number;
  tauVsStudy: number | null;
}

function rankRun(pop: Population, k: number) {
  const { norms, report } = guardNorms(populationNorms(pop), retest, { enabled: k > 0, k });
  const pages = new Map(pop.samples.filter((s) => !s.failed).map((s) => [artifactKey(s.model, s.requirement), pageOverall(s.scores, norms, weights)]));
  const models = new Map(scoreModels(aggregate(pop, { norms }), weights).map((m) => [m.model, m.overall]));
  return { pages, models, raised: report.changed.map((c) => c.metric) };
}

function tau(a: Map<string, number>, b: Map<string, number>): number | null {
  const names = [...a.keys()].filter((m) => b.has(m));
  return kendallTauB(
    names.map((m) => a.get(m)!),
    names.map((m) => b.get(m)!),
  );
}

const study = pops.map((p) => rankRun(p, 0));
const rows: KRow[] = ks.map((k) => {
  const ranked = k === 0 ? study : pops.map((p) => rankRun(p, k));
  const moves: number[] = [];
  const taus: number[] = [];
  for (let i = 0; i < ranked.length; i++) {
    for (let j = i + 1; j < ranked.length; j++) {
      for (const [key, v] of ranked[i]!.pages) {
        const w = ranked[j]!.pages.get(key);
        if (w !== undefined) moves.push(Math.abs(v - w));
      }
      const t = tau(ranked[i]!.models, ranked[j]!.models);
      if (t !== null) taus.push(t);
    }
  }
  const vs = ranked.map((r, i) => tau(r.models, study[i]!.models)).filter((t): t is number => t !== null);
  return {
    k,
    raised: [...new Set(ranked.flatMap((r) => r.raised))],
    pagePairs: moves.length,
    moveMedian: q(moves, 0.5),
    moveP90: q(moves, 0.9),
    moveMax: moves.length ? Math.max(...moves) : NaN,
    tauMean: taus.length ? taus.reduce((a, b) => a + b, 0) / taus.length : NaN,
    tauMin: taus.length ? Math.min(...taus) : NaN,
    tauVsStudy: vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : null,
  };
});

const first = populationNorms(pops[0]!);
const metrics = Object.keys(first).map((id) => ({
  id,
  weight: weights[id] ?? 0,
  sd: first[id]!.sd,
  retestSd: retest[id]?.sd ?? null,
  pairs: retest[id]?.pairs ?? 0,
  ratio: retest[id] && first[id]!.sd ? retest[id]!.sd / first[id]!.sd! : null,
}));

if (json) {
  console.log(
    JSON.stringify(
      {
        runs: runs.map((r) => r.name),
        models: usePseudo ? `${pseudo} pseudo-models` : [...realModels].sort(),
        persona,
        defaultK: DEFAULT_NOISE_GUARD_K,
        metrics,
        ks: rows,
      },
      null,
      2,
    ),
  );
} else {
  const pages = pops[0]!.samples.length;
  console.log(
    `${runs.length} runs (${runs.map((r) => r.name).join(', ')}); ${pages} pages in run 1; ranking ${usePseudo ? `${pseudo} pseudo-models (pages split by a hash of their id: the results have ${realModels.size} model${realModels.size === 1 ? '' : 's'})` : `${realModels.size} models`}; persona ${persona}`,
  );
  console.log('');
  console.log('metric                      weight   σ (run 1)  retest sd  retest/σ  pairs');
  for (const m of metrics.filter((x) => findMetric(x.id))) {
    console.log(
      `${m.id.padEnd(26)} ${(m.weight * 100).toFixed(2).padStart(6)}%  ${(m.sd === null ? 'n/a' : m.sd.toFixed(2)).padStart(9)}  ${(m.retestSd === null ? 'n/a' : m.retestSd.toFixed(2)).padStart(9)}  ${(m.ratio === null ? 'n/a' : m.ratio.toFixed(2)).padStart(8)}  ${String(m.pairs).padStart(5)}`,
    );
  }
  console.log('');
  console.log('k    raised  page overall move between runs (% of one SD)   model τ between runs   τ vs k = 0');
  console.log('             median      p90      max    (page pairs)       mean     lowest');
  for (const r of rows) {
    console.log(
      `${String(r.k).padEnd(4)} ${String(r.raised.length).padStart(6)}  ${pct(r.moveMedian).padStart(6)} ${pct(r.moveP90).padStart(8)} ${pct(r.moveMax).padStart(8)}    (${r.pagePairs})${' '.repeat(Math.max(1, 12 - String(r.pagePairs).length))}${r.tauMean.toFixed(3).padStart(6)} ${r.tauMin.toFixed(3).padStart(9)}   ${r.tauVsStudy === null ? 'n/a' : r.tauVsStudy.toFixed(3)}`,
    );
  }
  for (const r of rows) if (r.raised.length) console.log(`k ${r.k} raised σ of: ${r.raised.join(', ')}`);
  console.log(`default k today: ${DEFAULT_NOISE_GUARD_K} (weights/noise.ts DEFAULT_NOISE_GUARD_K, a placeholder until this has been run on real repeats)`);
}
