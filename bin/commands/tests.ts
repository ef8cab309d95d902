/**
 * `webgrade tests generate reqs.jsonl` (a judge writes natural-language tests for each requirement, from its text
 * and checklist) and `webgrade tests import webgen.jsonl [--into reqs.jsonl]` (WebGen-Bench's test cases as
 * requirement tests). Both write requirements JSONL to `--out` or standard output, and a summary to stderr.
 * `webgrade tests check reqs.jsonl` prints every problem of a file's tests, one line each with its line number,
 * and exits 2 when there is one (core/requirement-tests-file.ts).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { addJudgeOptions, judgeSettingsFromFlags } from '../../judges/cli-options.js';
import { generateTests } from '../../judges/tests-generate.js';
import type { JudgeFlags } from '../../judges/settings.js';
import { readInputText } from '../../core/errors.js';
import { checkRequirementsText } from '../../core/requirement-tests-file.js';
import { mergeInto, readWebGenBench } from '../../lib/webgen-bench.js';
import { EXIT_FAILURE, EXIT_USAGE, action, judgeTasks, warn } from '../cli-support.js';

function write(out: string | undefined, text: string): void {
  if (!out) {
    process.stdout.write(text); // a requirements file (JSONL): data, written exact
    return;
  }
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, out);
}

function generateCommand(): Command {
  const cmd = new Command('generate')
    .description('write natural-language tests with an LLM judge for requirements that have none (from the requirement and its checklist)')
    .argument('<requirements>', 'requirements JSONL file')
    .option('--out <file>', 'write the requirements with tests here (default: standard output)')
    .option('--force', 'write new natural-language tests even for requirements that have some (scripted tests are kept)');
  addJudgeOptions(cmd, { repeats: false, alignment: false });
  return cmd.action(
    action(async (path: string, flags: JudgeFlags & { out?: string; force?: boolean }) => {
      const run = await generateTests(readInputText(path), path, judgeSettingsFromFlags(flags, judgeTasks()), { force: flags.force });
      write(flags.out, run.text);
      const count = (s: string) => run.results.filter((r) => r.status === s).length;
      for (const r of run.results) if (r.status === 'failed') warn(`webgrade: tests for ${r.id} not written: ${r.reason}\n`);
      const cost = run.usage.costUsd === null ? 'cost unknown (no price for the model)' : `$${run.usage.costUsd.toFixed(4)}`;
      const tests = run.results.reduce((n, r) => n + (r.tests ?? 0), 0);
      warn(
        `tests: ${tests} written for ${count('generated')} requirements, ${count('kept')} kept, ${count('failed')} failed; ${run.usage.calls} judge calls, ${run.usage.cacheHits} cached, ${run.usage.promptTokens}+${run.usage.completionTokens} tokens, ${cost}${flags.out ? `; wrote ${flags.out}` : ''}\n`,
      );
      if (count('failed') > 0) process.exitCode = EXIT_FAILURE;
    }),
  );
}

function importCommand(): Command {
  return new Command('import')
    .description('read WebGen-Bench test cases (its data/test.jsonl: ui_instruct task + expected_result) as natural-language requirement tests')
    .argument('<webgen.jsonl>', 'WebGen-Bench test-case file')
    .option('--into <reqs.jsonl>', "add the tests to these requirements (by id) instead of writing WebGen-Bench's requirements")
    .option('--out <file>', 'write the requirements here (default: standard output)')
    .action(
      action((path: string, flags: { into?: string; out?: string }) => {
        const imported = readWebGenBench(readInputText(path), path);
        const tests = imported.reduce((n, r) => n + r.tests.length, 0);
        if (!flags.into) {
          write(flags.out, imported.map((r) => JSON.stringify(r)).join('\n') + '\n');
          warn(`tests import: ${imported.length} requirements, ${tests} tests${flags.out ? `; wrote ${flags.out}` : ''}\n`);
          return;
        }
        const merged = mergeInto(readInputText(flags.into), flags.into, imported);
        write(flags.out, merged.text);
        warn(
          `tests import: ${merged.added} tests added to ${flags.into}${merged.unmatched.length ? `; ${merged.unmatched.length} WebGen-Bench ids have no requirement there (${merged.unmatched.slice(0, 5).join(', ')}${merged.unmatched.length > 5 ? ', …' : ''})` : ''}${flags.out ? `; wrote ${flags.out}` : ''}\n`,
        );
      }),
    );
}

function checkCommand(): Command {
  return new Command('check')
    .description('validate the requirement tests of a requirements file (schema, unknown keys, regular expressions, locators, names) before running them')
    .argument('<requirements>', 'requirements JSONL file')
    .action(
      action((path: string) => {
        const r = checkRequirementsText(readInputText(path), path);
        for (const p of r.problems) process.stdout.write(`${p}\n`);
        warn(
          `tests check: ${r.requirements} requirements, ${r.tests} tests, ${r.problems.length === 0 ? 'no problems' : `${r.problems.length} problem${r.problems.length > 1 ? 's' : ''}`}\n`,
        );
        if (r.problems.length) process.exitCode = EXIT_USAGE;
      }),
    );
}

export function testsCommand(): Command {
  return new Command('tests')
    .description("requirement tests: check a file, generate natural-language tests with a judge, or import WebGen-Bench's")
    .addCommand(checkCommand())
    .addCommand(generateCommand())
    .addCommand(importCommand());
}
