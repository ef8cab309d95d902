/**
 * The browser kit's warm-up (Scorer.warmUp, before a batch worker takes its first job): Chrome is started with the
 * sandbox it trusts, and Lighthouse's thread is importing Lighthouse, before any artifact's budget begins.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BrowserKit } from '../../gather/browser-kit.js';

describe('the browser kit warm-up', () => {
  it('starts Chrome and the Lighthouse thread; the first browser() then returns the running Chrome', async () => {
    const kit = new BrowserKit();
    try {
      assert.equal(kit.chrome.alive, false);
      assert.equal(kit.thread.threadId, undefined);
      await kit.warm();
      assert.equal(kit.chrome.alive, true, 'Chrome is running after the warm-up');
      assert.equal(typeof kit.thread.threadId, 'number', "Lighthouse's thread is started");
      const browser = await kit.chrome.browser();
      assert.ok(browser.connected);
      assert.match(await browser.version(), /Chrom/);
    } finally {
      await kit.close();
    }
  });
});
