/** `webgrade checklist reqs.jsonl --out with-checklists.jsonl`: derive checklist items for requirements without any. */
import { renameSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { addJudgeOptions, judgeSettingsFromFlags } from '../../judges/cli-options.js';
import { judgeTasks, say, warn } from '../cli-support.js';
import { deriveChecklists } from '../../judges/checklist.js';
import type { JudgeFlags } from '../../judges/settings.js';
import { readInputText } from '../../core/errors.js';
import { EXIT_FAILURE, action } from '../cli-support.js';

interface ChecklistFlags extends JudgeFlags {
  out?: string;
  force?: boolean;
}

export function checklistCommand(): Command {
  const cmd = new Command('checklist')
    .description('derive functional/visual/content checklist items with an LLM judge for requirements that have none')
    .argument('<requirements>', 'requirements JSONL file')
    .option('--out <file>', 'write the requirements with checklists here (default: standard output)')
    .option('--force', 'derive new items even for requirements that already have some');
  addJudgeOptions(cmd, { repeats: false, alignment: false });
  return cmd.action(
    action(async (path: string, flags: ChecklistFlags) => {
      const text = readInputText(path);
      const settings = judgeSettingsFromFlags(flags, judgeTasks());
      const run = await deriveChecklists(text, path, settings, { force: flags.force });
      if (flags.out) {
        const tmp = `${flags.out}.${process.pid}.tmp`;
        writeFileSync(tmp, run.text);
        renameSync(tmp, flags.out);
      } else process.stdout.write(run.text); // a requirements file (JSONL): data, written exact
      const count = (s: string) => run.results.filter((r) => r.status === s).length;
      for (const r of run.results) if (r.status === 'failed') warn(`webgrade: checklist for ${r.id} not derived: ${r.reason}\n`);
      const cost = run.usage.costUsd === null ? 'cost unknown (no price for the model)' : `$${run.usage.costUsd.toFixed(4)}`;
      warn(
        `checklists: ${count('derived')} derived, ${count('kept')} kept, ${count('failed')} failed; ` +
          `${run.usage.calls} judge calls, ${run.usage.cacheHits} cached, ${run.usage.promptTokens}+${run.usage.completionTokens} tokens, ${cost}` +
          (flags.out ? `; wrote ${flags.out}` : '') +
          '\n',
      );
      if (count('failed') > 0) process.exitCode = EXIT_FAILURE;
    }),
  );
}
