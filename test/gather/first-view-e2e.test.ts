/**
 * The first view as a person sees it (fixtures/first-view/), in the real browser: pages that draw the way
 * model-made animations do (a canvas sized to the window and drawn only from animation frames, a worker from a
 * Blob URL feeding positions, a CSS bloom from `scale(0)`, an SVG animated with SMIL, a WebGL scene drawn in frames)
 * render, and the probe's frames agree with the visit's screenshot; a canvas that stays black and an animation that
 * throws on its first frame do not render.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { FirstView } from '../../core/browser-evidence.js';
import type { InteractionEvidence } from '../../core/browser-evidence.js';
import { Scorer } from '../../runner/score.js';
import { fixture } from '../helpers.js';

// layout-sparsity asks for the visit's screenshots: the probe's frames are then compared with the visit's.
const scorer = new Scorer({ suite: 'extended', only: ['render-validity', 'layout-sparsity'], network: { mode: 'offline' }, judge: undefined });
after(() => scorer.close());

async function firstView(name: string) {
  const { doc, evidence } = await scorer.scoreWithEvidence(fixture('first-view', `${name}.html`));
  const m = doc.metrics.find((x) => x.id === 'render-validity')!;
  assert.ok(evidence.interaction?.ok, JSON.stringify(evidence.interaction));
  const fv = (evidence.interaction as { value: InteractionEvidence }).value.firstView as FirstView;
  return { score: m.score, details: m.details as Record<string, unknown>, fv };
}

describe('the first view of pages that draw as model-made animations do', () => {
  for (const name of ['canvas-raf', 'worker-blob', 'css-bloom', 'svg-smil', 'webgl-raf']) {
    it(`${name}: rendered, and the probe's frames show what the visit's screenshot shows`, async () => {
      const { score, details, fv } = await firstView(name);
      assert.equal(score, 100, JSON.stringify(details));
      // Also a page that never goes idle, captured while its clock and frames stand still (the capture hung on
      // webgl-raf while the freeze added its caret style to a page without a focused field).
      assert.ok(fv.visit, "the visit's screenshot was read");
      assert.equal(details.warning, undefined, String(details.warning));
    });
  }

  it('a canvas sized to the window and drawn in frames shows its scene in the first view itself, not only later', async () => {
    const { fv } = await firstView('canvas-raf');
    assert.ok(fv.screen!.content > 0.005 && fv.screen!.colours >= 8, JSON.stringify(fv.screen));
    assert.equal(fv.atMs, 1000);
  });

  it('a CSS bloom from scale(0) is small at the first view and open in a later frame, on the page clock', async () => {
    const { fv, details } = await firstView('css-bloom');
    const later = fv.samples!.at(-1)!;
    assert.ok(later.atMs > fv.atMs!, JSON.stringify(fv.samples));
    assert.ok(later.screen.content > 1.5 * fv.screen!.content, `${JSON.stringify(fv.screen)} then ${JSON.stringify(later.screen)}`);
    assert.match(String(details.scene), /drawing/);
  });
});

describe('first views that are not rendered', () => {
  it('a canvas sized to the window that stays black in every frame: 0', async () => {
    const { score, details } = await firstView('canvas-black');
    assert.equal(score, 0);
    assert.match(String((details.failed as string[]).join(' ')), /frames over its first seconds/);
  });

  it('an animation that throws on its first frame: 0, naming the error', async () => {
    const { score, details } = await firstView('throws-first-frame');
    assert.equal(score, 0);
    assert.match(String((details.failed as string[]).join(' ')), /addColourStop/);
  });
});
