/**
 * The media collector and the media metrics on a real page in the real browser (fixtures/browser/media): two
 * local images (a sharp checkerboard with alt, a blurred copy without), the sharp one stretched from 96×96 to
 * 192×96, and a CDN placeholder that cannot load offline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixture, runCli } from '../../helpers.js';

interface Item {
  src: string;
  clarity: number | null;
  accessibility: number | null;
  clarityNote: string;
}

describe('media metrics in the real browser', () => {
  it('measure local images from the artifact, leave the remote one unverified, and find the distorted and placeholder images', async () => {
    const r = await runCli(['score', fixture('browser', 'media'), '--only', 'media-quality,placeholder-quality', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { metrics: Array<{ id: string; score: number; details: Record<string, unknown> }> };
    const media = doc.metrics.find((m) => m.id === 'media-quality')!;
    const items = media.details.items as Item[];
    assert.equal(items.length, 4, JSON.stringify(items));
    const [sharpImg, blurred, stretched, remote] = items;
    assert.ok(sharpImg!.clarity! > 95, `sharp image clarity ${sharpImg!.clarity}`);
    assert.ok(blurred!.clarity! < 30, `blurred image clarity ${blurred!.clarity}`);
    assert.ok(stretched!.clarity! > 90, 'a checkerboard stays sharp when widened');
    assert.equal(remote!.clarity, null);
    assert.match(remote!.clarityNote, /unverified/);
    // accessibility: 3 of 4 images have alt text → 75; score = 0.7 × mean clarity of the verified + 0.3 × 75
    assert.equal(media.details.accessibility, 75);
    const clarity = media.details.clarity as number;
    assert.ok(Math.abs(clarity - (sharpImg!.clarity! + blurred!.clarity! + stretched!.clarity!) / 3) < 0.01);
    assert.ok(Math.abs(media.score - (0.7 * clarity + 0.3 * 75)) < 0.01, `${media.score}`);

    // 2 bad of 4 images (distorted, placeholder service): (1 − log2(1 + 2/5)) × 100 = 51.46
    const ph = doc.metrics.find((m) => m.id === 'placeholder-quality')!;
    assert.ok(Math.abs(ph.score - 51.46) < 0.01, `${ph.score}`);
    const bad = ph.details.badImages as Array<{ selector: string; reasons: string[] }>;
    assert.deepEqual(
      bad.map((b) => b.reasons[0]!.split(':')[0]),
      ['distorted', 'placeholder service (placehold.co)'],
    );
  });
});
