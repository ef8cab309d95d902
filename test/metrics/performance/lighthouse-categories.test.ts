import assert from 'node:assert/strict';
import performanceMetric from '../../../metrics/performance/performance.js';
import accessibility from '../../../metrics/accessibility/accessibility.js';
import bestPractices from '../../../metrics/code/best-practices.js';
import { missing } from '../../../core/evidence.js';
import { testMetric } from '../../metric-tester.js';
import { lighthouseEvidence } from '../synthetic-browser.js';

const lh = lighthouseEvidence(
  { performance: 0.87, accessibility: 0.93, 'best-practices': 1 },
  {
    audits: {
      'color-contrast': { score: 0, scoreDisplayMode: 'binary', title: 'Contrast' },
      'image-alt': { score: 1, scoreDisplayMode: 'binary', title: 'Alt' },
      'largest-contentful-paint': { score: 0.6, scoreDisplayMode: 'numeric', title: 'LCP', displayValue: '3.1 s' },
    },
  },
);

testMetric(performanceMetric, [
  { name: "performance is Lighthouse's category score × 100", html: '<p>x</p>', evidence: { lighthouse: lh }, score: 87 },
  {
    name: "performance is unscorable with Lighthouse's runtime error when the category is null",
    html: '<p>x</p>',
    evidence: { lighthouse: lighthouseEvidence({ performance: null }, { runtimeError: 'NO_FCP: The page did not paint any content.' }) },
    unscorable: /NO_FCP/,
  },
  {
    name: "performance is unscorable with the failing audits' errors when Lighthouse gives no score and no runtime error (NO_LCP)",
    html: '<p>x</p>',
    evidence: {
      lighthouse: lighthouseEvidence(
        { performance: null },
        {
          audits: {
            'largest-contentful-paint': { score: null, scoreDisplayMode: 'error', title: 'LCP', errorMessage: 'NO_LCP' },
            'first-contentful-paint': { score: 1, scoreDisplayMode: 'numeric', title: 'FCP' },
          },
          lhr: {
            categories: {
              performance: {
                auditRefs: [
                  { id: 'first-contentful-paint', weight: 10 },
                  { id: 'largest-contentful-paint', weight: 25 },
                ],
              },
            },
          },
        },
      ),
    },
    unscorable: /audits failed \(largest-contentful-paint: NO_LCP\)/,
  },
  {
    name: 'performance is unscorable with the reason Lighthouse did not run',
    html: '<p>x</p>',
    evidence: { lighthouse: missing('Lighthouse not run: the page did not finish loading') },
    unscorable: /did not finish loading/,
  },
  { name: 'performance is unscorable without Lighthouse evidence', html: '<p>x</p>', unscorable: /not run/ },
]);

testMetric(accessibility, [
  {
    name: "accessibility is Lighthouse's category score × 100 and lists failing audits",
    html: '<p>x</p>',
    evidence: { lighthouse: lh },
    score: 93,
    details: (d) => {
      const ids = (d.failingAudits as Array<{ id: string }>).map((a) => a.id);
      assert.ok(ids.includes('color-contrast'));
      assert.ok(!ids.includes('image-alt'));
    },
  },
]);

testMetric(bestPractices, [
  { name: "best-practices is Lighthouse's category score × 100", html: '<p>x</p>', evidence: { lighthouse: lh }, score: 100 },
  {
    name: 'best-practices is unscorable when the report lacks the category',
    html: '<p>x</p>',
    evidence: { lighthouse: lighthouseEvidence({ performance: 1 }) },
    unscorable: /no best-practices category/,
  },
]);
