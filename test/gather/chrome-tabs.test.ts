/**
 * A tab of the scoring Chrome is one page and nothing else: Chromium 156 builds the address bar's popup as a WebUI
 * page for every tab, even headless (two `browser_ui` targets per tab, chrome://omnibox-popup.top-chrome), which
 * made opening a visit's tab take up to 1.9 s (gather/chrome.ts NO_OMNIBOX_WEBUI). On a Chromium that never
 * made them (150) this passes either way; on 156 it fails without the switch.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { findChrome } from '../../gather/chrome.js';
import { ChromeProcess } from '../../gather/chrome-process.js';

describe('the scoring Chrome opens tabs without browser UI pages beside them', { skip: findChrome() ? false : 'no Chrome or Chromium installed' }, () => {
  const chrome = new ChromeProcess();
  after(() => chrome.kill());

  it('three tabs in a context of their own: three page targets, no omnibox popup', async () => {
    const browser = await chrome.browser();
    const context = await browser.createBrowserContext();
    for (let i = 0; i < 3; i++) await context.newPage();
    const session = await browser.target().createCDPSession();
    const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: Array<{ type: string; url: string; browserContextId?: string }> };
    await session.detach();
    const ui = targetInfos.filter((t) => t.type === 'browser_ui' || t.url.startsWith('chrome://omnibox'));
    assert.deepEqual(
      ui.map((t) => t.url),
      [],
      `${await browser.version()}: browser UI targets beside the tabs`,
    );
    assert.ok(targetInfos.filter((t) => t.type === 'page').length >= 3, JSON.stringify(targetInfos.map((t) => t.type)));
    await context.close();
  });
});
