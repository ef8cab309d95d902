import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import lint from '../../../metrics/code/lint.js';
import type { LintFinding } from '../../../metrics/lib/lint/findings.js';
import { blankRawText, onlyOptionalEndTagsMissing } from '../../../metrics/lib/lint/htmlhint.js';
import type { MetricDetails } from '../../../core/metric.js';
import { testMetric } from '../../metric-tester.js';

/*
 * Expected scores, by hand from SPEC #5: score = max(0, 100 − 20 × 1000 × E / L).
 * Most pages below are padded to L = 1000 physical lines, so each error costs exactly 20 points:
 *   E = 0 → 100, E = 1 → 80, E = 2 → 60, E = 3 → 40.
 */

/** `lines` joined, padded with `<p>.</p>` lines up to exactly `total` physical lines. */
function page(lines: string[], total = 1000): string {
  const body = lines.join('\n').split('\n');
  assert.ok(body.length <= total);
  return [...body, ...Array.from({ length: total - body.length }, () => '<p>.</p>')].join('\n');
}

const findings = (d: MetricDetails) => d.findings as LintFinding[];
const only = (d: MetricDetails): LintFinding => {
  assert.equal(findings(d).length, 1, JSON.stringify(findings(d)));
  return findings(d)[0]!;
};
const where = (f: LintFinding) => [f.tool, f.rule, f.file, f.line];

testMetric(lint, [
  {
    name: 'an error-free page with HTML, CSS, style attributes, scripts and handlers scores 100',
    html: page([
      '<!doctype html>',
      '<html lang="en"><head><title>ok</title>',
      '<style>',
      '  body { margin: 0; display: -webkit-box; display: flex; }',
      '  .card:hover { color: rgb(0 0 0 / 50%); width: calc(100% - 2rem); }',
      '</style></head><body>',
      '<p>optional end tags<p>are fine',
      '<ul><li>one<li>two</ul>',
      '<div id="out" style="color: red; padding: 4px 8px"></div>',
      '<button onclick="greet(event); return false;">hi</button>',
      '<script>',
      'function greet(e) { out.textContent = "hi " + e.type; }',
      'const data = { a: 1, b: 2 };',
      '</script>',
      '</body></html>',
    ]),
    score: 100,
    details: (d) => {
      assert.deepEqual(d.perTool, { htmlhint: 0, stylelint: 0, eslint: 0 });
      assert.equal(d.physicalLines, 1000);
    },
  },
  {
    // E = 1 (id-unique), L = 1000 → 80
    name: 'htmlhint: a duplicate id is one error at its HTML line',
    html: page(['<!doctype html>', '<div id="a"></div>', '<span id="a"></span>']),
    score: 80,
    details: (d) => assert.deepEqual(where(only(d)), ['htmlhint', 'id-unique', 'page.html', 3]),
  },
  {
    // E = 1 (doctype-first) → 80
    name: 'htmlhint: a page without a doctype (quirks mode) is one error',
    html: page(['<html><body>', '<p>x</p>', '</body></html>']),
    score: 80,
    details: (d) => assert.deepEqual(where(only(d)), ['htmlhint', 'doctype-first', 'page.html', 1]),
  },
  {
    // E = 1 (the unclosed span), the optional </li> and </p> are not errors, nor the tags inside <textarea>
    name: 'htmlhint: an unclosed element is an error, omitted optional end tags and textarea content are not',
    html: page(['<!doctype html>', '<ul><li>a<li>b</ul><p>one<p>two', '<textarea placeholder="a -> b">   <svg><rect></textarea>', '<div><span>unclosed</div>']),
    score: 80,
    details: (d) => assert.deepEqual(where(only(d)), ['htmlhint', 'tag-pair', 'page.html', 4]),
  },
  {
    // E = 1 (property-no-unknown at HTML line 4) → 80
    name: 'stylelint: an unknown property in an inline <style> is mapped to its HTML line',
    html: page(['<!doctype html>', '<style>', 'body { margin: 0 }', 'a { colr: red; }', '</style>']),
    score: 80,
    details: (d) => {
      const f = only(d);
      assert.deepEqual(where(f), ['stylelint', 'property-no-unknown', 'page.html', 4]);
      assert.equal(f.column, 5);
    },
  },
  {
    // index.html 996 lines + style.css 4 lines = L 1000; E = 1 (unit-no-unknown at style.css:3) → 80
    name: 'stylelint: an error in a CSS file is reported at its line in that file',
    files: {
      'index.html': page(['<!doctype html>', '<link rel="stylesheet" href="style.css">'], 996),
      'style.css': 'body {\n  margin: 0;\n  padding: 3pz;\n}',
    },
    score: 80,
    details: (d) => assert.deepEqual(where(only(d)), ['stylelint', 'unit-no-unknown', 'style.css', 3]),
  },
  {
    // E = 2 (declaration-property-value-no-unknown at lines 4 and 5) → 60; vendor-prefixed values (line 3) are
    // not judged; `3pz` (line 6) is one finding (unit-no-unknown), not also an unknown value
    name: 'stylelint: a value the property does not accept is one error; prefixed values and unknown units are not counted twice',
    html: page([
      '<!doctype html>',
      '<style>',
      '  .a { display: -ms-flexbox; display: flex; cursor: -webkit-grab; -o-transition: 0; }',
      '  .b { cursor: hand; }',
      '  .c { text-align: centre; }',
      '  .d { padding: 3pz; }',
      '</style>',
    ]),
    score: 40,
    details: (d) =>
      assert.deepEqual(findings(d).map(where), [
        ['stylelint', 'declaration-property-value-no-unknown', 'page.html', 4],
        ['stylelint', 'declaration-property-value-no-unknown', 'page.html', 5],
        ['stylelint', 'unit-no-unknown', 'page.html', 6],
      ]),
  },
  {
    // E = 1: `display: flexbox` in a style attribute → 80
    name: 'stylelint: an invalid value in a style attribute is an error',
    html: page(['<!doctype html>', '<div style="display: flexbox">x</div>']),
    score: 80,
    details: (d) => assert.deepEqual(where(only(d)), ['stylelint', 'declaration-property-value-no-unknown', 'page.html', 2]),
  },
  {
    // E = 2: `widht` (second line of the first attribute: line 3) and `1pz` (line 4); the attribute with
    // braces is linted alone and is fine
    name: 'stylelint: style attributes are linted as declaration blocks with their lines mapped, one per line',
    html: page([
      '<!doctype html>',
      '<p style="color: red;',
      '   widht: 3px">x</p>',
      '<i style="margin: 0">a</i><b style="margin: 1pz">b</b>',
      '<em style="content: \'{\'">c</em>',
    ]),
    score: 60,
    details: (d) => {
      assert.deepEqual(findings(d).map(where), [
        ['stylelint', 'property-no-unknown', 'page.html', 3],
        ['stylelint', 'unit-no-unknown', 'page.html', 4],
      ]);
      assert.equal(findings(d)[1]!.column, 46, 'the unit after `margin: 1`');
    },
  },
  {
    // E = 1 (no-undef at line 5) → 80
    name: 'eslint: an undefined variable in an inline script is mapped to its HTML line',
    html: page(['<!doctype html>', '<p>x</p>', '<script>', 'const total = 1;', 'console.log(totl);', '</script>']),
    score: 80,
    details: (d) => {
      const f = only(d);
      assert.deepEqual(where(f), ['eslint', 'no-undef', 'page.html', 5]);
      assert.match(f.message, /'totl' is not defined/);
    },
  },
  {
    // E = 1: parsing stops at the syntax error (one error), the undefined name after it is not reported
    name: 'eslint: a syntax error counts as one error',
    html: page(['<!doctype html>', '<script>', 'let total = ;', 'nothing(here);', '</script>']),
    score: 80,
    details: (d) => {
      const f = only(d);
      assert.deepEqual(where(f), ['eslint', 'parsing-error', 'page.html', 3]);
    },
  },
  {
    // index.html 995 lines + app.js 5 lines = 1000; E = 1 (no-dupe-keys at app.js:3)
    name: 'eslint: an error in a JS file is reported at its line in that file',
    files: {
      'index.html': page(['<!doctype html>', '<script src="app.js"></script>'], 995),
      'app.js': 'const config = {\n  size: 1,\n  size: 2,\n};\nexport {};',
    },
    score: 80,
    details: (d) => assert.deepEqual(where(only(d)), ['eslint', 'no-dupe-keys', 'app.js', 3]),
  },
  {
    // no error: helper/counter come from the other classic script, `out` is an element id, `event` is the
    // handler's argument. E = 1: `hidden` is declared in a module script, which is private to the module.
    name: 'eslint: classic scripts share top-level names with each other and with handlers; module scripts do not',
    html: page([
      '<!doctype html>',
      '<div id="out"></div>',
      '<script>function helper(x) { return x; }\nlet counter = 0;</script>',
      '<script>counter = helper(counter + 1); out.textContent = String(counter);</script>',
      '<button onclick="helper(event.type)">a</button>',
      '<script type="module">function hidden() {}\nexport { hidden };</script>',
      '<button onclick="hidden()">b</button>',
    ]),
    score: 80,
    details: (d) => {
      const f = only(d);
      assert.deepEqual(where(f), ['eslint', 'no-undef', 'page.html', 9]);
      assert.match(f.message, /'hidden'/);
    },
  },
  {
    name: 'eslint: globals of a library loaded from a CDN are known',
    html: page([
      '<!doctype html>',
      '<canvas id="c"></canvas>',
      '<script src="https://cdn.jsdelivr.net/npm/chart.js"></script>',
      '<script>new Chart(c, {});</script>',
    ]),
    score: 100,
  },
  {
    // E = 1: without the CDN script, Chart really is undefined
    name: 'eslint: a library global without the library script is an error',
    html: page(['<!doctype html>', '<canvas id="c"></canvas>', '<script>new Chart(c, {});</script>']),
    score: 80,
    details: (d) => assert.match(only(d).message, /'Chart' is not defined/),
  },
  {
    // E = 2: the disable comments are ignored
    name: 'inline disable comments cannot hide errors',
    html: page(['<!doctype html>', '<style>/* stylelint-disable */ a { colr: red }</style>', '<script>/* eslint-disable */ missingThing();</script>']),
    score: 60,
    details: (d) => assert.deepEqual(d.perTool, { htmlhint: 0, stylelint: 1, eslint: 1 }),
  },
  {
    // windows-1252 bytes (é = 0xE9) are decoded, not rejected; E = 1 (id-unique at line 4) → 80
    name: 'a page that is not UTF-8 is linted with the right lines',
    html: Buffer.concat([
      Buffer.from('<!doctype html>\n<meta charset="windows-1252">\n<p>caf'),
      Buffer.from([0xe9]),
      Buffer.from(`</p>\n<div id="x"></div><div id="x"></div>\n${Array.from({ length: 996 }, () => '<p>.</p>').join('\n')}`),
    ]),
    score: 80,
    details: (d) => assert.deepEqual(where(only(d)), ['htmlhint', 'id-unique', 'page.html', 4]),
  },
  {
    // the first script nests deeper than the parser's stack: not linted, listed as skipped, not an error;
    // the second script's undefined name still counts: E = 1 → 80
    name: 'a script too deeply nested for the parser is skipped, not counted, and the rest is still linted',
    html: page(['<!doctype html>', `<script>var s = ${'"a"+'.repeat(20000)}"a";</script>`, '<script>missing();</script>']),
    score: 80,
    details: (d) => {
      assert.match(only(d).message, /'missing'/);
      assert.equal((d.skipped as unknown[]).length, 1);
    },
  },
  {
    // L = 4 lines, E = 2 → 100 − 20000 × 2 / 4 < 0 → 0
    name: 'a short page with several errors bottoms out at 0',
    html: '<p>a</p>\n<div id="q"></div>\n<div id="q"></div>\n<p>b</p>',
    score: 0,
    details: (d) => assert.equal(d.errors, 2),
  },
]);

describe('lint helpers', () => {
  it('recognises tag-pair findings that only miss optional end tags', () => {
    assert.equal(onlyOptionalEndTagsMissing('Tag must be paired, missing: [ </li></li> ], start tag match failed [ <li> ] on line 4.'), true);
    assert.equal(onlyOptionalEndTagsMissing('Tag must be paired, missing: [ </td></td></tr> ], start tag match failed'), true);
    assert.equal(onlyOptionalEndTagsMissing('Tag must be paired, missing: [ </span> ], start tag match failed [ <span> ]'), false);
    assert.equal(onlyOptionalEndTagsMissing('Tag must be paired, no start tag: [ </div> ]'), false);
  });
  it('blanks textarea and title content without moving lines or columns', () => {
    const html = '<title>a<b</title>\n<textarea x="a>b">\n<svg>\n</textarea><p>';
    const out = blankRawText(html);
    assert.equal(out.length, html.length);
    assert.equal(out.split('\n').length, html.split('\n').length);
    assert.doesNotMatch(out, /<svg>|a<b/);
    assert.match(out, /<p>$/);
  });
});
