#!/usr/bin/env node
/** webgrade command line: one subcommand per module under bin/commands/. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, fail } from './cli-support.js';
import { scoreCommand } from './commands/score.js';
import { batchCommand } from './commands/batch.js';
import { leaderboardCommand } from './commands/leaderboard.js';
import { normsCommand } from './commands/norms.js';
import { checklistCommand } from './commands/checklist.js';
import { judgeStabilityCommand } from './commands/judge-stability.js';
import { surveyCommand } from './commands/survey.js';
import { cdnCommand } from './commands/cdn.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('webgrade')
  .description('Score generated web apps on 24 quality metrics and rank models by human-weighted preferences')
  .version(pkg.version)
  .exitOverride();

program.addCommand(scoreCommand());
program.addCommand(batchCommand());
program.addCommand(leaderboardCommand());
program.addCommand(normsCommand());
program.addCommand(checklistCommand());
program.addCommand(judgeStabilityCommand());
program.addCommand(surveyCommand());
program.addCommand(cdnCommand());

for (const cmd of program.commands) cmd.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
    process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
  }
  fail(err);
}
