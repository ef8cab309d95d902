/** `webgrade leaderboard <results.jsonl>`: z-normalised, preference-weighted model ranking (weights/). */
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { InputError, errorMessage } from '../../core/errors.js';
import { dedupeRows, noUsableRows, readResults, rowsWithValidScores, skippedLinesNote } from '../../store/results-file.js';
import { populationFromRows } from '../../weights/aggregate.js';
import { DEFAULT_ITERATIONS, DEFAULT_SEED } from '../../weights/bootstrap.js';
import { leaderboardStandings, type leaderboardFromPopulation } from '../../weights/leaderboard.js';
import { leaderboardCsv, leaderboardTable } from '../../report/leaderboard-format.js';
import { DEFAULT_PERSONA, PERSONA_IDS, resolveWeights } from '../../weights/personas.js';
import { renderReportHtml, reportData, reportStandings } from '../../report/leaderboard-html.js';
import { loadWeightsFile } from '../../weights/weights-file.js';
import { loadDefaultNorms, loadNorms } from '../../weights/norms.js';
import { DEFAULT_NOISE_GUARD_K } from '../../weights/noise.js';
import { action, choiceParser, parseNonNegativeInt, parsePositiveInt, parseSuite, SUITE_HELP, say, warn } from '../cli-support.js';
import { DEFAULT_SUITE, type SuiteId } from '../../core/metric.js';
import { findMetric, suiteMetrics } from '../../metrics/registry.js';
import type { ResultRow } from '../../store/results-file.js';
import { mixedServedWarnings } from '../../distribute/judge-pins.js';
import { printable } from '../../lib/text.js';
import { loadPairs, pairsFileNotes } from '../../weights/pairs.js';
import { peopleBeside } from '../../weights/people.js';

/** The suite the rows were scored with: theirs when they all agree (rows without one: study), else study. */
export function rowsSuite(rows: readonly ResultRow[]): SuiteId {
  const suites = new Set(rows.filter((r) => r.status === 'ok').map((r) => r.suite ?? DEFAULT_SUITE));
  return suites.size === 1 ? [...suites][0]! : DEFAULT_SUITE;
}

const FORMATS = ['table', 'json', 'csv', 'html'] as const;
type Format = (typeof FORMATS)[number];

interface LeaderboardFlags {
  suite?: SuiteId;
  persona?: string;
  weights?: string;
  by?: string;
  format?: Format;
  json?: boolean;
  out?: string;
  bootstrap?: number;
  seed?: number;
  title?: string;
  norms?: string;
  noiseGuard?: boolean;
  pairs?: string;
}

const parseFormat = choiceParser(FORMATS);

export function leaderboardCommand(): Command {
  return new Command('leaderboard')
    .description('rank models from a batch results file: weighted z per perspective, overall, CIs, breakdowns')
    .argument('<results.jsonl>', 'results file written by `webgrade batch`')
    .option('--suite <suite>', `${SUITE_HELP}; default: the suite the results were scored with`, parseSuite)
    .option('--persona <id>', `weights preset (${PERSONA_IDS.join(', ')}; default ${DEFAULT_PERSONA}), or a persona of --weights`)
    .option('--weights <weights.json>', 'weights file (`webgrade survey weights --out`)')
    .option('--by <label>', 'only the breakdown by this requirement label (default: every label present)')
    .option('--format <format>', `output: ${FORMATS.join(' | ')} (default table)`, parseFormat)
    .option('--json', 'same as --format json')
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--bootstrap <n>', `bootstrap resamples for the CIs (default ${DEFAULT_ITERATIONS}; 0 = none)`, parseNonNegativeInt)
    .option('--seed <n>', `bootstrap seed (default ${DEFAULT_SEED})`, parsePositiveInt)
    .option('--title <text>', 'title of the HTML report')
    .option('--norms <norms.json>', 'norms whose test–retest sds the noise guard uses for metrics without repeats in the results (default: the shipped norms)')
    .option('--no-noise-guard', `the study's exact arithmetic: σ is never raised to k × the test–retest sd (k = ${DEFAULT_NOISE_GUARD_K})`)
    .option(
      '--pairs <file>',
      "people's pairwise votes (what `webgrade arena` writes, or any pairs file): their Bradley–Terry ranking beside this one, and the agreement",
    )
    .action(
      action(async (results: string, flags: LeaderboardFlags) => {
        const format: Format = flags.json ? 'json' : (flags.format ?? 'table');
        if (flags.json && flags.format && flags.format !== 'json') throw new InputError('give --json or --format, not both');
        const read = readResults(results);
        const valid = rowsWithValidScores(read.rows);
        const { rows, duplicates } = dedupeRows(valid.rows);
        if (rows.length === 0) throw noUsableRows(results, read, valid);
        const wopts: Parameters<typeof resolveWeights>[0] = {};
        if (flags.persona) wopts.persona = flags.persona;
        if (flags.weights) {
          wopts.weightsFile = loadWeightsFile(flags.weights);
          wopts.weightsPath = flags.weights;
        }
        const suite = flags.suite ?? rowsSuite(rows);
        wopts.suite = suite;
        // The fidelity perspective weighs only when a reference was given: a row records its reference, or (rows
        // written before rows recorded it) a fidelity metric was scored. The extended suite without a reference
        // writes the fidelity metrics too, as unscorable: they do not count.
        wopts.reference = rows.some(
          (r) => r.reference !== undefined || r.metrics.some((m) => m.score !== null && findMetric(m.id)?.perspective === 'fidelity'),
        );
        const weights = resolveWeights(wopts);
        const pop = populationFromRows(rows, new Set(suiteMetrics(suite).map((m) => m.id)));
        const iterations = flags.bootstrap ?? DEFAULT_ITERATIONS;
        const seed = flags.seed ?? DEFAULT_SEED;
        const norms = flags.norms ? loadNorms(flags.norms) : loadDefaultNorms();
        const normsLabel = flags.norms ?? 'the shipped norms';
        const lopts: Parameters<typeof leaderboardFromPopulation>[2] = {
          iterations,
          seed,
          noiseGuard: { enabled: flags.noiseGuard !== false, k: DEFAULT_NOISE_GUARD_K, normsLabel },
          normsMetrics: norms?.metrics ?? null,
        };
        if (flags.by) lopts.by = flags.by;
        // The HTML leaderboard switches persona in the page: its standings bootstrap every persona at once.
        // The other formats: one persona's standings. Either way the people's ranking reads the standings' norms.
        const html = format === 'html' ? reportStandings(pop, weights, lopts) : null;
        const { standings, doc } = html ?? leaderboardStandings(pop, weights, lopts);
        if (flags.pairs) {
          const pairs = loadPairs(flags.pairs);
          doc.people = peopleBeside(pop, doc.models, standings.norms, weights, pairs, { iterations, seed });
          if (doc.people.matched === 0)
            throw new InputError(`${flags.pairs}: no vote matches two pages of ${results} (match by "requirement" with "model_a" and "model_b")`);
          doc.notes.push(...pairsFileNotes(pairs));
          if (format === 'html') warn("note: the HTML leaderboard does not show the people's ranking yet: use the table, --json or --format csv\n");
        }
        if (read.tornTail) doc.notes.push('the results file ends with a torn line (a batch still running or killed): ignored');
        const skipped = skippedLinesNote(read);
        if (skipped) doc.notes.push(skipped);
        if (valid.rejected)
          doc.notes.push(
            `${valid.rejected} ${valid.rejected === 1 ? 'row' : 'rows'} rejected: a metric score outside 0–100 or not a finite number (e.g. ${valid.examples.join('; ')})`,
          );
        if (duplicates) doc.notes.push(`${duplicates} duplicate (model, requirement, repeat) rows: the last one counts`);
        for (const w of mixedServedWarnings(rows)) {
          doc.notes.push(w);
          warn(`warning: ${printable(w)}\n`);
        }
        let text: string;
        if (format === 'json') text = JSON.stringify(doc, null, 2) + '\n';
        else if (format === 'csv') text = leaderboardCsv(doc);
        else if (format === 'html') text = renderReportHtml(reportData(html!, { title: flags.title }));
        else text = leaderboardTable(doc) + '\n';
        if (flags.out) {
          try {
            writeFileSync(flags.out, text);
          } catch (err) {
            throw new InputError(`${flags.out}: cannot write (${errorMessage(err)})`);
          }
          warn(`wrote ${format} leaderboard of ${doc.models.length} models to ${flags.out}\n`);
        } else if (format === 'table') say(text);
        else process.stdout.write(text); // json, csv, html: data, written exact
      }),
    );
}
