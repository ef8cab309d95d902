import assert from 'node:assert/strict';
import { describe } from 'node:test';
import deadCode from '../../../metrics/maintainability/dead-code.js';
import { gathered, missing } from '../../../core/evidence.js';
import type { InteractionEvidence } from '../../../core/browser-evidence.js';
import { interactionEvidence } from '../interaction/synthetic.js';
import { testMetric } from '../../metric-tester.js';
import { browserEvidence } from '../synthetic-browser.js';

const cov = (js: Array<[number, number]>, css: Array<[number, number, number?]>) => ({
  coverage: {
    js: js.map(([totalBytes, usedBytes], i) => ({ source: `index.html#inline-${i + 1}`, totalBytes, usedBytes })),
    css: css.map(([totalBytes, usedBytes, interactionBytes], i) => ({
      source: `style${i}.css`,
      totalBytes,
      usedBytes,
      interactionBytes: interactionBytes ?? 0,
    })),
  },
});

testMetric(deadCode, [
  { name: 'all code used scores 100', html: '<p>x</p>', evidence: { browser: browserEvidence(cov([[100, 100]], [[200, 200]])) }, score: 100 },
  {
    name: 'half the CSS dead and no JS scores 75, clearly below none dead',
    html: '<p>x</p>',
    evidence: { browser: browserEvidence(cov([], [[200, 100]])) },
    score: 75,
  },
  {
    name: 'small pages are not excused: 300 bytes of 1000 unused JS lowers the score (no Lighthouse threshold)',
    html: '<p>x</p>',
    evidence: { browser: browserEvidence(cov([[1000, 700]], [[50, 50]])) },
    score: 85,
  },
  {
    name: 'bytes, not files: sources of one language are pooled',
    html: '<p>x</p>',
    evidence: {
      browser: browserEvidence(
        cov(
          [
            [900, 900],
            [100, 0],
          ],
          [],
        ),
      ),
    },
    score: 95,
    details: (d) => assert.equal((d.js as { score: number }).score, 0.9),
  },
  {
    name: 'CSS rules that only style hover/focus of existing elements count as used',
    html: '<p>x</p>',
    evidence: { browser: browserEvidence(cov([], [[200, 100, 100]])) },
    score: 100,
  },
  {
    name: 'unscorable without any own JS or CSS',
    html: '<p>x</p>',
    evidence: { browser: browserEvidence(cov([], [])) },
    unscorable: /no own JavaScript or CSS/,
  },
  {
    name: "unscorable with the session's reason when coverage was not collected",
    html: '<p>x</p>',
    evidence: { browser: browserEvidence({ unavailable: { coverage: 'coverage timed out (page did not respond)' } }) },
    unscorable: /coverage timed out/,
  },
  { name: 'unscorable when the browser failed', html: '<p>x</p>', evidence: { browser: missing('no Chrome') }, unscorable: 'no Chrome' },
]);

describe('dead-code with the interaction probe', () => {
  const probe = (js: Array<[string, number, number]>) =>
    gathered({
      ...(interactionEvidence({}) as { ok: true; value: InteractionEvidence }).value,
      coverage: { js: js.map(([source, totalBytes, usedBytes]) => ({ source, totalBytes, usedBytes })) },
    });
  testMetric(deadCode, [
    {
      name: "code that ran only on interaction counts as used: the probe's coverage replaces the load's",
      html: '<p>x</p>',
      evidence: { browser: browserEvidence(cov([[1000, 600]], [])), interaction: probe([['index.html#inline-1', 1000, 950]]) },
      score: 97.5,
      details: (d) => assert.equal(d.interactionCovered, true),
    },
    {
      name: 'per source, never less than the visit saw',
      html: '<p>x</p>',
      evidence: { browser: browserEvidence(cov([[1000, 700]], [])), interaction: probe([['index.html#inline-1', 1000, 500]]) },
      score: 85,
    },
    {
      name: "without the probe's coverage, the load's, and the details say why",
      html: '<p>x</p>',
      evidence: { browser: browserEvidence(cov([[1000, 600]], [])), interaction: missing('the interaction probe failed: boom') },
      score: 80,
      details: (d) => {
        assert.equal(d.interactionCovered, false);
        assert.match(String(d.note), /boom/);
      },
    },
  ]);
});
