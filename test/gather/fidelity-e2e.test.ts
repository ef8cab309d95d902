/**
 * The fidelity metrics end to end in the real browser (Chrome behind the sandbox, offline): the fixture landing page
 * against itself, a copy with its blocks reordered, a copy with its colours inverted and an empty page; the
 * reference cache (rendered, then from memory, then from disk in a fresh scorer); a PNG reference; the score
 * document's reference record; and the `--reference` CLI's bad input. A Design2Code pair is scored when the
 * shared corpus is there.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Scorer, type ScoreDocument } from '../../runner/score.js';
import { corpusDir, fixture, runCli } from '../helpers.js';
import type { ReferenceInput } from '../../core/fidelity.js';
import { recordedViews } from '../metrics/fidelity/recorded.js';

const ONLY = ['visual-fidelity', 'component-fidelity'];
const page = (name: string) => fixture('fidelity', `${name}.html`);
const ref = (name: string): ReferenceInput => ({ path: page(name), kind: 'artifact' });
const metric = (doc: ScoreDocument, id: string) => doc.metrics.find((m) => m.id === id)!;
type Subs = Record<string, number | null>;
const subs = (doc: ScoreDocument, id: string) => (metric(doc, id).details.viewports as Array<{ viewport: string; subScores: Subs }>).map((v) => v.subScores);

describe('fidelity in the real browser', { timeout: 240_000 }, () => {
  let cache: string;
  let scorer: Scorer;
  before(() => {
    cache = mkdtempSync(join(tmpdir(), 'webgrade-fidelity-cache-'));
    scorer = new Scorer({ suite: 'extended', only: ONLY, network: { mode: 'offline' }, fidelityCache: cache });
  });
  after(async () => {
    await scorer.close();
    rmSync(cache, { recursive: true, force: true });
  });

  it('page vs itself: 100 on every sub-score of both metrics at every viewport; the reference is rendered once, then cached', async () => {
    const doc = await scorer.score(page('landing'), { reference: ref('landing') });
    assert.equal(metric(doc, 'visual-fidelity').score, 100, JSON.stringify(metric(doc, 'visual-fidelity').details));
    assert.equal(metric(doc, 'component-fidelity').score, 100);
    for (const s of subs(doc, 'visual-fidelity')) assert.deepEqual(s, { size: 1, text: 1, position: 1, colour: 1 });
    for (const s of subs(doc, 'component-fidelity')) assert.deepEqual(s, { match: 1, position: 1, colour: 1, text: 1 });
    assert.ok(doc.reference && 'cache' in doc.reference);
    assert.equal(doc.reference.cache, 'rendered');
    assert.deepEqual(doc.reference.viewports, ['desktop', 'tablet', 'phone']);
    assert.equal(doc.reference.network, 'offline');
    const again = await scorer.score(page('landing'), { reference: ref('landing') });
    assert.ok(again.reference && 'cache' in again.reference && again.reference.cache === 'memory');
    const fresh = new Scorer({ suite: 'extended', only: ONLY, network: { mode: 'offline' }, fidelityCache: cache });
    try {
      const third = await fresh.score(page('landing'), { reference: ref('landing') });
      assert.ok(third.reference && 'cache' in third.reference && third.reference.cache === 'disk');
      assert.equal(metric(third, 'visual-fidelity').score, 100);
    } finally {
      await fresh.close();
    }
  });

  it('the renderer gives the views the recorded fixtures hold (so the table-driven tests stand for the real thing)', async () => {
    const { evidence } = await scorer.scoreWithEvidence(page('landing-shuffled'), { reference: ref('landing') });
    assert.ok(evidence.fidelity?.ok);
    const live = evidence.fidelity.value.pairs.map((p) => (p.candidate.ok ? p.candidate.value.blocks!.map((b) => b.text) : []));
    assert.deepEqual(
      live,
      recordedViews('landing-shuffled').map((v) => v.blocks!.map((b) => b.text)),
    );
  });

  it('blocks reordered, colours inverted, empty page: each sub-score moves the way it should', async () => {
    const shuffled = await scorer.score(page('landing-shuffled'), { reference: ref('landing') });
    for (const s of subs(shuffled, 'visual-fidelity')) {
      assert.equal(s.text, 1);
      assert.equal(s.colour, 1);
      assert.ok(s.position! < 0.8, `position ${s.position}`);
    }
    const inverted = await scorer.score(page('landing-inverted'), { reference: ref('landing') });
    for (const s of subs(inverted, 'visual-fidelity')) {
      assert.equal(s.text, 1);
      assert.equal(s.position, 1);
      assert.ok(s.colour! < 0.7, `colour ${s.colour}`);
    }
    for (const s of subs(inverted, 'component-fidelity')) assert.ok(s.colour! < 0.7);
    const empty = await scorer.score(page('empty'), { reference: ref('landing') });
    assert.equal(metric(empty, 'visual-fidelity').score, 0);
    assert.equal(metric(empty, 'component-fidelity').score, 0);
  });

  it('a PNG reference: one viewport, text not computed, the page against its own picture scores high', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-fidelity-png-'));
    try {
      // the landing page's desktop view at full scale, as a designer's export would be
      const shotScorer = new Scorer({ suite: 'extended', only: ['visual-fidelity'], network: { mode: 'offline' }, fidelityCache: false });
      let png: Buffer;
      try {
        const { evidence } = await shotScorer.scoreWithEvidence(page('landing'), { reference: ref('landing') });
        assert.ok(evidence.fidelity?.ok && evidence.fidelity.value.pairs[0]!.candidate.ok);
        const sharp = (await import('sharp')).default;
        const shot = evidence.fidelity.value.pairs[0]!.candidate.value.screenshot!;
        png = await sharp(shot.png)
          .resize(Math.round(shot.width / shot.deviceScaleFactor))
          .png()
          .toBuffer();
      } finally {
        await shotScorer.close();
      }
      writeFileSync(join(dir, 'landing.png'), png);
      const doc = await scorer.score(page('landing'), { reference: { path: join(dir, 'landing.png'), kind: 'image' } });
      const vf = metric(doc, 'visual-fidelity');
      assert.ok(vf.score !== null && vf.score > 85, `${vf.score} ${vf.reason ?? ''}`);
      const vps = vf.details.viewports as Array<{ viewport: string; notComputed?: string[] }>;
      assert.deepEqual(
        vps.map((v) => v.viewport),
        ['desktop'],
      );
      assert.match(vps[0]!.notComputed!.join(), /text/);
      assert.ok(doc.reference && 'kind' in doc.reference && doc.reference.kind === 'image');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a page that loops forever costs at most its budget: visual-fidelity 0 (UI2App: a build that does not run), or unscorable when the budget ran out first', async () => {
    const hostile = new Scorer({ suite: 'extended', only: ONLY, network: { mode: 'offline' }, fidelityCache: cache, budgetMs: 20_000 });
    try {
      const t = performance.now();
      const doc = await hostile.score(fixture('hostile', 'endless-loop.html'), { reference: ref('landing') });
      assert.ok(performance.now() - t < 30_000, `took ${Math.round(performance.now() - t)} ms`);
      const vf = metric(doc, 'visual-fidelity');
      if (vf.score === null) assert.match(vf.reason!, /time left|load timeout|rendering failed/);
      else {
        assert.equal(vf.score, 0);
        assert.match(JSON.stringify(vf.details), /the page did not run/);
      }
      const cf = metric(doc, 'component-fidelity');
      assert.equal(cf.score, null);
      assert.match(cf.reason!, /respond|timed out|time left|load timeout/);
      // the browser is still usable
      const next = await hostile.score(page('landing'), { reference: ref('landing') });
      assert.equal(metric(next, 'visual-fidelity').score, 100);
    } finally {
      await hostile.close();
    }
  });

  it('without a reference the fidelity metrics say how to give one', async () => {
    const doc = await scorer.score(page('landing'));
    assert.equal(metric(doc, 'visual-fidelity').reason, 'no reference given (--reference)');
    assert.equal(doc.reference, undefined);
  });

  const d2c = join(corpusDir, 'design2code');
  it('scores a Design2Code output against its reference', { skip: !existsSync(d2c) && 'no shared Design2Code corpus' }, async () => {
    const doc = await scorer.score(join(d2c, 'predictions', 'gpt4v_direct_prompting', '2.html'), {
      reference: { path: join(d2c, 'references', '2.html'), kind: 'artifact' },
    });
    const vf = metric(doc, 'visual-fidelity');
    assert.ok(vf.score !== null && vf.score > 40 && vf.score < 100, String(vf.score));
  });
});

describe('webgrade score --reference (bad input)', () => {
  it('needs the extended suite, an existing reference of a known kind (exit 2, one line)', async () => {
    const a = await runCli(['score', page('landing'), '--reference', page('landing')]);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /extended suite/);
    const b = await runCli(['score', page('landing'), '--suite', 'extended', '--reference', join(tmpdir(), 'no-such-reference.html')]);
    assert.equal(b.code, 2);
    assert.match(b.stderr, /no such file/);
    const c = await runCli(['score', page('landing'), '--suite', 'extended', '--reference', fixture('fidelity', 'recorded', 'landing.json')]);
    assert.equal(c.code, 2);
    assert.match(c.stderr, /expected an \.html file/);
    const d = await runCli(['score', page('landing'), '--suite', 'extended', '--viewports', 'watch', '--only', 'visual-fidelity']);
    assert.equal(d.code, 2);
    assert.match(d.stderr, /--viewports/);
  });
});
