/**
 * `webgrade queue add|status|collect|remove` and `webgrade worker`: a BullMQ/Redis work queue (distribute/queue.ts).
 * An unreachable Redis is one line and exit 1; a bad --redis URL or other bad input, one line and exit 2.
 */
import { Command } from 'commander';
import type { Redis } from 'ioredis';
import { discoverRuns } from '../../distribute/batch.js';
import { loadRequirements } from '../../core/requirements.js';
import { DEFAULT_BUDGET_MS } from '../../runner/score.js';
import {
  action,
  addNetworkOptions,
  judgeTasks,
  networkFromFlags,
  parseIdList,
  parsePositiveInt,
  parsePositiveNumber,
  parseSuite,
  printJson,
  SUITE_HELP,
  type NetworkFlags,
} from '../cli-support.js';
import { InputError } from '../../core/errors.js';
import { DEFAULT_NETWORK_MODE, describeNetwork, NETWORK_MODES, type NetworkModeId } from '../../core/network.js';
import { JOB_LIMITS } from '../../lib/limits.js';
import { addAlignmentOption, judgeSettingsFromFlags } from '../../judges/cli-options.js';
import type { JudgeFlags } from '../../judges/settings.js';
import { DEFAULT_STAGE_JUDGE_CONCURRENCY } from '../../distribute/judge-stage.js';
import type { SuiteId } from '../../core/metric.js';
import type { AlignmentStance } from '../../core/judge-answer.js';
import {
  connectRedis,
  DEFAULT_MAX_JOB_BYTES,
  DEFAULT_QUEUE,
  DEFAULT_STALL_SECONDS,
  makeQueueSettings,
  type QueueSettings,
  RedisUnreachable,
  removeQueue,
} from '../../distribute/queue.js';
import { collect, queueStatus } from '../../distribute/queue-collect.js';
import { evidenceTarget } from './batch.js';
import { addJobs } from '../../distribute/queue-jobs.js';
import { checkSharedRoot, startQueueWorker } from '../../distribute/queue-worker.js';

interface CommonFlags {
  redis: string;
  queue?: string;
}

const redisOption = (cmd: Command) =>
  cmd
    .requiredOption('--redis <url>', 'Redis URL (redis://host:port[/db], rediss:// for TLS)')
    .option('--queue <name>', `queue name (default ${DEFAULT_QUEUE})`);

async function withRedis<T>(url: string, fn: (r: Redis) => Promise<T>, opts: { forWorker?: boolean } = {}): Promise<T> {
  let redis: Redis;
  try {
    redis = await connectRedis(url, opts);
  } catch (err) {
    if (err instanceof RedisUnreachable) {
      process.stderr.write(`webgrade: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  try {
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

interface AddFlags extends CommonFlags, NetworkFlags {
  requirements?: string;
  suite?: SuiteId;
  only?: string[];
  budget?: number;
  checkNetwork?: boolean;
  alignment?: AlignmentStance;
  repeats?: number;
  shared?: boolean;
  maxJobMb?: number;
}

/**
 * The network mode a queue asks for: only its name is stored, since a folder, a host list or a cache folder read
 * from Redis would let whoever writes there choose what workers reach or write (docs/security.md). Each worker
 * scores with its own `--network`, and says so when the queue asked for another.
 */
function queueNetworkMode(flags: NetworkFlags): NetworkModeId {
  if (flags.cdnCache) throw new InputError("--cdn-cache is a worker's choice: give it to `webgrade worker` (a queue stores no folders)");
  if (flags.allowHost) throw new InputError("--allow-host is a worker's choice: give it to `webgrade worker --network live|record:<dir>`");
  const raw = flags.network ?? DEFAULT_NETWORK_MODE;
  if (!(NETWORK_MODES as readonly string[]).includes(raw)) {
    const mode = raw.replace(/:.*$/, '');
    if ((mode === 'record' || mode === 'replay') && raw.includes(':'))
      throw new InputError(
        `--network ${raw}: a queue stores the mode only; give the folder to each worker (\`webgrade worker --network ${raw}\`) and add with --network ${mode}`,
      );
    throw new InputError(`--network ${raw}: expected one of ${NETWORK_MODES.join(', ')}`);
  }
  return raw as NetworkModeId;
}

function addCommand(): Command {
  return redisOption(addAlignmentOption(addNetworkOptions(new Command('add'))))
    .description('add one job per artifact of runs/<model>/<requirement-id>.html (or <id>/index.html); adding the same artifacts again adds nothing')
    .argument('<runs-dir>', 'folder with one sub-folder per model')
    .option('--requirements <reqs.jsonl>', 'requirements (text, checklists, labels) by id')
    .option('--suite <suite>', SUITE_HELP, parseSuite)
    .option('--only <ids>', 'comma-separated metric ids of the suite to run', parseIdList)
    .option('--budget <seconds>', `time budget per artifact (default ${DEFAULT_BUDGET_MS / 1000})`, parsePositiveNumber)
    .option('--check-network', 'check remote URLs over the network')
    .option('--repeats <n>', 'score every artifact n times (rows marked "repeat": 1..n)', parsePositiveInt)
    .option('--shared', "jobs name the artifact's absolute path (every worker must read it there) instead of carrying its files")
    .option('--no-evidence', 'return rows without their pictures (by default they ride in the row, at most the per-artifact cap, for `queue collect`)')
    .option('--max-job-mb <mb>', `largest artifact whose files travel in its job (default ${DEFAULT_MAX_JOB_BYTES / 1024 / 1024} MB)`, parsePositiveNumber)
    .action(
      action(async (runsDir: string, flags: AddFlags) => {
        const { jobs, skipped } = discoverRuns(runsDir);
        const requirements = flags.requirements ? loadRequirements(flags.requirements) : undefined;
        for (const s of skipped) process.stderr.write(`skipped ${s}\n`);
        const pool: QueueSettings['pool'] = {
          budgetMs: flags.budget ? flags.budget * 1000 : DEFAULT_BUDGET_MS,
          checkNetwork: flags.checkNetwork ?? false,
          network: { mode: queueNetworkMode(flags) },
        };
        if (flags.only) pool.only = flags.only;
        if (flags.suite) pool.suite = flags.suite;
        if (flags.lighthouseRuns) pool.lighthouseRuns = flags.lighthouseRuns;
        if (flags.visitClock) pool.visitClock = flags.visitClock;
        if (flags.alignment) pool.alignment = flags.alignment;
        const settings = makeQueueSettings(pool); // bad --only fails here, before Redis
        const s = await withRedis(flags.redis, (redis) =>
          addJobs(redis, jobs, {
            settings,
            ...(flags.queue ? { queue: flags.queue } : {}),
            ...(flags.shared ? { shared: true } : {}),
            ...(flags.maxJobMb ? { maxJobBytes: flags.maxJobMb * 1024 * 1024 } : {}),
            ...(flags.repeats ? { repeats: flags.repeats } : {}),
            ...(requirements ? { requirements } : {}),
          }),
        );
        process.stdout.write(`queue ${flags.queue ?? DEFAULT_QUEUE}: ${s.added} jobs added, ${s.alreadyQueued} already queued (of ${s.artifacts})\n`);
      }),
    );
}

function statusCommand(): Command {
  return redisOption(new Command('status'))
    .description('jobs waiting, active, done and failed; throughput over the last 10 minutes and ETA')
    .option('--json', 'print JSON')
    .action(
      action(async (flags: CommonFlags & { json?: boolean }) => {
        const s = await withRedis(flags.redis, (redis) => queueStatus(redis, flags.queue ?? DEFAULT_QUEUE));
        if (flags.json) return printJson(s);
        const rate = s.perMinute === null ? '-' : s.perMinute.toFixed(1);
        const eta = s.etaMs === null ? '-' : fmtDuration(s.etaMs);
        process.stdout.write(
          `queue ${flags.queue ?? DEFAULT_QUEUE}: waiting ${s.waiting}, active ${s.active}, done ${s.done}, failed ${s.failed}${s.delayed ? `, retrying ${s.delayed}` : ''} | ${rate} jobs/min (last ${s.windowMinutes} min) | ETA ${eta}\n`,
        );
        if (s.settingsError) process.stdout.write(`${s.settingsError}\n`);
        else if (!s.settings) process.stdout.write('no settings stored: add jobs with `webgrade queue add`\n');
      }),
    );
}

function collectCommand(): Command {
  return redisOption(new Command('collect'))
    .description('append one results row per finished artifact not yet in the results file (re-run to collect more)')
    .requiredOption('--out <results.jsonl>', 'results file (appended to; rows already there are kept and skipped)')
    .option('--evidence-dir <dir>', "write the rows' pictures into <dir> (default: <results>.evidence/ beside the results, as batch does)")
    .option('--no-evidence', 'drop the pictures')
    .action(
      action(async (flags: CommonFlags & { out: string; evidence?: boolean; evidenceDir?: string }) => {
        const evidence = evidenceTarget(flags.out, flags);
        const s = await withRedis(flags.redis, (redis) => collect(redis, flags.out, flags.queue ?? DEFAULT_QUEUE, evidence));
        if (s.tornTail) process.stderr.write('results file ended with a torn line: cut it away\n');
        process.stdout.write(
          `collected ${s.appended} rows into ${flags.out} (${s.alreadyInFile} already there, ${s.failed} failed jobs among them${s.unfinished ? `; ${s.unfinished} jobs not finished yet: collect again later` : ''})\n`,
        );
        if (s.refused) process.stderr.write(`${s.refused} jobs with a refused payload (not written by \`webgrade queue add\`): no rows for them\n`);
        if (s.refusedRows.length)
          process.stderr.write(
            `${s.refusedRows.length} returned rows refused (not the row of their job): not written; ${s.refusedRows.slice(0, 3).join('; ')}${s.refusedRows.length > 3 ? '; …' : ''}\n`,
          );
      }),
    );
}

function removeCommand(): Command {
  return redisOption(new Command('remove'))
    .description('delete the queue: its jobs, their results and its settings (collect first)')
    .action(
      action(async (flags: CommonFlags) => {
        await withRedis(flags.redis, (redis) => removeQueue(redis, flags.queue ?? DEFAULT_QUEUE));
        process.stdout.write(`queue ${flags.queue ?? DEFAULT_QUEUE} removed\n`);
      }),
    );
}

export function queueCommand(): Command {
  return new Command('queue')
    .description('a Redis work queue for many machines: add jobs, watch, collect results (start workers with `webgrade worker`)')
    .addCommand(addCommand())
    .addCommand(statusCommand())
    .addCommand(collectCommand())
    .addCommand(removeCommand());
}

interface WorkerFlags extends CommonFlags {
  network?: string;
  cdnCache?: string;
  allowHost?: string[];
  checkNetwork?: boolean;
  sharedRoot?: string;
  maxJobMb?: number;
  concurrency?: number;
  stallTimeout?: number;
  quiet?: boolean;
  evidence?: boolean;
  judgeConfig?: string;
  judgeConcurrency?: number;
}

export function workerCommand(): Command {
  return (
    redisOption(new Command('worker'))
      .description('score jobs of a queue (`webgrade queue add`) exactly as `batch` does, until SIGTERM (it finishes the jobs in hand first)')
      .option('--concurrency <n>', 'jobs at once, each in its own scoring process with its own Chrome (default 1)', parsePositiveInt)
      .option(
        '--stall-timeout <seconds>',
        `a killed worker's job goes to another worker after about this long (default ${DEFAULT_STALL_SECONDS})`,
        parsePositiveNumber,
      )
      .option('--quiet', 'no line per job')
      .option(
        '--judge-config <file>',
        'JSON file with the judge endpoint, models, prices, limits (docs/judges.md; default: $WEBGRADE_JUDGE_CONFIG and the environment)',
      )
      .option(
        '--judge-concurrency <n>',
        `judge requests in flight at once, for all the worker's jobs (default ${DEFAULT_STAGE_JUDGE_CONCURRENCY})`,
        parsePositiveInt,
      )
      // What pages reach, and where from, is the worker's own choice: a queue's Redis never sets it (docs/security.md).
      .option(
        '--network <mode>',
        `what pages may reach: cdn | offline | live | record:<dir> | replay:<dir> (default ${DEFAULT_NETWORK_MODE}); the queue's --network is only compared with it`,
      )
      .option('--cdn-cache <dir>', 'CDN cache folder (default: $XDG_CACHE_HOME/webgrade/cdn or ~/.cache/webgrade/cdn)')
      .option('--allow-host <hosts>', 'live/record modes: hosts let through (comma-separated; default: the well-known CDN hosts)', (v: string) =>
        v
          .split(',')
          .map((x) => x.trim().toLowerCase())
          .filter(Boolean),
      )
      .option('--check-network', "check remote URLs over the network (the queue's --check-network is only compared with it)")
      .option('--shared-root <dir>', 'take `queue add --shared` jobs, for artifacts inside <dir> only (without it, shared jobs are refused)')
      .option('--no-evidence', 'return rows without their pictures (by default they ride in the row, at most the per-artifact cap, for `queue collect`)')
      .option('--max-job-mb <mb>', `largest artifact a job may carry, decoded (default ${JOB_LIMITS.defaultMaxBytes / 1024 / 1024} MB)`, parsePositiveNumber)
      .action(
        action(async (flags: WorkerFlags) => {
          const networkFlags: NetworkFlags = {};
          if (flags.network) networkFlags.network = flags.network;
          if (flags.cdnCache) networkFlags.cdnCache = flags.cdnCache;
          if (flags.allowHost) networkFlags.allowHost = flags.allowHost;
          const network = networkFromFlags(networkFlags); // bad flags are one line, before Redis
          const sharedRoot = flags.sharedRoot ? checkSharedRoot(flags.sharedRoot) : undefined;
          const judgeFlags: JudgeFlags = {};
          if (flags.judgeConfig) judgeFlags.judgeConfig = flags.judgeConfig;
          if (flags.judgeConcurrency) judgeFlags.judgeConcurrency = flags.judgeConcurrency;
          const judge = judgeSettingsFromFlags(judgeFlags, judgeTasks(), process.env, { concurrency: DEFAULT_STAGE_JUDGE_CONCURRENCY }); // a bad config is one line, before Redis
          await withRedis(
            flags.redis,
            async (redis) => {
              const log = (line: string) => {
                if (!flags.quiet) process.stderr.write(line + '\n');
              };
              // The signals are taken before the worker starts: it takes jobs as soon as it is made (BullMQ's
              // autorun), and a SIGTERM then, while it waits to be ready, would kill it with a job in hand.
              let stopping: string | undefined;
              let started: { stop(): Promise<unknown> } | undefined;
              const onSignal = (sig: string) => {
                log(`[worker ${process.pid}] ${sig}: finishing the jobs in hand, then exiting`);
                stopping = sig;
                if (started) void started.stop();
              };
              process.once('SIGTERM', () => onSignal('SIGTERM'));
              process.once('SIGINT', () => onSignal('SIGINT'));
              const w = await startQueueWorker(redis, {
                queue: flags.queue ?? DEFAULT_QUEUE,
                concurrency: flags.concurrency ?? 1,
                network,
                checkNetwork: flags.checkNetwork ?? false,
                judge,
                ...(sharedRoot ? { sharedRoot } : {}),
                ...(flags.maxJobMb ? { maxJobBytes: flags.maxJobMb * 1024 * 1024 } : {}),
                ...(flags.stallTimeout ? { stallSeconds: flags.stallTimeout } : {}),
                ...(flags.evidence === false ? { evidence: false } : {}),
                ...(process.env.WEBGRADE_QUEUE_WORKER_MODULE ? { workerModule: process.env.WEBGRADE_QUEUE_WORKER_MODULE } : {}),
                onLog: (line) => process.stderr.write(line + '\n'),
                onRefused: (e) => process.stderr.write(`[worker ${process.pid}] job ${e.jobId} refused: ${e.reason}\n`),
                onJob: (e) => {
                  const what = `${e.data.model}/${e.data.requirement}${e.data.repeat ? ` #${e.data.repeat}` : ''}`;
                  const status = e.row ? (e.row.status === 'ok' ? 'ok' : `failed: ${e.row.error}`) : `crashed (will retry): ${e.error}`;
                  log(`[worker ${process.pid}] ${what} ${status} ${(e.ms / 1000).toFixed(1)}s`);
                },
              });
              started = w;
              if (stopping) void w.stop();
              else
                log(
                  `[worker ${process.pid}] waiting for jobs on queue ${flags.queue ?? DEFAULT_QUEUE} (network ${describeNetwork(network)}${flags.checkNetwork ? ', --check-network' : ''}${sharedRoot ? `, shared jobs inside ${sharedRoot}` : ''})`,
                );
              await w.closed;
              log(`[worker ${process.pid}] stopped`);
            },
            { forWorker: true },
          );
        }),
      )
  );
}
