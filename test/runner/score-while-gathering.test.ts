/**
 * The scorer offers each gatherer the metrics whose evidence is complete as `request.background`, to run while
 * the gatherer is busy; the gatherer may declare some of its own needs finished. These tests use a gatherer
 * written here (no browser) that fills synthetic browser evidence, and check that overlapping changes nothing
 * in the results: the same scores in the same order, metrics that need the gatherer's own evidence are never
 * scored before it declares that evidence finished (and those it declares are scored at that moment), and a
 * gatherer that ignores the offer (or throws) still gets every metric scored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence } from '../../core/evidence.js';
import type { Gatherer, GatherRequest } from '../../runner/gatherers.js';
import { missing } from '../../core/evidence.js';
import { Scorer, type ScoreDocument } from '../../runner/score.js';
import { browserEvidence, htmlOfLines, lighthouseEvidence } from '../metrics/synthetic-browser.js';
import { writeSingleFile } from '../helpers.js';

type Mode = 'background-first' | 'ignore' | 'throw-after-background' | 'declare-browser-done';

const MOBILE = { device: 'iPhone 12 Pro', viewportWidth: 390, scrollWidth: 420, clientWidth: 390, overflowPx: 30, offenders: [] };

/**
 * Fills `browser` with one console.error, after (optionally) starting the scorer's background work. In
 * 'declare-browser-done' it fills `browser`, declares it finished, and only then adds a second console error
 * and the phone measurement (`mobile`, still pending): a metric scored at the declared moment sees one error,
 * one scored later sees two.
 */
class FakeBrowserGatherer implements Gatherer {
  readonly name = 'fake-browser';
  readonly provides = ['browser', 'mobile'] as const;
  offered = false;

  constructor(readonly mode: Mode) {}

  async gather(evidence: Evidence, request: GatherRequest): Promise<void> {
    this.offered = typeof request.background === 'function';
    if (this.mode === 'declare-browser-done') {
      const b = browserEvidence({ console: [{ level: 'error', text: 'boom' }] });
      evidence.browser = b;
      await request.background?.(['browser']);
      if (!b.ok) throw new Error('synthetic evidence is always gathered');
      b.value.console.push({ level: 'error', text: 'second boom' });
      b.value.mobile = MOBILE;
      return;
    }
    if (this.mode === 'background-first' || this.mode === 'throw-after-background') await request.background?.();
    if (this.mode === 'throw-after-background') throw new Error('gatherer blew up');
    // Filled only after the background work ran: a metric that needs `browser` and was scored early would see
    // no evidence at all.
    evidence.browser = browserEvidence({ console: [{ level: 'error', text: 'boom' }], mobile: MOBILE });
  }

  fail(evidence: Evidence, reason: string): void {
    evidence.browser = missing(reason);
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

async function scoreWith(mode: Mode): Promise<{ doc: ScoreDocument; gatherer: FakeBrowserGatherer }> {
  const gatherer = new FakeBrowserGatherer(mode);
  const scorer = new Scorer({ only: ONLY, gatherers: [gatherer] });
  try {
    return { doc: await scorer.score(page), gatherer };
  } finally {
    await scorer.close();
  }
}

const summary = (doc: ScoreDocument) => doc.metrics.map((m) => ({ id: m.id, score: m.score, reason: m.reason }));

describe('scoring while gathering', () => {
  it('gives the same scores, in the same order, as scoring after gathering', async () => {
    const overlapped = await scoreWith('background-first');
    const sequential = await scoreWith('ignore');
    assert.deepEqual(summary(overlapped.doc), summary(sequential.doc));
    assert.deepEqual(
      overlapped.doc.metrics.map((m) => m.id),
      sequential.doc.metrics.map((m) => m.id),
    );
  });

  it('reports the overlapped time only when the gatherer ran the background work', async () => {
    const overlapped = await scoreWith('background-first');
    assert.ok(overlapped.gatherer.offered, 'background work was not offered');
    assert.ok((overlapped.doc.timings.scoreWhileGathering ?? 0) > 0, JSON.stringify(overlapped.doc.timings));
    const sequential = await scoreWith('ignore');
    assert.equal(sequential.doc.timings.scoreWhileGathering, undefined);
  });

  it('never scores a metric early whose evidence the running gatherer has yet to fill', async () => {
    const { doc } = await scoreWith('background-first');
    const ce = doc.metrics.find((m) => m.id === 'console-errors');
    assert.equal(ce?.details.errors, 1, JSON.stringify(ce));
    assert.ok(ce.score !== null && ce.score < 100, JSON.stringify(ce));
  });

  it('a gatherer that ignores the offer still gets every metric scored', async () => {
    const { doc } = await scoreWith('ignore');
    assert.deepEqual(doc.metrics.map((m) => m.id).sort(), [...ONLY].sort());
    for (const m of doc.metrics) assert.ok(typeof m.score === 'number', `${m.id}: ${JSON.stringify(m)}`);
  });

  it('a gatherer that throws after starting the background work keeps the early scores and fails only its own metrics', async () => {
    const { doc } = await scoreWith('throw-after-background');
    const own = ['console-errors', 'mobile-compat'];
    for (const id of own) {
      const m = doc.metrics.find((x) => x.id === id);
      assert.equal(m?.score, null, id);
      assert.match(String(m?.reason), /gatherer blew up/);
    }
    for (const m of doc.metrics.filter((x) => !own.includes(x.id))) assert.ok(typeof m.score === 'number', `${m.id}: ${JSON.stringify(m)}`);
  });

  it('scores the metrics of needs the gatherer declares finished at that moment, and no others', async () => {
    const { doc } = await scoreWith('declare-browser-done');
    const ce = doc.metrics.find((m) => m.id === 'console-errors');
    assert.equal(ce?.details.errors, 1, `console-errors was not scored when browser was declared finished: ${JSON.stringify(ce)}`);
    // mobile-compat also needs `mobile`, which was still pending: scored after gathering, with the measurement.
    const mc = doc.metrics.find((m) => m.id === 'mobile-compat');
    assert.equal(mc?.score, 70, JSON.stringify(mc));
    assert.deepEqual(
      doc.metrics.map((m) => m.id),
      (await scoreWith('ignore')).doc.metrics.map((m) => m.id),
    );
  });

  it("a need declared finished by one gatherer is not taken as another gatherer's", async () => {
    // The scorer only honours `done` needs the declaring gatherer provides: declaring 'lighthouse' from a
    // gatherer that does not provide it must not release metrics waiting for it.
    const early: string[] = [];
    class Declarer implements Gatherer {
      readonly name = 'declarer';
      readonly provides = ['browser'] as const;
      async gather(evidence: Evidence, request: GatherRequest): Promise<void> {
        evidence.browser = browserEvidence({});
        await request.background?.(['browser', 'lighthouse']);
        early.push(...Object.keys(evidence).filter((k) => k === 'lighthouse'));
      }
      fail(): void {}
      async close(): Promise<void> {}
    }
    class LighthouseLate implements Gatherer {
      readonly name = 'late-lighthouse';
      readonly provides = ['lighthouse'] as const;
      async gather(evidence: Evidence): Promise<void> {
        evidence.lighthouse = lighthouseEvidence({ performance: 0.5 });
      }
      fail(): void {}
      async close(): Promise<void> {}
    }
    const scorer = new Scorer({ only: ['performance', 'console-errors'], gatherers: [new Declarer(), new LighthouseLate()] });
    try {
      const doc = await scorer.score(page);
      assert.equal(doc.metrics.find((m) => m.id === 'performance')?.score, 50);
    } finally {
      await scorer.close();
    }
  });

  it('announces a need to the other gatherers and to the caller when it is declared finished, once, before its gatherer returns', async () => {
    const seen: string[] = [];
    class Shooter implements Gatherer {
      readonly name = 'shooter';
      readonly provides = ['browser', 'screenshot'] as const;
      async gather(evidence: Evidence, request: GatherRequest): Promise<void> {
        evidence.browser = browserEvidence({});
        await request.background?.(['browser', 'screenshot']);
        seen.push('shooter still gathering');
        await request.background?.(['screenshot']);
      }
      fail(): void {}
      async close(): Promise<void> {}
    }
    class Listener implements Gatherer {
      readonly name = 'listener';
      readonly provides = ['lighthouse'] as const;
      ready(_e: Evidence, done: readonly string[]): void {
        seen.push(`listener: ${done.join(' ')}`);
      }
      async gather(evidence: Evidence): Promise<void> {
        evidence.lighthouse = lighthouseEvidence({ performance: 0.5 });
      }
      fail(): void {}
      async close(): Promise<void> {}
    }
    const scorer = new Scorer({ only: ['performance', 'console-errors'], gatherers: [new Shooter(), new Listener()] });
    try {
      await scorer.scoreWithEvidence(page, {}, { ready: (_e, done) => seen.push(`caller: ${done.join(' ')}`) });
    } finally {
      await scorer.close();
    }
    // The shooter's needs, as soon as declared; the listener's own need only to the caller, when it returns.
    assert.deepEqual(seen, ['listener: browser screenshot', 'caller: browser screenshot', 'shooter still gathering', 'caller: lighthouse']);
  });
});
