/**
 * Operators that insert the measured feature with its defect (issue 36), on a page that lacks the feature
 * (fixtures/mutate/no-viewport: no image, icon, card or risky code): the target is unscorable on the original and
 * must score below 100 on the mutant (mutate/run.ts), in real Chrome. shift-block is here too: it is the
 * layout-consistency operator for pages without repeated components.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { compare, judgeable, MutationRunner, type BaseStats } from '../../mutate/run.js';
import type { ScoreDocument } from '../../core/results.js';
import { fixture } from '../helpers.js';

const INSERTING = ['insert-placeholder', 'insert-blurry-image', 'insert-mixed-icons', 'insert-odd-card', 'unprotected-storage'];

describe('inserting operators (the detection rule)', () => {
  const base = (b: number | null): Record<string, BaseStats> => ({ m: { base: b, noise: 0, values: [b], ...(b === null ? { reason: 'no images' } : {}) } });
  const doc = (score: number | null) => ({ metrics: [{ id: 'm', score }] }) as unknown as ScoreDocument;
  it('judged on the inserted feature alone when the original had nothing to measure; not for other operators', () => {
    const hit = compare({ targets: ['m'], inserts: true }, base(null), doc(41.5), ['m']);
    assert.equal(hit.detected.m, true);
    assert.match(hit.notes!.m!, /nothing to measure on the original/);
    assert.equal(compare({ targets: ['m'], inserts: true }, base(null), doc(100), ['m']).detected.m, false);
    const plain = compare({ targets: ['m'] }, base(null), doc(41.5), ['m']);
    assert.equal(plain.detected.m, false);
    assert.match(plain.notes!.m!, /unscorable on the original/);
    assert.equal(compare({ targets: ['m'], inserts: true }, base(80), doc(70), ['m']).detected.m, true);
  });
  it('a target unscorable on both says why on each', () => {
    const both = compare(
      { targets: ['m'], inserts: true },
      base(null),
      { metrics: [{ id: 'm', score: null, reason: 'trace start: timed out' }] } as unknown as ScoreDocument,
      ['m'],
    );
    assert.equal(both.detected.m, false);
    assert.equal(both.notes!.m, 'unscorable on the original: no images; on the mutant: trace start: timed out');
  });
  it('a target the mutant left where it was says what the mutant scored it on', () => {
    const missed = compare(
      { targets: ['m'] },
      base(100),
      { metrics: [{ id: 'm', score: 100, summary: '4 of 4 controls acted on answered' }] } as unknown as ScoreDocument,
      ['m'],
    );
    assert.equal(missed.detected.m, false);
    assert.equal(missed.notes!.m, 'the mutant: 4 of 4 controls acted on answered');
    const hit = compare({ targets: ['m'] }, base(100), { metrics: [{ id: 'm', score: 75, summary: '3 of 4' }] } as unknown as ScoreDocument, ['m']);
    assert.equal(hit.notes, undefined);
  });
});

describe('inserting operators and shift-block on a page without the features (real Chrome)', { timeout: 600_000 }, () => {
  const runner = new MutationRunner({ suite: 'study', scope: 'targets', operators: [...INSERTING, 'shift-block'], budgetMs: 240_000 });
  after(() => runner.close());

  it('every target of the inserting operators is detected: from unscorable to below 100', async () => {
    const report = await runner.run(fixture('mutate', 'no-viewport'));
    const misses: string[] = [];
    for (const o of report.operators.filter((x) => INSERTING.includes(x.id))) {
      assert.equal(o.applied, true, `${o.id}: ${o.reason}`);
      for (const t of o.targets) {
        if (!o.detected[t]) misses.push(`${o.id} → ${t}: ${JSON.stringify(o.scores[t])} ${o.notes?.[t] ?? ''}`);
        if (INSERTING.includes(o.id)) assert.ok(judgeable(o, t), `${o.id} → ${t} is judged: ${o.notes?.[t]}`);
      }
    }
    assert.deepEqual(misses, []);
  });

  it("shift-block moves a heading's paragraph out of line on the rich fixture: layout-consistency drops", async () => {
    // on the plain page the shifted paragraph was already a near miss of its heading's edge (glyph side bearings),
    // so 4 px more changed nothing there: shift-block's blind spot, documented in docs/mutation-testing.md
    const report = await runner.run(fixture('mutate', 'rich'));
    const o = report.operators.find((x) => x.id === 'shift-block')!;
    assert.equal(o.applied, true, o.reason);
    assert.equal(o.detected['layout-consistency'], true, JSON.stringify(o.scores));
  });
});
