/**
 * The documentation holds: every link of README.md and docs/**\/*.md resolves (files and heading anchors), no
 * page names a path of one machine, the ```console examples marked `<!-- docs-test: run -->` print what they
 * show, and every command's `--help` is on a page exactly (the help blocks `npm run docs:help` refreshes). The
 * rules of each check are in test/docs/docs-check.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, withoutSandboxWarning } from '../helpers.js';
import {
  allHelp,
  brokenLink,
  consoleExamples,
  docFiles,
  helpBlocks,
  helpText,
  links,
  machinePaths,
  outputMatches,
  runShell,
  subcommands,
} from './docs-check.js';

const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

describe('documentation', () => {
  const files = docFiles();

  it('finds README and the guide pages', () => {
    for (const f of ['README.md', 'docs/scoring.md', 'docs/ci.md', 'docs/metrics/README.md']) assert.ok(files.includes(f), f);
  });

  it('every link resolves to a file, and every anchor to a heading', () => {
    const broken = files.flatMap((f) => links(f).flatMap((l) => (brokenLink(l) ? [`${l.file}:${l.line}: ${brokenLink(l)}`] : [])));
    assert.deepEqual(broken, []);
  });

  it('the link check sees a broken file and a broken anchor', () => {
    assert.match(brokenLink({ file: 'docs/ci.md', line: 1, target: 'no-such-page.md' }) ?? '', /no such file/);
    assert.match(brokenLink({ file: 'docs/ci.md', line: 1, target: 'scoring.md#no-such-heading' }) ?? '', /no heading/);
    assert.equal(brokenLink({ file: 'docs/ci.md', line: 1, target: 'leaderboards.md#comparing-two-runs' }), null);
  });

  it('no page names an absolute path of one machine', () => {
    const found = files.flatMap((f) => machinePaths(read(f)).map((p) => `${f}: ${p}`));
    assert.deepEqual(found, []);
    assert.deepEqual(machinePaths('see /tmp/x and /home/me/y, not ../shared/corpus or https://a/tmp/b'), ['/tmp/x', '/home/me/y']);
  });

  it('every command and subcommand has its --help on a page, exactly as the CLI prints it', async () => {
    const help = await allHelp();
    // The in-process command list (docs-check.ts allHelp) is the real CLI's.
    assert.deepEqual([...help.keys()].filter((k) => !k.includes(' ')).sort(), subcommands(await helpText([])).sort());
    const onPages = new Map<string, string>();
    for (const f of files) for (const [k, v] of helpBlocks(read(f))) onPages.set(k, v);
    const missing = [...help.keys()].filter((k) => !onPages.has(k));
    assert.deepEqual(missing, [], 'add a <!-- help:<command> --> block to the command’s page, then `npm run docs:help`');
    const stale = [...help].filter(([k, v]) => onPages.get(k) !== v).map(([k]) => k);
    assert.deepEqual(stale, [], 'run `npm run build && npm run docs:help`');
  });

  const examples = files.flatMap(consoleExamples);
  it('marks examples to run, a `score` among them', () => {
    assert.ok(examples.some((e) => /^npx webgrade score /.test(e.command)));
  });
  for (const ex of examples) {
    it(`${ex.file}:${ex.line}: \`${ex.command}\` prints what the page shows`, { timeout: 10 * 60_000 }, async () => {
      const r = await runShell(ex.command);
      const actual = (r.stdout + withoutSandboxWarning(r.stderr)).split('\n');
      assert.ok(outputMatches(ex.expected, actual), `the output differs from the page:\n${actual.join('\n')}`);
    });
  }

  it('an example whose output changed fails (wildcards aside)', () => {
    assert.ok(outputMatches(['a', '│ ... │', 'z'], ['a', 'b', 'c', 'z']));
    assert.ok(outputMatches(['a', '...', 'z'], ['a', 'z']));
    assert.ok(!outputMatches(['a', 'b'], ['a', 'c']));
    assert.ok(!outputMatches(['a'], ['a', 'extra']));
  });
});
