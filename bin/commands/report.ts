/** `webgrade report <results> --out DIR`: a static report people explore (report/). */
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { noUsableRows, readResults, rowsWithValidScores, skippedLinesNote } from '../../store/results-file.js';
import { buildReport } from '../../report/data.js';
import { loadRequirements } from '../../core/requirements.js';
import { writeReport, type CompareInput } from '../../report/write.js';
import { PERSONA_IDS, DEFAULT_PERSONA } from '../../weights/personas.js';
import { action, parseNonNegativeInt, warn } from '../cli-support.js';
import { compareFiles } from './compare.js';

interface ReportFlags {
  out: string;
  persona?: string;
  title?: string;
  compare?: string;
  bootstrap?: number;
  requirements?: string;
}

export function reportCommand(): Command {
  return new Command('report')
    .description(
      'write a static report (opens from file://): leaderboard, a page per model, per requirement and per artifact with screenshots, reasons and details, failures per metric',
    )
    .argument('<results.jsonl>', 'results file written by `webgrade batch` (its pictures are read from beside it)')
    .requiredOption('--out <dir>', 'folder to write the report into')
    .option('--persona <id>', `the persona shown first and used for page overalls (${PERSONA_IDS.join(', ')}; default ${DEFAULT_PERSONA})`)
    .option('--title <text>', 'title of the report')
    .option('--compare <base.jsonl>', 'add the comparison with an earlier run: a compare page, and each artifact beside its base')
    .option('--requirements <reqs.jsonl>', "show each requirement's text on its page (and its tests' pass rates across models, which the results carry)")
    .option('--bootstrap <n>', 'bootstrap resamples of the leaderboard intervals (default 1000; 0 = none)', parseNonNegativeInt)
    .action(
      action(async (results: string, flags: ReportFlags) => {
        const read = readResults(results);
        const valid = rowsWithValidScores(read.rows);
        if (valid.rows.length === 0) throw noUsableRows(results, read, valid);
        const model = buildReport(read.rows, {
          ...(flags.persona ? { persona: flags.persona } : {}),
          ...(flags.title ? { title: flags.title } : {}),
          ...(flags.bootstrap !== undefined ? { iterations: flags.bootstrap } : {}),
        });
        const skipped = skippedLinesNote(read);
        if (skipped) model.notes.push(skipped);
        let compare: CompareInput | undefined;
        if (flags.compare)
          compare = { comparison: compareFiles(flags.compare, results), baseRows: readResults(flags.compare).rows, baseDir: dirname(resolve(flags.compare)) };
        const requirements = flags.requirements ? new Map(loadRequirements(flags.requirements).map((r) => [r.id, r.requirement])) : undefined;
        const pages = writeReport(model, {
          out: flags.out,
          resultsDir: dirname(resolve(results)),
          ...(compare ? { compare } : {}),
          ...(requirements ? { requirements } : {}),
        });
        warn(`wrote ${pages} pages to ${flags.out} (open ${resolve(flags.out, 'index.html')})\n`);
      }),
    );
}
