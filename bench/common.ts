/**
 * What every benchmark shares about its inputs: where the shared corpus is, and how a benchmark says that it cannot
 * run on this machine (its corpus folder or a tool it needs is absent), which scripts/bench.mjs and the smoke test
 * (test/bench/smoke.test.ts) report as skipped with the reason instead of as a failure.
 * It also reads every benchmark's command line (benchArgs), so that all of them treat a bad one alike.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The exit code of a benchmark that could not run here; 3 because 1 is a crash and 2 a usage error. */
export const CANNOT_RUN = 3;

/** The shared corpus beside the repository (../shared/corpus), whichever file of dist/bench/ asks. */
export const corpusDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'corpus');

/** Print why the benchmark cannot run here and exit with CANNOT_RUN. */
export function cannotRun(reason: string): never {
  process.stderr.write(`cannot run: ${reason}\n`);
  process.exit(CANNOT_RUN);
}

/**
 * `dir` as an absolute path (batch and queue symlink its pages into a temp folder, where a relative target would
 * dangle) when it exists; otherwise exit with CANNOT_RUN naming it (the corpus is not in the repository).
 */
export function inputDir(dir: string, what = 'pages folder'): string {
  if (!existsSync(dir))
    cannotRun(`${what} ${dir} is absent (the shared corpus lives beside the repository; the usage in the benchmark's header says how to give another)`);
  return resolve(dir);
}

/**
 * One option of a benchmark. `string` and `boolean` are `util.parseArgs`'s own types; `number` is a string option
 * whose value must read as a number (`Number` of it, not blank, not NaN), and `numbers` a comma-separated list of
 * such numbers (`--steps 100,200`). A boolean option named `no-x` is the whole flag `--no-x` (Node 20's parseArgs
 * has no negation of its own). Without a default a value is `undefined` when the option is absent; a boolean's is.
 */
export type BenchOption =
  { type: 'string'; default?: string } | { type: 'boolean' } | { type: 'number'; default?: number } | { type: 'numbers'; default?: number[] };

type BenchValue<O extends BenchOption> = O extends { type: 'number' }
  ? number
  : O extends { type: 'numbers' }
    ? number[]
    : O extends { type: 'boolean' }
      ? boolean
      : string;

/** The parsed options: each option's value, `undefined` only for one that has no default and was not given. */
export type BenchValues<T extends Record<string, BenchOption>> = {
  [K in keyof T]: T[K] extends { type: 'boolean' } ? boolean : T[K] extends { default: unknown } ? BenchValue<T[K]> : BenchValue<T[K]> | undefined;
};

/** Print a usage error (one line) and the benchmark's usage to stderr, and exit 2 (1 is a crash, 3 CANNOT_RUN). */
export function usageError(usage: string, message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

/**
 * A benchmark's command line read by `util.parseArgs` in strict mode: an unknown option, an option without its
 * value, a positional argument when `positionals` is false, or a non-number for a numeric option is a usage error
 * (one line naming it, then `usage`, exit 2). `usage` is the line of the script's header comment that says how to
 * run it.
 */
export function benchArgs<T extends Record<string, BenchOption>>(
  usage: string,
  options: T,
  { positionals = false, argv = process.argv.slice(2) }: { positionals?: boolean; argv?: string[] } = {},
): { values: BenchValues<T>; positionals: string[] } {
  const config: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, o] of Object.entries(options)) config[name] = { type: o.type === 'boolean' ? 'boolean' : 'string' };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: config, strict: true, allowPositionals: positionals });
  } catch (e) {
    usageError(usage, e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
  const toNumber = (name: string, text: string): number => {
    const v = Number(text);
    if (text.trim() === '' || Number.isNaN(v)) usageError(usage, `option --${name} needs a number, got '${text}'`);
    return v;
  };
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(options)) {
    const given = parsed.values[name];
    if (o.type === 'boolean') values[name] = given === true;
    else if (typeof given !== 'string') values[name] = o.default;
    else if (o.type === 'number') values[name] = toNumber(name, given);
    else if (o.type === 'numbers') values[name] = given.split(',').map((t) => toNumber(name, t));
    else values[name] = given;
  }
  return { values: values as BenchValues<T>, positionals: parsed.positionals };
}
