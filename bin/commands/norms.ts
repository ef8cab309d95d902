/**
 * `webgrade norms build <dir-of-artifacts | results.jsonl> --out norms.json`: μ and σ per metric for single-page
 * z-scores (weights/norms.ts). From a folder, every .html file and every sub-folder with index.html is scored
 * first (with the batch workers; `--results` keeps those rows so that an interrupted build resumes).
 *
 * The shipped norms are rebuilt with one command (see docs/noise.md):
 *   node dist/bin/webgrade.js norms build ../shared/corpus/llm-tools/pages --out weights/default-norms.json
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { Command } from 'commander';
import { discoverPages, type BatchOptions } from '../../distribute/batch.js';
import { InputError, errorMessage } from '../../core/errors.js';
import { dedupeRows, readResults } from '../../store/results-file.js';
import { DEFAULT_BUDGET_MS } from '../../runner/score.js';
import { buildNorms } from '../../weights/norms.js';
import { printable } from '../../lib/text.js';
import {
  action,
  addNetworkOptions,
  networkFromFlags,
  parseIdList,
  parsePositiveInt,
  parsePositiveNumber,
  parseSuite,
  SUITE_HELP,
  type NetworkFlags,
  say,
  warn,
  parseBudget,
} from '../cli-support.js';
import type { SuiteId } from '../../core/metric.js';
import { DEFAULT_CONCURRENCY, runBatchWithProgress, summaryText } from './batch.js';

interface NormsFlags extends NetworkFlags {
  out: string;
  suite?: SuiteId;
  results?: string;
  only?: string[];
  concurrency?: number;
  budget?: number;
  repeats?: number;
}

export function normsCommand(): Command {
  const cmd = new Command('norms').description('reference μ and σ per metric, used by `webgrade score` for z-scores and an overall');
  cmd.addCommand(
    addNetworkOptions(new Command('build'))
      .description('compute norms from a folder of pages (scored first) or from a batch results file')
      .argument('<source>', 'folder of .html pages / folders with index.html, or a results .jsonl')
      .requiredOption('--out <norms.json>', 'norms file to write')
      .option('--results <file.jsonl>', 'keep the scored rows here (resumes an interrupted build); default: a temporary file')
      .option('--suite <suite>', `${SUITE_HELP} (folder source; norms cover the metrics scored)`, parseSuite)
      .option('--only <ids>', 'comma-separated metric ids to run (folder source)', parseIdList)
      .option('--concurrency <n>', `worker processes (default ${DEFAULT_CONCURRENCY})`, parsePositiveInt)
      .option('--budget <seconds>', `time budget per page (default ${DEFAULT_BUDGET_MS / 1000})`, parseBudget)
      .option(
        '--repeats <n>',
        'folder source: score every page n times (≥ 2 stores each metric\'s test–retest sd, "retestSd", for the noise guard)',
        parsePositiveInt,
      )
      .action(
        action(async (source: string, flags: NormsFlags) => {
          let st;
          try {
            st = statSync(source);
          } catch {
            throw new InputError(`${source}: no such file or folder`);
          }
          let rowsPath: string;
          let temp: string | null = null;
          const command = `webgrade norms build ${source} --out ${flags.out}${flags.suite ? ` --suite ${flags.suite}` : ''}${flags.network ? ` --network ${flags.network}` : ''}${flags.only ? ` --only ${flags.only.join(',')}` : ''}${flags.repeats ? ` --repeats ${flags.repeats}` : ''}`;
          if (st.isDirectory()) {
            const { jobs, skipped } = discoverPages(source);
            for (const s of skipped) warn(`skipped ${printable(s)}\n`);
            if (flags.results) rowsPath = flags.results;
            else {
              temp = mkdtempSync(join(tmpdir(), 'webgrade-norms-'));
              rowsPath = join(temp, 'results.jsonl');
            }
            const opts: BatchOptions = {
              out: rowsPath,
              concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
              budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS,
            };
            if (flags.only) opts.only = flags.only;
            if (flags.suite) opts.suite = flags.suite;
            opts.network = networkFromFlags(flags);
            if (flags.lighthouseRuns) opts.lighthouseRuns = flags.lighthouseRuns;
            if (flags.visitClock) opts.visitClock = flags.visitClock;
            if (flags.repeats) opts.repeats = flags.repeats;
            const summary = await runBatchWithProgress(jobs, opts, 'norms');
            warn(summaryText(summary, rowsPath) + '\n');
            if (summary.interrupted) {
              if (temp) rmSync(temp, { recursive: true, force: true });
              process.exit(130);
            }
          } else rowsPath = source;
          try {
            const rows = dedupeRows(readResults(rowsPath).rows).rows;
            if (!rows.some((r) => r.status === 'ok')) throw new InputError(`${source}: no scored artifacts to build norms from`);
            // Named by its path relative to where the command ran (the repository, for the shipped norms), never by
            // an absolute path of the machine that built them.
            const label = (relative(process.cwd(), resolve(source)) || '.') + (st.isDirectory() ? '/' : '');
            const norms = buildNorms(rows, label, command);
            try {
              writeFileSync(flags.out, JSON.stringify(norms, null, 2) + '\n');
            } catch (err) {
              throw new InputError(`${flags.out}: cannot write (${errorMessage(err)})`);
            }
            const degenerate = Object.entries(norms.metrics)
              .filter(([, n]) => n.degenerate)
              .map(([id]) => id);
            const retest = Object.entries(norms.metrics)
              .filter(([, n]) => n.retestSd !== undefined)
              .map(([id, n]) => `${id} ${n.retestSd!.toFixed(2)}`);
            say(
              `wrote norms for ${norms.metricsIncluded.length} metrics from ${norms.artifacts} artifacts (${norms.failed} failed) to ${flags.out}\n` +
                `metrics: ${norms.metricsIncluded.join(', ')}\n` +
                (degenerate.length ? `no usable σ (contribute 0): ${degenerate.join(', ')}\n` : '') +
                (retest.length
                  ? `test–retest sd (from up to ${norms.maxRepeats} repeats): ${retest.join(', ')}\n`
                  : 'no repeats: no test–retest sd stored (the noise guard needs --repeats ≥ 2)\n'),
            );
          } finally {
            if (temp) rmSync(temp, { recursive: true, force: true });
          }
        }),
      ),
  );
  return cmd;
}
