import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openResultsForAppend, parseResults, type ResultRow } from '../../store/results-file.js';
import { tempDir } from '../helpers.js';

const r = (model: string, requirement: string): ResultRow => ({ model, requirement, status: 'ok', artifact: 'x', metrics: [] });
const line = (x: ResultRow) => JSON.stringify(x) + '\n';

describe('results file', () => {
  it('reads complete rows and ignores a torn last line without a newline', () => {
    const text = line(r('a', '1')) + line(r('a', '2')) + line(r('a', '3')).slice(0, 20);
    const res = parseResults(Buffer.from(text));
    assert.deepEqual(
      res.rows.map((x) => x.requirement),
      ['1', '2'],
    );
    assert.equal(res.tornTail, true);
    assert.equal(res.goodBytes, Buffer.byteLength(line(r('a', '1')) + line(r('a', '2'))));
  });

  it('treats a last line without newline as torn even if it parses (the write never finished)', () => {
    const res = parseResults(Buffer.from(line(r('a', '1')) + JSON.stringify(r('a', '2'))));
    assert.equal(res.rows.length, 1);
    assert.equal(res.tornTail, true);
  });

  it('skips and reports an unreadable line in the middle', () => {
    const res = parseResults(Buffer.from(line(r('a', '1')) + '{nope\n' + line(r('a', '3'))));
    assert.deepEqual(
      res.rows.map((x) => x.requirement),
      ['1', '3'],
    );
    assert.deepEqual(res.badLines, [2]);
    assert.equal(res.tornTail, false);
  });

  it('cuts a torn tail away before appending, so the next row starts on its own line', () => {
    const p = join(tempDir(), 'r.jsonl');
    writeFileSync(p, line(r('a', '1')) + '{"model":"a","requ');
    const { existing, writer } = openResultsForAppend(p);
    assert.equal(existing.rows.length, 1);
    writer.append(r('a', '2'));
    writer.close();
    const lines = readFileSync(p, 'utf8').split('\n');
    assert.deepEqual(
      lines.slice(0, -1).map((l) => JSON.parse(l).requirement),
      ['1', '2'],
    );
    assert.equal(lines.at(-1), '');
  });

  it('refuses to append to a requirements file given as --out, and leaves it byte for byte as it was', () => {
    const p = join(tempDir(), 'requirements.jsonl');
    const text = '{"id":"a","prompt":"a page"}\n{"id":"b","prompt":"another page"}\n';
    writeFileSync(p, text);
    assert.throws(
      () => openResultsForAppend(p),
      (err: Error) => err.name === 'InputError' && /refusing to append: lines 1, 2 are not results rows/.test(err.message),
    );
    assert.equal(readFileSync(p, 'utf8'), text);
  });

  it('a last line without newline that is JSON but not a row is not torn: appending is refused, the line is kept', () => {
    const p = join(tempDir(), 'r.jsonl');
    const text = line(r('a', '1')) + '{"id":"b","prompt":"x"}';
    writeFileSync(p, text);
    assert.throws(() => openResultsForAppend(p), /line 2 is not a results row/);
    assert.equal(readFileSync(p, 'utf8'), text);
  });

  it('a text line without newline (not JSON at all) is not torn either', () => {
    const p = join(tempDir(), 'notes.txt');
    writeFileSync(p, 'remember to buy milk');
    assert.throws(() => openResultsForAppend(p), /refusing to append/);
    assert.equal(readFileSync(p, 'utf8'), 'remember to buy milk');
  });

  it('refuses to append after an edited line in the middle, which readers still skip and count', () => {
    const p = join(tempDir(), 'r.jsonl');
    writeFileSync(p, line(r('a', '1')) + '{nope\n' + line(r('a', '3')));
    assert.throws(() => openResultsForAppend(p), /line 2 is not a results row/);
  });
});
