/**
 * The people's ranking of models beside webgrade's (`leaderboard --pairs`): Bradley–Terry strengths from
 * pairwise votes (bradley-terry.ts; an arena's votes file, or any pairs file) next to the leaderboard's overall,
 * and how well the two agree.
 *
 * Interpretations:
 * - Only votes on two pages the results have count (matched by requirement and models, as `analyse --pairs`
 *   does); the others are counted and said. Every model of the leaderboard is ranked, one without votes at the
 *   prior's 0 with an interval as wide as the data allow.
 * - Agreement, two ways, because they answer different questions:
 *   - the model order: Spearman's ρ between the people's strengths and webgrade's overalls over the models,
 *     with a 95% interval from the people's bootstrap (over requirements; webgrade's overalls held fixed: their
 *     own interval is the leaderboard's);
 *   - the pages: the share of decisive votes (not ties, not both-bad) whose winner has the higher webgrade
 *     overall (the leaderboard's z and weights; a tie in the overall counts ½; chance 0.50), with a 95%
 *     interval over requirements, `analyse --pairs`' measure for the overall (judgements.ts).
 */
import type { Population } from './aggregate.js';
import { pageOverall } from './aggregate.js';
import { rankModels, type BtRanking } from './bradley-terry.js';
import { estimates, groupAgreement, judgementsFromPairs, type Estimate } from './judgements.js';
import { matchPairs, type PairsFile } from './pairs.js';
import type { ResolvedWeights } from './personas.js';
import { spearman } from './rank-correlation.js';
import type { MetricNorm } from './zscore.js';
import { quantileSorted } from 'simple-statistics';

export interface PeopleModel {
  model: string;
  rank: number;
  /** Log-odds against the average model, with its 95% interval and rank interval. */
  strength: number;
  ci: [number, number] | null;
  rankCi: [number, number] | null;
  votes: number;
  wins: number;
  losses: number;
  ties: number;
  webgradeRank: number;
  webgradeOverall: number;
}

export interface PeopleBeside {
  file: string;
  /** Votes read, matched to two pages of the results, and not. */
  votes: number;
  matched: number;
  unmatched: number;
  ties: number;
  bothBad: number;
  raters: number;
  requirements: number;
  l2: number;
  bootstrap: BtRanking['bootstrap'];
  models: PeopleModel[];
  agreement: {
    modelOrder: { spearman: number | null; ci: [number, number] | null; models: number };
    pages: Estimate;
  };
}

/**
 * The people's ranking of `ranked` (the leaderboard's models: rank and overall) from `pairs`, and the agreement;
 * `norms` and `weights` are the leaderboard's (its page overalls are Σ w · z with them).
 */
export function peopleBeside(
  pop: Population,
  ranked: ReadonlyArray<{ model: string; rank: number; overall: number }>,
  norms: Record<string, MetricNorm>,
  weights: ResolvedWeights,
  pairs: PairsFile,
  opts: { iterations: number; seed: number },
): PeopleBeside {
  const match = matchPairs(pairs.pairs, pop.samples);
  const matched = match.pairs.map((p) => ({
    modelA: pop.samples[p.a]!.model,
    modelB: pop.samples[p.b]!.model,
    winner: p.winner,
    requirement: pop.samples[p.a]!.requirement,
  }));
  const ranking = rankModels(matched, { iterations: opts.iterations, seed: opts.seed, models: ranked.map((m) => m.model), keepSamples: true });
  const wg = new Map(ranked.map((m) => [m.model, m]));
  const models: PeopleModel[] = ranking.models
    .filter((m) => wg.has(m.model))
    .map((m) => ({
      model: m.model,
      rank: m.rank,
      strength: m.strength,
      ci: m.ci,
      rankCi: m.rankCi,
      votes: m.votes,
      wins: m.wins,
      losses: m.losses,
      ties: m.ties,
      webgradeRank: wg.get(m.model)!.rank,
      webgradeOverall: wg.get(m.model)!.overall,
    }));
  const overalls = models.map((m) => m.webgradeOverall);
  const rho = spearman(
    models.map((m) => m.strength),
    overalls,
  );
  const rhos: number[] = [];
  for (const s of ranking.samples ?? []) {
    const r = spearman(
      models.map((m) => s.get(m.model)!),
      overalls,
    );
    if (r !== null) rhos.push(r);
  }
  rhos.sort((a, b) => a - b);

  const scores = pop.samples.map((s) => (s.failed ? null : pageOverall(s.scores, norms, weights.metrics)));
  const j = judgementsFromPairs(match.pairs, pop.samples);
  const [pages] = estimates('pairs', [j.groups.map((g) => groupAgreement('pairs', g, scores))], opts.iterations, opts.seed);
  return {
    file: pairs.path,
    votes: pairs.pairs.length,
    matched: match.pairs.length,
    unmatched: match.unmatched.length,
    ties: match.pairs.filter((p) => p.winner === 'tie').length,
    bothBad: pairs.bothBad,
    raters: pairs.raters,
    requirements: j.groups.length,
    l2: ranking.l2,
    bootstrap: ranking.bootstrap,
    models,
    agreement: {
      modelOrder: {
        spearman: rho,
        ci: rho !== null && rhos.length >= opts.iterations / 2 && rhos.length > 0 ? [quantileSorted(rhos, 0.025), quantileSorted(rhos, 0.975)] : null,
        models: models.length,
      },
      pages: pages!,
    },
  };
}
