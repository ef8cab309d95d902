/** `webgrade score <artifact>`: score one HTML file or folder. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { METRICS, findMetric } from '../../metrics/registry.js';
import { parseViewports, type ReferenceInput } from '../../core/fidelity.js';
import { resolveReference } from '../../runner/reference.js';
import type { MetricDefinition, MetricOutcome, SuiteId } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import { errorMessage, InputError } from '../../core/errors.js';
import { loadRequirementRef, type Requirement } from '../../core/requirements.js';
import { DEFAULT_BUDGET_MS, Scorer, type MetricResult } from '../../runner/score.js';
import { onChromeLaunch } from '../../gather/chrome-process.js';
import { warnChromeSandboxOnce } from '../chrome-warning.js';
import {
  action,
  addNetworkOptions,
  judgeTasks,
  networkFromFlags,
  parseIdList,
  parsePositiveNumber,
  parseSuite,
  printJson,
  SUITE_HELP,
  type NetworkFlags,
  say,
  warn,
  parseBudget,
} from '../cli-support.js';
import { explainMetric, scoreTable } from '../../report/format.js';
import { applyNorms, normOverallText, resolveScoreNorms } from '../../weights/norms.js';
import { DEFAULT_NOISE_GUARD_K } from '../../weights/noise.js';
import { addAgentOptions, addJudgeOptions, judgeSettingsFromFlags } from '../../judges/cli-options.js';
import type { JudgeFlags } from '../../judges/settings.js';
import { saveEvidence } from '../../store/evidence-files.js';
import { savedEvidenceGatherers } from '../../runner/gatherers.js';

interface ScoreFlags extends JudgeFlags, NetworkFlags {
  suite?: SuiteId;
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
  out?: string;
  reference?: string;
  viewports?: string;
  noiseGuard?: boolean;
}

/** Write the explained metric's pictures into `dir`; returns one "path: caption" line per picture. */
async function writePictures(dir: string, metric: MetricDefinition, result: MetricResult, evidence: Evidence): Promise<string[]> {
  if (result.score === null) return [`no picture: ${metric.id} is unscorable (${result.reason ?? 'no reason'})`];
  const outcome: MetricOutcome = { score: result.score, summary: result.summary ?? '', details: result.details };
  const pictures = await metric.illustrate!(evidence, outcome);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new InputError(`--out ${dir}: cannot create folder (${errorMessage(err)})`);
  }
  return pictures.map((p) => {
    const file = join(dir, `${metric.id}-${p.name}.png`);
    try {
      writeFileSync(file, p.png);
    } catch (err) {
      throw new InputError(`--out ${dir}: cannot write ${file} (${errorMessage(err)})`);
    }
    return `${file}: ${p.caption}`;
  });
}

export function scoreCommand(): Command {
  return addNetworkOptions(addAgentOptions(addJudgeOptions(new Command('score'))))
    .description('score one web app: an HTML file, or a folder with index.html')
    .argument('<artifact>', 'HTML file or folder with index.html')
    .option('--json', 'print the machine-readable JSON document')
    .option('--suite <suite>', SUITE_HELP, parseSuite)
    .option('--only <ids>', 'comma-separated metric ids of the suite to run', parseIdList)
    .option('--explain <id>', 'print the full details behind one metric')
    .option('--out <dir>', 'with --explain: write annotated pictures that explain the score into <dir> (vision and media metrics)')
    .option('--check-network', 'check remote URLs over the network (otherwise reported as unverified)')
    .option('--budget <seconds>', `time budget per artifact (default ${DEFAULT_BUDGET_MS / 1000})`, parseBudget)
    .option('--save-evidence <dir>', 'write the browser evidence (JSON, screenshots, Lighthouse report) into <dir>')
    .option('--from-evidence <dir>', 'score from evidence saved with --save-evidence, without a browser')
    .option('--requirement <file#id>', 'the requirement this page answers, from a requirements JSONL file')
    .option('--requirement-text <text>', 'the requirement as text')
    .option('--persona <id>', 'weights preset for the norm-based overall (dev, qa, ds, pm, ops, legal, designer, all; default all)')
    .option('--norms <norms.json>', 'norms for z-scores and the overall (default: the shipped weights/default-norms.json)')
    .option(
      '--reference <ref>',
      'the design the page should reproduce, for the fidelity metrics (extended suite): an .html file, a folder with index.html, or a .png picture',
    )
    .option('--viewports <list>', 'fidelity viewports: desktop,tablet,phone (the default) or custom <width>x<height> entries, comma-separated')
    .option('--no-noise-guard', `the study's exact z: σ is never raised to k × the norms' test–retest sd (k = ${DEFAULT_NOISE_GUARD_K})`)
    .action(
      action(async (artifact: string, flags: ScoreFlags) => {
        let requirement: Requirement | undefined;
        if (flags.requirement && flags.requirementText) throw new InputError('give --requirement or --requirement-text, not both');
        if (flags.requirement) requirement = loadRequirementRef(flags.requirement);
        if (flags.requirementText) requirement = { id: 'cli', requirement: flags.requirementText };
        let illustrated: MetricDefinition | undefined;
        if (flags.out) {
          if (!flags.explain) throw new InputError('--out needs --explain <id>: pictures explain one metric');
          illustrated = findMetric(flags.explain);
          if (illustrated && !illustrated.illustrate)
            throw new InputError(
              `--out: ${flags.explain} has no pictures (metrics with pictures: ${METRICS.filter((m) => m.illustrate)
                .map((m) => m.id)
                .join(', ')})`,
            );
        }
        let reference: ReferenceInput | undefined;
        if (flags.reference) {
          if ((flags.suite ?? 'study') !== 'extended')
            throw new InputError('--reference: the fidelity metrics are in the extended suite (add --suite extended)');
          reference = resolveReference(flags.reference);
        }
        const viewports = flags.viewports ? parseViewports(flags.viewports) : undefined;
        const normsCtx = resolveScoreNorms({ ...flags, reference: reference !== undefined });
        const only = flags.only ?? (flags.explain ? [flags.explain] : undefined);
        if (flags.explain && only && !only.includes(flags.explain)) only.push(flags.explain);
        const network = networkFromFlags(flags);
        const scorer = new Scorer({
          ...(flags.suite ? { suite: flags.suite } : {}),
          network,
          ...(flags.lighthouseRuns ? { lighthouseRuns: flags.lighthouseRuns } : {}),
          ...(flags.visitClock ? { visitClock: flags.visitClock } : {}),
          ...(viewports ? { viewports } : {}),
          only,
          checkNetwork: flags.checkNetwork ?? false,
          budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS,
          judge: judgeSettingsFromFlags(flags, judgeTasks()),
          gatherers: flags.fromEvidence
            ? savedEvidenceGatherers(flags.fromEvidence, {
                checkNetwork: flags.checkNetwork ?? false,
                budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS,
                judge: judgeSettingsFromFlags(flags, judgeTasks()),
              })
            : undefined,
        });
        onChromeLaunch(warnChromeSandboxOnce);
        try {
          const { doc, evidence } = await scorer.scoreWithEvidence(artifact, { requirement, reference });
          if (flags.saveEvidence) saveEvidence(flags.saveEvidence, evidence);
          if (normsCtx) applyNorms(doc, normsCtx.norms, normsCtx.file, normsCtx.weights, { enabled: flags.noiseGuard !== false, k: DEFAULT_NOISE_GUARD_K });
          if (flags.json) printJson(doc);
          else if (flags.explain) {
            const m = doc.metrics.find((x) => x.id === flags.explain)!;
            say(explainMetric(m) + '\n');
            if (flags.out && illustrated) for (const line of await writePictures(flags.out, illustrated, m, evidence)) say(line + '\n');
          } else say(scoreTable(doc) + (doc.overall ? '\n' + normOverallText(doc) : '') + '\n');
        } finally {
          await scorer.close();
        }
      }),
    );
}
