import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import resourceValidity, { checkDataUri } from '../../../metrics/content/resource-validity.js';
import { gathered, missing } from '../../../core/evidence.js';
import { testMetric } from '../../metric-tester.js';

// A real 1×1 PNG and GIF, so that the signature check has something true to accept.
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const GIF_1PX = 'R0lGODlhAQABAAAAACw=';
const png = Buffer.from(PNG_1PX, 'base64');

// logPenalty(bad, total) = (1 − log2(1 + bad/(total+1))) × 100
const ONE_OF_ONE = (1 - Math.log2(1 + 1 / 2)) * 100; // 41.5037…
const ONE_OF_TWO = (1 - Math.log2(1 + 1 / 3)) * 100; // 58.4962…

testMetric(resourceValidity, [
  {
    name: 'a present local image is valid and scores 100',
    files: { 'index.html': '<img src="img/a.png" alt="a">', 'img/a.png': png },
    score: 100,
    details: (d) => assert.equal(d.verified, 1),
  },
  {
    name: 'one missing image next to a present one: 1 invalid of 2',
    files: { 'index.html': '<img src="a.png" alt="">\n<img src="b.png" alt="">', 'a.png': png },
    score: ONE_OF_TWO,
    details: (d) => {
      const inv = d.invalid as Array<{ url: string; line: number; why: string; file: string }>;
      assert.equal(inv.length, 1);
      assert.equal(inv[0]!.url, 'b.png');
      assert.equal(inv[0]!.file, 'index.html');
      assert.equal(inv[0]!.line, 2);
      assert.match(inv[0]!.why, /missing file b\.png/);
    },
  },
  {
    name: 'a single-file artifact referencing a sibling file counts it missing',
    html: '<link rel="stylesheet" href="style.css"><p>x</p>',
    score: ONE_OF_ONE,
  },
  {
    name: 'only remote references without --check-network are unscorable, listed as unverified',
    html: '<script src="https://cdn.example.com/lib.js"></script><img src="//img.example.com/a.jpg" alt="">',
    unscorable: 'only remote references, unverified (use --check-network)',
    details: (d) => assert.equal(d.unverifiedCount, 2),
  },
  {
    name: 'unverified remote references are left out of the formula',
    files: { 'index.html': '<img src="a.png" alt=""><script src="https://cdn.example.com/lib.js"></script>', 'a.png': png },
    score: 100,
    details: (d) => {
      assert.equal(d.verified, 1);
      assert.equal(d.unverifiedCount, 1);
      assert.match((d.unverified as Array<{ why: string }>)[0]!.why, /--check-network/);
    },
  },
  {
    name: 'a remote URL checked and found 404 is invalid (1 of 2 with a valid local image)',
    files: { 'index.html': '<img src="a.png" alt=""><script src="https://cdn.example.com/lib.js"></script>', 'a.png': png },
    evidence: {
      options: { checkNetwork: true },
      remote: gathered({ 'https://cdn.example.com/lib.js': { url: 'https://cdn.example.com/lib.js', ok: false, status: 404 } }),
    },
    score: ONE_OF_TWO,
    details: (d) => assert.equal((d.invalid as Array<{ why: string }>)[0]!.why, 'HTTP 404'),
  },
  {
    name: 'CDN URLs checked through the CDN cache: one that exists is valid, one never published is invalid, one the cache cannot serve is unverified',
    files: {
      'index.html':
        '<script src="https://cdn.jsdelivr.net/npm/chart.js@4"></script><script src="https://cdn.jsdelivr.net/npm/chart.js@99/x.js"></script><script src="https://cdn.jsdelivr.net/combine/npm/a,npm/b"></script>',
    },
    evidence: {
      options: { checkNetwork: false, network: 'cdn' },
      remote: gathered({
        'https://cdn.jsdelivr.net/npm/chart.js@4': { url: 'https://cdn.jsdelivr.net/npm/chart.js@4', ok: true, status: 200, via: 'cdn cache' },
        'https://cdn.jsdelivr.net/npm/chart.js@99/x.js': {
          url: 'https://cdn.jsdelivr.net/npm/chart.js@99/x.js',
          ok: false,
          status: 404,
          via: 'cdn cache',
          error: 'jsdelivr: chart.js@99 has no version matching 99',
        },
        'https://cdn.jsdelivr.net/combine/npm/a,npm/b': {
          url: 'https://cdn.jsdelivr.net/combine/npm/a,npm/b',
          ok: false,
          via: 'cdn cache',
          unverified: 'unsupported jsdelivr URL form',
        },
      }),
    },
    score: ONE_OF_TWO,
    details: (d) => {
      assert.match((d.invalid as Array<{ why: string }>)[0]!.why, /not on the CDN: jsdelivr: chart.js@99/);
      assert.match((d.unverified as Array<{ why: string }>)[0]!.why, /unsupported jsdelivr URL form/);
    },
  },
  {
    name: 'a protocol-relative remote URL checked ok is valid',
    html: '<img src="//img.example.com/a.jpg#x" alt="">',
    evidence: {
      options: { checkNetwork: true },
      remote: gathered({ 'https://img.example.com/a.jpg': { url: 'https://img.example.com/a.jpg', ok: true, status: 200 } }),
    },
    score: 100,
  },
  {
    name: 'a failed network gatherer leaves remote references unverified with its reason',
    html: '<img src="https://img.example.com/a.jpg" alt="">',
    evidence: { options: { checkNetwork: true }, remote: missing('DNS down') },
    unscorable: /none could be verified.*DNS down/,
  },
  {
    name: 'a malformed base64 data URI is invalid, a well-formed one valid',
    html: `<img src="data:image/gif;base64,${GIF_1PX}" alt=""><img src="data:image/png;base64,@@@@" alt="">`,
    score: ONE_OF_TWO,
    details: (d) => assert.match((d.invalid as Array<{ why: string }>)[0]!.why, /malformed data URI: base64 data contains "@"/),
  },
  {
    name: 'an inline SVG data URI in CSS with an unescaped # is invalid',
    html: `<style>.a{background:url("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg'><rect fill='#f00'/></svg>")}</style><p>x</p>`,
    score: ONE_OF_ONE,
    details: (d) => assert.match((d.invalid as Array<{ why: string }>)[0]!.why, /unescaped "#"/),
  },
  {
    name: 'JS fetch of a missing local JSON file is invalid, with the script line',
    html: '<p>x</p>\n<script>\nfetch("data/items.json").then((r) => r.json());\n</script>',
    score: ONE_OF_ONE,
    details: (d) => {
      const inv = (d.invalid as Array<{ url: string; line: number; via: string }>)[0]!;
      assert.equal(inv.url, 'data/items.json');
      assert.equal(inv.line, 3);
      assert.equal(inv.via, 'fetch');
    },
  },
  {
    name: 'JS in a subfolder: fetch resolves against the page, import against the script file',
    files: {
      'index.html': '<script type="module" src="js/app.js"></script>',
      'js/app.js': "import { f } from './util.js';\nfetch('data.json');\nconst img = new Image();\nimg.src = 'img/missing.png';\n",
      'js/util.js': 'export const f = 1;\n',
      'data.json': '[]',
    },
    // references: js/app.js (script), ./util.js (import → js/util.js), data.json (fetch → data.json), img/missing.png
    // 4 references, 1 invalid (img/missing.png, resolved against the page): (1 − log2(1 + 1/5)) × 100 = 73.6965…
    score: (1 - Math.log2(1 + 1 / 5)) * 100,
    details: (d) => {
      const inv = d.invalid as Array<{ url: string; file: string; line: number }>;
      assert.equal(d.verified, 4);
      assert.deepEqual(
        inv.map((i) => [i.url, i.file, i.line]),
        [['img/missing.png', 'js/app.js', 4]],
      );
    },
  },
  {
    name: 'a page with no references at all is unscorable',
    html: '<h1>Hello</h1><p>Nothing referenced.</p><a href="other.html">link</a>',
    unscorable: 'no referenced resources',
  },
  {
    name: 'file: URLs are invalid, blob: and javascript: are ignored',
    html: '<img src="file:///etc/passwd" alt=""><iframe src="javascript:void 0"></iframe><img src="blob:xyz" alt="">',
    score: ONE_OF_ONE,
    details: (d) => assert.equal(d.ignoredCount, 2),
  },
  {
    name: 'an empty local file is invalid',
    files: { 'index.html': '<script src="app.js"></script><img src="a.png" alt="">', 'app.js': '', 'a.png': png },
    score: ONE_OF_TWO,
    details: (d) => assert.match((d.invalid as Array<{ why: string }>)[0]!.why, /empty file app\.js/),
  },
  {
    name: 'a windows-1252 page keeps its references (non-UTF-8 text)',
    files: {
      'index.html': Buffer.from('<meta charset="windows-1252"><p>Caf\xe9 cr\xe8me</p><img src="logo.png" alt="Caf\xe9"><img src="gone.png" alt="">', 'latin1'),
      'logo.png': png,
    },
    score: ONE_OF_TWO,
  },
]);

describe('checkDataUri', () => {
  it('accepts well-formed URIs', () => {
    assert.equal(checkDataUri(`data:image/png;base64,${PNG_1PX}`).ok, true);
    assert.equal(checkDataUri('data:,Hello%2C%20World').ok, true);
    assert.equal(checkDataUri('data:text/plain;charset=utf-8,hi').ok, true);
    assert.equal(checkDataUri("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E").ok, true);
    assert.equal(checkDataUri(`data:image/gif;base64,${GIF_1PX.replace(/=+$/, '')}`).ok, true, 'padding may be omitted');
  });
  it('rejects malformed ones with the reason', () => {
    assert.match(checkDataUri('data:image/png;base64').reason!, /no comma/);
    assert.match(checkDataUri('data:image png;base64,AAAA').reason!, /media type/);
    assert.match(checkDataUri('data:image/png;base64,AAAAA').reason!, /impossible length/);
    assert.match(checkDataUri('data:image/png;base64,').reason!, /empty data/);
    assert.match(checkDataUri(`data:image/png;base64,${GIF_1PX}`).reason!, /not a PNG/);
    assert.match(checkDataUri('data:text/plain,100%').reason!, /percent-encoding/);
  });
});
