/**
 * cross-browser's feature collection on huge pages: every JS feature's line was found by slicing the block up
 * to it and counting line breaks (quadratic in the block's size), and the rendered DOM was parsed by jsdom on
 * the main thread (quadratic in depth, stack overflow at 100 000 levels). Both are linear now, with the same
 * answers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { usedFeatures } from '../../../metrics/accessibility/used-features.js';
import { loadArtifact } from '../../../lib/artifact/load.js';
import { writeSingleFile } from '../../helpers.js';

describe('used features at scale', () => {
  it('a 2 MB script with 40 000 feature uses, and a rendered DOM 100 000 levels deep', async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `structuredClone({ n: ${i} }); // padding padding padding`).join('\n');
    const a = loadArtifact(writeSingleFile(`<!doctype html><html><body><script>\n${lines}\n</script></body></html>`));
    void a.sources;
    const deep = `<html><body>${'<section>'.repeat(100_000)}<dialog open>x</dialog>${'</section>'.repeat(100_000)}</body></html>`;
    const t = performance.now();
    const used = await usedFeatures(a, deep);
    const ms = performance.now() - t;
    const clone = used.features.find((f) => f.path === 'api.structuredClone');
    assert.equal(clone?.where, 'page.html:2');
    assert.ok(used.features.some((f) => f.path === 'html.elements.dialog.open'));
    assert.equal(used.domSource, 'rendered');
    assert.ok(ms < 30_000, `took ${Math.round(ms)} ms`);
  });
});
