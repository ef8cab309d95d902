#!/usr/bin/env node
/** webgrade command line: one subcommand per module under bin/commands/. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, fail } from './cli-support.js';
import { scoreCommand } from './commands/score.js';
import { batchCommand } from './commands/batch.js';
import { leaderboardCommand } from './commands/leaderboard.js';
import { analyseCommand } from './commands/analyse.js';
import { normsCommand } from './commands/norms.js';
import { checklistCommand } from './commands/checklist.js';
import { judgeStabilityCommand } from './commands/judge-stability.js';
import { surveyCommand } from './commands/survey.js';
import { metricsCommand } from './commands/metrics.js';
import { cdnCommand } from './commands/cdn.js';
import { mutateCommand } from './commands/mutate.js';
import { queueCommand, workerCommand } from './commands/queue.js';
import { mergeCommand } from './commands/merge.js';
import { weightsCommand } from './commands/weights.js';
import { reportCommand } from './commands/report.js';
import { compareCommand } from './commands/compare.js';
import { testsCommand } from './commands/tests.js';
import { arenaCommand } from './commands/arena.js';
import { METRICS, STUDY_METRICS } from '../metrics/registry.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('webgrade')
  .description(
    `Score generated web apps on the study's ${STUDY_METRICS.length} quality metrics (${METRICS.length - STUDY_METRICS.length} more in the extended suite) and rank models by human-weighted preferences`,
  )
  .version(pkg.version)
  .exitOverride();

program.addCommand(scoreCommand());
program.addCommand(batchCommand());
program.addCommand(leaderboardCommand());
program.addCommand(analyseCommand());
program.addCommand(normsCommand());
program.addCommand(checklistCommand());
program.addCommand(judgeStabilityCommand());
program.addCommand(surveyCommand());
program.addCommand(metricsCommand());
program.addCommand(cdnCommand());
program.addCommand(mutateCommand());
program.addCommand(queueCommand());
program.addCommand(workerCommand());
program.addCommand(mergeCommand());
program.addCommand(weightsCommand());
program.addCommand(reportCommand());
program.addCommand(compareCommand());
program.addCommand(testsCommand());
program.addCommand(arenaCommand());

// Every command and nested subcommand (survey weights, norms build, ...) reports usage errors with exit 2.
const override = (cmd: Command): void => {
  cmd.exitOverride();
  for (const sub of cmd.commands) override(sub);
};
override(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
    process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
  }
  fail(err);
}
