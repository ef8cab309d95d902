/**
 * The CI recipe's script, docs/ci/gate.sh, run step by step on fixture pages with the built CLI: the comment goes
 * to a local command (POST_COMMENT) instead of GitHub. Pages as they were pass and post a ✅ comment; the same
 * pages with a script that does not parse fail with the regression named in the posted comment, the base
 * scored once (BASE_RESULTS resumes it); a missing pages folder fails the gate itself, with nothing posted.
 * Static metric only (`--only lint`), so no browser starts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliPath, fixture, repoRoot, tempDir } from '../helpers.js';

const gate = join(repoRoot, 'docs', 'ci', 'gate.sh');

function runGate(base: string, head: string, out: string, env: Record<string, string> = {}) {
  const posted = join(out + '-posted.md');
  const poster = join(out + '-post.sh');
  writeFileSync(poster, `#!/bin/sh\ncp "$1" "${posted}"\n`);
  chmodSync(poster, 0o755);
  const r = spawnSync('sh', [gate, base, head, out], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 10 * 60_000,
    env: { ...process.env, WEBGRADE: `${process.execPath} ${cliPath}`, WEBGRADE_ARGS: '--only lint', POST_COMMENT: poster, ...env },
  });
  return { ...r, posted: existsSync(posted) ? readFileSync(posted, 'utf8') : null };
}

describe('docs/ci/gate.sh', { timeout: 15 * 60_000 }, () => {
  const dir = tempDir('webgrade-gate-');
  const pages = fixture('ci', 'pages');
  const broken = join(dir, 'broken');
  cpSync(pages, broken, { recursive: true });
  for (const f of readdirSync(join(broken, 'site')))
    writeFileSync(join(broken, 'site', f), readFileSync(join(broken, 'site', f), 'utf8').replace('</body>', '<script>let broken = ;</script></body>'));

  it('passes unchanged pages and posts a ✅ comment', () => {
    const r = runGate(pages, pages, join(dir, 'same'));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.posted ?? '', /✅/);
    assert.match(r.stderr, /gate\.sh: no regression/);
  });

  it('fails on a regression and posts the comparison naming it; the cached base is not scored again', () => {
    const r = runGate(pages, broken, join(dir, 'broken-run'), { BASE_RESULTS: join(dir, 'same', 'base.jsonl') });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.posted ?? '', /❌ 1 regression/);
    assert.match(r.posted ?? '', /\| site \| lint \| 100\.0 \| /);
    assert.match(r.stderr, /resuming: 4 of 4 artifacts already in the results file/);
  });

  it('a pages folder that does not exist fails the gate itself (exit 3), with no comment', () => {
    const r = runGate(join(dir, 'nowhere'), pages, join(dir, 'bad'));
    assert.equal(r.status, 3);
    assert.equal(r.posted, null);
  });

  it('the GitHub Actions workflow runs the shipped script on pull requests, with permission to comment', () => {
    const yml = readFileSync(join(repoRoot, 'docs', 'ci', 'webgrade.yml'), 'utf8');
    assert.match(yml, /^on:\n {2}pull_request:/m);
    assert.match(yml, /pull-requests: write/);
    assert.match(yml, /run: sh node_modules\/webgrade\/docs\/ci\/gate\.sh /);
    assert.match(yml, /PR_NUMBER: \$\{\{ github\.event\.pull_request\.number \}\}/);
  });
});
