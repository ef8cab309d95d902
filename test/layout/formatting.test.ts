/**
 * The sources are as the formatter writes them (prettier, line width 160, settings in .prettierrc.json): a change
 * that is not formatted fails here with the files to run `npx prettier --write` on.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers.js';

const prettier = createRequire(import.meta.url).resolve('prettier/bin/prettier.cjs');

describe('formatting', () => {
  it('leaves every TypeScript and script source as prettier formats it', () => {
    const r = spawnSync(process.execPath, [prettier, '--list-different', '**/*.{ts,mjs}'], { cwd: repoRoot, encoding: 'utf8' });
    const unformatted = r.stdout.split('\n').filter(Boolean);
    assert.deepEqual(unformatted, [], `run: npx prettier --write ${unformatted.join(' ')}`);
    assert.equal(r.status, 0, r.stderr);
  });
});
