/**
 * `wide-block` on a page without `<meta name="viewport">` (issue 36): Chrome lays such a page out 980 px wide on
 * the phone, so the operator widens past that, and mobile-compat (real Chrome, iPhone 12 Pro emulation) must drop.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MutationRunner } from '../../mutate/run.js';
import { fixture } from '../helpers.js';

describe('wide-block on a page without a viewport meta (real Chrome)', { timeout: 600_000 }, () => {
  const runner = new MutationRunner({ suite: 'study', scope: 'targets', operators: ['wide-block'], budgetMs: 240_000 });
  after(() => runner.close());

  it('mobile-compat is 100 on the original and drops on the mutant', async () => {
    const report = await runner.run(fixture('mutate', 'no-viewport'));
    const op = report.operators.find((o) => o.id === 'wide-block')!;
    assert.equal(op.applied, true, op.reason);
    const s = op.scores['mobile-compat']!;
    assert.equal(s.base, 100, JSON.stringify(op));
    assert.equal(op.detected['mobile-compat'], true, JSON.stringify(op));
    assert.ok(s.mutant !== null && s.mutant < 100, JSON.stringify(s));
  });
});
