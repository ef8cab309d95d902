/** `webgrade score <artifact>`: score one HTML file or folder. */
import { Command } from 'commander';
import { InputError } from '../../runner/errors.js';
import { loadRequirementRef, type Requirement } from '../../runner/requirements.js';
import { DEFAULT_BUDGET_MS, Scorer } from '../../runner/score.js';
import { action, parseIdList, parsePositiveNumber, printJson } from '../cli-support.js';
import { explainMetric, scoreTable } from '../format.js';
import { applyNorms, normOverallText, resolveScoreNorms } from '../../weights/norms.js';
import { addJudgeOptions, judgeSettingsFromFlags } from '../../judges/cli-options.js';
import type { JudgeFlags } from '../../judges/settings.js';
import { saveEvidence, savedEvidenceGatherers } from '../../runner/gather/evidence-files.js';

interface ScoreFlags extends JudgeFlags {
  json?: boolean;
  only?: string[];
  explain?: string;
  checkNetwork?: boolean;
  budget?: number;
  requirement?: string;
  requirementText?: string;
  persona?: string;
  norms?: string;
  saveEvidence?: string;
  fromEvidence?: string;
}

export function scoreCommand(): Command {
  return addJudgeOptions(new Command('score'))
    .description('score one web app: an HTML file, or a folder with index.html')
    .argument('<artifact>', 'HTML file or folder with index.html')
    .option('--json', 'print the machine-readable JSON document')
    .option('--only <ids>', 'comma-separated metric ids to run', parseIdList)
    .option('--explain <id>', 'print the full details behind one metric')
    .option('--check-network', 'check remote URLs over the network (otherwise reported as unverified)')
    .option('--budget <seconds>', `time budget per artifact (default ${DEFAULT_BUDGET_MS / 1000})`, parsePositiveNumber)
    .option('--save-evidence <dir>', 'write the browser evidence (JSON, screenshots, Lighthouse report) into <dir>')
    .option('--from-evidence <dir>', 'score from evidence saved with --save-evidence, without a browser')
    .option('--requirement <file#id>', 'the requirement this page answers, from a requirements JSONL file')
    .option('--requirement-text <text>', 'the requirement as text')
    .option('--persona <id>', 'weights preset for the norm-based overall (dev, qa, ds, pm, ops, legal, designer, all; default all)')
    .option('--norms <norms.json>', 'norms for z-scores and the overall (default: the shipped weights/default-norms.json)')
    .action(
      action(async (artifact: string, flags: ScoreFlags) => {
        let requirement: Requirement | undefined;
        if (flags.requirement && flags.requirementText) throw new InputError('give --requirement or --requirement-text, not both');
        if (flags.requirement) requirement = loadRequirementRef(flags.requirement);
        if (flags.requirementText) requirement = { id: 'cli', requirement: flags.requirementText };
        const normsCtx = resolveScoreNorms(flags);
        const only = flags.only ?? (flags.explain ? [flags.explain] : undefined);
        if (flags.explain && only && !only.includes(flags.explain)) only.push(flags.explain);
        const scorer = new Scorer({
          only,
          checkNetwork: flags.checkNetwork ?? false,
          budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS,
          judge: judgeSettingsFromFlags(flags),
          gatherers: flags.fromEvidence
            ? savedEvidenceGatherers(flags.fromEvidence, { checkNetwork: flags.checkNetwork ?? false, budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS, judge: judgeSettingsFromFlags(flags) })
            : undefined,
        });
        try {
          const { doc, evidence } = await scorer.scoreWithEvidence(artifact, { requirement });
          if (flags.saveEvidence) saveEvidence(flags.saveEvidence, evidence);
          if (normsCtx) applyNorms(doc, normsCtx.norms, normsCtx.file, normsCtx.weights);
          if (flags.json) printJson(doc);
          else if (flags.explain) {
            const m = doc.metrics.find((x) => x.id === flags.explain)!;
            process.stdout.write(explainMetric(m) + '\n');
          } else process.stdout.write(scoreTable(doc) + (doc.overall ? '\n' + normOverallText(doc) : '') + '\n');
        } finally {
          await scorer.close();
        }
      }),
    );
}
