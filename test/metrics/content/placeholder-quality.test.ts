/**
 * placeholder-quality on hand-made media evidence: reuse across cards by base URL (query strings that pick a
 * rendition or bust a cache do not make another image; those that pick the picture do), and the QR-code
 * exemption for SVGs in large containers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import placeholderQuality, { baseImageUrl, qrLike } from '../../../metrics/content/placeholder-quality.js';
import type { MediaInfo } from '../../../core/browser-evidence.js';
import { testMetric } from '../../metric-tester.js';
import { browserEvidence } from '../synthetic-browser.js';

const penalty = (bad: number, total: number) => (1 - Math.log2(1 + bad / (total + 1))) * 100;

function img(src: string, over: Partial<MediaInfo> = {}): MediaInfo {
  return {
    tag: 'img',
    src,
    alt: 'a photo',
    naturalWidth: 0,
    naturalHeight: 0,
    renderedWidth: 200,
    renderedHeight: 150,
    decoded: false,
    visible: true,
    selector: 'img',
    ...over,
  };
}
/** One image in each of n cards. */
const inCards = (srcs: string[]) =>
  srcs.map((src, i) => img(src, { card: `div.grid > div.card:nth-of-type(${i + 1})`, selector: `div.card:nth-of-type(${i + 1}) > img` }));
const media = (m: MediaInfo[]) => ({ browser: browserEvidence({ media: m }) });

/** A QR code as the `qrcode` package draws it: one stroked path of horizontal runs, half-unit offsets. */
function qrPathSvg(): string {
  let d = '';
  for (let row = 0; row < 25; row++) d += `M4 ${4.5 + row}h7m1 0h1m2 0h3m1 0h2`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 33 33"><path fill="#fff" d="M0 0h33v33H0z"/><path stroke="#000" d="${d}"/></svg>`;
}
/** A QR code drawn as module rects (60 dark modules on a 10-unit grid). */
function qrRectSvg(): string {
  const rects = Array.from({ length: 60 }, (_, i) => `<rect x="${(i % 21) * 10}" y="${Math.floor(i / 21) * 30}" width="10" height="10"/>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 210 210">${rects}</svg>`;
}
const PLACEHOLDER_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300"><rect width="400" height="300" fill="#ddd"/><text x="200" y="150">400×300</text></svg>';
const ONE_PATH_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300"><path d="M0 0h400v300H0z" fill="#ccc"/></svg>';
const svgImg = (path: string, over: Partial<MediaInfo> = {}) =>
  img(`http://127.0.0.1:1/${path}`, { path, naturalWidth: 400, naturalHeight: 300, renderedWidth: 400, renderedHeight: 300, decoded: true, ...over });

testMetric(placeholderQuality, [
  {
    name: 'a.png?v=1, a.png?v=2, a.png?v=3 in three cards is one image reused: 3 bad of 3',
    html: '<p>x</p>',
    evidence: media(inCards(['https://cdn.example.com/a.png?v=1', 'https://cdn.example.com/a.png?v=2', 'https://cdn.example.com/a.png?v=3'])),
    score: penalty(3, 3),
    details: (d) => {
      assert.equal((d.byReason as Record<string, number>).reusedAcrossCards, 3);
      assert.match(JSON.stringify(d.badImages), /same image in 3 cards \(base URL a\.png\)/);
    },
  },
  {
    name: 'one photo at two sizes (?w=400, ?w=800, with Unsplash-style rendition parameters) in two cards is reuse',
    html: '<p>x</p>',
    evidence: media(
      inCards([
        'https://images.unsplash.com/photo-1501?ixlib=rb-4.0.3&auto=format&fit=crop&w=400&q=80',
        'https://images.unsplash.com/photo-1501?ixlib=rb-4.0.3&auto=format&fit=crop&w=800&q=60',
        'https://images.unsplash.com/photo-2222?w=400',
      ]),
    ),
    score: penalty(2, 3),
  },
  {
    name: 'the same endpoint picking different pictures (?img=3, ?img=5, ?name=Bob) is not reuse',
    html: '<p>x</p>',
    evidence: media(inCards(['https://i.pravatar.cc/150?img=3', 'https://i.pravatar.cc/150?img=5', 'https://ui-avatars.com/api/?name=Bob&size=64'])),
    score: 100,
  },
  {
    name: 'different files in three cards are fine; the same base URL twice inside one card is not reuse across cards',
    html: '<p>x</p>',
    evidence: media([
      ...inCards(['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png?v=1', 'https://cdn.example.com/c.png?v=1']),
      img('https://cdn.example.com/a.png?v=2', { card: 'div.grid > div.card:nth-of-type(1)', selector: 'div.card > img.thumb' }),
    ]),
    score: 100,
  },
  {
    name: 'a one-element SVG stretched over 400×300 is a placeholder',
    files: { 'index.html': '<img src="ph.svg">', 'ph.svg': ONE_PATH_SVG },
    evidence: media([svgImg('ph.svg')]),
    score: penalty(1, 1),
  },
  {
    name: "a QR code drawn as one path (the qrcode package's output) over 400×300 is exempt, and counted",
    files: { 'index.html': '<img src="pay.svg">', 'pay.svg': qrPathSvg() },
    evidence: media([svgImg('pay.svg', { alt: 'Scan to pay' })]),
    score: 100,
    details: (d) => assert.equal(d.qrExempt, 1),
  },
  {
    name: 'an SVG named as a QR code (alt text) is exempt even when it draws little',
    files: { 'index.html': '<img src="code.svg">', 'code.svg': ONE_PATH_SVG },
    evidence: media([svgImg('code.svg', { alt: 'QR code for the Wi-Fi network' })]),
    score: 100,
  },
  {
    name: 'a dimension-label placeholder is not a QR code: still bad next to an exempt rect-grid QR code',
    files: { 'index.html': '<img src="a.svg"><img src="b.svg">', 'a.svg': PLACEHOLDER_SVG, 'b.svg': qrRectSvg().replace('</svg>', '<text>image</text></svg>') },
    evidence: media([svgImg('a.svg', { selector: 'img.hero' }), svgImg('b.svg', { selector: 'img.scan' })]),
    score: penalty(1, 2),
    details: (d) => assert.equal(d.qrExempt, 1),
  },
]);

describe('placeholder-quality helpers', () => {
  it('baseImageUrl drops rendition and cache parameters, keeps the ones that pick the picture and the fragment', () => {
    assert.equal(baseImageUrl('https://x.com/a.png?v=3'), 'https://x.com/a.png');
    assert.equal(baseImageUrl('https://x.com/a.jpg?w=400&utm_source=y'), 'https://x.com/a.jpg');
    assert.equal(baseImageUrl('https://x.com/avatar?size=64&name=Ann'), 'https://x.com/avatar?name=Ann');
    assert.notEqual(baseImageUrl('https://x.com/icons.svg#home'), baseImageUrl('https://x.com/icons.svg#user'));
    assert.equal(baseImageUrl('data:image/png;base64,AAAA'), 'data:image/png;base64,AAAA');
  });
  it('qrLike: module grids and QR names yes; a plain placeholder or a handful of rects no', () => {
    assert.match(qrLike(qrPathSvg())!, /path segments/);
    assert.match(qrLike(qrRectSvg())!, /rects on a 10-unit module grid/);
    assert.match(qrLike('<svg><g id="qr-code"><path d="M0 0h1"/></g></svg>')!, /attribute/);
    assert.equal(qrLike(PLACEHOLDER_SVG), null);
    assert.equal(qrLike('<svg>' + '<rect x="3" y="7" width="13" height="5"/><rect x="20" y="1" width="7" height="9"/>'.repeat(3) + '</svg>'), null);
    assert.equal(qrLike('<svg aria-label="qrx"/>', { alt: 'square root' }), null);
  });
});
