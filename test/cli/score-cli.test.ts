import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteMetrics } from '../../metrics/registry.js';
import { fixture, runCli, tempDir, withoutSandboxWarning, writeArtifact, writeSingleFile } from '../helpers.js';

describe('webgrade score (CLI)', () => {
  it('--json prints the SPEC document with metrics, perspectives and overall', async () => {
    const r = await runCli(['score', fixture('example'), '--json', '--only', 'comment-rate']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.artifact, fixture('example'));
    assert.equal(doc.metrics.length, 1);
    const m = doc.metrics[0];
    assert.deepEqual([m.id, m.perspective, m.kind], ['comment-rate', 'maintainability', 'rule']);
    assert.equal(typeof m.score, 'number');
    assert.ok('details' in m);
    assert.ok('perspectives' in doc && 'overall' in doc);
  });

  it("--suite study scores exactly the study's 24 metrics and says so; --suite extended adds the registry's own (dead-code ...)", async () => {
    const study = await runCli(['score', fixture('example'), '--json', '--suite', 'study']);
    assert.equal(study.code, 0, study.stderr);
    const s = JSON.parse(study.stdout);
    assert.equal(s.suite, 'study');
    assert.equal(s.metrics.length, 24);
    assert.ok(!s.metrics.some((m: { id: string }) => m.id === 'dead-code'));
    const ext = await runCli(['score', fixture('example'), '--json', '--suite', 'extended']);
    assert.equal(ext.code, 0, ext.stderr);
    const e = JSON.parse(ext.stdout);
    assert.equal(e.suite, 'extended');
    const added = suiteMetrics('extended')
      .filter((m) => m.suite === 'extended')
      .map((m) => m.id);
    assert.ok(added.includes('dead-code'));
    assert.deepEqual(
      e.metrics.map((m: { id: string }) => m.id),
      [...s.metrics.map((m: { id: string }) => m.id), ...added],
    );
  });

  it('a canvas-only page: performance is unscorable with NO_LCP as the reason, and nothing reaches stderr (as root, but the sandbox warning)', async () => {
    const r = await runCli(['score', fixture('browser', 'canvas-only.html'), '--json', '--only', 'performance', '--network', 'offline']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(withoutSandboxWarning(r.stderr), '');
    assert.match(JSON.parse(r.stdout).metrics[0].reason, /NO_LCP/);
  });

  it('prints a readable table by default', async () => {
    const r = await runCli(['score', fixture('example'), '--only', 'comment-rate']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /comment-rate/);
    assert.match(r.stdout, /maintainability/);
    assert.match(r.stdout, /non-blank lines carry comments/);
  });

  it('--explain prints the details of one metric', async () => {
    const r = await runCli(['score', fixture('example'), '--explain', 'comment-rate']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^comment-rate: \d/);
    assert.match(r.stdout, /"commentLines"/);
  });

  it('--explain <id> --out <dir> writes the annotated picture of a vision metric and names it', async () => {
    const out = tempDir();
    const r = await runCli(['score', fixture('example'), '--explain', 'layout-sparsity', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    const file = join(out, 'layout-sparsity-blank-area.png');
    assert.ok(r.stdout.includes(`${file}: `), r.stdout);
    const bytes = readFileSync(file);
    assert.deepEqual([...bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
  });

  const bad: Array<[string, () => string[], RegExp]> = [
    ['--out without --explain', () => ['score', fixture('example'), '--out', tempDir()], /--out needs --explain/],
    ['--out for a metric without pictures', () => ['score', fixture('example'), '--explain', 'lint', '--out', tempDir()], /lint has no pictures/],
    ['a missing file', () => ['score', join(tempDir(), 'missing.html')], /no such file/],
    ['an empty file', () => ['score', writeSingleFile('')], /empty/],
    ['a binary file', () => ['score', writeSingleFile(Buffer.from([0, 1, 2, 3, 0, 0]))], /binary/],
    ['a folder without index.html', () => ['score', writeArtifact({ 'a.html': '<p>' })], /no index\.html/],
    ['an unknown metric id', () => ['score', fixture('example'), '--only', 'nope'], /unknown metric "nope"/],
    ['a metric outside the suite', () => ['score', fixture('example'), '--only', 'dead-code'], /not in the study suite/],
    ['an unknown suite', () => ['score', fixture('example'), '--suite', 'all'], /expected one of study, extended/],
    ['an unknown visit clock', () => ['score', fixture('example'), '--visit-clock', 'virtual'], /--visit-clock.*expected one of real, page/],
    ['an unknown option', () => ['score', fixture('example'), '--frobnicate'], /unknown option/],
    ['a bad requirement reference', () => ['score', fixture('example'), '--requirement', 'x.jsonl'], /expected <file\.jsonl>#<id>/],
  ];
  for (const [name, args, re] of bad) {
    it(`exits 2 with one line on stderr for ${name}`, async () => {
      const r = await runCli(args());
      assert.equal(r.code, 2, `exit ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1, `stderr not one line: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\s+at .+:\d+:\d+/);
      assert.equal(r.stdout, '');
    });
  }

  it('names the line of an unreadable requirements file', async () => {
    const reqs = join(writeArtifact({ 'r.jsonl': '{"id":"a","requirement":"x"}\n{broken\n' }), 'r.jsonl');
    const r = await runCli(['score', fixture('example'), '--only', 'comment-rate', '--requirement', `${reqs}#a`]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /r\.jsonl:2: not valid JSON/);
  });
});
