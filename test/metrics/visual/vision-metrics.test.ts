/**
 * The screenshot and media metrics on synthetic images with known answers (issue: vision metrics):
 * alignment beats jitter, an empty page is sparse and a dense one is not, a sharp image beats its blurred copy,
 * a complementary palette beats a clash of hues, and every score is deterministic.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import sharp from 'sharp';
import colorHarmony from '../../../metrics/visual/color-harmony.js';
import layoutConsistency from '../../../metrics/visual/layout-consistency.js';
import layoutSparsity from '../../../metrics/visual/layout-sparsity.js';
import mediaQuality from '../../../metrics/content/media-quality.js';
import placeholderQuality from '../../../metrics/content/placeholder-quality.js';
import type { MediaInfo } from '../../../core/browser-evidence.js';
import type { MetricDefinition, MetricOutcome } from '../../../core/metric.js';
import { buildEvidence, outcomeOf } from '../../metric-tester.js';
import { browserEvidence, cardGrid, shot, svgPng } from './synthetic.js';
import { browserEvidence as visitEvidence } from '../synthetic-browser.js';

const W = 1280;
const H = 800;

async function scoreShot(metric: MetricDefinition, body: string, background = '#ffffff'): Promise<MetricOutcome> {
  const png = await svgPng(W, H, body, background);
  const ev = buildEvidence({ html: '<p>x</p>', evidence: browserEvidence({ desktop: shot(png, W, H), fullPage: shot(png, W, H) }) });
  return metric.score(ev);
}

async function scoreMedia(metric: MetricDefinition, media: MediaInfo[]): Promise<MetricOutcome> {
  const png = await svgPng(W, H, '');
  const ev = buildEvidence({ html: '<p>x</p>', evidence: browserEvidence({ desktop: shot(png, W, H), media }) });
  return metric.score(ev);
}

const value = (o: MetricOutcome): number => {
  assert.notEqual(o.score, null, `unscorable: ${(o as { reason?: string }).reason}`);
  return o.score as number;
};

function image(src: string, over: Partial<MediaInfo> = {}): MediaInfo {
  return {
    tag: 'img',
    src,
    alt: 'a photo',
    naturalWidth: 200,
    naturalHeight: 200,
    renderedWidth: 200,
    renderedHeight: 200,
    decoded: true,
    visible: true,
    selector: 'img',
    ...over,
  };
}
const dataUri = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

describe('layout-consistency', () => {
  it('a perfectly aligned card grid scores higher than the same grid jittered by a few pixels', async () => {
    const aligned = value(await scoreShot(layoutConsistency, cardGrid()));
    const jitter = [
      [0, 0],
      [5, -4],
      [-6, 3],
      [4, 6],
      [-3, -5],
      [6, 2],
    ] as const;
    const jittered = value(await scoreShot(layoutConsistency, cardGrid({ jitter: (i) => [jitter[i]![0], jitter[i]![1]] })));
    assert.ok(aligned > jittered, `aligned ${aligned} should beat jittered ${jittered}`);
  });

  it('is deterministic', async () => {
    const a = await scoreShot(layoutConsistency, cardGrid({ jitter: (i) => [i % 2 ? 4 : 0, 0] }));
    const b = await scoreShot(layoutConsistency, cardGrid({ jitter: (i) => [i % 2 ? 4 : 0, 0] }));
    assert.deepEqual(a, b);
  });

  it('is unscorable without a screenshot, with the reason the runner gives', async () => {
    const ev = buildEvidence({ html: '<p>x</p>', evidence: { browser: visitEvidence({ unavailable: { screenshots: 'screenshot timed out' } }) } });
    const out = await outcomeOf(layoutConsistency, ev);
    assert.equal(out.score, null);
    assert.match((out as { reason: string }).reason, /no desktop screenshot: screenshot timed out/);
  });
});

describe('layout-sparsity', () => {
  it('an empty white page scores 0 (its largest uniform rectangle is the whole screen)', async () => {
    assert.equal(value(await scoreShot(layoutSparsity, '')), 0);
  });

  it('a dense page (8 px checkerboard) scores near 100', async () => {
    let body = '';
    for (let y = 0; y < H; y += 8) for (let x = (y / 8) % 2 ? 8 : 0; x < W; x += 16) body += `<rect x="${x}" y="${y}" width="8" height="8" fill="#000"/>`;
    const s = value(await scoreShot(layoutSparsity, body));
    assert.ok(s > 99.9, `dense page scored ${s}`);
  });

  it('a blank right half: r = 50 %, score = √50 × 10 = 70.71', async () => {
    let body = '';
    for (let y = 0; y < H; y += 8) for (let x = (y / 8) % 2 ? 8 : 0; x < W / 2; x += 16) body += `<rect x="${x}" y="${y}" width="8" height="8" fill="#000"/>`;
    const o = await scoreShot(layoutSparsity, body);
    assert.ok(Math.abs(value(o) - Math.sqrt(50) * 10) < 0.1, `got ${o.score}`);
  });

  it('is deterministic and draws a picture', async () => {
    const png = await svgPng(W, H, cardGrid());
    const ev = buildEvidence({ html: '<p>x</p>', evidence: browserEvidence({ desktop: shot(png, W, H) }) });
    const a = await layoutSparsity.score(ev);
    assert.deepEqual(a, await layoutSparsity.score(ev));
    const pics = await layoutSparsity.illustrate!(ev, a);
    const meta = await sharp(pics[0]!.png).metadata();
    assert.equal(meta.width, W);
  });
});

describe('color-harmony', () => {
  it('a complementary two-colour palette scores above a clash of many saturated hues', async () => {
    const complementary = '<rect x="0" y="0" width="1280" height="120" fill="#1d4ed8"/><rect x="500" y="300" width="280" height="80" fill="#f59e0b"/>';
    const hues = ['#ff0000', '#00ff00', '#0000ff', '#ff00ff', '#ffff00', '#00ffff', '#ff8000', '#8000ff'];
    const clash = hues.map((c, i) => `<rect x="${i * 160}" y="0" width="160" height="800" fill="${c}"/>`).join('');
    const good = value(await scoreShot(colorHarmony, complementary));
    const bad = value(await scoreShot(colorHarmony, clash));
    assert.ok(good > bad, `complementary ${good} should beat clash ${bad}`);
  });

  it('a light page whose only non-white colours are small (text, one button) keeps them: a real palette, not the old one-colour collapse at 49.93', async () => {
    // 10 "text lines" of 500×2 px (0.98 % of the screen, black) and a 120×36 blue button (0.42 %), on white
    const lines = Array.from({ length: 10 }, (_, i) => `<rect x="100" y="${100 + i * 14}" width="500" height="2" fill="#111111"/>`).join('');
    const button = '<rect x="100" y="300" width="120" height="36" fill="#2563eb"/>';
    const o = await scoreShot(colorHarmony, lines + button);
    const d = o.details as { palette: Array<{ hex: string; role: string }>; subScores: Record<string, number> };
    assert.deepEqual(
      d.palette.map((c) => c.role),
      ['surface', 'foreground', 'foreground'],
      JSON.stringify(d.palette),
    );
    assert.ok(Math.abs(value(o) - 49.93) > 5, `score ${o.score}`);
    assert.ok(d.subScores.bright! > 0.3 && d.subScores.div! > 0.3, JSON.stringify(d.subScores));
    // and the measure still tells pages apart: the same text with a clashing second accent scores differently
    const clash = await scoreShot(colorHarmony, lines + button + '<rect x="300" y="300" width="120" height="36" fill="#22c55e"/>');
    assert.notEqual(value(clash), value(o));
    // a truly empty white screen has one colour and no contrast
    const blank = await scoreShot(colorHarmony, '');
    assert.ok(value(blank) < value(o) - 10, `blank ${blank.score} vs ${o.score}`);
  });

  it('antialiasing blends (the grey edge of dark shapes on white) are not palette colours', async () => {
    const circles = Array.from({ length: 40 }, (_, i) => `<circle cx="${40 + (i % 20) * 60}" cy="${80 + Math.floor(i / 20) * 60}" r="9" fill="#000000"/>`).join(
      '',
    );
    const o = await scoreShot(colorHarmony, circles);
    const pal = (o.details as { palette: Array<{ hex: string }> }).palette.map((c) => c.hex);
    assert.equal(pal[0], '#ffffff');
    assert.ok(pal.length <= 2, `palette ${pal}`);
  });

  it('is deterministic (fixed k-means seed)', async () => {
    const body = '<rect x="0" y="0" width="640" height="800" fill="#0ea5e9"/><circle cx="900" cy="400" r="200" fill="#f97316"/>';
    assert.deepEqual(await scoreShot(colorHarmony, body), await scoreShot(colorHarmony, body));
  });
});

describe('media-quality', () => {
  let sharpPng: Buffer;
  let blurredPng: Buffer;
  before(async () => {
    let body = '';
    for (let y = 0; y < 200; y += 10)
      for (let x = (y / 10) % 2 ? 10 : 0; x < 200; x += 20) body += `<rect x="${x}" y="${y}" width="10" height="10" fill="#111"/>`;
    sharpPng = await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><rect width="200" height="200" fill="#fff"/>${body}</svg>`),
    )
      .png()
      .toBuffer();
    blurredPng = await sharp(sharpPng).blur(6).png().toBuffer();
  });

  it('a sharp image scores clearly above a blurred copy of itself', async () => {
    const s = value(await scoreMedia(mediaQuality, [image(dataUri(sharpPng))]));
    const b = value(await scoreMedia(mediaQuality, [image(dataUri(blurredPng))]));
    assert.ok(s - b > 20, `sharp ${s} vs blurred ${b}`);
  });

  it('missing alt text costs the accessibility share (30 %)', async () => {
    const withAlt = value(await scoreMedia(mediaQuality, [image(dataUri(sharpPng))]));
    const without = value(await scoreMedia(mediaQuality, [image(dataUri(sharpPng), { alt: null })]));
    assert.ok(Math.abs(withAlt - without - 30) < 1e-6, `${withAlt} − ${without}`);
  });

  it('an image the browser could not decode has clarity 0', async () => {
    const o = await scoreMedia(mediaQuality, [image(dataUri(sharpPng), { decoded: false })]);
    assert.ok(value(o) <= 30);
  });

  it('remote images are unverified offline, never counted as bad', async () => {
    const o = await scoreMedia(mediaQuality, [image('https://cdn.example.com/a.jpg')]);
    assert.equal(value(o), 100, JSON.stringify(o.details));
  });

  it('is unscorable without media, and deterministic with', async () => {
    assert.equal((await scoreMedia(mediaQuality, [])).score, null);
    const m = [image(dataUri(blurredPng))];
    assert.deepEqual(await scoreMedia(mediaQuality, m), await scoreMedia(mediaQuality, m));
  });
});

describe('placeholder-quality', () => {
  it('a placeholder-service URL is a bad image: 1 of 2 → (1 − log2(1 + 1/3)) × 100 = 58.50', async () => {
    const png = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const o = await scoreMedia(placeholderQuality, [
      image('https://via.placeholder.com/300x200', { selector: 'img.a' }),
      image(dataUri(png), { selector: 'img.b', naturalWidth: 40, naturalHeight: 40, renderedWidth: 40, renderedHeight: 40 }),
    ]);
    assert.ok(Math.abs(value(o) - 58.496) < 0.01, `got ${o.score}: ${JSON.stringify(o.details)}`);
  });

  it('a distorted image (natural 2:1 shown 1:1 with object-fit fill) is bad', async () => {
    const png = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const o = await scoreMedia(placeholderQuality, [
      image(dataUri(png), { naturalWidth: 400, naturalHeight: 200, renderedWidth: 200, renderedHeight: 200, objectFit: 'fill' }),
    ]);
    assert.ok(value(o) < 100, JSON.stringify(o.details));
  });

  it('is unscorable without images', async () => {
    assert.equal((await scoreMedia(placeholderQuality, [])).score, null);
  });
});
