/** `webgrade merge a.jsonl b.jsonl ... --out all.jsonl`: results files of shards (or machines) into one (distribute/shard.ts). */
import { Command } from 'commander';
import { action } from '../cli-support.js';
import { mergeResults } from '../../distribute/shard.js';
import { printable } from '../../lib/text.js';

export function mergeCommand(): Command {
  return new Command('merge')
    .description(
      'merge results files scored with the same settings into one (one row per model, requirement and repeat; an ok row beats a failed one, then the later file wins)',
    )
    .argument('<results...>', 'results JSONL files')
    .requiredOption('--out <all.jsonl>', 'merged results file (may be one of the inputs; any other existing file is refused)')
    .action(
      action((inputs: string[], flags: { out: string }) => {
        const s = mergeResults(inputs, flags.out);
        process.stdout.write(
          `merged ${s.files} files: ${s.rows} rows → ${flags.out}${s.duplicates ? ` (${s.duplicates} duplicates dropped${s.conflicting ? `, ${s.conflicting} of them with other scores` : ''})` : ''}${s.badLines ? `; ${s.badLines} unreadable lines skipped` : ''}\n`,
        );
        if (s.browsers)
          process.stderr.write(
            `warning: the rows were scored with ${s.browsers.length} browsers (${s.browsers.join(', ')}): a browser release can change what a page shows and scores\n`,
          );
        for (const w of s.judgeWarnings) process.stderr.write(`warning: ${printable(w)}\n`);
      }),
    );
}
