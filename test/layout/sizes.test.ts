/**
 * One idea per function and file (issue 29): no function over 200 lines and no source file over 600, measured on
 * the sources as the formatter leaves them. Tests, fixtures and data tables are outside the rule: a data table is
 * a file listed in DATA_TABLES, whose length is its content, not its logic.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { repoRoot } from '../helpers.js';

const MAX_FUNCTION_LINES = 200;
const MAX_FILE_LINES = 600;
/** Files that are mostly data (word lists, tables), allowed past the file limit. */
const DATA_TABLES: readonly string[] = [];

function sources(): string[] {
  return execFileSync('git', ['ls-files', '*.ts'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.startsWith('test/') && !f.startsWith('fixtures/') && !f.endsWith('.d.ts'));
}

function longFunctions(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const a = src.getLineAndCharacterOfPosition(n.getStart()).line;
      const b = src.getLineAndCharacterOfPosition(n.end).line;
      if (b - a + 1 > MAX_FUNCTION_LINES) out.push(`${file}:${a + 1} ${b - a + 1} lines`);
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

describe('sizes of sources', () => {
  const files = sources();

  it('finds the sources', () => assert.ok(files.length > 100));

  it(`keeps every function within ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((f) => longFunctions(f, readFileSync(join(repoRoot, f), 'utf8')));
    assert.deepEqual(long, []);
  });

  it(`keeps every source file within ${MAX_FILE_LINES} lines, data tables aside`, () => {
    const long = files
      .filter((f) => !DATA_TABLES.includes(f))
      .map((f) => [f, readFileSync(join(repoRoot, f), 'utf8').split('\n').length] as const)
      .filter(([, n]) => n > MAX_FILE_LINES)
      .map(([f, n]) => `${f}: ${n} lines`);
    assert.deepEqual(long, []);
  });
});
