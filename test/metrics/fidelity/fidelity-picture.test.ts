import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { drawPair } from '../../../metrics/fidelity/fidelity-picture.js';

const V = { name: 'phone', width: 100, height: 100 };
const white = async () => ({
  png: await sharp({ create: { width: 100, height: 100, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer(),
  width: 100,
  height: 100,
  deviceScaleFactor: 1,
});

/** Counts red-ish (unmatched reference) pixels in columns [x0, x1) of the picture. */
async function redPixels(png: Buffer, x0: number, x1: number): Promise<number> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let y = 0; y < info.height; y++)
    for (let x = x0; x < x1; x++) {
      const i = (y * info.width + x) * info.channels;
      if (data[i]! > 180 && data[i + 1]! < 90 && data[i + 2]! < 90) n++;
    }
  return n;
}

describe('the fidelity picture (--explain visual-fidelity --out)', () => {
  it('puts both screenshots side by side and marks an unmatched reference block red on the reference panel', async () => {
    const png = await drawPair(await white(), await white(), V, [{ x: 0.2, y: 0.2, w: 0.3, h: 0.2 }], [], []);
    const meta = await sharp(png).metadata();
    assert.equal(meta.width, 100 + 24 + 100);
    assert.ok((await redPixels(png, 0, 100)) > 20);
    assert.equal(await redPixels(png, 100, 224), 0);
  });

  it('a reference block beyond the viewport (a page wider than the phone) stays on the reference panel, at its edge', async () => {
    const png = await drawPair(await white(), await white(), V, [{ x: 1.4, y: 0.2, w: 0.3, h: 0.2 }], [], []);
    assert.equal(await redPixels(png, 100, 224), 0, 'nothing red on the gap or the page panel');
    assert.ok((await redPixels(png, 90, 100)) > 5, 'drawn at the right edge of the reference panel');
  });
});
