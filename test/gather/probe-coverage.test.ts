/**
 * V8 block coverage in the probe's pages (ProbeConfig.coverage): on for the probe, whose evidence reports the code
 * it ran; off for the requirement tests, which read none of it and whose pages' own code it slows (the fractal
 * fixture's six tests took 19 s with it, 9 s without, 2026-11-28).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { findChrome } from '../../gather/chrome.js';
import { ChromeProcess } from '../../gather/chrome-process.js';
import { ProbeDriver } from '../../gather/interaction/driver.js';
import { PROBE_CONFIG } from '../../gather/interaction/probe/limits.js';
import { sampleFile } from '../../gather/interaction/probe/samples.js';

describe('block coverage in the probe pages', { skip: findChrome() ? false : 'no Chrome or Chromium installed' }, () => {
  const chrome = new ChromeProcess();
  after(() => chrome.kill());

  const running = async (config: typeof PROBE_CONFIG): Promise<boolean> => {
    const browser = await chrome.browser();
    const context = await browser.createBrowserContext();
    const d = new ProbeDriver(context, 'http://127.0.0.1:9', config, sampleFile);
    try {
      await d.open();
      // Chrome answers with the coverage taken only while precise coverage runs.
      return await d.cdp.send('Profiler.takePreciseCoverage').then(
        () => true,
        () => false,
      );
    } finally {
      await d.close().catch(() => undefined);
      await context.close();
    }
  };

  it('runs for the probe (the default)', async () => assert.equal(await running(PROBE_CONFIG), true));
  it('does not run where the config turns it off (the requirement tests)', async () =>
    assert.equal(await running({ ...PROBE_CONFIG, coverage: false }), false));
});
