/**
 * The benchmarks' shared command-line reading (bench/common.ts benchArgs, util.parseArgs in strict mode): a bad
 * command line is a usage error, exit 2, with one line saying what is wrong followed by the script's usage, and no
 * stack trace. Checked on bench/noise-guard.js, which reads its arguments before it reads any file.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, runScript } from '../helpers.js';

const script = join(repoRoot, 'dist', 'bench', 'noise-guard.js');
const USAGE = /^usage: node dist\/bench\/noise-guard\.js <results\.jsonl> /;

/** Runs the script; it must exit 2 and print exactly two lines on stderr: the message (returned) and the usage. */
async function usageError(args: string[]): Promise<string> {
  const r = await runScript(script, args);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `expected one message line and the usage line:\n${r.stderr}`);
  assert.match(lines[1]!, USAGE);
  return lines[0]!;
}

describe('bench command lines (benchArgs)', () => {
  it('rejects an unknown option', async () => {
    assert.match(await usageError(['a.jsonl', 'b.jsonl', '--bogus']), /^Unknown option '--bogus'/);
  });

  it('rejects a non-number for a numeric option', async () => {
    assert.equal(await usageError(['a.jsonl', 'b.jsonl', '--pseudo-models', 'many']), "option --pseudo-models needs a number, got 'many'");
  });

  it('rejects a non-number in a list of numbers, and a blank one', async () => {
    assert.equal(await usageError(['a.jsonl', '--k', '0,x,2']), "option --k needs a number, got 'x'");
    assert.equal(await usageError(['a.jsonl', '--k', '0,,2']), "option --k needs a number, got ''");
  });

  it('rejects an option without its value', async () => {
    assert.match(await usageError(['a.jsonl', '--persona']), /^Option '--persona <value>' argument missing/);
  });

  it("keeps the script's own checks as usage errors of the same shape", async () => {
    assert.equal(await usageError(['--json']), 'no results file given');
    assert.equal(await usageError(['a.jsonl', '--pseudo-models', '1']), '--pseudo-models must be ≥ 2, got 1');
  });
});
