/** `webgrade mutate` through the built CLI: bad input, `--list`, and the JSON document on static-only operators. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATORS } from '../../mutate/registry.js';
import { fixture, runCli, writeArtifact } from '../helpers.js';

const RICH = fixture('mutate', 'rich');

describe('webgrade mutate (CLI)', () => {
  it('refuses bad input with one line on stderr and exit code 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['mutate'], /missing <artifact>/],
      [['mutate', RICH, '--operators', 'no-such-op'], /unknown operator "no-such-op"/],
      [['mutate', RICH, '--repeats', '0'], /--repeats/],
      [['mutate', RICH, '--scope', 'some'], /--scope/],
      [['mutate', '/nonexistent/page.html'], /nonexistent/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, msg);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.equal(r.stdout, '');
    }
  });

  it('--list names every operator with its targets; --json gives them as data', async () => {
    const table = await runCli(['mutate', '--list']);
    assert.equal(table.code, 0, table.stderr);
    for (const o of OPERATORS) assert.ok(table.stdout.includes(o.id), o.id);
    assert.match(table.stdout, new RegExp(`${OPERATORS.length} of ${OPERATORS.length} operators`));
    const json = await runCli(['mutate', '--list', '--json', '--operators', 'strip-comments,dead-js']);
    const doc = JSON.parse(json.stdout) as { operators: Array<{ id: string; targets: string[]; description: string }> };
    assert.deepEqual(
      doc.operators.map((o) => [o.id, o.targets]),
      [
        ['strip-comments', ['comment-rate']],
        ['dead-js', ['dead-code', 'code-redundancy']],
      ],
    );
  });

  it('--json: per operator its targets, whether it applied, detection, scores before and after, and moves', async () => {
    const r = await runCli(
      ['mutate', RICH, '--operators', 'invalid-css-value,strip-comments,unprotect,lorem-ipsum,blank-first-view', '--scope', 'targets', '--json'],
      { timeoutMs: 300_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      artifact: string;
      operators: Array<{
        id: string;
        targets: string[];
        applied: boolean;
        reason?: string;
        detected: Record<string, boolean>;
        scores: Record<string, { base: number | null; mutant: number | null }>;
        moved: unknown[];
      }>;
    };
    assert.equal(doc.artifact, RICH);
    assert.deepEqual(
      doc.operators.map((o) => o.id),
      ['invalid-css-value', 'strip-comments', 'unprotect', 'lorem-ipsum', 'blank-first-view'],
    );
    for (const o of doc.operators.slice(0, 4)) {
      assert.equal(o.applied, true, o.id);
      const [target] = o.targets;
      assert.equal(o.detected[target!], true, `${o.id} detected by ${target}: ${JSON.stringify(o.scores[target!])}`);
      const s = o.scores[target!]!;
      assert.ok(s.base !== null && s.mutant !== null && s.mutant < s.base);
      assert.ok(Array.isArray(o.moved));
    }
    // targets missing from the build or suite: skipped with the reason, never counted as a miss
    const skipped = doc.operators[4]!;
    assert.equal(skipped.applied, false);
    assert.match(skipped.reason!, /not in this build|not in the study suite/);
    assert.deepEqual(skipped.detected, {});
  });

  it('an operator with nothing to edit on the page is reported as not applied, with the reason', async () => {
    const page = writeArtifact({ 'index.html': '<!doctype html><html lang="en"><head><title>t</title></head><body><p>Plain text.</p></body></html>' });
    const r = await runCli(['mutate', page, '--operators', 'unprotect,blur-image', '--scope', 'targets', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { operators: Array<{ id: string; applied: boolean; reason?: string; detected: object }> };
    assert.deepEqual(
      doc.operators.map((o) => [o.id, o.applied]),
      [
        ['unprotect', false],
        ['blur-image', false],
      ],
    );
    assert.match(doc.operators[0]!.reason!, /no try\/catch/);
    assert.match(doc.operators[1]!.reason!, /no raster <img>/);
    assert.deepEqual(doc.operators[0]!.detected, {});
  });
});
