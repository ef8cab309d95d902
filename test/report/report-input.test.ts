/**
 * A results file is hostile data (docs/security.md): `report`, `compare` and `leaderboard` read it through one
 * reader that checks every row (store/result-row.ts), and the report never lets a row choose what it copies or
 * where it writes.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import type { ResultRow } from '../../core/results.js';
import { runCli, tempDir } from '../helpers.js';
import { row } from '../weights/synthetic.js';

const jsonl = (lines: readonly unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

/** Two models × three requirements, console-errors and lint scored. */
function goodRows(models = ['alpha', 'beta']): ResultRow[] {
  return models.flatMap((m, i) => [1, 2, 3].map((r) => row(m, `r${r}`, { 'console-errors': 60 + 10 * i + r, lint: 50 + 5 * r - 3 * i })));
}

describe('results rows are checked once, when the file is read', () => {
  it('report, compare and leaderboard skip a malformed row with a note naming its line, and write the rest', async () => {
    const dir = tempDir();
    const good = goodRows();
    const bad: Array<[unknown, RegExp]> = [
      [{ ...row('alpha', 'r9', { lint: 50 }), metrics: [null] }, /line 2 \(metrics\[0\]: expected an object\)/],
      [{ ...row('beta', 'r9', { lint: 50 }), perspectives: { code: null } }, /line 4 \(perspectives\.code: expected an object\)/],
      [{ ...row('alpha', 'r8', { lint: 50 }), ms: '5' }, /line 6 \(ms: expected a finite number\)/],
      [{ ...row('beta', 'r8', { lint: 50 }), evidence: { folder: 'x', pictures: 'abc' } }, /line 8 \(evidence\.pictures: expected a list\)/],
    ];
    const lines: unknown[] = [];
    good.forEach((g, i) => {
      lines.push(g);
      if (bad[i]) lines.push(bad[i]![0]);
    });
    const results = join(dir, 'results.jsonl');
    writeFileSync(results, jsonl(lines));

    const out = join(dir, 'report');
    const rep = await runCli(['report', results, '--out', out, '--bootstrap', '0']);
    assert.equal(rep.code, 0, rep.stderr);
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    assert.match(index, /4 unreadable lines skipped/);
    for (const [, note] of bad) assert.match(index, note);
    for (const g of good) assert.ok(existsSync(join(out, 'artifact', g.model, `${g.requirement}.html`)), `${g.model}/${g.requirement}`);

    const lb = await runCli(['leaderboard', results, '--json', '--bootstrap', '0']);
    assert.equal(lb.code, 0, lb.stderr);
    const doc = JSON.parse(lb.stdout) as { models: Array<{ model: string; artifacts: number }>; notes: string[] };
    assert.deepEqual(doc.models.map((m) => [m.model, m.artifacts]).sort(), [
      ['alpha', 3],
      ['beta', 3],
    ]);
    for (const [, note] of bad)
      assert.ok(
        doc.notes.some((n) => note.test(n)),
        `${note} in ${doc.notes.join(' | ')}`,
      );

    const cmp = await runCli(['compare', results, results, '--format', 'json', '--bootstrap', '100']);
    assert.equal(cmp.code, 0, cmp.stderr);
    const c = JSON.parse(cmp.stdout) as { notes: string[]; changes: unknown[] };
    assert.ok(c.changes.length > 0);
    assert.ok(
      c.notes.some((n) => /results\.jsonl: 4 unreadable lines skipped: line 2 \(metrics\[0\]/.test(n)),
      c.notes.join(' | '),
    );
  });

  it('a file with no usable row left is one line naming why, and exit 2', async () => {
    const dir = tempDir();
    const results = join(dir, 'results.jsonl');
    writeFileSync(results, jsonl([{ ...row('alpha', 'r1', { lint: 50 }), metrics: 'none' }, 'not json']));
    for (const args of [
      ['report', results, '--out', join(dir, 'report')],
      ['leaderboard', results],
      ['compare', results, results],
    ]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /no result rows \(2 unreadable lines skipped: line 1 \(metrics: expected a list\), line 2 \(not JSON\)\)/);
    }
  });
});

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name), `${rel}${e.name}/`) : out.push(`${rel}${e.name}`);
  };
  if (existsSync(dir)) walk(dir, '');
  return out.sort();
}

describe('the report copies pictures only from inside the results folder', () => {
  it('skips absolute paths, paths that climb out, links out and files that are not pictures, and says so', async () => {
    const dir = tempDir();
    const runDir = join(dir, 'run');
    mkdirSync(join(runDir, 'ev'), { recursive: true });
    const webp = (colour: string) =>
      sharp({ create: { width: 8, height: 8, channels: 3, background: colour } })
        .webp()
        .toBuffer();
    writeFileSync(join(runDir, 'ev', 'desktop.webp'), await webp('#00ff00'));
    const outside = await webp('#ff0000');
    writeFileSync(join(dir, 'outside.webp'), outside);
    symlinkSync('/etc/passwd', join(runDir, 'ev', 'passwd.webp'));
    symlinkSync(join(dir, 'outside.webp'), join(runDir, 'ev', 'link-out.webp'));
    writeFileSync(join(runDir, 'ev', 'text.webp'), 'root:x:0:0:root:/root:/bin/bash\n');
    const picture = (file: string, kind = 'metric') => ({ file, kind, caption: file, width: 8, height: 8, bytes: 100 });
    const hostile = {
      ...row('alpha', 'r1', { 'console-errors': 70, lint: 60 }),
      evidence: {
        folder: 'ev',
        bytes: 0,
        cap: 1,
        pictures: [
          picture('ev/desktop.webp', 'desktop'),
          picture('/etc/passwd'),
          picture('../outside.webp'),
          picture('ev/../../outside.webp'),
          picture('ev/passwd.webp'),
          picture('ev/link-out.webp'),
          picture('ev/text.webp'),
          picture('ev/none.webp'),
        ],
      },
    };
    const rows = [hostile, ...goodRows().filter((r) => !(r.model === 'alpha' && r.requirement === 'r1'))];
    const results = join(runDir, 'results.jsonl');
    writeFileSync(results, jsonl(rows));
    const out = join(dir, 'report');
    const r = await runCli(['report', results, '--out', out, '--bootstrap', '0']);
    assert.equal(r.code, 0, r.stderr);
    const copied = filesUnder(join(out, 'img'));
    assert.deepEqual(copied, ['alpha/r1/desktop.webp']);
    assert.deepEqual(readFileSync(join(out, 'img', copied[0]!)), readFileSync(join(runDir, 'ev', 'desktop.webp')));
    const passwd = readFileSync('/etc/passwd');
    for (const f of filesUnder(out)) {
      const bytes = readFileSync(join(out, f));
      assert.ok(!bytes.equals(passwd) && !bytes.equals(outside), `${f} is a copy of a file outside the results folder`);
    }
    const page = readFileSync(join(out, 'artifact', 'alpha', 'r1.html'), 'utf8');
    for (const why of [
      '/etc/passwd: an absolute path',
      '../outside.webp: outside the results folder',
      'ev/../../outside.webp: outside the results folder',
      'ev/passwd.webp: a link out of the results folder',
      'ev/link-out.webp: a link out of the results folder',
      'ev/text.webp: not a PNG, JPEG, GIF or WebP picture',
      'ev/none.webp: missing beside the results',
    ])
      assert.ok(page.includes(why), `the artifact page says "${why}"`);
    assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /7 pictures named by the results not copied: alpha\/r1 \/etc\/passwd: an absolute path/);
  });
});

describe('report folder and file names', () => {
  it('models and requirements whose names shorten alike get pages and pictures of their own', async () => {
    const dir = tempDir();
    const names = ['a!@', 'a"!'];
    const rows: ResultRow[] = [];
    for (const [i, model] of names.entries()) {
      for (const [j, requirement] of [...names, 'r1'].entries()) {
        const folder = `ev/${i}/${j}`;
        mkdirSync(join(dir, folder), { recursive: true });
        const colour = `#${(i * 128).toString(16).padStart(2, '0')}${(j * 100).toString(16).padStart(2, '0')}00`;
        writeFileSync(
          join(dir, folder, 'desktop.webp'),
          await sharp({ create: { width: 8, height: 8, channels: 3, background: colour } })
            .webp()
            .toBuffer(),
        );
        rows.push({
          ...row(model, requirement, { 'console-errors': 50 + 10 * i + j, lint: 60 - 5 * i + j }),
          evidence: {
            folder,
            bytes: 1,
            cap: 1,
            pictures: [{ file: `${folder}/desktop.webp`, kind: 'desktop', caption: 'desktop', width: 8, height: 8, bytes: 1 }],
          },
        });
      }
    }
    const results = join(dir, 'results.jsonl');
    writeFileSync(results, jsonl(rows));
    const out = join(dir, 'report');
    const r = await runCli(['report', results, '--out', out, '--bootstrap', '0']);
    assert.equal(r.code, 0, r.stderr);
    const files = filesUnder(out);
    assert.equal(files.filter((f) => f.startsWith('model/')).length, 2, files.join('\n'));
    assert.equal(files.filter((f) => f.startsWith('requirement/')).length, 3, files.join('\n'));
    assert.equal(files.filter((f) => f.startsWith('artifact/')).length, 6, files.join('\n'));
    assert.equal(files.filter((f) => f.startsWith('img/')).length, 6, files.join('\n'));
    // Each artifact page shows its own model and requirement, and a picture of its own.
    const escaped = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    const srcs = new Set<string>();
    for (const f of files.filter((x) => x.startsWith('artifact/'))) {
      const html = readFileSync(join(out, f), 'utf8');
      const title = /<h1>(.*?) · requirement (.*?)<\/h1>/.exec(html)!;
      const rowOf = rows.find((x) => escaped(x.model) === title[1] && escaped(x.requirement) === title[2]);
      assert.ok(rowOf, `${f}: ${title[0]}`);
      srcs.add(/<img src="([^"]+)"/.exec(html)![1]!);
    }
    assert.equal(srcs.size, 6, [...srcs].join('\n'));
    // Stable across runs: the same names give the same files.
    const again = join(dir, 'report-2');
    assert.equal((await runCli(['report', results, '--out', again, '--bootstrap', '0'])).code, 0);
    assert.deepEqual(filesUnder(again), files);
  });
});
