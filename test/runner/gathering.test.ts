/**
 * The gatherers' runner (runner/gathering.ts) derives everything from the gatherers' declarations: which run,
 * in what order, with what deadline, what a failure becomes, when scoring may run beside them, and the life of a
 * shared scope. These tests use toy gatherers (no browser) and the product's own registry.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence } from '../../core/evidence.js';
import type { EvidenceNeed } from '../../core/metric.js';
import type { GatherContext, GatheredParts, Gatherer, GathererMeta, GatherScope } from '../../core/gatherer.js';
import { deadlines, gatherEvidence, planGathering } from '../../runner/gathering.js';
import { closeGatherers, productGatherers } from '../../runner/gatherers.js';
import { staticEvidence } from '../../core/evidence.js';
import { loadArtifact } from '../../lib/artifact/load.js';
import { writeSingleFile } from '../helpers.js';
import { browserEvidence, lighthouseEvidence } from '../metrics/synthetic-browser.js';

const evidence = (): Evidence => staticEvidence(loadArtifact(writeSingleFile('<!doctype html><title>t</title><p>hi</p>')));
const needs = (...n: EvidenceNeed[]) => new Set<EvidenceNeed>(n);

/** A toy gatherer: records when it ran, returns `parts`, or throws. */
function toy(meta: Partial<GathererMeta> & { id: string }, log: string[] = [], behave: { ms?: number; parts?: GatheredParts; throws?: string } = {}): Gatherer {
  return {
    meta: { provides: [], fills: [], ...meta },
    async gather(ctx: GatherContext): Promise<GatheredParts> {
      log.push(`start ${meta.id}`);
      if (behave.ms) await new Promise((r) => setTimeout(r, behave.ms));
      log.push(`end ${meta.id}`);
      if (behave.throws) throw new Error(behave.throws);
      void ctx;
      return behave.parts ?? {};
    },
    async close() {},
  };
}

describe('the gatherers runner', () => {
  it('orders gatherers from what they read, amend and name in `after`, whatever the order they are listed in', () => {
    const judge = toy({ id: 'judge', provides: ['judge'], last: true });
    const tests = toy({ id: 'tests', provides: ['requirement-tests'], after: ['lh'] });
    const phone = toy({ id: 'phone', provides: ['mobile'], amends: ['browser'], reads: ['lighthouse'] });
    const lh = toy({ id: 'lh', provides: ['lighthouse'], reads: ['browser'] });
    const visit = toy({ id: 'visit', provides: ['browser', 'screenshot'], fills: ['browser'] });
    const order = planGathering([judge, tests, phone, lh, visit], needs('judge', 'requirement-tests', 'mobile', 'lighthouse', 'browser'), evidence());
    assert.deepEqual(
      order.map((g) => g.meta.id),
      ['visit', 'lh', 'tests', 'phone', 'judge'],
    );
  });

  it('runs a new gatherer where its declarations put it: its own module and one registry line, no other change', async () => {
    // A toy gatherer appended to the product's registry that reads the visit's evidence: the runner places it
    // after the visit, among the product's gatherers, and the judges (declared `last`) stay last.
    const watch = toy({ id: 'toy-watch', provides: ['requirement'], reads: ['browser'] });
    const product = [...productGatherers({ checkNetwork: false, budgetMs: 60_000 }), watch];
    const order = planGathering(product, needs('browser', 'lighthouse', 'interaction', 'mobile', 'requirement', 'judge'), evidence()).map((g) => g.meta.id);
    assert.deepEqual(order, ['visit', 'probe', 'lighthouse', 'phone', 'toy-watch', 'judge']);
    const first = planGathering([watch, ...product.slice(0, -1)], needs('browser', 'requirement'), evidence()).map((g) => g.meta.id);
    assert.deepEqual(first, ['visit', 'toy-watch'], 'listed first, it still waits for what it reads');
    const withWatch = planGathering(product, needs('browser', 'lighthouse', 'interaction', 'runtime'), evidence()).map((g) => g.meta.id);
    assert.deepEqual(withWatch, ['visit', 'runtime', 'probe', 'lighthouse'], 'the runtime watch: after the visit, before the probe and Lighthouse');
    await closeGatherers(product);
  });

  it('runs only the gatherers a selected metric needs (or whose own `active` says so)', () => {
    const a = toy({ id: 'a', provides: ['browser'] });
    const b = toy({ id: 'b', provides: ['lighthouse'] });
    const c: Gatherer = { ...toy({ id: 'c', provides: ['reference'] }), active: (_n, e) => !!e.reference };
    assert.deepEqual(
      planGathering([a, b, c], needs('browser', 'reference'), evidence()).map((g) => g.meta.id),
      ['a'],
    );
  });

  it('runs the providers of what an active gatherer `requires`, before it, though no selected metric needs them', () => {
    const visit = toy({ id: 'visit', provides: ['browser', 'screenshot'] });
    const lh = toy({ id: 'lh', provides: ['lighthouse'], requires: ['browser'] });
    const probe = toy({ id: 'probe', provides: ['interaction'], reads: ['browser'] });
    const ids = (n: Set<EvidenceNeed>) => planGathering([lh, probe, visit], n, evidence()).map((g) => g.meta.id);
    assert.deepEqual(ids(needs('lighthouse')), ['visit', 'lh']);
    assert.deepEqual(ids(needs('interaction')), ['probe'], 'what a gatherer only reads does not make its provider run');
    assert.deepEqual(ids(needs('interaction', 'lighthouse')), ['visit', 'lh', 'probe']);
    // Required in a chain: each provider's own requirements are added in turn.
    const site = toy({ id: 'site', provides: ['network'] });
    const visit2 = toy({ id: 'visit', provides: ['browser'], requires: ['network'] });
    assert.deepEqual(
      planGathering([lh, visit2, site], needs('lighthouse'), evidence()).map((g) => g.meta.id),
      ['site', 'visit', 'lh'],
    );
  });

  it("runs the product's visit with Lighthouse alone: what the visit sees sets how long Lighthouse watches", async () => {
    const product = productGatherers({ checkNetwork: false, budgetMs: 60_000 });
    assert.deepEqual(
      planGathering(product, needs('lighthouse'), evidence()).map((g) => g.meta.id),
      ['visit', 'lighthouse'],
    );
    await closeGatherers(product);
  });

  it('reports a cycle in the declarations, naming the gatherers', () => {
    const a = toy({ id: 'a', provides: ['browser'], after: ['b'] });
    const b = toy({ id: 'b', provides: ['lighthouse'], reads: ['browser'] });
    assert.throws(() => planGathering([a, b], needs('browser', 'lighthouse'), evidence()), /cycle among: a, b/);
  });

  it('gives each gatherer the deadline its successors reserve: the largest reserve after it, a share of a short budget', () => {
    const order = [
      toy({ id: 'visit' }),
      toy({ id: 'lh', reserve: { ms: 25_000, share: 0.45 } }),
      toy({ id: 'phone', reserve: { ms: 8_000, share: 0.15 } }),
      toy({ id: 'tests' }),
    ];
    assert.deepEqual(deadlines(order, 0, 60_000), [35_000, 52_000, 60_000, 60_000]);
    assert.deepEqual(deadlines(order, 0, 20_000), [11_000, 17_000, 20_000, 20_000]);
  });

  it("marks a failed gatherer's parts missing with its error and goes on with the others", async () => {
    const log: string[] = [];
    const e = evidence();
    const failed: string[] = [];
    const bad: Gatherer = {
      ...toy({ id: 'bad', provides: ['lighthouse'], fills: ['lighthouse'] }, log, { throws: 'it broke' }),
      fail: (_e, r) => failed.push(r),
    };
    const good = toy({ id: 'good', provides: ['browser'], fills: ['browser'] }, log, { parts: { browser: browserEvidence({}) } });
    await gatherEvidence([bad, good], e, { needs: needs('browser', 'lighthouse'), metrics: [], budgetMs: 10_000 });
    assert.deepEqual(e.lighthouse, { ok: false, reason: 'bad failed: it broke' });
    assert.deepEqual(failed, ['bad failed: it broke']);
    assert.ok(e.browser?.ok);
    assert.deepEqual(log, ['start bad', 'end bad', 'start good', 'end good']);
  });

  it('scores beside gatherers, never while an exclusive one runs, and with only the needs complete so far', async () => {
    const log: string[] = [];
    const e = evidence();
    const visit = toy({ id: 'visit', provides: ['browser'], fills: ['browser'] }, log, { ms: 30, parts: { browser: browserEvidence({}) } });
    const lh = toy({ id: 'lh', provides: ['lighthouse'], fills: ['lighthouse'], exclusive: true }, log, {
      ms: 30,
      parts: { lighthouse: lighthouseEvidence({ performance: 1 }) },
    });
    const report = await gatherEvidence([visit, lh], e, {
      needs: needs('source', 'browser', 'lighthouse'),
      metrics: [],
      budgetMs: 10_000,
      score: async (complete) => {
        log.push(`score ${[...complete].sort().join('+')} begins`);
        await new Promise((r) => setTimeout(r, 40));
        log.push(`score ${[...complete].sort().join('+')} ends`);
      },
    });
    assert.deepEqual(log, [
      'start visit',
      'score source begins', // the static metrics, at once, beside the visit
      'end visit',
      'score source ends',
      'score browser+source begins', // after the visit; the exclusive gatherer waits for it
      'score browser+source ends',
      'start lh',
      'end lh',
      'score browser+lighthouse+source begins',
      'score browser+lighthouse+source ends',
    ]);
    assert.deepEqual(report.order, ['visit', 'lh']);
    assert.ok(report.scoredWhileGatheringMs >= 100);
  });

  it('wraps each gatherer of a scope in it and ends the scope once, after its last gatherer, even after a failure', async () => {
    const log: string[] = [];
    const scope: GatherScope = {
      id: 'toy-scope',
      async within(_e, work) {
        log.push('enter');
        try {
          return await work();
        } finally {
          log.push('leave');
        }
      },
      async end() {
        log.push('end scope');
      },
      async close() {},
    };
    const a = toy({ id: 'a', provides: ['browser'], fills: ['browser'], scope }, log, { throws: 'no' });
    const b = toy({ id: 'b', provides: ['lighthouse'], fills: ['lighthouse'], scope }, log, { parts: { lighthouse: lighthouseEvidence({}) } });
    const c = toy({ id: 'c', provides: ['judge'], last: true }, log);
    await gatherEvidence([a, b, c], evidence(), { needs: needs('browser', 'lighthouse', 'judge'), metrics: [], budgetMs: 10_000 });
    assert.deepEqual(log, ['enter', 'start a', 'end a', 'leave', 'enter', 'start b', 'end b', 'leave', 'end scope', 'start c', 'end c']);
  });
});
