/**
 * `webgrade analyse <results.jsonl>`: per metric and for the overall, the scorable share, mean, sd, the share of
 * pages at the most common score, the test–retest noise from repeats and, with `--ratings`, Spearman and Kendall
 * agreement with human ratings, and with `--pairs` the pairwise accuracy against people's preferences (weights/analyse.ts).
 */
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { InputError, errorMessage } from '../../core/errors.js';
import type { SuiteId } from '../../core/metric.js';
import { findMetric, suiteMetrics } from '../../metrics/registry.js';
import { dedupeRows, noUsableRows, readResults, skippedLinesNote } from '../../store/results-file.js';
import { populationFromRows } from '../../weights/aggregate.js';
import { timingSummary } from '../../weights/timings.js';
import { analyse, MIN_GROUP } from '../../weights/analyse.js';
import { analysisCsv, analysisTable } from '../../report/analyse-format.js';
import { DEFAULT_ITERATIONS, DEFAULT_SEED } from '../../weights/bootstrap.js';
import { DEFAULT_NOISE_GUARD_K } from '../../weights/noise.js';
import { loadDefaultNorms, loadNorms } from '../../weights/norms.js';
import { DEFAULT_PERSONA, PERSONA_IDS, resolveWeights } from '../../weights/personas.js';
import { loadRatings } from '../../weights/ratings.js';
import { loadPairs, pairsFileNotes } from '../../weights/pairs.js';
import { loadWeightsFile } from '../../weights/weights-file.js';
import { action, choiceParser, parseNonNegativeInt, parsePositiveInt, parseSuite, SUITE_HELP, say, warn } from '../cli-support.js';
import { rowsSuite } from './leaderboard.js';

const FORMATS = ['table', 'json', 'csv'] as const;
type Format = (typeof FORMATS)[number];

interface AnalyseFlags {
  ratings?: string;
  pairs?: string;
  suite?: SuiteId;
  persona?: string;
  weights?: string;
  norms?: string;
  noiseGuard?: boolean;
  format?: Format;
  json?: boolean;
  out?: string;
  bootstrap?: number;
  seed?: number;
}

const parseFormat = choiceParser(FORMATS);

export function analyseCommand(): Command {
  return new Command('analyse')
    .description('per metric: scorable share, mean, sd, most common score, test–retest noise (from repeats) and agreement with human ratings')
    .argument('<results.jsonl>', 'results file written by `webgrade batch` (with --repeats for the noise columns)')
    .option(
      '--ratings <file>',
      `human ratings, CSV or JSONL: "rating" plus "artifact" or "model" and "requirement"; Spearman and Kendall across pages and within requirements (≥ ${MIN_GROUP} rated pages)`,
    )
    .option(
      '--pairs <file>',
      'pairwise preferences, CSV or JSONL (what `webgrade arena` writes): "requirement", "model_a", "model_b", "winner" (a, b, tie or both-bad), optional "rater"; pairwise accuracy of every metric and the overall',
    )
    .option('--suite <suite>', `${SUITE_HELP}; default: the suite the results were scored with`, parseSuite)
    .option('--persona <id>', `weights of the overall (${PERSONA_IDS.join(', ')}; default ${DEFAULT_PERSONA}), or a persona of --weights`)
    .option('--weights <weights.json>', 'weights file (`webgrade survey weights --out`)')
    .option('--norms <norms.json>', 'norms whose test–retest sds the noise guard uses for metrics without repeats (default: the shipped norms)')
    .option('--no-noise-guard', `the study's exact z for the overall: σ never raised to k × the test–retest sd (k = ${DEFAULT_NOISE_GUARD_K})`)
    .option('--format <format>', `output: ${FORMATS.join(' | ')} (default table)`, parseFormat)
    .option('--json', 'same as --format json')
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--bootstrap <n>', `bootstrap resamples of the requirements for the correlation CIs (default ${DEFAULT_ITERATIONS}; 0 = none)`, parseNonNegativeInt)
    .option('--seed <n>', `bootstrap seed (default ${DEFAULT_SEED})`, parsePositiveInt)
    .action(
      action(async (results: string, flags: AnalyseFlags) => {
        if (flags.json && flags.format && flags.format !== 'json') throw new InputError('give --json or --format, not both');
        const format: Format = flags.json ? 'json' : (flags.format ?? 'table');
        const read = readResults(results);
        const { rows, duplicates } = dedupeRows(read.rows);
        if (rows.length === 0) throw noUsableRows(results, read);
        const ratings = flags.ratings ? loadRatings(flags.ratings) : undefined;
        const pairs = flags.pairs ? loadPairs(flags.pairs) : undefined;
        const wopts: Parameters<typeof resolveWeights>[0] = {};
        if (flags.persona) wopts.persona = flags.persona;
        if (flags.weights) {
          wopts.weightsFile = loadWeightsFile(flags.weights);
          wopts.weightsPath = flags.weights;
        }
        const suite = flags.suite ?? rowsSuite(rows);
        wopts.suite = suite;
        wopts.reference = rows.some((r) => r.metrics.some((m) => findMetric(m.id)?.perspective === 'fidelity'));
        const weights = resolveWeights(wopts);
        const norms = flags.norms ? loadNorms(flags.norms) : loadDefaultNorms();
        const pop = populationFromRows(rows, new Set(suiteMetrics(suite).map((m) => m.id)));
        const opts: Parameters<typeof analyse>[2] = {
          results,
          iterations: flags.bootstrap ?? DEFAULT_ITERATIONS,
          seed: flags.seed ?? DEFAULT_SEED,
          noiseGuard: { enabled: flags.noiseGuard !== false, k: DEFAULT_NOISE_GUARD_K, normsLabel: flags.norms ?? 'the shipped norms' },
          normsMetrics: norms?.metrics ?? null,
        };
        if (ratings) opts.ratings = ratings;
        if (pairs) opts.pairs = pairs;
        const doc = analyse(pop, weights, opts);
        doc.timings = timingSummary(rows);
        if (ratings && doc.ratings!.pages === 0) {
          throw new InputError(`${flags.ratings}: no rating matches a page of ${results} (match by "artifact" path, or by "model" and "requirement")`);
        }
        if (pairs && doc.pairs!.matched === 0) {
          throw new InputError(`${flags.pairs}: no judgement matches two pages of ${results} (match by "requirement" with "model_a" and "model_b")`);
        }
        if (pairs) doc.notes.push(...pairsFileNotes(pairs));
        if (read.tornTail) doc.notes.push('the results file ends with a torn line (a batch still running or killed): ignored');
        const skipped = skippedLinesNote(read);
        if (skipped) doc.notes.push(skipped);
        if (duplicates) doc.notes.push(`${duplicates} duplicate (model, requirement, repeat) rows: the last one counts`);
        const text = format === 'json' ? JSON.stringify(doc, null, 2) + '\n' : format === 'csv' ? analysisCsv(doc) : analysisTable(doc) + '\n';
        if (flags.out) {
          try {
            writeFileSync(flags.out, text);
          } catch (err) {
            throw new InputError(`${flags.out}: cannot write (${errorMessage(err)})`);
          }
          warn(`wrote ${format} analysis of ${doc.metrics.length} metrics to ${flags.out}\n`);
        } else if (format === 'table') say(text);
        else process.stdout.write(text); // json, csv, html: data, written exact
      }),
    );
}
