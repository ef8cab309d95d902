import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failedRequestUrl } from '../../gather/browser-kit.js';

describe('the URL a console line about a failed request names', () => {
  const whl = 'https://cdn.jsdelivr.net/pyodide/v0.26.2/full/numpy-1.26.4-cp312-cp312-pyodide_2024_0_wasm32.whl';
  it('is the source URL of a "Failed to load resource" line', () => {
    assert.equal(
      failedRequestUrl({
        text: 'Failed to load resource: the server responded with a status of 403 (Forbidden)',
        url: 'https://a.tile.openstreetmap.org/2/0/0.png',
      }),
      'https://a.tile.openstreetmap.org/2/0/0.png',
    );
  });
  it('is the resource named by an integrity refusal and by a fetch refusal (a withheld file answered with an error body)', () => {
    assert.equal(
      failedRequestUrl({
        text: `Failed to find a valid digest in the 'integrity' attribute for resource '${whl}' with computed SHA-256 integrity 'jwWJ='. The resource has been blocked.`,
        url: 'http://127.0.0.1:1/page.html',
      }),
      whl,
    );
    assert.equal(failedRequestUrl({ text: `Fetch API cannot load ${whl}. SRI's integrity checks failed.`, url: 'http://127.0.0.1:1/page.html' }), whl);
  });
  it("is none for the page's own messages", () => {
    assert.equal(failedRequestUrl({ text: 'Error: Failed to fetch monthly newsletter archive index: 403', url: 'http://127.0.0.1:1/page.html' }), undefined);
    assert.equal(failedRequestUrl({ text: 'Uncaught TypeError: x is not a function' }), undefined);
  });
});
