/**
 * The judge flags, shared by `webgrade score` and `webgrade checklist` (and any command that asks judges).
 * Resolution order and the config file format: judges/settings.ts.
 */
import { Command, InvalidArgumentError } from 'commander';
import { ALIGNMENT_STANCES, resolveJudgeSettings, type AlignmentStance, type JudgeFlags, type JudgeSettings } from './settings.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

/** `--judge-budget <usd>`: a positive amount of money. */
export function parseUsd(value: string): number {
  const n = Number(value.replace(/^\$/, ''));
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive amount of USD, e.g. 25 or 0.5');
  return n;
}

function alignmentStance(value: string): AlignmentStance {
  if (!(ALIGNMENT_STANCES as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${ALIGNMENT_STANCES.join(' or ')}`);
  return value as AlignmentStance;
}

/**
 * Register `--alignment <stance>` on `cmd`: the stance of the alignment judges (core/judge-answer.ts). Part of
 * addJudgeOptions; commands that take no other judge flags but pass the stance on (`batch`) register it alone.
 */
export function addAlignmentOption(cmd: Command): Command {
  return cmd.option(
    '--alignment <stance>',
    "alignment judges' stance: study (default; the study's: each checklist item addressed at a high level, unfinished or mocked features count) or strict (implemented so that it works)",
    alignmentStance,
  );
}

/**
 * Register the judge options on `cmd` (returns it, for chaining). `alignment: false` leaves out `--alignment` for
 * commands that ask no alignment judge (`checklist` derives items; the stance does not enter its prompt).
 */
export function addJudgeOptions(cmd: Command, opts: { repeats?: boolean; alignment?: boolean; concurrencyDefault?: number } = {}): Command {
  cmd
    .option('--judge-config <file>', 'JSON file with judge endpoint, models per metric, prices, limits (see docs/judges.md)')
    .option('--judge-base-url <url>', 'OpenAI-compatible endpoint of the LLM judge (default: $OPENAI_BASE_URL)')
    .option('--judge-model <name>', 'judge model (default: $WEBGRADE_JUDGE_MODEL)');
  if (opts.repeats !== false) cmd.option('--judge-repeats <n>', 'ask each judge n times and report the spread (default 1)', positiveInt);
  if (opts.alignment !== false) addAlignmentOption(cmd);
  return cmd
    .option('--judge-timeout <seconds>', 'time limit of one judge request (default 120)', positiveNumber)
    .option('--judge-concurrency <n>', `judge requests in flight at once (default ${opts.concurrencyDefault ?? 4})`, positiveInt)
    .option('--no-judge-cache', 'do not read or write the judge answer cache');
}

/** Register the requirement-test agent's caps on `cmd` (commands that run requirement tests: `score`). */
export function addAgentOptions(cmd: Command): Command {
  return cmd
    .option('--agent-steps <n>', 'requirement tests: steps the agent may take per natural-language test (default 12)', positiveInt)
    .option('--agent-tokens <n>', 'requirement tests: tokens the agent may spend per test (default 200000)', positiveInt)
    .option('--agent-time <seconds>', 'requirement tests: wall-clock limit of the agent per test (default 180)', positiveNumber);
}

/**
 * Judge settings from the parsed flags of a command that called addJudgeOptions; `tasks` are the judge tasks a
 * config file's `models` may name (the registry's judge metric ids and `checklist`). Throws InputError.
 */
export function judgeSettingsFromFlags(
  flags: JudgeFlags,
  tasks: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  defaults: { concurrency?: number } = {},
): JudgeSettings {
  return resolveJudgeSettings(flags, env, tasks, defaults);
}
