import assert from 'node:assert/strict';
import commentRate from '../../../metrics/maintainability/comment-rate.js';
import { testMetric } from '../../metric-tester.js';

/** `n` lines of plain code, as JS. */
const code = (n: number, prefix = 'x') => Array.from({ length: n }, (_, i) => `const ${prefix}${i} = ${i};`).join('\n');

testMetric(commentRate, [
  {
    // 1 html line + 91 code lines + 9 comment lines... built so that there are exactly 100 non-blank lines.
    name: '100 non-blank lines of which 9 are comment lines score exactly 90',
    files: {
      'index.html': '<p>hi</p>\n',
      'app.js': code(90) + '\n' + Array.from({ length: 9 }, (_, i) => `// note ${i}`).join('\n') + '\n',
    },
    score: 90,
    details: (d) => {
      assert.equal(d.commentLines, 9);
      assert.equal(d.nonBlankLines, 100);
    },
  },
  {
    name: 'no comments at all score the floor of 60',
    html: '<!doctype html>\n<p>hello</p>\n<script>\nlet a = 1;\n</script>\n',
    score: 60,
  },
  {
    name: 'multi-line comments count every non-blank line they span, in HTML, CSS and JS',
    html: [
      '<!doctype html>', // 1
      '<!-- one', // 2 comment
      '     two -->', // 3 comment
      '<style>', // 4
      '/* a', // 5 comment
      '', // 6 blank, not counted
      '   b */ body { color: red }', // 7 comment (shares line with code)
      '</style>', // 8
      '<script>', // 9
      '/**', // 10 comment
      ' * doc', // 11 comment
      ' */', // 12 comment
      'const url = "http://not-a-comment"; // trailing', // 13 comment (trailing)
      'const re = /\\/\\/not/; const t = `// nor ${1}`;', // 14 not comment
      '</script>', // 15
    ].join('\n'),
    // 14 non-blank lines, 8 comment lines: c = 57.142857..., score = min(√c·10 + 60, 100) = 100
    score: 100,
    details: (d) => {
      assert.equal(d.nonBlankLines, 14);
      assert.equal(d.commentLines, 8);
    },
  },
  {
    name: 'comment markers inside strings are not comments',
    html: '<p>x</p>\n<script>\nconst s = "/* not */";\nconst u = \'<!-- nor -->\';\n</script>\n<style>a::after { content: "/* no */" }</style>\n',
    score: 60,
  },
  {
    // 1 comment line of 25 non-blank lines: c = 4, √4·10 + 60 = 80
    name: 'one comment line in 25 non-blank lines scores 80',
    files: { 'index.html': '<p>x</p>', 'a.css': 'a { color: red }\n'.repeat(22) + '/* c */\n', 'b.js': 'let q;\n' },
    score: 80,
  },
  {
    name: 'a minified one-line script with a block comment counts as one comment line',
    html: '<script>/*! lib v1 */var a=1;function b(){return a}</script>',
    // 1 non-blank line, 1 comment line: c = 100 → 100
    score: 100,
  },
  {
    name: 'broken JS still yields its comments (loose parse)',
    html: '<script>\n// explains\nfunction ( {\n</script>\n',
    details: (d) => assert.equal(d.commentLines, 1),
  },
]);
