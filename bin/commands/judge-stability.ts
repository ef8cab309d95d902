/** `webgrade judge-stability results.jsonl`: is run-to-run judge variance significantly below across-model variance? */
import { Command, InvalidArgumentError } from 'commander';
import Table from 'cli-table3';
import { judgeStability, loadResults, type StabilityReport } from '../../judges/stability.js';
import { action, parseIdList, parsePositiveInt, printJson, say, warn } from '../cli-support.js';
import { JUDGE_METRIC_IDS } from '../../metrics/registry.js';

interface StabilityFlags {
  json?: boolean;
  alpha?: number;
  minSamples?: number;
  metrics?: string[];
}

function alphaArg(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('expected a number between 0 and 1');
  return n;
}

const fmt = (x: number | null, d = 3) => (x === null ? '-' : Number.isInteger(x) ? String(x) : x.toPrecision(d));

export function stabilityText(r: StabilityReport): string {
  const table = new Table({
    head: ['Metric', 'run-to-run n', 'median var', 'across-model n', 'median var', 'U', 'p', 'Verdict'],
    style: { head: [], border: [] },
  });
  for (const m of r.metrics) {
    table.push([m.id, m.runToRun.n, fmt(m.runToRun.median), m.acrossModel.n, fmt(m.acrossModel.median), fmt(m.u), fmt(m.p), m.verdict]);
  }
  const lines = [
    `${r.rows} result rows, ${r.models.length} models${r.skippedFailed ? `, ${r.skippedFailed} failed rows skipped` : ''}; one-sided Mann–Whitney U (run-to-run < across-model), alpha ${r.alpha}`,
  ];
  if (r.metrics.length) lines.push(table.toString());
  else lines.push('no judge metric found in the results');
  lines.push(`verdict: ${r.verdict}`);
  return lines.join('\n');
}

export function judgeStabilityCommand(): Command {
  return new Command('judge-stability')
    .description('check that judge scores vary less between repeats than between models (needs results scored with --judge-repeats ≥ 2)')
    .argument('<results>', 'results JSONL (one scored artifact per line, per-repeat scores in details.repeats)')
    .option('--json', 'print the report as JSON')
    .option('--alpha <p>', 'significance level (default 0.05)', alphaArg)
    .option('--min-samples <n>', 'fewest variances per side to run the test (default 3)', parsePositiveInt)
    .option('--metrics <ids>', 'metric ids to check (default: the five judge metrics)', parseIdList)
    .action(
      action(async (path: string, flags: StabilityFlags) => {
        const { rows, skippedFailed } = loadResults(path);
        const report = judgeStability(rows, { alpha: flags.alpha, minSamples: flags.minSamples, metrics: flags.metrics ?? JUDGE_METRIC_IDS, skippedFailed });
        if (flags.json) printJson(report);
        else say(stabilityText(report) + '\n');
      }),
    );
}
