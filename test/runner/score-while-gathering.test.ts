/**
 * The scorer scores the metrics whose evidence is complete while the gatherers run (runner/gathering.ts says
 * when). These tests use gatherers written here (no browser) that return synthetic evidence, and check that
 * overlapping changes nothing in the results: the same scores in the same order as scoring after gathering,
 * metrics that need a gatherer's evidence are never scored before it is over, and a gatherer that throws fails
 * only its own metrics.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence } from '../../core/evidence.js';
import type { GatherContext, GatheredParts, Gatherer } from '../../core/gatherer.js';
import { Scorer, type ScoreDocument } from '../../runner/score.js';
import { browserEvidence, htmlOfLines, lighthouseEvidence } from '../metrics/synthetic-browser.js';
import { writeSingleFile } from '../helpers.js';

const MOBILE = { device: 'iPhone 12 Pro', viewportWidth: 390, scrollWidth: 420, clientWidth: 390, overflowPx: 30, offenders: [] };

/** Fills `browser` with one console.error and the phone measurement after a short wait (or throws). */
class FakeVisit implements Gatherer {
  readonly meta = { id: 'fake-visit', provides: ['browser', 'mobile'], fills: ['browser'] } as const;
  /** What was scored when it returned (the scorer's results are not visible here: the ids the test saw). */
  constructor(readonly mode: 'fill' | 'throw') {}
  async gather(): Promise<GatheredParts> {
    await new Promise((r) => setTimeout(r, 50));
    if (this.mode === 'throw') throw new Error('gatherer blew up');
    return { browser: browserEvidence({ console: [{ level: 'error', text: 'boom' }], mobile: MOBILE }) };
  }
  async close(): Promise<void> {}
}

const ONLY = ['lint', 'comment-rate', 'console-errors', 'error-handling', 'copywriting', 'mobile-compat'];
const page = writeSingleFile(
  htmlOfLines(1000).replace(
    '</p>\n',
    '</p>\n<script>\n// a comment\nfunction f(){ try { JSON.parse("x") } catch (e) { console.error(e) } }\nf();\n</script>\n',
  ),
);

async function scoreWith(gatherers: Gatherer[], only = ONLY): Promise<ScoreDocument> {
  const scorer = new Scorer({ only, gatherers });
  try {
    return await scorer.score(page);
  } finally {
    await scorer.close();
  }
}

/** Scores after gathering, with nothing overlapped: the same evidence scored by scoreEvidence. */
async function scoreAfter(gatherers: Gatherer[], only = ONLY): Promise<ScoreDocument> {
  const scorer = new Scorer({ only, gatherers });
  try {
    const { evidence } = await scorer.scoreWithEvidence(page);
    const fresh = new Scorer({ only, gatherers: [] });
    try {
      return await fresh.scoreEvidence(evidence);
    } finally {
      await fresh.close();
    }
  } finally {
    await scorer.close();
  }
}

const summary = (doc: ScoreDocument) => doc.metrics.map((m) => ({ id: m.id, score: m.score, reason: m.reason }));

describe('scoring while gathering', () => {
  it('gives the same scores, in the same order, as scoring after gathering', async () => {
    const overlapped = await scoreWith([new FakeVisit('fill')]);
    const after = await scoreAfter([new FakeVisit('fill')]);
    assert.deepEqual(summary(overlapped), summary(after));
    assert.deepEqual(
      overlapped.metrics.map((m) => m.id),
      ONLY.map((id) => id),
    );
  });

  it('scores the static metrics while a gatherer runs, and says how long that took', async () => {
    const doc = await scoreWith([new FakeVisit('fill')]);
    assert.ok((doc.timings.scoreWhileGathering ?? 0) > 0, JSON.stringify(doc.timings));
    assert.ok(doc.timings['gather.fake-visit']! >= 40, JSON.stringify(doc.timings));
  });

  it('never scores a metric early whose evidence a running gatherer has yet to fill', async () => {
    const doc = await scoreWith([new FakeVisit('fill')]);
    const ce = doc.metrics.find((m) => m.id === 'console-errors');
    assert.equal(ce?.details.errors, 1, JSON.stringify(ce));
    assert.equal(doc.metrics.find((m) => m.id === 'mobile-compat')?.score, 70);
  });

  it('a gatherer that throws fails only the metrics that need its evidence, with its error as the reason', async () => {
    const doc = await scoreWith([new FakeVisit('throw')]);
    const own = ['console-errors', 'mobile-compat'];
    for (const id of own) {
      const m = doc.metrics.find((x) => x.id === id);
      assert.equal(m?.score, null, id);
      assert.match(String(m?.reason), /fake-visit failed: gatherer blew up/);
    }
    for (const m of doc.metrics.filter((x) => !own.includes(x.id))) assert.ok(typeof m.score === 'number', `${m.id}: ${JSON.stringify(m)}`);
  });

  it('a metric waits for every gatherer that provides one of its needs', async () => {
    // Two providers of `mobile`: mobile-compat is scored after the later one, with its measurement.
    class Phone implements Gatherer {
      readonly meta = { id: 'phone', provides: ['mobile'], fills: [], amends: ['browser'] } as const;
      async gather(ctx: GatherContext): Promise<GatheredParts> {
        await new Promise((r) => setTimeout(r, 30));
        const b = ctx.evidence.browser;
        if (b?.ok) b.value.mobile = { ...MOBILE, overflowPx: 0, scrollWidth: 390 };
        return {};
      }
      async close(): Promise<void> {}
    }
    const doc = await scoreWith([new Phone(), new FakeVisit('fill')]);
    assert.equal(doc.metrics.find((m) => m.id === 'mobile-compat')?.score, 100);
  });

  it('announces each need to the other gatherers and to the caller once, when its gatherers are over', async () => {
    const seen: string[] = [];
    class Shooter implements Gatherer {
      readonly meta = { id: 'shooter', provides: ['browser', 'screenshot'], fills: ['browser'] } as const;
      async gather(): Promise<GatheredParts> {
        seen.push('shooter gathering');
        return { browser: browserEvidence({}) };
      }
      async close(): Promise<void> {}
    }
    class Listener implements Gatherer {
      readonly meta = { id: 'listener', provides: ['lighthouse'], fills: ['lighthouse'], reads: ['browser'] } as const;
      ready(_e: Evidence, done: readonly string[]): void {
        seen.push(`listener: ${done.join(' ')}`);
      }
      async gather(): Promise<GatheredParts> {
        return { lighthouse: lighthouseEvidence({ performance: 0.5 }) };
      }
      async close(): Promise<void> {}
    }
    const scorer = new Scorer({ only: ['performance', 'console-errors'], gatherers: [new Listener(), new Shooter()] });
    try {
      const { doc } = await scorer.scoreWithEvidence(page, {}, { ready: (_e, done) => seen.push(`caller: ${done.join(' ')}`) });
      assert.equal(doc.metrics.find((m) => m.id === 'performance')?.score, 50);
    } finally {
      await scorer.close();
    }
    assert.deepEqual(seen, ['shooter gathering', 'listener: browser screenshot', 'caller: browser screenshot', 'caller: lighthouse']);
  });
});
