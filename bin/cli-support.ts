/**
 * Shared CLI plumbing: exit statuses of SPEC (0 done, 1 tool failure, 2 bad usage or input), one-line error
 * messages without stack traces (set WEBGRADE_DEBUG=1 to see them), and option parsers.
 */
import { InvalidArgumentError } from 'commander';
import { InputError, errorMessage } from '../core/errors.js';
import { printable, printableText } from '../lib/text.js';
import { JUDGE_METRIC_IDS } from '../metrics/registry.js';
import { DEFAULT_SUITE, SUITES, isSuiteId, type SuiteId } from '../core/metric.js';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_NETWORK_MODE, NETWORK_MODES, type NetworkModeId, type NetworkSettings } from '../core/network.js';
import { DEFAULT_LIGHTHOUSE_RUNS } from '../gather/browser-gatherers.js';
import { DEFAULT_VISIT_CLOCK, VISIT_CLOCKS, type VisitClockMode } from '../core/visit-clock.js';
import { AGENT_TASK, CHECKLIST_TASK } from '../judges/settings.js';

/** `--suite study|extended` (SPEC "Suites"). */
export function parseSuite(value: string): SuiteId {
  if (!isSuiteId(value)) throw new InvalidArgumentError(`expected one of ${SUITES.join(', ')}`);
  return value;
}

export const SUITE_HELP = `metric suite: study (the study's 24 metrics, default) or extended (plus the metrics webgrade adds)`;
export { DEFAULT_SUITE };

export interface NetworkFlags {
  network?: string;
  cdnCache?: string;
  allowHost?: string[];
  lighthouseRuns?: number;
  visitClock?: VisitClockMode;
}

/** `--visit-clock real|page` (gather/visit.ts VisitOptions `clock`). */
export function parseVisitClock(value: string): VisitClockMode {
  if (!(VISIT_CLOCKS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${VISIT_CLOCKS.join(', ')}`);
  return value as VisitClockMode;
}

/** At most this many Lighthouse runs per artifact (each costs about 3–5 s). */
export const MAX_LIGHTHOUSE_RUNS = 9;

/** `--network`, `--cdn-cache`, `--allow-host` (core/network.ts), on every command that loads pages. */
export function addNetworkOptions(cmd: Command): Command {
  return cmd
    .option(
      '--network <mode>',
      `what pages may reach: ${NETWORK_MODES.map((m) => (m === 'record' || m === 'replay' ? `${m}:<dir>` : m)).join(' | ')} (default ${DEFAULT_NETWORK_MODE}: CDN files from a local cache filled from the npm registry)`,
    )
    .option('--cdn-cache <dir>', 'CDN cache folder (default: $XDG_CACHE_HOME/webgrade/cdn or ~/.cache/webgrade/cdn)')
    .option('--allow-host <hosts>', 'live/record modes: hosts let through (comma-separated; default: the well-known CDN hosts)', (v: string) =>
      v
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    )
    .option(
      '--lighthouse-runs <n>',
      `Lighthouse runs per page; the performance score is their median (default ${DEFAULT_LIGHTHOUSE_RUNS}, at most ${MAX_LIGHTHOUSE_RUNS})`,
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > MAX_LIGHTHOUSE_RUNS)
          throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_LIGHTHOUSE_RUNS}`);
        return n;
      },
    )
    .option(
      '--visit-clock <clock>',
      `the visit's page clock: real (load and settle on real time) or page (a clock of our own from the first byte: the same page gives the same evidence on every run; docs/heavy-pages.md) (default ${DEFAULT_VISIT_CLOCK})`,
      parseVisitClock,
    );
}

/** The network settings of parsed flags; bad values are InputErrors. */
export function networkFromFlags(flags: NetworkFlags): NetworkSettings {
  const raw = flags.network ?? DEFAULT_NETWORK_MODE;
  const m = /^([a-z]+)(?::(.+))?$/.exec(raw);
  const mode = m?.[1] as NetworkModeId | undefined;
  if (!m || !mode || !(NETWORK_MODES as readonly string[]).includes(mode)) {
    throw new InputError(`--network ${raw}: expected one of cdn, offline, live, record:<dir>, replay:<dir>`);
  }
  const out: NetworkSettings = { mode };
  if (mode === 'record' || mode === 'replay') {
    if (!m[2]) throw new InputError(`--network ${mode} needs a folder: --network ${mode}:<dir>`);
    out.dir = resolve(m[2]);
    if (mode === 'replay' && !(existsSync(out.dir) && statSync(out.dir).isDirectory()))
      throw new InputError(`--network replay:${m[2]}: no such folder (record one with --network record:<dir>)`);
  } else if (m[2]) throw new InputError(`--network ${mode} takes no folder`);
  if (flags.allowHost) {
    if (mode !== 'live' && mode !== 'record') throw new InputError('--allow-host applies to --network live and record only');
    out.allowHosts = flags.allowHost;
  }
  if (flags.cdnCache) out.cdnCache = resolve(flags.cdnCache);
  return out;
}

/** The judge tasks a judge config's `models` may name: every judge metric of the registry, and `checklist`. */
export function judgeTasks(): string[] {
  return [...JUDGE_METRIC_IDS, CHECKLIST_TASK, AGENT_TASK];
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function fail(err: unknown): never {
  if (err instanceof InputError) {
    process.stderr.write(`webgrade: ${printable(err.message)}\n`);
    process.exit(EXIT_USAGE);
  }
  const msg = errorMessage(err).split('\n')[0];
  process.stderr.write(`webgrade: internal error: ${printable(msg ?? '')}\n`);
  if (process.env.WEBGRADE_DEBUG && err instanceof Error) process.stderr.write(`${printableText(err.stack ?? '')}\n`);
  process.exit(EXIT_FAILURE);
}

/** Wrap a command action so that every error ends as one line and the right exit status. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      fail(err);
    }
  };
}

export function parseIdList(value: string): string[] {
  const ids = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError('expected a comma-separated list of ids');
  return ids;
}

export function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

/**
 * Largest `--budget` in seconds. Node's timers hold at most 2^31 − 1 ms (about 24.8 days; a longer delay fires at
 * once, with a warning), and a batch's hard limit per artifact is twice the budget plus up to 10.5 min, so the
 * budget is capped at 1 000 000 s (11.6 days), which keeps every timer derived from it below 2^31 ms.
 */
export const MAX_BUDGET_S = 1_000_000;

export function parseBudget(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
  if (n > MAX_BUDGET_S) throw new InvalidArgumentError(`at most ${MAX_BUDGET_S} seconds (timers hold less than 2^31 ms)`);
  return n;
}

/** A commander argument parser that accepts exactly one of `values`. */
export function choiceParser<T extends string>(values: readonly T[]): (v: string) => T {
  return (v: string) => {
    if (!(values as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}`);
    return v as T;
  };
}

export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return n;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

/**
 * Human-readable output (tables, progress lines, summaries, messages): control characters of names, reasons and
 * URLs that came from pages or files are shown escaped (lib/text.ts `printableText`), never sent to the terminal.
 * JSON, CSV and HTML documents are written as they are (`printJson`, or process.stdout directly).
 */
export function say(text: string): void {
  process.stdout.write(printableText(text));
}

/** As `say`, on stderr. */
export function warn(text: string): void {
  process.stderr.write(printableText(text));
}

/** Write a JSON document to stdout, pretty-printed, with a final newline. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
