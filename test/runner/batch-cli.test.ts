import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseResults, rowKey } from '../../store/results-file.js';
import { cliPath, runCli, tempDir } from '../helpers.js';

function runsDir(models: string[], n: number): string {
  const dir = tempDir();
  for (const m of models) {
    mkdirSync(join(dir, m), { recursive: true });
    for (let i = 0; i < n; i++) {
      const comments = '<!-- a comment -->\n'.repeat((i % 4) + (m === models[0] ? 1 : 0));
      writeFileSync(join(dir, m, `req-${String(i).padStart(2, '0')}.html`), `<!doctype html><html><body>\n${comments}<p>page ${i}</p>\n</body></html>\n`);
    }
  }
  return dir;
}

function rowsOf(path: string) {
  return parseResults(readFileSync(path)).rows;
}

function assertComplete(path: string, expected: number) {
  const text = readFileSync(path, 'utf8');
  assert.ok(text.endsWith('\n'), 'file ends with a newline');
  const lines = text.trimEnd().split('\n');
  for (const l of lines) JSON.parse(l); // every line is a whole row
  const rows = rowsOf(path);
  const keys = new Set(rows.map((r) => rowKey(r.model, r.requirement)));
  assert.equal(keys.size, rows.length, 'no duplicate rows');
  assert.equal(rows.length, expected);
}

describe('webgrade batch (CLI, real workers)', () => {
  it('scores every artifact into one row each and prints a summary', async () => {
    const runs = runsDir(['m1', 'm2'], 3);
    const out = join(tempDir(), 'results.jsonl');
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate', '--concurrency', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /done: 6 scored, 0 failed, 0 already done \(of 6\)/);
    assert.match(r.stderr, /\[6\/6\]/, 'plain progress lines when not on a terminal');
    assertComplete(out, 6);
    // Rows are appended as the two workers finish, so their order is not defined: look the row up.
    const row = rowsOf(out).find((r) => r.model === 'm1' && r.requirement === 'req-00');
    assert.ok(row, 'm1/req-00 has a row');
    assert.equal(row.status, 'ok');
    assert.equal(row.metrics[0]!.id, 'comment-rate');
    assert.deepEqual(
      rowsOf(out)
        .map((r) => `${r.model}/${r.requirement}`)
        .sort(),
      ['m1/req-00', 'm1/req-01', 'm1/req-02', 'm2/req-00', 'm2/req-01', 'm2/req-02'],
    );
  });

  it('resumes after a crash that tore the last line: no duplicates, nothing lost', async () => {
    const runs = runsDir(['m1'], 4);
    const out = join(tempDir(), 'results.jsonl');
    assert.equal((await runCli(['batch', runs, '--out', out, '--only', 'comment-rate'])).code, 0);
    const full = readFileSync(out);
    const lines = full.toString('utf8').trimEnd().split('\n');
    // Simulate `kill -9` in the middle of writing the 3rd row: keep 2 rows plus half of the 3rd.
    const keep = Buffer.byteLength(lines.slice(0, 2).join('\n') + '\n') + 25;
    truncateSync(out, keep);
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /torn line/);
    assert.match(r.stdout, /2 scored, 0 failed, 2 already done \(of 4\)/);
    assertComplete(out, 4);
    // Running again does nothing.
    const again = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate']);
    assert.match(again.stdout, /0 scored, 0 failed, 4 already done/);
    assertComplete(out, 4);
  });

  it('survives kill -9 of the batch at any moment and continues where it stopped', async () => {
    const runs = runsDir(['m1', 'm2'], 12);
    const out = join(tempDir(), 'results.jsonl');
    const child = spawn(process.execPath, [cliPath, 'batch', runs, '--out', out, '--only', 'comment-rate', '--concurrency', '2'], { stdio: 'ignore' });
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (existsSync(out) && readFileSync(out, 'utf8').split('\n').length > 3) {
          clearInterval(t);
          resolve();
        }
      }, 5);
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const before = rowsOf(out).length;
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate', '--concurrency', '2']);
    assert.equal(r.code, 0, r.stderr);
    assertComplete(out, 24);
    assert.match(r.stdout, new RegExp(`${24 - before} scored`));
  });

  it('adds labels from --requirements and rejects bad input with exit 2', async () => {
    const runs = runsDir(['m1'], 2);
    const dir = tempDir();
    const reqs = join(dir, 'reqs.jsonl');
    writeFileSync(reqs, '{"id":"req-00","requirement":"a page","labels":{"style":"minimal","complexity":"low"}}\n');
    const out = join(dir, 'results.jsonl');
    const r = await runCli(['batch', runs, '--out', out, '--only', 'comment-rate', '--requirements', reqs]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 artifacts have no requirement/);
    assert.deepEqual(rowsOf(out).find((x) => x.requirement === 'req-00')!.labels, { style: 'minimal', complexity: 'low' });
    for (const args of [
      ['batch', join(dir, 'missing'), '--out', out],
      ['batch', runs, '--out', out, '--only', 'nope'],
      ['batch', runs, '--out', out, '--concurrency', '0'],
    ]) {
      const bad = await runCli(args);
      assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
      assert.equal(bad.stderr.trim().split('\n').length, 1);
    }
  });
});
