import assert from 'node:assert/strict';
import codeRedundancy from '../../../metrics/maintainability/code-redundancy.js';
import deadCode from '../../../metrics/maintainability/dead-code.js';
import { missing } from '../../../core/evidence.js';
import { testMetric } from '../../metric-tester.js';
import { browserEvidence, lighthouseEvidence } from '../synthetic-browser.js';

type Audit = { score: number | null; scoreDisplayMode: string; title: string; displayValue?: string };
const lh = (js: Partial<Audit>, css: Partial<Audit>) =>
  lighthouseEvidence(
    { performance: 1 },
    {
      audits: {
        'unused-javascript': { score: 1, scoreDisplayMode: 'metricSavings', title: 'Reduce unused JavaScript', ...js },
        'unused-css-rules': { score: 1, scoreDisplayMode: 'metricSavings', title: 'Reduce unused CSS', ...css },
      },
    },
  );

// Half of the page's CSS is unused, but far below Lighthouse's 10 KiB threshold: Lighthouse lets it pass.
const halfCssDeadSmallPage = {
  lighthouse: lh({ scoreDisplayMode: 'notApplicable', score: null }, { score: 1 }),
  browser: browserEvidence({ coverage: { js: [], css: [{ source: 'style.css', totalBytes: 2000, usedBytes: 1000, interactionBytes: 0 }] } }),
};

testMetric(codeRedundancy, [
  { name: 'is the mean of the two Lighthouse audit scores × 100', html: '<p>x</p>', evidence: { lighthouse: lh({ score: 0.5 }, { score: 0.9 }) }, score: 70 },
  {
    name: 'gives full marks when neither audit applies',
    html: '<p>x</p>',
    evidence: { lighthouse: lh({ scoreDisplayMode: 'notApplicable', score: null }, { scoreDisplayMode: 'notApplicable', score: null }) },
    score: 100,
  },
  {
    name: 'counts an audit that does not apply as 1 beside one that does',
    html: '<p>x</p>',
    evidence: { lighthouse: lh({ score: 0.4, displayValue: 'Est savings of 40 KiB' }, { scoreDisplayMode: 'notApplicable', score: null }) },
    score: 70,
    details: (d) => assert.equal((d.audits as Record<string, { applies: boolean }>)['unused-css-rules']!.applies, false),
  },
  {
    name: "scores 100 for a small page with half its CSS unused (below Lighthouse's thresholds)",
    html: '<p>x</p>',
    evidence: halfCssDeadSmallPage,
    score: 100,
  },
  {
    name: 'is unscorable when an audit errored',
    html: '<p>x</p>',
    evidence: { lighthouse: lh({ score: null, scoreDisplayMode: 'error' }, { score: 1 }) },
    unscorable: /unused-javascript audit gave no score/,
  },
  {
    name: "is unscorable with Lighthouse's reason when it did not run",
    html: '<p>x</p>',
    evidence: { lighthouse: missing('Lighthouse not run: the page did not finish loading') },
    unscorable: /did not finish loading/,
  },
]);

testMetric(deadCode, [{ name: 'scores the same small page below 100: every byte counts', html: '<p>x</p>', evidence: halfCssDeadSmallPage, score: 75 }]);
