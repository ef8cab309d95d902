/** Synthetic result rows for the weights tests. */
import { findMetric as catalogEntry } from '../../metrics/registry.js';
import type { ResultRow } from '../../store/results-file.js';
import type { MetricResult } from '../../runner/score.js';
import { mulberry32 } from '../../lib/random.js';

export function row(model: string, requirement: string, scores: Record<string, number | null>, labels?: Record<string, string>): ResultRow {
  const metrics = Object.entries(scores).map(([id, score]) => {
    const c = catalogEntry(id);
    const m: MetricResult = { id, perspective: c?.perspective ?? 'code', kind: c?.kind ?? 'rule', title: c?.title ?? id, score, details: {}, ms: 0 };
    if (score === null) m.reason = 'nothing to measure';
    return m;
  });
  const r: ResultRow = { model, requirement, status: 'ok', artifact: `runs/${model}/${requirement}.html`, metrics };
  if (labels) r.labels = labels;
  return r;
}

export function failedRow(model: string, requirement: string): ResultRow {
  return { model, requirement, status: 'failed', error: 'worker crashed', artifact: `runs/${model}/${requirement}.html`, metrics: [] };
}

/** A row of one repeat (`batch --repeats`): `repeat` 1..n. */
export function repeatRow(
  model: string,
  requirement: string,
  repeat: number,
  scores: Record<string, number | null>,
  labels?: Record<string, string>,
): ResultRow {
  return { ...row(model, requirement, scores, labels), repeat };
}

/**
 * Judged pages for the weights-fit tests: `models` × `requirements` pages whose metric scores are independent
 * (≈ N(60, 15), clipped to 0–100), and people's judgements of them. The people follow `follow` (a page's latent
 * quality is its standardised score of that metric, plus N(0, noise)), or nothing at all (`follow: null`: the
 * latent is pure noise). Ratings: the latent; pairs: `pairsPerRequirement` random pairs of models per
 * requirement, the winner the one with the higher latent plus N(0, 0.5) (a tie when the two are within 0.1).
 */
export function judgedPages(opts: {
  models: number;
  requirements: number;
  metrics: string[];
  follow: string | null;
  noise: number;
  pairsPerRequirement?: number;
  seed: number;
}): {
  rows: ResultRow[];
  ratings: Array<{ model: string; requirement: string; rating: number }>;
  pairs: Array<{ requirement: string; model_a: string; model_b: string; winner: 'a' | 'b' | 'tie' }>;
} {
  const rand = mulberry32(opts.seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const models = Array.from({ length: opts.models }, (_, i) => `m${i + 1}`);
  const rows: ResultRow[] = [];
  const ratings: Array<{ model: string; requirement: string; rating: number }> = [];
  const pairs: Array<{ requirement: string; model_a: string; model_b: string; winner: 'a' | 'b' | 'tie' }> = [];
  for (let r = 0; r < opts.requirements; r++) {
    const req = `r${r}`;
    const latent: number[] = [];
    for (const model of models) {
      const scores = Object.fromEntries(opts.metrics.map((id) => [id, Math.round(Math.min(100, Math.max(0, 60 + 15 * gauss())) * 100) / 100]));
      rows.push(row(model, req, scores));
      const l = opts.follow ? (scores[opts.follow]! - 60) / 15 + opts.noise * gauss() : gauss();
      latent.push(l);
      ratings.push({ model, requirement: req, rating: Math.round(l * 1000) / 1000 });
    }
    for (let k = 0; k < (opts.pairsPerRequirement ?? 0); k++) {
      const i = Math.floor(rand() * models.length);
      let j = Math.floor(rand() * (models.length - 1));
      if (j >= i) j++;
      const d = latent[i]! - latent[j]! + 0.5 * gauss();
      pairs.push({ requirement: req, model_a: models[i]!, model_b: models[j]!, winner: Math.abs(d) < 0.1 ? 'tie' : d > 0 ? 'a' : 'b' });
    }
  }
  return { rows, ratings, pairs };
}
