/** `webgrade batch <runs-dir> --out results.jsonl`: score every artifact of a runs folder (distribute/batch.ts). */
import { Command } from 'commander';
import cliProgress from 'cli-progress';
import { discoverRuns, runBatch, type BatchJob, type BatchOptions, type BatchProgress, type BatchSummary } from '../../distribute/batch.js';
import { loadRequirements } from '../../core/requirements.js';
import { DEFAULT_BUDGET_MS } from '../../runner/score.js';
import { warnChromeSandboxOnce } from '../chrome-warning.js';
import { printable } from '../../lib/text.js';
import {
  action,
  addNetworkOptions,
  judgeTasks,
  networkFromFlags,
  parseIdList,
  parsePositiveInt,
  parsePositiveNumber,
  parseSuite,
  SUITE_HELP,
  type NetworkFlags,
  say,
  warn,
  parseBudget,
} from '../cli-support.js';
import type { SuiteId } from '../../core/metric.js';
import { addJudgeOptions, judgeSettingsFromFlags, parseUsd } from '../../judges/cli-options.js';
import type { JudgeFlags } from '../../judges/settings.js';
import { DEFAULT_STAGE_JUDGE_CONCURRENCY, checkBudgetPrices } from '../../distribute/judge-stage.js';
import { selectMetrics } from '../../runner/score.js';
import type { PipelineStats } from '../../distribute/worker-pool.js';
import { InputError } from '../../core/errors.js';
import { parseViewports } from '../../core/fidelity.js';
import { inShard, parseShard } from '../../distribute/shard.js';
import type { EvidenceTarget } from '../../store/evidence-keep.js';
import { dirname, resolve } from 'node:path';

/** Safe default from bench/batch.ts (see docs/benchmarks.md: parallel Lighthouse runs on 2 cores skew performance). */
export const DEFAULT_CONCURRENCY = 1;

interface BatchFlags extends NetworkFlags, JudgeFlags {
  judgeBudget?: number;
  suite?: SuiteId;
  requirements?: string;
  out: string;
  only?: string[];
  concurrency?: number;
  budget?: number;
  checkNetwork?: boolean;
  progress?: boolean;
  references?: string;
  viewports?: string;
  repeats?: number;
  shard?: string;
  evidence?: boolean;
  evidenceDir?: string;
}

/** Where a batch keeps pictures: `--evidence-dir`, else `<results without extension>.evidence/` beside the results. */
export function evidenceTarget(out: string, flags: { evidence?: boolean; evidenceDir?: string }): EvidenceTarget | undefined {
  if (flags.evidence === false) {
    if (flags.evidenceDir) throw new InputError('give --evidence-dir or --no-evidence, not both');
    return undefined;
  }
  const results = resolve(out);
  return { root: resolve(flags.evidenceDir ?? results.replace(/\.[^./]*$/, '') + '.evidence'), base: dirname(results) };
}

function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function usd(x: number): string {
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`;
}

/** The judge stage's cost so far: tokens, and money when prices are configured. */
export function judgeCostText(j: NonNullable<PipelineStats['judges']>): string {
  const tokens = `${j.calls} calls, ${j.promptTokens + j.completionTokens} tokens (${j.promptTokens} in, ${j.completionTokens} out)`;
  const money =
    j.calls === 0
      ? ''
      : j.unpricedCalls === j.calls
        ? ', cost unknown (no prices configured)'
        : `, ${usd(j.costUsd)}${j.unpricedCalls ? ` + ${j.unpricedCalls} unpriced calls` : ''}`;
  return tokens + money + (j.budgetUsd !== undefined ? ` of a ${usd(j.budgetUsd)} budget` : '');
}

/**
 * The two stages of a progress line: browser and judges each done/in flight/waiting, and the ETA of the slower
 * (each stage's rate so far applied to what it has left).
 */
export function stagesText(st: PipelineStats, total: number, startDone: number, elapsedMs: number): string {
  const b = st.browser;
  const eta = (done: number) => (done > 0 ? ((total - startDone - done) * elapsedMs) / done : Infinity);
  let text = `browser ${b.done} done, ${b.inFlight} in flight, ${b.waiting} waiting`;
  let etaMs = eta(b.done);
  const j = st.judges;
  if (j) {
    text += ` | judges ${j.pagesDone} pages done, ${j.pagesWaiting} waiting, ${j.callsInFlight} calls in flight, ${j.callsWaiting} queued | ${judgeCostText(j)}`;
    etaMs = Math.max(etaMs, eta(j.pagesDone));
  }
  return `${text} | ETA ${Number.isFinite(etaMs) ? fmtDuration(etaMs) : '-'}`;
}

/** Progress on stderr: a bar on a terminal, plain lines otherwise. */
export function progressReporter(opts: { tty: boolean; label?: string }): Pick<BatchOptions, 'onStart' | 'onProgress'> & { stop(): void } {
  let bar: cliProgress.SingleBar | null = null;
  let startDone = 0;
  return {
    onStart(info) {
      startDone = info.alreadyDone;
      if (info.tornTail) warn('results file ended with a torn line (an earlier run was killed mid-write): cut it away\n');
      if (info.badLines.length) warn(`results file: skipped unreadable lines ${info.badLines.slice(0, 10).join(', ')}\n`);
      if (info.alreadyDone) warn(`resuming: ${info.alreadyDone} of ${info.total} artifacts already in the results file\n`);
      if (opts.tty && info.total > info.alreadyDone) {
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: `${opts.label ?? 'scoring'} [{bar}] {value}/{total} | ok {ok} failed {failed} | {rate}/min | {stages}`,
            hideCursor: true,
            etaBuffer: 20,
            fps: 5,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(info.total, info.alreadyDone, { ok: 0, failed: 0, rate: '-', stages: '' });
      }
    },
    onProgress(p: BatchProgress) {
      const n = p.done - startDone;
      const rate = n > 0 ? (n / (p.elapsedMs / 60_000)).toFixed(1) : '-';
      const what = printable(`${p.row.model}/${p.row.requirement}${p.row.repeat ? ` #${p.row.repeat}` : ''}`);
      const stages = stagesText(p.stages, p.total, startDone, p.elapsedMs);
      if (bar) bar.update(p.done, { ok: p.ok, failed: p.failed, rate, stages });
      else {
        const status = p.row.status === 'ok' ? `ok ${((p.row.ms ?? 0) / 1000).toFixed(1)}s` : `FAILED: ${printable(p.row.error ?? '')}`;
        warn(`[${p.done}/${p.total}] ${what} ${status} | ${rate}/min | ${stages}\n`);
      }
    },
    stop() {
      bar?.stop();
    },
  };
}

export function summaryText(s: BatchSummary, out: string): string {
  const lines: string[] = [];
  const rate = s.scored + s.failed > 0 && s.elapsedMs > 0 ? ((s.scored + s.failed) / (s.elapsedMs / 60_000)).toFixed(1) : '-';
  lines.push(
    `${s.interrupted ? 'interrupted' : 'done'}: ${s.scored} scored, ${s.failed} failed, ${s.alreadyDone} already done (of ${s.total}) in ${fmtDuration(s.elapsedMs)} (${rate} artifacts/min) → ${out}`,
  );
  const un = Object.entries(s.unscorable).sort((a, b) => b[1] - a[1]);
  if (un.length) lines.push(`unscorable per metric (of ${s.scored}): ${un.map(([id, n]) => `${id} ${n}`).join(', ')}`);
  else if (s.scored) lines.push('unscorable per metric: none');
  for (const f of s.failures) lines.push(`failed: ${printable(`${f.model}/${f.requirement}`)}${f.repeat ? ` #${f.repeat}` : ''}: ${printable(f.error)}`);
  if (s.failed > s.failures.length) lines.push(`… and ${s.failed - s.failures.length} more failures (status "failed" in the results file)`);
  const j = s.stages?.judges;
  if (j) {
    lines.push(`judges: ${judgeCostText(j)}${j.rateLimited ? `; rate-limited ${j.rateLimited} times (429, waited as asked)` : ''}`);
    if (j.refusedCalls)
      lines.push(
        `judge budget of ${usd(j.budgetUsd ?? 0)} reached: ${j.refusedCalls} judge calls not made; those judge metrics are unscorable ("judge budget ... reached")`,
      );
  }
  for (const w of s.judgeWarnings) lines.push(`warning: ${printable(w)}`);
  if (s.missingRequirement) lines.push(`${s.missingRequirement} artifacts have no requirement with their id in --requirements (scored without one, no labels)`);
  return lines.join('\n');
}

export async function runBatchWithProgress(jobs: BatchJob[], opts: BatchOptions, label?: string): Promise<BatchSummary> {
  const reporter = progressReporter({ tty: Boolean(process.stderr.isTTY), label });
  try {
    return await runBatch(jobs, { ...opts, onStart: reporter.onStart, onProgress: reporter.onProgress });
  } finally {
    reporter.stop();
  }
}

export function batchCommand(): Command {
  return addJudgeOptions(addNetworkOptions(new Command('batch')), { concurrencyDefault: DEFAULT_STAGE_JUDGE_CONCURRENCY })
    .description('score every artifact of runs/<model>/<requirement-id>.html (or <id>/index.html), appending rows to a results JSONL; re-running resumes')
    .argument('<runs-dir>', 'folder with one sub-folder per model')
    .requiredOption('--out <results.jsonl>', 'results file (appended to; existing rows are kept and skipped)')
    .option('--requirements <reqs.jsonl>', 'requirements (text, checklists, labels) by id')
    .option('--suite <suite>', SUITE_HELP, parseSuite)
    .option('--only <ids>', 'comma-separated metric ids of the suite to run', parseIdList)
    .option('--concurrency <n>', `worker processes, each with its own Chrome (default ${DEFAULT_CONCURRENCY})`, parsePositiveInt)
    .option('--budget <seconds>', `time budget per artifact (default ${DEFAULT_BUDGET_MS / 1000})`, parseBudget)
    .option('--check-network', 'check remote URLs over the network')
    .option(
      '--references <dir>',
      'the designs the pages should reproduce (fidelity metrics, extended suite): <id>.html, <id>/index.html or <id>.png per requirement id; a requirement\'s own "reference" otherwise',
    )
    .option('--viewports <list>', 'fidelity viewports: desktop,tablet,phone (the default) or custom <width>x<height> entries, comma-separated')
    .option(
      '--repeats <n>',
      'score every artifact n times, each gathered anew (rows marked "repeat": 1..n), to measure test–retest noise (default 1)',
      parsePositiveInt,
    )
    .option(
      '--evidence-dir <dir>',
      "keep each artifact's pictures (screenshots, metric pictures, inert-control crops; WebP under a per-artifact cap) in <dir> (default: <results>.evidence/ beside the results)",
    )
    .option('--no-evidence', 'keep no pictures')
    .option(
      '--judge-budget <usd>',
      'stop issuing judge calls once this many USD are spent (needs "prices" for the judge models in --judge-config); the remaining judge metrics are unscorable, saying so',
      parseUsd,
    )
    .option(
      '--shard <i/n>',
      'score only shard i of n (1-based; a stable split by model and requirement), e.g. one per array job; combine the results files with `webgrade merge`',
    )
    .action(
      action(async (runsDir: string, flags: BatchFlags) => {
        const shard = flags.shard ? parseShard(flags.shard) : undefined;
        const discovered = discoverRuns(runsDir);
        const jobs = shard ? inShard(discovered.jobs, shard) : discovered.jobs;
        const skipped = discovered.skipped;
        if (shard) process.stderr.write(`shard ${shard.index}/${shard.count}: ${jobs.length} of ${discovered.jobs.length} artifacts\n`);
        const requirements = flags.requirements ? loadRequirements(flags.requirements) : undefined;
        for (const s of skipped) warn(`skipped ${printable(s)}\n`);
        const opts: BatchOptions = {
          out: flags.out,
          concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
          budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS,
          checkNetwork: flags.checkNetwork ?? false,
        };
        if (flags.only) opts.only = flags.only;
        if (flags.suite) opts.suite = flags.suite;
        opts.network = networkFromFlags(flags);
        if (flags.lighthouseRuns) opts.lighthouseRuns = flags.lighthouseRuns;
        if (flags.visitClock) opts.visitClock = flags.visitClock;
        if (flags.alignment) opts.alignment = flags.alignment;
        const judgeIds = selectMetrics(flags.only, flags.suite)
          .filter((m) => m.kind === 'judge')
          .map((m) => m.id);
        if (judgeIds.length) opts.judge = judgeSettingsFromFlags(flags, judgeTasks(), process.env, { concurrency: DEFAULT_STAGE_JUDGE_CONCURRENCY });
        else if (flags.judgeBudget !== undefined) throw new InputError('--judge-budget: no judge metric is selected');
        // The requirement tests' agent (natural-language tests) runs in the workers, with the judge flags `score`
        // would give it (not only the environment's: `--judge-base-url` reached score's agent and not batch's).
        if (!opts.judge && selectMetrics(flags.only, flags.suite).some((m) => m.id === 'requirement-tests'))
          opts.judge = judgeSettingsFromFlags(flags, judgeTasks());
        if (flags.judgeBudget !== undefined) {
          checkBudgetPrices(opts.judge!, judgeIds, flags.judgeBudget);
          opts.judgeBudgetUsd = flags.judgeBudget;
        }
        if (flags.repeats) opts.repeats = flags.repeats;
        if (requirements) opts.requirements = requirements;
        if (flags.references) {
          if ((flags.suite ?? 'study') !== 'extended')
            throw new InputError('--references: the fidelity metrics are in the extended suite (add --suite extended)');
          opts.references = flags.references;
        }
        if (flags.viewports) opts.viewports = parseViewports(flags.viewports);
        opts.onChromeLaunch = warnChromeSandboxOnce;
        const evidence = evidenceTarget(flags.out, flags);
        if (evidence) opts.evidence = evidence;
        const summary = await runBatchWithProgress(jobs, opts);
        say(summaryText(summary, flags.out) + '\n');
        if (summary.interrupted) process.exit(130);
      }),
    );
}
