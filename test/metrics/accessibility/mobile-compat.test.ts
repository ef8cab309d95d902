import assert from 'node:assert/strict';
import mobileCompat from '../../../metrics/accessibility/mobile-compat.js';
import { missing } from '../../../core/evidence.js';
import { testMetric } from '../../metric-tester.js';
import { browserEvidence } from '../synthetic-browser.js';

const mobile = (overflowPx: number) => ({
  device: 'iPhone 12 Pro',
  viewportWidth: 390,
  scrollWidth: 390 + overflowPx,
  clientWidth: 390,
  overflowPx,
  offenders: overflowPx ? [{ selector: 'div.wide', right: 390 + overflowPx, width: 390 + overflowPx }] : [],
});

testMetric(mobileCompat, [
  { name: 'no overflow scores 100', html: '<p>x</p>', evidence: { browser: browserEvidence({ mobile: mobile(0) }) }, score: 100 },
  {
    name: 'a 420 px block (30 px overflow) scores 70 and names the offender',
    html: '<p>x</p>',
    evidence: { browser: browserEvidence({ mobile: mobile(30) }) },
    score: 70,
    details: (d) => assert.equal((d.offenders as Array<{ selector: string }>)[0]!.selector, 'div.wide'),
  },
  { name: 'overflow beyond 100 px floors at 0', html: '<p>x</p>', evidence: { browser: browserEvidence({ mobile: mobile(610) }) }, score: 0 },
  {
    name: "unscorable with the session's reason when mobile emulation failed",
    html: '<p>x</p>',
    evidence: { browser: browserEvidence({ unavailable: { mobile: 'page did not respond (busy main thread or closed window)' } }) },
    unscorable: /did not respond/,
  },
  { name: 'unscorable when the browser session failed', html: '<p>x</p>', evidence: { browser: missing('Chrome died') }, unscorable: 'Chrome died' },
]);
