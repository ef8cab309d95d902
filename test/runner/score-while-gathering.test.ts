/**
 * The scorer offers each gatherer the metrics whose evidence is already complete as `request.background`, to
 * run while the gatherer waits. These tests use a gatherer written here (no browser) that fills synthetic
 * browser evidence, and check that overlapping changes nothing in the results: the same scores in the same
 * order, metrics that need the gatherer's own evidence are never scored early, and a gatherer that ignores the
 * offer (or throws) still gets every metric scored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence } from '../../runner/evidence.js';
import type { Gatherer, GatherRequest } from '../../runner/gatherers.js';
import { missing } from '../../runner/evidence.js';
import { Scorer, type ScoreDocument } from '../../runner/score.js';
import { browserEvidence, htmlOfLines } from '../metrics/synthetic-browser.js';
import { writeSingleFile } from '../helpers.js';

type Mode = 'background-first' | 'ignore' | 'throw-after-background' | 'call-twice';

/** Fills `browser` with one console.error, after (optionally) starting the scorer's background work. */
class FakeBrowserGatherer implements Gatherer {
  readonly name = 'fake-browser';
  readonly provides = ['browser'] as const;
  offered = false;
  samePromise?: boolean;

  constructor(readonly mode: Mode) {}

  async gather(evidence: Evidence, request: GatherRequest): Promise<void> {
    this.offered = typeof request.background === 'function';
    if (this.mode === 'call-twice' && request.background) this.samePromise = request.background() === request.background();
    if (this.mode === 'background-first' || this.mode === 'throw-after-background') await request.background?.();
    if (this.mode === 'throw-after-background') throw new Error('gatherer blew up');
    // Filled only after the background work ran: a metric that needs `browser` and was scored early would see
    // no evidence at all.
    evidence.browser = browserEvidence({ console: [{ level: 'error', text: 'boom' }] });
  }

  fail(evidence: Evidence, reason: string): void {
    evidence.browser = missing(reason);
  }

  async close(): Promise<void> {}
}

const ONLY = ['lint', 'comment-rate', 'console-errors', 'error-handling', 'copywriting'];
const page = writeSingleFile(
  htmlOfLines(1000).replace('</p>\n', '</p>\n<script>\n// a comment\nfunction f(){ try { JSON.parse("x") } catch (e) { console.error(e) } }\nf();\n</script>\n'),
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
    assert.deepEqual(overlapped.doc.metrics.map((m) => m.id), sequential.doc.metrics.map((m) => m.id));
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
    const ce = doc.metrics.find((m) => m.id === 'console-errors');
    assert.equal(ce?.score, null);
    assert.match(String(ce?.reason), /gatherer blew up/);
    for (const m of doc.metrics.filter((x) => x.id !== 'console-errors')) assert.ok(typeof m.score === 'number', `${m.id}: ${JSON.stringify(m)}`);
  });

  it('calling the background work twice returns the same promise (it runs once)', async () => {
    const { gatherer } = await scoreWith('call-twice');
    assert.equal(gatherer.samePromise, true);
  });
});
