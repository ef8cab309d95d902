/**
 * Shared CLI plumbing: exit statuses of SPEC (0 done, 1 tool failure, 2 bad usage or input), one-line error
 * messages without stack traces (set WEBGRADE_DEBUG=1 to see them), and option parsers.
 */
import { InvalidArgumentError } from 'commander';
import { InputError, errorMessage } from '../core/errors.js';
import { JUDGE_METRIC_IDS } from '../metrics/registry.js';
import { DEFAULT_SUITE, SUITES, isSuiteId, type SuiteId } from '../core/metric.js';
import { CHECKLIST_TASK } from '../judges/settings.js';

/** `--suite study|extended` (SPEC "Suites"). */
export function parseSuite(value: string): SuiteId {
  if (!isSuiteId(value)) throw new InvalidArgumentError(`expected one of ${SUITES.join(', ')}`);
  return value;
}

export const SUITE_HELP = `metric suite: study (the study's 24 metrics, default) or extended (plus the metrics webgrade adds)`;
export { DEFAULT_SUITE };

/** The judge tasks a judge config's `models` may name: every judge metric of the registry, and `checklist`. */
export function judgeTasks(): string[] {
  return [...JUDGE_METRIC_IDS, CHECKLIST_TASK];
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function fail(err: unknown): never {
  if (err instanceof InputError) {
    process.stderr.write(`webgrade: ${err.message}\n`);
    process.exit(EXIT_USAGE);
  }
  const msg = errorMessage(err).split('\n')[0];
  process.stderr.write(`webgrade: internal error: ${msg}\n`);
  if (process.env.WEBGRADE_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
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
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new InvalidArgumentError('expected a comma-separated list of ids');
  return ids;
}

export function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

/** Write a JSON document to stdout, pretty-printed, with a final newline. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
