/**
 * `webgrade weights fit <results> --ratings <file> | --pairs <file>`: metric weights learned from people's
 * judgements (weights/fit.ts), written as a weights file for `--weights`, with their held-out agreement beside
 * the survey weights'.
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { InputError, errorMessage } from '../../core/errors.js';
import type { SuiteId } from '../../core/metric.js';
import { findMetric, suiteMetrics } from '../../metrics/registry.js';
import { dedupeRows, noUsableRows, readResults, rowsWithValidScores, skippedLinesNote } from '../../store/results-file.js';
import { populationFromRows, type Population } from '../../weights/aggregate.js';
import { DEFAULT_SEED } from '../../weights/bootstrap.js';
import {
  DEFAULT_FIT_ITERATIONS,
  DEFAULT_FOLDS,
  DEFAULT_L2,
  FITTED_PERSONA,
  fileSha256,
  fittedPersona,
  fitWeights,
  provenanceOf,
  TIE_RULES,
  type DataSummary,
  type TieRule,
} from '../../weights/fit.js';
import { fitTable } from '../../report/fit-format.js';
import { judgementsFromPairs, judgementsFromRatings, type Judgements } from '../../weights/judgements.js';
import { DEFAULT_NOISE_GUARD_K } from '../../weights/noise.js';
import { loadDefaultNorms, loadNorms } from '../../weights/norms.js';
import { loadPairs, matchPairs, pairsFileNotes } from '../../weights/pairs.js';
import { DEFAULT_PERSONA, PERSONA_IDS, presetWeights, resolveWeights, weightedPerspectives } from '../../weights/personas.js';
import { loadRatings, matchRatings } from '../../weights/ratings.js';
import { loadWeightsFile } from '../../weights/weights-file.js';
import { action, choiceParser, parseNonNegativeInt, parsePositiveInt, parseSuite, printJson, SUITE_HELP, say, warn } from '../cli-support.js';
import { rowsSuite } from './leaderboard.js';

interface FitFlags {
  ratings?: string;
  pairs?: string;
  out?: string;
  suite?: SuiteId;
  persona?: string;
  weights?: string;
  folds?: number;
  seed?: number;
  bootstrap?: number;
  l2?: number;
  ties?: TieRule;
  norms?: string;
  noiseGuard?: boolean;
  json?: boolean;
}

function parseFolds(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 2) throw new InvalidArgumentError('expected a whole number ≥ 2');
  return n;
}

function parseL2(v: string): number {
  const n = Number(v);
  // λ = 0 would let the weights grow without bound when the training pairs are separable.
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

/** The judgements of --ratings or --pairs matched to the results' pages, and what was read. */
function readJudgements(flags: FitFlags, pop: Population, results: string): { judgements: Judgements; data: DataSummary; notes: string[] } {
  const pages = pop.samples.map((s) => ({ model: s.model, requirement: s.requirement, ...(s.artifact ? { artifact: s.artifact } : {}) }));
  if (flags.ratings) {
    const rf = loadRatings(flags.ratings);
    const match = matchRatings(rf.ratings, pages);
    if (match.byPage.size === 0)
      throw new InputError(`${flags.ratings}: no rating matches a page of ${results} (match by "artifact" path, or by "model" and "requirement")`);
    return {
      judgements: judgementsFromRatings(match.byPage, pop.samples),
      data: {
        file: flags.ratings,
        rows: rf.ratings.length,
        matched: match.matched,
        unmatched: match.unmatched.length,
        ambiguous: match.ambiguous.length,
        unrated: rf.unrated,
      },
      notes: [],
    };
  }
  const pf = loadPairs(flags.pairs!);
  const match = matchPairs(pf.pairs, pages);
  if (match.pairs.length === 0)
    throw new InputError(`${flags.pairs}: no judgement matches two pages of ${results} (match by "requirement" with "model_a" and "model_b")`);
  return {
    judgements: judgementsFromPairs(match.pairs, pop.samples),
    data: { file: flags.pairs!, rows: pf.pairs.length, matched: match.pairs.length, unmatched: match.unmatched.length, raters: pf.raters },
    notes: pairsFileNotes(pf),
  };
}

export function weightsCommand(): Command {
  const weights = new Command('weights').description("weights learned from people's judgements of pages");
  weights
    .command('fit')
    .description("learn non-negative metric weights from ratings or pairwise preferences; write a weights file with the fit's held-out agreement")
    .argument('<results.jsonl>', 'results file written by `webgrade batch` (the pages the judgements are about)')
    .option('--ratings <file>', 'human ratings, CSV or JSONL: "rating" plus "artifact" or "model" and "requirement" (several ratings of a page are averaged)')
    .option(
      '--pairs <file>',
      'pairwise preferences, CSV or JSONL (what `webgrade arena` writes): "requirement", "model_a", "model_b", "winner" (a, b, tie or both-bad), optional "rater"',
    )
    .option('--out <weights.json>', 'where to write the fitted weights (the `--weights` format of leaderboard, score, analyse); required')
    .option('--suite <suite>', `${SUITE_HELP}; default: the suite the results were scored with`, parseSuite)
    .option('--persona <id>', `survey weights to compare with besides persona all (${PERSONA_IDS.join(', ')}), or a persona of --weights`)
    .option('--weights <weights.json>', 'survey weights file (`webgrade survey weights --out`) to compare with')
    .option('--folds <k>', `cross-validation folds, grouped by requirement (default ${DEFAULT_FOLDS})`, parseFolds)
    .option('--seed <n>', `seed of the folds and the bootstrap (default ${DEFAULT_SEED})`, parsePositiveInt)
    .option(
      '--bootstrap <n>',
      `bootstrap resamples of the requirements for the intervals, each a refit (default ${DEFAULT_FIT_ITERATIONS}; 0 = none)`,
      parseNonNegativeInt,
    )
    .option('--l2 <λ>', `L2 penalty on the weights, (λ/2)·‖w‖² beside the mean logistic loss (default ${DEFAULT_L2})`, parseL2)
    .option('--ties <rule>', `pairs: a tie is half a win each (half, default) or left out (drop)`, choiceParser(TIE_RULES))
    .option('--norms <norms.json>', 'norms whose test–retest sds the noise guard uses for metrics without repeats (default: the shipped norms)')
    .option(
      '--no-noise-guard',
      `z as the study's: σ never raised to k × the test–retest sd (k = ${DEFAULT_NOISE_GUARD_K}); the leaderboard must then run with --no-noise-guard too`,
    )
    .option('--json', 'print the fit document (JSON) instead of the table')
    .action(
      action(async (results: string, flags: FitFlags) => {
        if (!flags.ratings === !flags.pairs) throw new InputError('weights fit: give --ratings <file> or --pairs <file> (one of them)');
        if (!flags.out) throw new InputError('weights fit: give --out <weights.json> (where the fitted weights go)');
        if (flags.ties && !flags.pairs) throw new InputError('--ties applies to --pairs only');
        const read = readResults(results);
        const valid = rowsWithValidScores(read.rows);
        const { rows } = dedupeRows(valid.rows);
        if (rows.length === 0) throw noUsableRows(results, read, valid);
        const suite = flags.suite ?? rowsSuite(rows);
        const reference = rows.some(
          (r) => r.reference !== undefined || r.metrics.some((m) => m.score !== null && findMetric(m.id)?.perspective === 'fidelity'),
        );
        const wopts: Parameters<typeof resolveWeights>[0] = { suite, reference };
        if (flags.persona) wopts.persona = flags.persona;
        if (flags.weights) {
          wopts.weightsFile = loadWeightsFile(flags.weights);
          wopts.weightsPath = flags.weights;
        }
        const chosen = resolveWeights(wopts);
        const base = presetWeights(DEFAULT_PERSONA, { suite, reference });
        const survey = chosen.persona === base.persona && chosen.source === base.source ? [base] : [base, chosen];
        const pop = populationFromRows(rows, new Set(suiteMetrics(suite).map((m) => m.id)));
        const { judgements, data, notes: dataNotes } = readJudgements(flags, pop, results);
        const file = data.file;
        if (judgements.groups.length < 2)
          throw new InputError(`${file}: judgements on ${judgements.groups.length} requirement only: cross-validation by requirement needs at least 2`);
        const norms = flags.norms ? loadNorms(flags.norms) : loadDefaultNorms();
        const { doc, weights: fitted } = fitWeights(pop, judgements, { ...data, sha256: fileSha256(file) }, results, {
          survey,
          suite,
          folds: flags.folds ?? DEFAULT_FOLDS,
          seed: flags.seed ?? DEFAULT_SEED,
          iterations: flags.bootstrap ?? DEFAULT_FIT_ITERATIONS,
          l2: flags.l2 ?? DEFAULT_L2,
          ties: flags.ties ?? 'half',
          noiseGuard: { enabled: flags.noiseGuard !== false, k: DEFAULT_NOISE_GUARD_K, normsLabel: flags.norms ?? 'the shipped norms' },
          normsMetrics: norms?.metrics ?? null,
        });
        if (doc.data.comparisons === 0)
          throw new InputError(
            `${file}: no two judged pages of one requirement differ (every rating tied, or every judgement a tie left out): nothing to learn from`,
          );
        doc.notes.push(...dataNotes);
        if (data.unmatched) doc.notes.push(`${data.unmatched} ${flags.ratings ? 'ratings' : 'judgements'} match no page of the results: left out`);
        if (data.ambiguous) doc.notes.push(`${data.ambiguous} ratings match more than one page by their path's end: left out`);
        if (flags.noiseGuard === false) doc.notes.push('fitted without the noise guard: rank with `leaderboard --no-noise-guard` for the same z');
        const skipped = skippedLinesNote(read);
        if (skipped) doc.notes.push(`the results: ${skipped}`);
        if (valid.rejected)
          doc.notes.push(
            `${valid.rejected} result ${valid.rejected === 1 ? 'row' : 'rows'} left out: a metric score outside 0–100 or not a finite number, as the leaderboard leaves them out`,
          );
        if (!fitted) throw new InputError(`${file}: the fit gives no metric a positive weight (no page order the metrics explain): no weights file written`);
        const weightsDoc = { personas: { [FITTED_PERSONA]: fittedPersona(fitted, weightedPerspectives(suite, { reference }), suite, provenanceOf(doc)) } };
        try {
          writeFileSync(flags.out, JSON.stringify(weightsDoc, null, 2) + '\n');
        } catch (err) {
          throw new InputError(`--out ${flags.out}: cannot write (${errorMessage(err)})`);
        }
        if (flags.json) {
          printJson(doc);
          warn(`wrote the fitted weights to ${flags.out}\n`);
        } else say(fitTable(doc, flags.out) + '\n');
      }),
    );
  return weights;
}
