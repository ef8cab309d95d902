/**
 * The page's requests told apart from the browser's own (gather/page-requests.ts): the rule on recorded
 * log entries, table-driven, then on the Chromium this machine has, whose own background requests ("folae" on
 * Chromium 150) reach the sandbox from every browser context.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { NetworkEntry, SandboxPhase } from '../../core/network.js';
import { BROWSER_MADE_REASON, FAVICON_REASON, attributeRequests, requestKey, requestKeysFromDevtoolsLog } from '../../gather/page-requests.js';
import { Scorer } from '../../runner/score.js';
import { browserVersion } from '../../gather/chrome.js';
import { writeSingleFile } from '../helpers.js';

const ORIGIN = 'http://127.0.0.1:4000';
const entry = (e: Partial<NetworkEntry> & Pick<NetworkEntry, 'url'>): NetworkEntry => ({
  phase: 'visit',
  method: 'GET',
  destination: 'empty',
  disposition: 'blocked',
  status: 403,
  ...e,
});

describe('attributeRequests: whose request is it', () => {
  const cases: Array<{ name: string; entry: NetworkEntry; seen?: Array<[SandboxPhase, string[]]>; browser: string | false }> = [
    {
      name: 'Chromium 150\'s "folae": no target made it, nothing initiated it',
      entry: entry({ url: 'https://www.google.com/async/folae?async=_fmt:pb', fetchSite: 'none' }),
      browser: BROWSER_MADE_REASON,
    },
    {
      name: 'a plain-http request without any initiator header that no target made',
      entry: entry({ url: 'http://update.example/check' }),
      browser: BROWSER_MADE_REASON,
    },
    {
      name: "the same request when the page's target reported it (a page with no-referrer fetching plain http)",
      entry: entry({ url: 'http://tracker.example/x.gif' }),
      seen: [['visit', ['GET http://tracker.example/x.gif']]],
      browser: false,
    },
    {
      name: "a request seen in another phase only is not this phase's page's",
      entry: entry({ url: 'http://tracker.example/x.gif', phase: 'lighthouse' }),
      seen: [['visit', ['GET http://tracker.example/x.gif']]],
      browser: BROWSER_MADE_REASON,
    },
    {
      name: 'a cross-site fetch of the page (Sec-Fetch-Site cross-site), even unseen',
      entry: entry({ url: 'https://api.example.com/rates.json', fetchSite: 'cross-site', referred: true }),
      browser: false,
    },
    {
      name: "a service worker's script (same-origin, no target reports it)",
      entry: entry({ url: 'https://cdn.example/sw.js', fetchSite: 'same-origin', destination: 'serviceworker' }),
      browser: false,
    },
    { name: 'a request with only a Referer (plain http from the page)', entry: entry({ url: 'http://img.example/a.png', referred: true }), browser: false },
    {
      name: 'our own navigation to the entry page (Sec-Fetch-Site none, to the artifact)',
      entry: entry({ url: `${ORIGIN}/index.html`, fetchSite: 'none', destination: 'document', disposition: 'artifact', status: 200 }),
      browser: false,
    },
    {
      name: 'the favicon probe',
      entry: entry({ url: `${ORIGIN}/favicon.ico`, disposition: 'artifact', status: 404, browserMade: true }),
      browser: FAVICON_REASON,
    },
    {
      name: 'a tunnel the sandbox could not look inside, to a host and port the page asked',
      entry: entry({ method: 'CONNECT', url: 'ws.example:8443', destination: 'tunnel' }),
      seen: [['visit', ['GET wss://ws.example:8443/live']]],
      browser: false,
    },
    {
      name: 'an aborted tunnel to a host no target of the page asked (Chromium\'s "folae" cut short)',
      entry: entry({ method: 'CONNECT', url: 'www.google.com:443', destination: 'tunnel' }),
      seen: [['visit', ['GET https://cdn.example/x.js']]],
      browser: BROWSER_MADE_REASON,
    },
    {
      name: "a tunnel to the host of a page's https request (default port)",
      entry: entry({ method: 'CONNECT', url: 'cdn.example:443', destination: 'tunnel' }),
      seen: [['visit', ['GET https://cdn.example/x.js']]],
      browser: false,
    },
  ];
  for (const c of cases) {
    it(`${c.browser ? "the browser's" : "the page's"}: ${c.name}`, () => {
      const { page, browser } = attributeRequests([c.entry], new Map((c.seen ?? []).map(([p, k]) => [p, new Set(k)])), ORIGIN);
      if (c.browser) {
        assert.equal(page.length, 0);
        assert.equal(browser[0]?.browserMade, true);
        assert.equal(browser[0]?.browserReason, c.browser);
      } else {
        assert.deepEqual(page, [c.entry]);
        assert.equal(browser.length, 0);
      }
    });
  }

  it('keys a request as the sandbox logs it: method upper-cased, URL cut at 2000 characters', () => {
    const long = 'https://a.example/' + 'x'.repeat(3000);
    assert.equal(requestKey('get', long), `GET ${long.slice(0, 2000)}…`);
  });

  it('reads the requests of every target from a Lighthouse DevTools log, WebSockets included', () => {
    const keys = requestKeysFromDevtoolsLog([
      { method: 'Network.requestWillBeSent', params: { request: { method: 'GET', url: 'http://a.example/1.js' } } },
      { method: 'Network.requestWillBeSent', params: { request: { method: 'POST', url: 'http://a.example/api' } }, sessionId: 'worker' },
      { method: 'Network.webSocketCreated', params: { url: 'wss://a.example/live' } },
      { method: 'Network.responseReceived', params: {} },
    ]);
    assert.deepEqual(keys.sort(), ['GET http://a.example/1.js', 'GET wss://a.example/live', 'POST http://a.example/api']);
    assert.deepEqual(requestKeysFromDevtoolsLog(undefined), []);
  });
});

describe(`the browser's own requests on this machine's Chromium (${browserVersion() ?? 'none found'})`, () => {
  const scorers: Scorer[] = [];
  after(() => Promise.all(scorers.map((s) => s.close())));
  const quiet = writeSingleFile(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Quiet</title></head><body><h1>Nothing to fetch</h1><p>This page makes no request at all.</p></body></html>',
  );

  for (const mode of ['cdn', 'offline'] as const) {
    it(`a page that requests nothing has no blocked request in network mode ${mode}; the browser's own are kept apart, still refused`, async () => {
      const scorer = new Scorer({ only: ['console-errors', 'best-practices'], network: { mode }, budgetMs: 40_000 });
      scorers.push(scorer);
      const { doc, evidence } = await scorer.scoreWithEvidence(quiet);
      assert.equal(doc.network?.blocked, 0, JSON.stringify(evidence.browser?.ok && evidence.browser.value.network));
      assert.equal(doc.network?.withheld, 0);
      assert.ok(evidence.browser?.ok);
      const b = evidence.browser.value;
      assert.ok(
        b.network.every((e) => e.url.startsWith(new URL(e.url).origin) && e.disposition === 'artifact'),
        JSON.stringify(b.network),
      );
      for (const e of b.browserNetwork ?? []) {
        assert.equal(e.browserMade, true);
        assert.ok(e.browserReason);
        if (!e.url.endsWith('/favicon.ico')) assert.equal(e.disposition, 'blocked', `the browser's own request was let through: ${e.url}`);
      }
      assert.equal(doc.browser, browserVersion());
    });
  }

  it("a plain-http request of a page that sends no Referer is the page's: its target reported it", async () => {
    const scorer = new Scorer({ only: ['console-errors'], network: { mode: 'offline' }, budgetMs: 40_000 });
    scorers.push(scorer);
    const page = writeSingleFile(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Pixel</title></head><body><p>A tracking pixel over plain http.</p><img alt="" src="http://pixel.example/p.gif"></body></html>',
    );
    const { doc, evidence } = await scorer.scoreWithEvidence(page);
    assert.ok(evidence.browser?.ok);
    const pixel = evidence.browser.value.network.find((e) => e.url === 'http://pixel.example/p.gif');
    assert.ok(pixel, JSON.stringify({ page: evidence.browser.value.network, browser: evidence.browser.value.browserNetwork }));
    assert.equal(pixel.fetchSite, undefined, 'Chrome sends no Fetch Metadata to a plain-http host');
    assert.equal(pixel.referred, undefined);
    const blocked = evidence.browser.value.network.filter((e) => e.disposition === 'blocked');
    assert.ok(blocked.length > 0 && blocked.every((e) => e.url === pixel.url), JSON.stringify(blocked));
    assert.equal(doc.network?.blocked, blocked.length);
  });
});
