/**
 * Pages that load their libraries from CDNs render as their authors meant (network mode `cdn`, the default), in
 * the real browser, and stay blocked in `offline` mode. Each fixture page (fixtures/cdn/) checks itself in the
 * browser and writes what it saw into `<output id="checks">`, which the test reads from the DOM evidence:
 * a Tailwind class applied (computed style), a Chart.js chart drawn on its canvas, a Font Awesome glyph rendered
 * with its font, a Google font in use, an ES module graph from esm.sh and jsDelivr resolved into one Preact.
 *
 * Two registries: a local one that speaks the npm registry protocol (test/cdn/registry-server.ts), which always
 * runs; and the real npm registry for the fixture pages of real libraries, skipped with a clear message when it
 * cannot be reached. Their CDN cache is a folder of the OS temp dir kept between runs, so only the first run
 * downloads.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Evidence } from '../../core/evidence.js';
import { Scorer } from '../../runner/score.js';
import { fixture, writeArtifact } from '../helpers.js';
import { setup, type Env } from '../cdn/fixtures.js';

function checks(evidence: Evidence): Record<string, unknown> | null {
  assert.ok(evidence.browser?.ok, evidence.browser && !evidence.browser.ok ? evidence.browser.reason : 'no browser evidence');
  const m = /<output id="checks">([^<]*)<\/output>/.exec(evidence.browser.value.domHtml);
  if (!m || !m[1]) return null;
  return JSON.parse(m[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"')) as Record<string, unknown>;
}

describe('CDN files from the cache, through a local npm registry', () => {
  let env: Env;
  let scorer: Scorer;
  before(async () => {
    env = await setup();
    scorer = new Scorer({
      only: ['console-errors', 'resource-validity'],
      network: { mode: 'cdn' },
      cdn: { dir: env.dir, registry: env.registry.url, timeoutMs: 5000 },
      budgetMs: 40_000,
    });
  });
  after(async () => {
    await scorer.close();
    await env.close();
  });

  it("serves a jsDelivr library to the page, records it, and counts a version that was never published as the page's defect", async () => {
    const page = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>cdn</title>
<script src="https://cdn.jsdelivr.net/npm/tiny@1/dist/tiny.js"></script>
<script src="https://unpkg.com/tiny@9/dist/tiny.js"></script>
</head><body><output id="checks"></output><script>document.getElementById('checks').textContent = JSON.stringify({ tiny: window.tiny ?? null });</script></body></html>`,
    });
    {
      const { doc, evidence } = await scorer.scoreWithEvidence(page);
      assert.deepEqual(checks(evidence), { tiny: '1.1.0' });
      assert.deepEqual(doc.network?.libraries, ['tiny@1.1.0']);
      const rv = doc.metrics.find((m) => m.id === 'resource-validity')!;
      assert.equal((rv.details as { invalidCount: number }).invalidCount, 1, JSON.stringify(rv.details));
      assert.match(JSON.stringify(rv.details), /tiny@9/);
      const ce = doc.metrics.find((m) => m.id === 'console-errors')!;
      assert.equal((ce.details as { errors: number }).errors, 1, 'the 404 of a version that does not exist counts');
    }
  });
});

describe('CDN libraries of real pages work in the browser (real npm registry)', async () => {
  const reachable = await fetch('https://registry.npmjs.org/-/ping', { signal: AbortSignal.timeout(4000) }).then(
    (r) => r.ok,
    () => false,
  );
  const skip = reachable ? false : 'the npm registry cannot be reached from this machine';
  const cdnCache = join(tmpdir(), 'webgrade-test-cdn-cache');
  const cdn = new Scorer({ only: ['console-errors'], network: { mode: 'cdn', cdnCache }, budgetMs: 60_000 });
  const offline = new Scorer({ only: ['console-errors'], network: { mode: 'offline' }, budgetMs: 60_000 });
  after(async () => {
    await cdn.close();
    await offline.close();
  });

  const cases: Array<[string, (c: Record<string, unknown>, e: Evidence) => void]> = [
    [
      'tailwind.html',
      (c) => {
        assert.equal(c.color, 'rgb(255, 0, 102)', 'the tailwind.config colour is applied');
        assert.equal(c.fontSize, '36px');
        assert.equal(c.padding, '32px');
      },
    ],
    [
      'chartjs.html',
      (c) => {
        assert.ok((c.drawnPixels as number) > 2000, `only ${c.drawnPixels} pixels drawn`);
        assert.match(String(c.chartVersion), /^4\./);
      },
    ],
    [
      'font-awesome.html',
      (c, e) => {
        assert.equal(c.loaded, true);
        assert.match(String(c.family), /Font Awesome 6 Free/);
        assert.ok(
          e.browser?.ok && e.browser.value.fonts?.some((f) => /Font Awesome/.test(f.family) && f.webFont),
          'the glyph was not drawn with the Font Awesome font',
        );
      },
    ],
    [
      'google-font.html',
      (c, e) => {
        assert.equal(c.loaded, true);
        assert.equal(e.browser?.ok && e.browser.value.fonts?.[0]?.family, 'Inter');
      },
    ],
    ['esm-graph.html', (c) => assert.equal(c.rendered, 'answer 42')],
  ];
  for (const [page, check] of cases) {
    it(`${page}: its library works in mode cdn, and is withheld in mode offline`, { skip }, async () => {
      const { evidence } = await cdn.scoreWithEvidence(fixture('cdn', page));
      const c = checks(evidence);
      assert.ok(
        c,
        `the page wrote no checks: ${JSON.stringify(evidence.browser?.ok && evidence.browser.value.network.filter((n) => n.disposition !== 'artifact').map((n) => [n.url, n.disposition, n.reason]))}`,
      );
      check(c, evidence);
      assert.ok(
        evidence.browser?.ok && !evidence.browser.value.network.some((n) => n.disposition === 'blocked' && n.phase === 'visit'),
        'a CDN request was not served',
      );
      const off = await offline.scoreWithEvidence(fixture('cdn', page));
      assert.ok(off.evidence.browser?.ok);
      const withheld = off.evidence.browser.value.network.filter((n) => n.withheld);
      assert.ok(withheld.length > 0, 'offline mode withheld nothing');
      assert.ok(!off.evidence.browser.value.network.some((n) => n.disposition === 'cdn'), 'offline mode served a CDN file');
    });
  }
});
