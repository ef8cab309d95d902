import assert from 'node:assert/strict';
import consoleErrors from '../../../metrics/code/console-errors.js';
import { missing } from '../../../core/evidence.js';
import { testMetric } from '../../metric-tester.js';
import { browserEvidence, htmlOfLines } from '../synthetic-browser.js';

const page = htmlOfLines(1000);

testMetric(consoleErrors, [
  {
    name: 'one console.error in 1000 lines scores exactly 80',
    html: page,
    evidence: { browser: browserEvidence({ console: [{ level: 'error', text: 'boom' }] }) },
    score: 80,
    details: (d) => assert.equal(d.errors, 1),
  },
  {
    name: 'one uncaught exception in 1000 lines scores exactly 80 (counted once)',
    html: page,
    evidence: { browser: browserEvidence({ pageErrors: [{ kind: 'exception', message: 'ReferenceError: x is not defined' }] }) },
    score: 80,
  },
  {
    name: 'an unhandled rejection counts like an error',
    html: page,
    evidence: { browser: browserEvidence({ pageErrors: [{ kind: 'unhandled-rejection', message: 'Error: nope' }] }) },
    score: 80,
  },
  {
    name: 'warnings, logs and info never count',
    html: page,
    evidence: {
      browser: browserEvidence({
        console: [
          { level: 'warn', text: 'w' },
          { level: 'log', text: 'l' },
          { level: 'info', text: 'i' },
        ],
      }),
    },
    score: 100,
  },
  {
    name: 'blocked-request lines and the favicon probe are reported but not counted',
    html: page,
    evidence: {
      browser: browserEvidence({
        console: [
          { level: 'error', text: 'Failed to load resource: net::ERR_BLOCKED_BY_CLIENT', url: 'https://cdn.example.com/x.js', webgradeCaused: true },
          {
            level: 'error',
            text: 'Failed to load resource: the server responded with a status of 404 (Not Found)',
            url: 'http://127.0.0.1:1/favicon.ico',
            browserMade: true,
          },
        ],
      }),
    },
    score: 100,
    details: (d) => {
      const nc = d.notCounted as { blockedByWebgrade: string[]; browserMade: string[] };
      assert.deepEqual(nc.blockedByWebgrade, ['https://cdn.example.com/x.js']);
      assert.equal(nc.browserMade.length, 1);
    },
  },
  {
    name: 'an exception caused by a CDN script webgrade withheld is listed apart, not counted',
    html: page,
    evidence: {
      browser: browserEvidence({
        network: [
          {
            phase: 'visit',
            method: 'GET',
            url: 'https://cdn.jsdelivr.net/npm/three',
            destination: 'script',
            disposition: 'blocked',
            status: 403,
            withheld: true,
            reason: 'CDN library withheld (network mode offline)',
          },
        ],
        pageErrors: [{ kind: 'exception', message: 'ReferenceError: THREE is not defined' }],
      }),
    },
    score: 100,
    details: (d) => assert.deepEqual((d.notCounted as { withheldLibrary: string[] }).withheldLibrary, ['ReferenceError: THREE is not defined']),
  },
  {
    name: "the same exception counts when nothing was withheld (the page's own bug)",
    html: page,
    evidence: { browser: browserEvidence({ pageErrors: [{ kind: 'exception', message: 'ReferenceError: THREE is not defined' }] }) },
    score: 80,
  },
  {
    name: "a CDN script that does not exist on the registry is the page's defect: what breaks counts",
    html: page,
    evidence: {
      browser: browserEvidence({
        network: [
          {
            phase: 'visit',
            method: 'GET',
            url: 'https://cdn.jsdelivr.net/npm/three@99/x.js',
            destination: 'script',
            disposition: 'cdn',
            status: 404,
            reason: 'three@99 was never published',
          },
        ],
        pageErrors: [{ kind: 'exception', message: 'ReferenceError: THREE is not defined' }],
      }),
    },
    score: 80,
  },
  {
    name: 'with a withheld script, an error of another kind still counts',
    html: page,
    evidence: {
      browser: browserEvidence({
        network: [{ phase: 'visit', method: 'GET', url: 'https://unpkg.com/x', destination: 'script', disposition: 'blocked', status: 403, withheld: true }],
        pageErrors: [{ kind: 'exception', message: 'SyntaxError: Unexpected token' }],
      }),
    },
    score: 80,
  },
  {
    name: "a 404 of the artifact's own missing file counts",
    html: page,
    evidence: {
      browser: browserEvidence({
        console: [
          { level: 'error', text: 'Failed to load resource: the server responded with a status of 404 (Not Found)', url: 'http://127.0.0.1:1/missing.png' },
        ],
      }),
    },
    score: 80,
  },
  {
    name: 'a failed console.assert counts as an error',
    html: page,
    evidence: { browser: browserEvidence({ console: [{ level: 'assert', text: 'Assertion failed' }] }) },
    score: 80,
  },
  {
    name: 'errors are a density: 3 errors in 100 lines floor at 0',
    html: htmlOfLines(100),
    evidence: { browser: browserEvidence({ console: [1, 2, 3].map((i) => ({ level: 'error', text: `e${i}` })) }) },
    score: 0,
  },
  {
    name: 'two errors in 1000 lines score 60',
    html: page,
    evidence: { browser: browserEvidence({ console: [{ level: 'error', text: 'a' }], pageErrors: [{ kind: 'exception', message: 'b' }] }) },
    score: 60,
  },
  {
    name: 'unscorable when the browser session failed',
    html: page,
    evidence: { browser: missing('could not start Chrome: boom') },
    unscorable: /could not start Chrome/,
  },
  {
    name: 'unscorable when the page never finished loading',
    html: page,
    evidence: { browser: browserEvidence({ loaded: false, faults: ['load timeout: load timed out after 15000 ms'] }) },
    unscorable: /did not finish loading.*load timeout/,
  },
  {
    name: 'unscorable when the page stopped responding after load with no error seen (not 100: its console was observed only partly)',
    html: page,
    evidence: { browser: browserEvidence({ unavailable: { domHtml: 'probe timed out (page did not respond (busy main thread: a long or endless script))' } }) },
    unscorable: /stopped responding.*observed only partly/,
  },
  {
    name: 'errors seen before the page stopped responding are scored, as a lower bound',
    html: page,
    evidence: { browser: browserEvidence({ console: [{ level: 'error', text: 'boom' }], unavailable: { domHtml: 'probe timed out' } }) },
    score: 80,
    details: (_d, outcome) => assert.match('summary' in outcome ? outcome.summary : '', /at least this many/),
  },
  {
    name: 'unscorable without browser evidence at all',
    html: page,
    unscorable: /not run/,
  },
]);
