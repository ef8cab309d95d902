import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadArtifact } from '../../lib/artifact/load.js';
import { extractJsUrls, looksLikeAssetPath, remoteKey, remoteUrls } from '../../lib/js-urls.js';
import { writeArtifact, writeSingleFile } from '../helpers.js';

function urlsOf(js: string): Array<[string, string]> {
  const a = loadArtifact(writeSingleFile(`<p>x</p><script>${js}</script>`));
  return extractJsUrls(a).map((r) => [r.via, r.url]);
}

describe('extractJsUrls', () => {
  it('finds fetch, XHR open, src assignments, setAttribute, Worker, Audio and dynamic import', () => {
    const got = urlsOf(`
      fetch('api/items.json');
      window.fetch(\`data/b.json\`);
      const x = new XMLHttpRequest(); x.open('GET', 'data/c.json');
      const img = new Image(); img.src = 'img/a.png';
      document.querySelector('video').setAttribute('poster', 'poster.jpg');
      new Worker('worker.js');
      const a = new Audio('sounds/ding.mp3');
      import('./mod.js');
    `);
    assert.deepEqual(got, [
      ['fetch', 'api/items.json'],
      ['fetch', 'data/b.json'],
      ['xhr', 'data/c.json'],
      ['src-assignment', 'img/a.png'],
      ['set-attribute', 'poster.jpg'],
      ['worker', 'worker.js'],
      ['audio', 'sounds/ding.mp3'],
      ['import', './mod.js'],
    ]);
  });

  it('finds asset paths in plain string literals and src values inside markup strings', () => {
    const got = urlsOf(`
      const icons = { ok: 'icons/ok.svg', logo: "https://cdn.example.com/logo.png?v=2" };
      el.innerHTML = '<img src="img/hero.webp" alt="">';
      card.innerHTML = \`<img src="img/static.png"> \${name}\`;
      const bg = "url('img/bg.jpg')";
      const pixel = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
    `);
    assert.deepEqual(got, [
      ['asset-literal', 'icons/ok.svg'],
      ['asset-literal', 'https://cdn.example.com/logo.png?v=2'],
      ['markup-literal', 'img/hero.webp'],
      ['markup-literal', 'img/static.png'],
      ['markup-literal', 'img/bg.jpg'],
      ['data-literal', 'data:image/gif;base64,R0lGODlhAQABAAAAACw='],
    ]);
  });

  it('skips dynamic values, bare module specifiers, prose and library names', () => {
    const got = urlsOf(`
      fetch(base + '/x');
      fetch(\`api/\${id}.json\`);
      img.src = items[i].image;
      card.innerHTML = \`<img src="\${p.img}">\`;
      const msg = 'Built with Node.js and Chart.js';
      const lib = 'Vue.js';
      const ext = '.png';
      const label = 'Save as report.pdf';
      el.dataset.data = 'not a file';
    `);
    assert.deepEqual(got, []);
  });

  it('does not count a literal twice when a call already took it', () => {
    assert.deepEqual(urlsOf("fetch('data.json');"), [['fetch', 'data.json']]);
  });

  it('reports file lines of inline scripts, and survives a syntax error (loose parse)', () => {
    const a = loadArtifact(writeSingleFile('<p>x</p>\n<script>\nlet a = 1;\nfetch("missing.json");\nfunction ( {\n</script>'));
    const refs = extractJsUrls(a);
    assert.equal(refs.length, 1);
    assert.equal(refs[0]!.line, 4);
    assert.equal(refs[0]!.exists, false);
  });

  it('resolves document URLs against the entry page and static imports against the file', () => {
    const dir = writeArtifact({
      'index.html': '<script type="module" src="js/main.js"></script>',
      'js/main.js': "import './lib.js';\nfetch('data.json');\n",
      'js/lib.js': '',
      'data.json': '{}',
    });
    const refs = extractJsUrls(loadArtifact(dir));
    assert.deepEqual(
      refs.map((r) => [r.via, r.path, r.exists]),
      [
        ['import', 'js/lib.js', true],
        ['fetch', 'data.json', true],
      ],
    );
  });
});

describe('remote URL keys', () => {
  it('normalises protocol-relative URLs and drops fragments, once per URL', () => {
    assert.equal(remoteKey('//cdn.example.com/a.js#x'), 'https://cdn.example.com/a.js');
    const a = loadArtifact(writeSingleFile('<script src="https://a.example/x.js"></script><script>fetch("https://a.example/x.js#y")</script>'));
    assert.deepEqual(remoteUrls(a), ['https://a.example/x.js']);
  });
  it('looksLikeAssetPath skips printf-style patterns but keeps percent-escaped names', () => {
    assert.equal(looksLikeAssetPath('frame%05d.png'), false);
    assert.equal(looksLikeAssetPath('img_%s.jpg'), false);
    assert.equal(looksLikeAssetPath('my%20photo.png'), true);
  });

  it('looksLikeAssetPath needs a file name with an asset extension', () => {
    assert.equal(looksLikeAssetPath('img/a.PNG'), true);
    assert.equal(looksLikeAssetPath('a b.png'), false);
    assert.equal(looksLikeAssetPath('mailto:a@b.png'), false);
    assert.equal(looksLikeAssetPath('Chart.js'), false);
    assert.equal(looksLikeAssetPath('./Chart.js'), true);
  });
});
