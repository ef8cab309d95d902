/**
 * Pages that never go idle (issue 31): the visit finds them busy, Lighthouse observes them for the never-idle
 * window instead of waiting for a quiet CPU, every study rule metric is scored (the screenshots on the page's
 * paused clock, the phone check in the Lighthouse run with its frames held). A light page keeps Lighthouse's usual
 * settings. Real
 * Chromium and Lighthouse on fixtures/heavy/.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Scorer } from '../../runner/score.js';
import { LIGHTHOUSE_SETTINGS, NEVER_IDLE_WINDOW_MS, NO_PAINT_FCP_WAIT_MS, applyPageState, lighthouseSettingsFor } from '../../gather/lighthouse.js';
import { NEVER_IDLE_BUSY, isNeverIdle } from '../../gather/collectors/busy-after-load.js';
import { fixture, writeArtifact } from '../helpers.js';

describe('Lighthouse settings for a page that never goes idle', () => {
  it('only the load wait changes, and only for a never-idle page', () => {
    assert.deepEqual(lighthouseSettingsFor({}), LIGHTHOUSE_SETTINGS);
    assert.deepEqual(lighthouseSettingsFor({ neverIdle: false }), LIGHTHOUSE_SETTINGS);
    const busy = lighthouseSettingsFor({ neverIdle: true });
    assert.equal(busy.maxWaitForLoad, NEVER_IDLE_WINDOW_MS);
    assert.deepEqual({ ...busy, maxWaitForLoad: LIGHTHOUSE_SETTINGS.maxWaitForLoad }, LIGHTHOUSE_SETTINGS);
  });

  it("a held run's waits are shortened to the never-idle ones, never lengthened", () => {
    const settings: Record<string, unknown> = { ...LIGHTHOUSE_SETTINGS, maxWaitForLoad: 25_000 };
    applyPageState(settings, { neverIdle: true });
    assert.equal(settings.maxWaitForLoad, NEVER_IDLE_WINDOW_MS);
    const short: Record<string, unknown> = { ...LIGHTHOUSE_SETTINGS, maxWaitForLoad: 2_000 };
    applyPageState(short, { neverIdle: true });
    assert.equal(short.maxWaitForLoad, 2_000);
    const light: Record<string, unknown> = { ...LIGHTHOUSE_SETTINGS, maxWaitForLoad: 25_000 };
    applyPageState(light, { neverIdle: false });
    assert.equal(light.maxWaitForLoad, 25_000);
  });

  it('a page that painted nothing in the visit waits 5 s for its first paint instead of 15, and nothing else changes', () => {
    const blank = lighthouseSettingsFor({ noContentfulPaint: true });
    assert.equal(blank.maxWaitForFcp, NO_PAINT_FCP_WAIT_MS);
    assert.ok(NO_PAINT_FCP_WAIT_MS < LIGHTHOUSE_SETTINGS.maxWaitForFcp);
    assert.deepEqual({ ...blank, maxWaitForFcp: LIGHTHOUSE_SETTINGS.maxWaitForFcp }, LIGHTHOUSE_SETTINGS);
    const held: Record<string, unknown> = { ...LIGHTHOUSE_SETTINGS };
    applyPageState(held, { noContentfulPaint: true, neverIdle: false });
    assert.equal(held.maxWaitForFcp, NO_PAINT_FCP_WAIT_MS);
    assert.equal(held.maxWaitForLoad, LIGHTHOUSE_SETTINGS.maxWaitForLoad);
  });

  it('the never-idle rule is a busy share at or over the threshold', () => {
    assert.equal(isNeverIdle(undefined), false);
    assert.equal(isNeverIdle(0.02), false);
    assert.equal(isNeverIdle(NEVER_IDLE_BUSY), true);
    assert.equal(isNeverIdle(1), true);
  });
});

describe('a never-idle page in the real browser', () => {
  const scorer = new Scorer({ only: ['performance', 'mobile-compat', 'layout-sparsity'] });
  after(() => scorer.close());
  const maxWait = (lhr: unknown) => (lhr as { configSettings?: { maxWaitForLoad?: number } }).configSettings?.maxWaitForLoad;

  it('the fractal page: busy, observed for the never-idle window, screenshots and phone check taken', async () => {
    const { doc, evidence } = await scorer.scoreWithEvidence(fixture('heavy', 'fractal.html'));
    assert.ok(evidence.browser?.ok, 'browser evidence');
    const b = evidence.browser.value;
    assert.ok(isNeverIdle(b.busyAfterLoad), `busy after load ${b.busyAfterLoad}`);
    assert.equal(b.mobile?.measuredBy, 'lighthouse run');
    assert.ok(b.screenshots.desktop && b.screenshots.fullPage, 'both desktop screenshots');
    assert.ok(evidence.lighthouse?.ok, evidence.lighthouse && !evidence.lighthouse.ok ? evidence.lighthouse.reason : 'no Lighthouse');
    assert.equal(maxWait(evidence.lighthouse.value.lhr), NEVER_IDLE_WINDOW_MS);
    for (const m of doc.metrics) assert.notEqual(m.score, null, `${m.id} unscorable: ${m.reason}`);
  });

  it('a still page keeps the usual settings and its phone check in the Lighthouse run', async () => {
    const { evidence } = await scorer.scoreWithEvidence(fixture('browser', 'clean-1000.html'));
    assert.ok(evidence.browser?.ok && evidence.lighthouse?.ok);
    assert.equal(typeof evidence.browser.value.firstContentfulPaintMs, 'number');
    assert.equal(
      (evidence.lighthouse.value.lhr as { configSettings?: { maxWaitForFcp?: number } }).configSettings?.maxWaitForFcp,
      LIGHTHOUSE_SETTINGS.maxWaitForFcp,
    );
    assert.equal(isNeverIdle(evidence.browser.value.busyAfterLoad), false);
    assert.equal(evidence.browser.value.mobile?.measuredBy, 'lighthouse run');
    assert.notEqual(maxWait(evidence.lighthouse.value.lhr), NEVER_IDLE_WINDOW_MS);
  });

  it('a page that paints nothing (a blank canvas waiting for a microphone): no first paint in the visit, Lighthouse says so', async () => {
    const page = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>spectrum</title></head><body><canvas id="c" width="400" height="200"></canvas>
<script>navigator.mediaDevices.getUserMedia({ audio: true }).then(() => { const g = document.getElementById('c').getContext('2d'); (function f() { g.fillRect(0, 0, 10, 10); requestAnimationFrame(f); })(); }, (e) => console.warn('no microphone', e.name));</script></body></html>`,
    });
    const { doc, evidence } = await scorer.scoreWithEvidence(page);
    assert.ok(evidence.browser?.ok);
    assert.equal(evidence.browser.value.firstContentfulPaintMs, null);
    const perf = doc.metrics.find((m) => m.id === 'performance');
    assert.equal(perf?.score, null);
    assert.match(perf?.reason ?? '', /NO_FCP|did not paint any content/i);
    // The phone check does not ride on that run's fate.
    assert.notEqual(doc.metrics.find((m) => m.id === 'mobile-compat')?.score, null);
  });
});
