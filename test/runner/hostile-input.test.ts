/**
 * Hostile input that is not a page: bad runs folders and files given to batch, norms build and leaderboard
 * (issue 15 items 7–12). Each case is one a new user hit by mistake or a hostile folder can set up; none may stop
 * a whole batch, eat a file, reach the terminal or skew a ranking. Only static metrics are scored, so no Chrome.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { discoverPages, discoverRuns } from '../../distribute/batch.js';
import { parseResults, rowsWithValidScores, type ResultRow } from '../../store/results-file.js';
import { printable, printableText } from '../../lib/text.js';
import { runCli, tempDir } from '../helpers.js';

const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body><!-- a comment --><p>hello</p></body></html>\n';
const ESC = '\u001b';
/** OSC 52: writes "pwned" to the clipboard of a terminal that shows it. */
const OSC52 = `${ESC}]52;c;cHduZWQ=\u0007`;

/** A runs folder with a good page, a dangling link and a link loop under model `m`. */
function brokenRuns(): string {
  const runs = tempDir();
  mkdirSync(join(runs, 'm'));
  writeFileSync(join(runs, 'm', 'good.html'), PAGE);
  symlinkSync(join(runs, 'm', 'gone.html'), join(runs, 'm', 'dangling.html'));
  symlinkSync('loop.html', join(runs, 'm', 'loop.html'));
  return runs;
}

describe('broken entries in a runs folder (item 7)', () => {
  it('discovery keeps a dangling link and a link loop as failed jobs with the cause, and warns naming them', () => {
    const { jobs, skipped } = discoverRuns(brokenRuns());
    const byId = new Map(jobs.map((j) => [j.requirement, j]));
    assert.equal(byId.get('good')?.broken, undefined);
    assert.match(byId.get('dangling')?.broken ?? '', /^m\/dangling\.html is a dangling symbolic link/);
    assert.match(byId.get('loop')?.broken ?? '', /^m\/loop\.html is a symbolic link loop/);
    assert.ok(
      skipped.some((s) => s.startsWith('m/dangling.html: a dangling symbolic link')),
      skipped.join('\n'),
    );
    assert.ok(
      skipped.some((s) => s.startsWith('m/loop.html: a symbolic link loop')),
      skipped.join('\n'),
    );
  });

  it('a model folder that is a dangling link is a warning, not an abort', () => {
    const runs = brokenRuns();
    symlinkSync(join(runs, 'nowhere'), join(runs, 'ghost-model'));
    const { jobs, skipped } = discoverRuns(runs);
    assert.equal(jobs.filter((j) => j.model === 'm').length, 3);
    assert.ok(
      skipped.some((s) => s.startsWith('ghost-model: a dangling symbolic link')),
      skipped.join('\n'),
    );
  });

  it('a folder artifact whose index.html is a dangling link is a failed job, not "no index.html"', () => {
    const runs = tempDir();
    mkdirSync(join(runs, 'm', 'site'), { recursive: true });
    symlinkSync('/nonexistent/webgrade', join(runs, 'm', 'site', 'index.html'));
    writeFileSync(join(runs, 'm', 'good.html'), PAGE);
    const job = discoverRuns(runs).jobs.find((j) => j.requirement === 'site');
    assert.match(job?.broken ?? '', /its index\.html is a dangling symbolic link/);
  });

  it('batch goes on: exit 0, the good page scored, each broken entry a failed row with its cause', async () => {
    const runs = brokenRuns();
    const out = join(tempDir(), 'results.jsonl');
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate', '--concurrency', '1'], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /skipped m\/dangling\.html: a dangling symbolic link/);
    assert.match(r.stderr, /skipped m\/loop\.html: a symbolic link loop/);
    const rows = parseResults(readFileSync(out)).rows;
    const row = (id: string) => rows.find((x) => x.requirement === id)!;
    assert.equal(row('good').status, 'ok');
    assert.equal(row('dangling').status, 'failed');
    assert.match(row('dangling').error ?? '', /dangling symbolic link/);
    assert.match(row('loop').error ?? '', /symbolic link loop/);
  });

  it('norms build on a folder of pages with a dangling link and a loop: exit 0, norms written, entries named', async () => {
    const dir = tempDir();
    for (const n of ['a', 'b', 'c']) writeFileSync(join(dir, `${n}.html`), PAGE.replace('hello', `hello ${n}`));
    symlinkSync(join(dir, 'gone.html'), join(dir, 'dangling.html'));
    symlinkSync('loop.html', join(dir, 'loop.html'));
    assert.equal(discoverPages(dir).jobs.filter((j) => j.broken).length, 2);
    const norms = join(tempDir(), 'norms.json');
    const r = await runCli(['norms', 'build', dir, '--out', norms, '--only', 'comment-rate', '--concurrency', '1'], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /skipped dangling\.html: a dangling symbolic link/);
    assert.match(r.stderr, /skipped loop\.html: a symbolic link loop/);
    assert.match(r.stdout, /from 3 artifacts \(2 failed\)/);
  });
});

describe('requirement ids that collide (item 11)', () => {
  it('x.html, x.htm and x/index.html under one model are refused, naming all three (exit 2, nothing scored)', async () => {
    const runs = tempDir();
    mkdirSync(join(runs, 'm', 'x'), { recursive: true });
    writeFileSync(join(runs, 'm', 'x.html'), PAGE);
    writeFileSync(join(runs, 'm', 'x.htm'), PAGE);
    writeFileSync(join(runs, 'm', 'x', 'index.html'), PAGE);
    writeFileSync(join(runs, 'm', 'y.html'), PAGE);
    assert.throws(() => discoverRuns(runs), /m\/x\/, m\/x\.htm, m\/x\.html are all requirement "x"/);
    const out = join(tempDir(), 'results.jsonl');
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /requirement ids collide: .*m\/x\.htm.*m\/x\.html/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });

  it('the same names under different models do not collide', () => {
    const runs = tempDir();
    for (const m of ['a', 'b']) {
      mkdirSync(join(runs, m));
      writeFileSync(join(runs, m, 'x.html'), PAGE);
    }
    assert.equal(discoverRuns(runs).jobs.length, 2);
  });
});

describe('--out naming a file that is not a results file (item 8)', () => {
  it('batch refuses in one line with exit 2 and leaves the requirements file untouched', async () => {
    const runs = tempDir();
    mkdirSync(join(runs, 'm'));
    writeFileSync(join(runs, 'm', 'a.html'), PAGE);
    const req = join(tempDir(), 'r.jsonl');
    const text = '{"id":"a","requirement":"a landing page"}\n{"id":"b","requirement":"a pricing page"}\n';
    writeFileSync(req, text);
    const r = await runCli(['batch', runs, '--requirements', req, '--out', req, '--only', 'comment-rate']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /refusing to append: lines 1, 2 are not results rows/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.equal(readFileSync(req, 'utf8'), text);
  });
});

const row = (model: string, requirement: string, score: number | null): ResultRow =>
  ({
    model,
    requirement,
    status: 'ok',
    artifact: `${model}/${requirement}.html`,
    metrics: [{ id: 'comment-rate', perspective: 'maintainability', kind: 'code', title: 'Comment rate', score }],
  }) as unknown as ResultRow;

describe('leaderboard input with impossible scores (item 10)', () => {
  const good = [row('a', '1', 40), row('a', '2', 60), row('b', '1', 70), row('b', '2', 80), row('c', '1', 20), row('c', '2', 30)];

  it('rowsWithValidScores keeps null and 0–100, rejects above, below and non-finite', () => {
    const bad = [row('a', '3', 1e308), row('b', '3', -1), row('c', '3', Infinity), row('c', '4', Number.NaN), row('c', '5', 100.5)];
    const res = rowsWithValidScores([...good, row('a', '9', null), row('a', '8', 0), row('a', '7', 100), ...bad]);
    assert.equal(res.rejected, 5);
    assert.equal(res.rows.length, good.length + 3);
    assert.equal(res.examples[0], 'a/3 comment-rate = 1e+308');
  });

  it('one 1e308 row (and a 1e999 = Infinity one) change nothing but a note with their count', async () => {
    const dir = tempDir();
    const clean = join(dir, 'clean.jsonl');
    const dirty = join(dir, 'dirty.jsonl');
    const lines = (rows: ResultRow[]) => rows.map((x) => JSON.stringify(x) + '\n').join('');
    writeFileSync(clean, lines(good));
    writeFileSync(dirty, lines([...good, row('a', '3', 1e308)]) + lines([row('b', '3', 1)]).replace('"score":1', '"score":1e999'));
    const args = ['--json', '--bootstrap', '0', '--no-noise-guard'];
    const a = await runCli(['leaderboard', clean, ...args]);
    const b = await runCli(['leaderboard', dirty, ...args]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const da = JSON.parse(a.stdout) as { notes: string[]; models: unknown };
    const db = JSON.parse(b.stdout) as { notes: string[]; models: unknown };
    assert.ok(
      db.notes.some((n) => /^2 rows rejected: a metric score outside 0–100 or not a finite number/.test(n)),
      db.notes.join('\n'),
    );
    assert.deepEqual(db.models, da.models);
  });
});

describe('control characters in human-readable output (item 9)', () => {
  it('printable escapes ESC, BEL, CR, newlines, C1 and bidi controls; printableText keeps newlines and tabs', () => {
    assert.equal(printable(`a${OSC52}b`), 'a\\x1B]52;c;cHduZWQ=\\x07b');
    assert.equal(printable('x\ny\rz\u009b\u202e'), 'x\\x0Ay\\x0Dz\\x9B\\u202E');
    assert.equal(printableText('one\n\ttwo\u001b[2J'), 'one\n\ttwo\\x1B[2J');
    assert.equal(printable('plain ünïcode — fine'), 'plain ünïcode — fine');
  });

  it('a model named with an OSC 52 sequence: progress, summary and leaderboard table escape it, the results file keeps it exact', async () => {
    const runs = tempDir();
    const model = `evil${OSC52}`;
    mkdirSync(join(runs, model));
    writeFileSync(join(runs, model, 'a.html'), PAGE);
    symlinkSync(join(runs, 'gone.html'), join(runs, model, `b${ESC}[2J.html`));
    mkdirSync(join(runs, 'plain'));
    writeFileSync(join(runs, 'plain', 'a.html'), PAGE);
    const out = join(tempDir(), 'results.jsonl');
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate', '--concurrency', '1'], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stderr);
    for (const text of [r.stdout, r.stderr]) {
      assert.ok(!text.includes(ESC) && !text.includes('\u0007'), JSON.stringify(text));
    }
    assert.match(r.stderr, /evil\\x1B\]52;c;cHduZWQ=\\x07\/a ok/);
    assert.match(r.stdout, /failed: evil\\x1B\]52;c;cHduZWQ=\\x07\/b\\x1B\[2J: /);
    const rows = parseResults(readFileSync(out)).rows;
    assert.ok(
      rows.some((x) => x.model === model),
      'the model name is not kept exact in the results file',
    );
    const table = await runCli(['leaderboard', out, '--bootstrap', '0']);
    assert.equal(table.code, 0, table.stderr);
    assert.ok(!table.stdout.includes(ESC) && !table.stdout.includes('\u0007'), table.stdout);
    assert.match(table.stdout, /evil\\x1B/);
    const json = await runCli(['leaderboard', out, '--json', '--bootstrap', '0']);
    assert.ok(
      (JSON.parse(json.stdout) as { models: Array<{ model: string }> }).models.some((m) => m.model === model),
      'JSON is not exact',
    );
  });
});

describe('--budget bounds (item 12)', () => {
  for (const cmd of [
    ['score', 'page.html'],
    ['batch', 'runs', '--out', 'r.jsonl'],
    ['norms', 'build', 'pages', '--out', 'n.json'],
  ]) {
    it(`${cmd[0]}${cmd[0] === 'norms' ? ' build' : ''}: a budget of 2^31 ms or more is a usage error (exit 2), not a timer that fires at once`, async () => {
      const r = await runCli([...cmd, '--budget', String(2 ** 31 / 1000)]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--budget.*at most 1000000 seconds/);
    });
  }
});

describe('survey serve with a responses path it cannot write (item 12)', () => {
  it('names the responses file, not the port (exit 2)', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    const r = await runCli(['survey', 'serve', '--port', '0', '--responses', join(file, 'responses.jsonl')]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /cannot append responses to .*a-file\/responses\.jsonl/);
    assert.doesNotMatch(r.stderr, /cannot listen on port/);
  });
});
