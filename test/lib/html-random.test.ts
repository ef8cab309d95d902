import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml } from '../../lib/html.js';
import { mulberry32 } from '../../lib/random.js';

describe('shared helpers: one HTML escape, one seeded generator', () => {
  it('escapes the five characters that matter between tags and in quoted attributes', () => {
    assert.equal(escapeHtml(`<img src="x" onerror='a&b'>`), '&lt;img src=&quot;x&quot; onerror=&#39;a&amp;b&#39;&gt;');
    assert.equal(escapeHtml(12), '12');
    assert.equal(escapeHtml('plain text'), 'plain text');
  });

  it('gives the same sequence for the same seed (the values the bootstrap and k-means++ were tuned on)', () => {
    const r = mulberry32(42);
    assert.deepEqual([r(), r(), r()], [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
    const a = mulberry32(-5);
    const b = mulberry32(2 ** 32 - 5);
    for (let i = 0; i < 100; i++) assert.equal(a(), b());
  });
});
