/**
 * What every benchmark shares about its inputs: where the shared corpus is, and how a benchmark says that it cannot
 * run on this machine (its corpus folder or a tool it needs is absent), which scripts/bench.mjs and the smoke test
 * (test/bench/smoke.test.ts) report as skipped with the reason instead of as a failure.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
