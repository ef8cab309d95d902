import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CsvError, parseCsv } from '../../weights/csv.js';

describe('CSV reader', () => {
  const cases: Array<[string, string, Array<[number, string[]]>]> = [
    [
      'plain records, LF',
      'a,b\n1,2\n',
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'CRLF and no final newline',
      'a,b\r\n1,2',
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'quoted commas, doubled quotes, line breaks',
      'x,"a, ""b""\nc"\n3,4\n',
      [
        [1, ['x', 'a, "b"\nc']],
        [3, ['3', '4']],
      ],
    ],
    [
      'empty fields and a byte-order mark',
      '\ufeffa,,c\n,\n',
      [
        [1, ['a', '', 'c']],
        [2, ['', '']],
      ],
    ],
    [
      'blank lines are not records',
      'a\n\n\nb\n',
      [
        [1, ['a']],
        [4, ['b']],
      ],
    ],
  ];
  for (const [name, text, want] of cases) {
    it(name, () =>
      assert.deepEqual(
        parseCsv(text).map((r) => [r.line, r.fields]),
        want,
      ),
    );
  }
  it('rejects an unclosed quote and a quote inside an unquoted field, naming the line', () => {
    assert.throws(
      () => parseCsv('a\n"b,c\n'),
      (e: unknown) => e instanceof CsvError && /line 2/.test(e.message),
    );
    assert.throws(() => parseCsv('a\nb"c"\n'), /line 2: a quote inside an unquoted field/);
  });
});
