/** `webgrade compare <base> <head>`: per model and metric, the change between two runs (report/compare.ts). */
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { InputError, errorMessage } from '../../core/errors.js';
import { noUsableRows, readResults, rowsWithValidScores, skippedLinesNote } from '../../store/results-file.js';
import { compareRuns, populationOf, COMPARE_ITERATIONS, COMPARE_SEED, type Comparison } from '../../report/compare.js';
import { COMPARE_FORMATS, formatComparison, type CompareFormat } from '../../report/compare-format.js';
import { loadDefaultNorms, loadNorms } from '../../weights/norms.js';
import { action, choiceParser, parsePositiveInt, warn } from '../cli-support.js';

const FAIL_ON = ['regression'] as const;

interface CompareFlags {
  format?: CompareFormat;
  failOn?: (typeof FAIL_ON)[number];
  out?: string;
  bootstrap?: number;
  seed?: number;
  norms?: string;
}

/** Compare two results files (shared by `compare` and `report --compare`). */
export function compareFiles(base: string, head: string, opts: { bootstrap?: number; seed?: number; norms?: string } = {}): Comparison {
  const files = [base, head].map((label) => {
    const read = readResults(label);
    const valid = rowsWithValidScores(read.rows);
    if (valid.rows.length === 0) throw noUsableRows(label, read, valid);
    const notes = [
      skippedLinesNote(read),
      valid.rejected ? `${valid.rejected} rows rejected: a metric score outside 0–100 or not finite (e.g. ${valid.examples[0]})` : null,
    ];
    return { pop: populationOf(valid.rows, label), notes: notes.filter((n): n is string => n !== null).map((n) => `${label}: ${n}`) };
  });
  const norms = opts.norms ? loadNorms(opts.norms) : loadDefaultNorms();
  const cmp = compareRuns(
    files[0]!.pop,
    files[1]!.pop,
    { base, head },
    { iterations: opts.bootstrap ?? COMPARE_ITERATIONS, seed: opts.seed ?? COMPARE_SEED, normsMetrics: norms?.metrics ?? null },
  );
  cmp.notes.push(...files.flatMap((f) => f.notes));
  return cmp;
}

export function compareCommand(): Command {
  return new Command('compare')
    .description(
      'compare two results files of the same requirements: per model and metric the change of the mean with a paired bootstrap interval; regressions and improvements named',
    )
    .argument('<base>', 'results file of the earlier run')
    .argument('<head>', 'results file of the later run')
    .option('--format <format>', `output: ${COMPARE_FORMATS.join(' | ')} (default text; markdown fits a pull-request comment)`, choiceParser(COMPARE_FORMATS))
    .option('--fail-on <what>', 'exit 1 when a model regressed on a metric beyond its interval and the noise of a rerun: regression', choiceParser(FAIL_ON))
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--bootstrap <n>', `bootstrap resamples (default ${COMPARE_ITERATIONS})`, parsePositiveInt)
    .option('--seed <n>', `bootstrap seed (default ${COMPARE_SEED})`, parsePositiveInt)
    .option('--norms <norms.json>', 'norms whose test–retest sds give the rerun noise of metrics without repeats in the files (default: the shipped norms)')
    .action(
      action(async (base: string, head: string, flags: CompareFlags) => {
        const cmp = compareFiles(base, head, flags);
        const text = formatComparison(cmp, flags.format ?? 'text');
        if (flags.out) {
          try {
            writeFileSync(flags.out, text);
          } catch (err) {
            throw new InputError(`${flags.out}: cannot write (${errorMessage(err)})`);
          }
          warn(`wrote the comparison to ${flags.out}: ${cmp.regressions.length} regressions, ${cmp.improvements.length} improvements\n`);
        } else process.stdout.write(text);
        if (flags.failOn === 'regression' && cmp.regressions.length > 0) {
          warn(`webgrade compare: ${cmp.regressions.length} regression${cmp.regressions.length === 1 ? '' : 's'} (--fail-on regression)\n`);
          process.exitCode = 1;
        }
      }),
    );
}
