import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LighthouseEvidence } from '../../core/evidence.js';
import { medianPerformance, traceFault } from '../../gather/lighthouse.js';

const run = (perf: number | null, lcp: number, extra: Partial<LighthouseEvidence> = {}): LighthouseEvidence => ({
  lighthouseVersion: '12.8.2',
  categories: { performance: { score: perf, title: 'Performance' }, accessibility: { score: 0.9, title: 'Accessibility' } },
  audits: {
    'largest-contentful-paint': { score: lcp, scoreDisplayMode: 'numeric', title: 'LCP' },
    'color-contrast': { score: 0, scoreDisplayMode: 'binary', title: 'Contrast' },
  },
  runWarnings: [],
  lhr: { categories: { performance: { auditRefs: [{ id: 'largest-contentful-paint' }] } } },
  ...extra,
});

describe('the median of several Lighthouse runs', () => {
  it('takes performance and its audits from the median run, the other categories from the full first run', () => {
    const first = run(0.89, 0.5);
    const out = medianPerformance([first, run(1, 1), run(0.97, 0.8)]);
    assert.equal(out.categories.performance!.score, 0.97);
    assert.equal(out.audits['largest-contentful-paint']!.score, 0.8);
    assert.equal(out.audits['color-contrast']!.score, 0);
    assert.equal(out.categories.accessibility!.score, 0.9);
    assert.deepEqual(out.performanceRuns, [0.89, 1, 0.97]);
    assert.equal(out.performanceRun, 2);
  });

  it('takes the lower median of an even count, and leaves runs without a score out of it', () => {
    assert.equal(medianPerformance([run(1, 1), run(0.9, 0.5)]).categories.performance!.score, 0.9);
    const out = medianPerformance([run(null, 0), run(0.95, 0.7), run(0.8, 0.2)]);
    assert.equal(out.categories.performance!.score, 0.8);
    assert.deepEqual(out.performanceRuns, [null, 0.95, 0.8]);
  });

  it('keeps a single run as it is, and the full run when no run has a score', () => {
    const one = run(0.5, 0.5);
    assert.equal(medianPerformance([one]), one);
    assert.equal(medianPerformance([run(null, 0), run(null, 0)]).categories.performance!.score, null);
  });
});

describe('a Lighthouse run whose trace Chrome left incomplete', () => {
  const withError = (errorMessage: string): LighthouseEvidence => {
    const r = run(null, 0);
    r.audits.doctype = { score: null, scoreDisplayMode: 'error', title: 'Doctype', errorMessage };
    return r;
  };

  it('is recognised by the error Lighthouse gives for it (no renderer thread, no start or navigation event)', () => {
    assert.equal(traceFault(withError('Unable to determine tid for renderer process')), 'doctype: Unable to determine tid for renderer process');
    assert.equal(
      traceFault(run(null, 0, { runtimeError: 'NO_TRACING_STARTED: No TracingStarted event found in trace' })),
      'NO_TRACING_STARTED: No TracingStarted event found in trace',
    );
    assert.equal(traceFault(withError('NO_NAVSTART')), 'doctype: NO_NAVSTART');
  });

  it('is not confused with what the page did (no paint, no LCP, a failing audit)', () => {
    assert.equal(traceFault(run(0.9, 1)), undefined);
    assert.equal(traceFault(run(null, 0, { runtimeError: 'NO_FCP: The page did not paint any content.' })), undefined);
    assert.equal(traceFault(withError('NO_LCP')), undefined);
  });
});
