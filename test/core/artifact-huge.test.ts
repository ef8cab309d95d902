/**
 * The artifact model on pages built to hurt a parser: nesting 100 000 levels deep (jsdom's own parse was
 * quadratic in the depth and overflowed the stack, which ended `score` with exit 1 and no metrics), 40 000
 * paragraphs under one parent (jsdom's node-location tracking copies the whole child list per text node:
 * quadratic: 20 000 took minutes), thousands of `@font-face` rules (jsdom's CSS parser is quadratic in at-rules) and the browser
 * facts the static DOM must keep (`<noscript>` content is text, as in a browser with scripting). Time bounds are
 * generous (a loaded 2-core machine) and still far below what the quadratic versions took.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadArtifact } from '../../lib/artifact/load.js';
import { failArtifactParse, nodeLocation } from '../../lib/artifact/loaded.js';
import { ArtifactParseError } from '../../core/artifact/model.js';
import { MAX_DOM_DEPTH } from '../../lib/artifact/parse.js';
import { writeSingleFile } from '../helpers.js';

function depthOf(doc: Document): number {
  let max = 0;
  const stack: Array<[Element, number]> = [[doc.documentElement, 1]];
  while (stack.length) {
    const [el, d] = stack.pop()!;
    if (d > max) max = d;
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) stack.push([c, d + 1]);
  }
  return max;
}

const timed = <T>(fn: () => T): [T, number] => {
  const t = performance.now();
  const v = fn();
  return [v, performance.now() - t];
};

describe('artifact model on huge pages', () => {
  it('a page nested 100 000 levels deep parses without overflowing the stack, its DOM capped at MAX_DOM_DEPTH', () => {
    const n = 100_000;
    const p = writeSingleFile(`<!doctype html><html><body>${'<div>'.repeat(n)}<script>let deep = 1;</script>${'</div>'.repeat(n)}</body></html>`);
    const a = loadArtifact(p);
    const [sources, parseMs] = timed(() => a.sources);
    assert.deepEqual(
      sources.map((s) => s.text),
      ['let deep = 1;'],
    );
    const [dom, domMs] = timed(() => a.dom);
    const depth = depthOf(dom.window.document);
    assert.ok(depth <= MAX_DOM_DEPTH + 1, `DOM depth ${depth}`);
    // every element is still there, lifted into the element at the cap
    assert.equal(dom.window.document.getElementsByTagName('div').length, n);
    assert.ok(parseMs + domMs < 60_000, `parse ${Math.round(parseMs)} ms, DOM ${Math.round(domMs)} ms`);
  });

  it('40 000 paragraphs under one parent: parse and DOM in linear time, locations still known', () => {
    const n = 40_000;
    const rows = Array.from({ length: n }, (_, i) => `<p class="c">Paragraph ${i}</p>\n`).join('');
    const p = writeSingleFile(`<!doctype html><html><body>\n${rows}<!-- last -->\n</body></html>`);
    const a = loadArtifact(p);
    const [dom, ms] = timed(() => {
      void a.sources;
      return a.dom;
    });
    assert.equal(dom.window.document.querySelectorAll('p').length, n);
    assert.ok(ms < 60_000, `took ${Math.round(ms)} ms`);
    const walker = dom.window.document.createTreeWalker(dom.window.document, dom.window.NodeFilter.SHOW_COMMENT);
    const comment = walker.nextNode()!;
    assert.equal(nodeLocation(a, comment)?.startLine, n + 2);
  });

  it('thousands of @font-face rules cost nothing in the static DOM (style text is in sources, not parsed by jsdom)', () => {
    const css = Array.from({ length: 20_000 }, (_, i) => `@font-face{font-family:f${i};src:url(f${i}.woff)}`).join('\n');
    const a = loadArtifact(writeSingleFile(`<!doctype html><html><head><style>${css}</style></head><body><p>x</p></body></html>`));
    const [, ms] = timed(() => a.dom);
    assert.ok(ms < 15_000, `took ${Math.round(ms)} ms`);
    assert.equal(a.dom.window.document.querySelector('style')!.textContent, '');
    assert.equal(a.sources.filter((s) => s.language === 'css').length, 1);
    const fonts = a.resources.filter((r) => r.kind === 'font');
    assert.equal(fonts.length, 20_000);
    assert.equal(fonts[19_999]!.line, 20_000);
  });

  it("<noscript> content is text in the static DOM, and its references are not the page's", () => {
    const a = loadArtifact(
      writeSingleFile(
        '<head><noscript><link rel="stylesheet" href="a.css"></noscript></head><body><noscript><img src="b.png"></noscript><img src="c.png"></body>',
      ),
    );
    assert.equal(a.dom.window.document.querySelectorAll('noscript img, noscript link').length, 0);
    assert.deepEqual(
      a.resources.map((r) => r.url),
      ['c.png'],
    );
  });

  it('a parse failure is kept and thrown as an ArtifactParseError on every use', () => {
    const a = loadArtifact(writeSingleFile('<p>fine</p>'));
    failArtifactParse(a, 'time budget exceeded while parsing');
    assert.throws(
      () => a.sources,
      (e: unknown) => e instanceof ArtifactParseError && /time budget/.test(e.message),
    );
    assert.throws(() => a.dom, ArtifactParseError);
    assert.throws(() => a.resources, ArtifactParseError);
  });
});
