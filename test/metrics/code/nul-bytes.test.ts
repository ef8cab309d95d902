/**
 * "A page cannot grade itself": a `//\0` at the top of app.js hid the file from the source metrics and the judges
 * while the browser still ran it (error-handling 26.3 → unscorable). Code is read as text whatever bytes it holds
 * (lib/artifact/load.ts): the file scores as the same file without the NUL does, and the NUL is named.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadArtifact } from '../../../lib/artifact/load.js';
import type { MetricOutcome } from '../../../core/metric.js';
import { sourceView } from '../../../judges/untrusted.js';
import errorHandling from '../../../metrics/code/error-handling.js';
import lint from '../../../metrics/code/lint.js';
import { buildEvidence, outcomeOf } from '../../metric-tester.js';
import { writeArtifact, writeSingleFile } from '../../helpers.js';

const HTML =
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>List</title></head>\n<body><ul id="list"></ul><script src="app.js"></script></body></html>\n';
const APP = [
  'async function loadItems() {',
  "  const r = await fetch('items.json');",
  '  return r.json();',
  '}',
  'function saveItems(items) {',
  '  try {',
  "    localStorage.setItem('items', JSON.stringify(items));",
  '  } catch (e) {',
  '    console.warn(e);',
  '  }',
  '}',
  'loadItems().then(saveItems);',
  'renderList();',
  '',
].join('\n');

const score = (o: MetricOutcome) => ('score' in o ? o.score : null);
const details = (o: MetricOutcome) => o.details as Record<string, unknown>;

async function outcomes(app: string) {
  const evidence = buildEvidence({ files: { 'index.html': HTML, 'app.js': app } });
  return { evidence, eh: await outcomeOf(errorHandling, evidence), lint: await outcomeOf(lint, evidence) };
}

describe('a code file with a NUL byte', () => {
  it('scores error-handling and lint on that file as the same file without the NUL does, and the NUL is named', async () => {
    const hidden = await outcomes(`//\0\n${APP}`);
    const plain = await outcomes(`//\n${APP}`);
    // the file is read: its functions and its lint findings are there
    assert.equal(typeof score(plain.eh), 'number', JSON.stringify(plain.eh));
    assert.equal(score(hidden.eh), score(plain.eh), JSON.stringify(hidden.eh));
    assert.deepEqual(details(hidden.eh).functions, details(plain.eh).functions);
    assert.equal(score(hidden.lint), score(plain.lint));
    assert.deepEqual(details(hidden.lint).findings, details(plain.lint).findings);
    assert.ok((details(plain.lint).findings as Array<{ rule: string; file: string }>).some((f) => f.rule === 'no-undef' && f.file === 'app.js'));
    // named as a defect where the source metrics report, and only there
    for (const o of [hidden.eh, hidden.lint]) assert.deepEqual(details(o).fileNotes, [`app.js: ${NOTE}`]);
    assert.match((hidden.lint as { summary: string }).summary, /app\.js: 1 NUL byte \(the first on line 1\)/);
    assert.equal(details(plain.lint).fileNotes, undefined);
    // the judges see the file too
    assert.deepEqual(
      sourceView(hidden.evidence.artifact, 100_000).files.map((f) => f.path),
      ['index.html', 'app.js'],
    );
  });

  it('is read as text for CSS and HTML side files too; a binary-looking data file is not', () => {
    const a = loadArtifact(
      writeArtifact({ 'index.html': HTML, 'app.js': APP, 'style.css': 'body{}\n/*\0*/\n', 'about.html': '<p>\0</p>', 'data.json': '\0\0' }),
    );
    const file = (p: string) => a.files.find((f) => f.path === p)!;
    assert.equal(file('style.css').text, 'body{}\n/*\0*/\n');
    assert.deepEqual(file('style.css').notes, ['1 NUL byte (the first on line 2): not text, a defect of the file; read and scored as text all the same']);
    assert.equal(file('about.html').text, '<p>\0</p>');
    assert.equal(file('data.json').text, undefined);
  });

  it('as the entry page: a page with a NUL byte is a page, bytes without any markup are still a binary file', () => {
    const page = loadArtifact(writeSingleFile(Buffer.from('\0<!doctype html><title>x</title><p>hi</p>')));
    assert.equal(page.html, '\0<!doctype html><title>x</title><p>hi</p>');
    assert.deepEqual(page.files[0]!.notes, [NOTE]);
    assert.throws(() => loadArtifact(writeSingleFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 1, 2]))), /is a binary file, not HTML/);
  });
});

const NOTE = '1 NUL byte (the first on line 1): not text, a defect of the file; read and scored as text all the same';
