import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadArtifact } from '../../lib/artifact/load.js';
import { InputError } from '../../core/errors.js';
import { countLines } from '../../lib/text.js';
import { fixture, tempDir, writeArtifact, writeSingleFile } from '../helpers.js';

describe('artifact loading', () => {
  it('loads a folder with index.html, its CSS and JS files, and counts physical lines', () => {
    const a = loadArtifact(fixture('example'));
    assert.equal(a.kind, 'folder');
    assert.equal(a.entry, 'index.html');
    assert.deepEqual(a.files.map((f) => f.path).sort(), ['app.js', 'index.html', 'style.css']);
    const expected = a.files.reduce((s, f) => s + countLines(f.text!), 0);
    assert.equal(a.physicalLines, expected);
    assert.ok(a.sources.some((s) => s.language === 'css' && s.origin === 'file' && s.file === 'style.css'));
    assert.ok(a.sources.some((s) => s.language === 'js' && s.origin === 'file' && s.file === 'app.js'));
  });

  it('records inline blocks with the line and column where their text starts', () => {
    const p = writeSingleFile(
      '<!doctype html>\n<html><head>\n<style>\nbody{}\n</style></head>\n<body>\n<script type="module">let a;</script>\n<div style="color:red" onclick="go()"></div></body></html>\n',
    );
    const a = loadArtifact(p);
    assert.equal(a.kind, 'file');
    const style = a.sources.find((s) => s.language === 'css' && s.origin === 'inline')!;
    assert.equal(style.line, 3);
    assert.equal(style.text, '\nbody{}\n');
    const script = a.sources.find((s) => s.language === 'js' && s.origin === 'inline')!;
    assert.deepEqual([script.line, script.column, script.text, script.module], [7, 23, 'let a;', true]);
    const attr = a.sources.find((s) => s.attribute === 'style')!;
    assert.deepEqual([attr.line, attr.text], [8, 'color:red']);
    const handler = a.sources.find((s) => s.attribute === 'onclick')!;
    assert.equal(handler.text, 'go()');
  });

  it('does not treat JSON, templates or text/babel scripts as JavaScript', () => {
    const a = loadArtifact(
      writeSingleFile('<script type="application/json">{"a":1}</script><script type="text/babel">const x = <b/>;</script><script>ok()</script>'),
    );
    const js = a.sources.filter((s) => s.language === 'js');
    assert.deepEqual(
      js.map((s) => s.text),
      ['ok()'],
    );
  });

  it('classifies referenced resources: local present, local missing, remote, data, escaping the root', () => {
    const dir = writeArtifact({
      'index.html':
        '<link rel="stylesheet" href="css/site.css"><img src="img/a.png"><img src="missing.png">\n<script src="https://cdn.example.com/x.js"></script><img src="data:image/png;base64,AAAA"><img src="../../etc/passwd"><a href="#top">x</a>',
      'css/site.css': '@import "more.css";\n@font-face { font-family: F; src: url(../fonts/f.woff2) }\nbody { background: url("../img/a.png") }',
      'img/a.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    });
    const a = loadArtifact(dir);
    const byUrl = new Map(a.resources.map((r) => [r.url, r]));
    assert.equal(byUrl.get('css/site.css')!.exists, true);
    assert.equal(byUrl.get('img/a.png')!.exists, true);
    assert.equal(byUrl.get('missing.png')!.exists, false);
    assert.equal(byUrl.get('https://cdn.example.com/x.js')!.location, 'remote');
    assert.equal(byUrl.get('data:image/png;base64,AAAA')!.location, 'data');
    assert.equal(byUrl.get('../../etc/passwd')!.path, null);
    assert.equal(byUrl.get('more.css')!.kind, 'css-import');
    assert.equal(byUrl.get('more.css')!.exists, false);
    const font = byUrl.get('../fonts/f.woff2')!;
    assert.deepEqual([font.kind, font.path, font.line, font.file], ['font', 'fonts/f.woff2', 2, 'css/site.css']);
    assert.equal(byUrl.get('../img/a.png')!.exists, true);
    assert.ok(!byUrl.has('#top'));
  });

  it('a single file does not include its siblings', () => {
    const dir = writeArtifact({ 'page.html': '<img src="pic.png">', 'pic.png': 'x' });
    const a = loadArtifact(join(dir, 'page.html'));
    assert.deepEqual(
      a.files.map((f) => f.path),
      ['page.html'],
    );
    assert.equal(a.resources[0]!.exists, false);
  });

  it('decodes non-UTF-8 text with its declared charset, else windows-1252', () => {
    const latin = Buffer.concat([Buffer.from('<meta charset="iso-8859-1"><p>caf'), Buffer.from([0xe9]), Buffer.from('</p>')]);
    const a = loadArtifact(writeSingleFile(latin));
    assert.match(a.html, /café/);
    assert.equal(a.files[0]!.encoding, 'iso-8859-1');
    const b = loadArtifact(writeSingleFile(Buffer.concat([Buffer.from('<p>na'), Buffer.from([0xef]), Buffer.from('ve</p>')])));
    assert.match(b.html, /naïve/);
  });

  describe('bad input is an InputError with one clear line', () => {
    const cases: Array<[string, () => string, RegExp]> = [
      ['missing path', () => join(tempDir(), 'nope.html'), /no such file or folder/],
      ['empty file', () => writeSingleFile(''), /file is empty/],
      ['whitespace-only file', () => writeSingleFile('  \n\t\n'), /file is empty/],
      ['binary file', () => writeSingleFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 1, 2])), /binary file/],
      ['folder without index.html', () => writeArtifact({ 'main.html': '<p>x</p>' }), /no index\.html/],
    ];
    for (const [name, make, re] of cases) {
      it(name, () => {
        const p = make();
        assert.throws(
          () => loadArtifact(p),
          (err: unknown) => err instanceof InputError && re.test(err.message) && !err.message.includes('\n'),
        );
      });
    }
    it('unreadable file', (t) => {
      if (process.getuid?.() === 0) return t.skip('root can read any file');
      const p = writeSingleFile('<p>x</p>');
      chmodSync(p, 0o000);
      assert.throws(() => loadArtifact(p), /permission denied/);
    });
  });
  it('keeps a quoted @import URL whole, semicolons included (Google Fonts wght@400;700)', () => {
    const a = loadArtifact(
      writeArtifact({
        'index.html':
          '<style>@import url("https://fonts.googleapis.com/css2?family=DM+Sans:wght@400;500;700&display=swap"); @import \'a.css\'; @import url(b.css);</style>',
      }),
    );
    assert.deepEqual(
      a.resources.filter((r) => r.kind === 'css-import').map((r) => r.url),
      ['https://fonts.googleapis.com/css2?family=DM+Sans:wght@400;500;700&display=swap', 'a.css', 'b.css'],
    );
  });
});
