/**
 * `webgrade mutate <artifact>`: seed one defect at a time into a copy of a page and check that the metrics meant
 * to catch it do (mutate/run.ts has the detection rule and the cost trade-off of `--scope`).
 * `webgrade mutate --list`: the operators, their targets and what each edits.
 */
import { Command, InvalidArgumentError } from 'commander';
import { InputError } from '../../core/errors.js';
import type { SuiteId } from '../../core/metric.js';
import { findMetric } from '../../metrics/registry.js';
import { DEFAULT_BUDGET_MS } from '../../runner/score.js';
import { OPERATORS } from '../../mutate/registry.js';
import { operatorTable, reportJson, reportTable } from '../../mutate/report.js';
import { MAX_REPEATS, MutationRunner, SCOPES, selectOperators, type Scope } from '../../mutate/run.js';
import {
  action,
  addNetworkOptions,
  networkFromFlags,
  parseIdList,
  parsePositiveNumber,
  parseSuite,
  printJson,
  SUITE_HELP,
  type NetworkFlags,
} from '../cli-support.js';

interface MutateFlags extends NetworkFlags {
  list?: boolean;
  operators?: string[];
  repeats?: number;
  scope?: Scope;
  json?: boolean;
  suite?: SuiteId;
  budget?: number;
  checkNetwork?: boolean;
  keep?: string;
}

function parseRepeats(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_REPEATS) throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_REPEATS}`);
  return n;
}

function parseScope(v: string): Scope {
  if (!(SCOPES as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${SCOPES.join(', ')}`);
  return v as Scope;
}

export function mutateCommand(): Command {
  return addNetworkOptions(new Command('mutate'))
    .description('mutation testing of the metrics: seed one defect per operator into a copy of the page and check that its target metrics drop')
    .argument('[artifact]', 'HTML file or folder with index.html')
    .option('--list', 'list the operators, their target metrics and what each edits')
    .option('--operators <ids>', 'comma-separated operator ids (default: all)', parseIdList)
    .option(
      '--repeats <n>',
      `score the original n times; a target detects when it drops by more than the range of those scores (default 1: any drop counts; at most ${MAX_REPEATS})`,
      parseRepeats,
    )
    .option(
      '--scope <scope>',
      'metrics scored per mutant: all (every rule metric of the suite; false moves measured everywhere; default) or targets (only the targets and what their evidence gives for free; faster)',
      parseScope,
    )
    .option('--json', 'print the machine-readable JSON document')
    .option('--suite <suite>', SUITE_HELP, parseSuite)
    .option('--budget <seconds>', `time budget per scoring (default ${DEFAULT_BUDGET_MS / 1000})`, parsePositiveNumber)
    .option('--check-network', 'check remote URLs over the network (otherwise reported as unverified)')
    .option('--keep <dir>', 'write each mutant into <dir>/<operator>/ and keep it')
    .action(
      action(async (artifact: string | undefined, flags: MutateFlags) => {
        if (flags.list) {
          const ops = selectOperators(flags.operators);
          if (flags.json)
            printJson({
              operators: ops.map((o) => ({
                id: o.id,
                targets: o.targets,
                collateral: o.collateral ?? [],
                description: o.description,
                missingTargets: o.targets.filter((t) => !findMetric(t)),
              })),
            });
          else process.stdout.write(operatorTable(ops, (id) => !!findMetric(id)) + `\n${ops.length} of ${OPERATORS.length} operators\n`);
          return;
        }
        if (!artifact) throw new InputError('missing <artifact> (or use --list)');
        selectOperators(flags.operators); // unknown ids are bad input before anything starts
        const runner = new MutationRunner({
          ...(flags.suite ? { suite: flags.suite } : {}),
          ...(flags.scope ? { scope: flags.scope } : {}),
          ...(flags.repeats ? { repeats: flags.repeats } : {}),
          ...(flags.operators ? { operators: flags.operators } : {}),
          ...(flags.lighthouseRuns ? { lighthouseRuns: flags.lighthouseRuns } : {}),
          ...(flags.visitClock ? { visitClock: flags.visitClock } : {}),
          ...(flags.keep ? { keepDir: flags.keep } : {}),
          network: networkFromFlags(flags),
          checkNetwork: flags.checkNetwork ?? false,
          budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS,
          ...(process.stderr.isTTY ? { progress: (line: string) => process.stderr.write(`mutate: ${line}\n`) } : {}),
        });
        try {
          const report = await runner.run(artifact);
          if (flags.json) printJson(reportJson(report));
          else process.stdout.write(reportTable(report) + '\n');
        } finally {
          await runner.close();
        }
      }),
    );
}
