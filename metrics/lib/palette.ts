/**
 * A screenshot's dominant colours (color-harmony's palette, metrics/visual/color-harmony.ts documents the rule;
 * the fidelity metrics compare blocks' colours with it): a colour histogram (5 bits a channel), weighted k-means
 * (k = 8, seeded k-means++, our own since the maintained packages take no point weights), centroids closer than
 * CIEDE2000 ΔE 10 merged, then surfaces (≥ 2 % of the screen) and foreground colours (≥ 0.05 %, clearly apart from
 * every surface, not an antialiasing blend of two others).
 */
import { converter, differenceCiede2000, formatHex, type Rgb } from 'culori';
import { mulberry32 } from '../../lib/random.js';

export const KMEANS_SEED = 42;
const K = 8;
const MAX_ITERATIONS = 50;
const MERGE_DELTA_E = 10;
export const MIN_SHARE = 0.02;
export const MIN_FOREGROUND_SHARE = 0.0005;
const FOREGROUND_DELTA_E = 15;
const BLEND_DISTANCE = 16;

const toHsv = converter('hsv');
const deltaE = differenceCiede2000();

export interface PaletteColour {
  hex: string;
  share: number;
  h: number | null;
  s: number;
  v: number;
  /** A surface (≥ 2 % of the screen) or a foreground colour (text, buttons, icons). */
  role: 'surface' | 'foreground';
}

export type Vec = [number, number, number];
export const dist2 = (a: Vec, b: Vec) => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2;

/** The colour histogram of RGB pixels: 5 bits per channel, each bin at the mean of its pixels, with its count. */
export function colourHistogram(pixels: Uint8Array): Array<{ c: Vec; w: number }> {
  const sums = new Map<number, Vec>();
  const counts = new Map<number, number>();
  for (let i = 0; i + 2 < pixels.length; i += 3) {
    const r = pixels[i]!;
    const g = pixels[i + 1]!;
    const b = pixels[i + 2]!;
    const key = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
    const s = sums.get(key);
    if (s) {
      s[0] += r;
      s[1] += g;
      s[2] += b;
      counts.set(key, counts.get(key)! + 1);
    } else {
      sums.set(key, [r, g, b]);
      counts.set(key, 1);
    }
  }
  return [...sums.entries()].map(([key, s]) => {
    const n = counts.get(key)!;
    return { c: [s[0] / n, s[1] / n, s[2] / n] as Vec, w: n };
  });
}

/** Weighted k-means (Lloyd) with a seeded k-means++ start; centroids with their shares, largest first. */
export function weightedKmeans(points: ReadonlyArray<{ c: Vec; w: number }>, k = K, seed = KMEANS_SEED): Array<{ c: Vec; share: number }> {
  const total = points.reduce((a, p) => a + p.w, 0);
  if (points.length === 0 || total === 0) return [];
  const rnd = mulberry32(seed); // seeded, so that k-means++ is deterministic
  const pickWeighted = (weights: number[], sum: number): number => {
    let r = rnd() * sum;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r <= 0) return i;
    }
    return weights.length - 1;
  };
  const centroids: Vec[] = [
    [
      ...points[
        pickWeighted(
          points.map((p) => p.w),
          total,
        )
      ]!.c,
    ],
  ];
  const near = points.map((p) => dist2(p.c, centroids[0]!));
  while (centroids.length < Math.min(k, points.length)) {
    const weights = points.map((p, i) => p.w * near[i]!);
    const sum = weights.reduce((a, b) => a + b, 0);
    if (sum === 0) break;
    const c: Vec = [...points[pickWeighted(weights, sum)]!.c];
    centroids.push(c);
    for (let i = 0; i < points.length; i++) near[i] = Math.min(near[i]!, dist2(points[i]!.c, c));
  }
  const assign = new Int32Array(points.length).fill(-1);
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    let moved = false;
    for (let i = 0; i < points.length; i++) {
      let best = 0;
      let bd = Infinity;
      for (let j = 0; j < centroids.length; j++) {
        const d = dist2(points[i]!.c, centroids[j]!);
        if (d < bd) [bd, best] = [d, j];
      }
      if (assign[i] !== best) {
        assign[i] = best;
        moved = true;
      }
    }
    if (!moved) break;
    const acc = centroids.map(() => [0, 0, 0, 0]);
    for (let i = 0; i < points.length; i++) {
      const a = acc[assign[i]!]!;
      const p = points[i]!;
      a[0] += p.c[0] * p.w;
      a[1] += p.c[1] * p.w;
      a[2] += p.c[2] * p.w;
      a[3] += p.w;
    }
    acc.forEach((a, j) => {
      if (a[3]! > 0) centroids[j] = [a[0]! / a[3]!, a[1]! / a[3]!, a[2]! / a[3]!];
    });
  }
  const weight = centroids.map(() => 0);
  for (let i = 0; i < points.length; i++) weight[assign[i]!]! += points[i]!.w;
  return centroids
    .map((c, j) => ({ c, share: weight[j]! / total }))
    .filter((x) => x.share > 0)
    .sort((a, b) => b.share - a.share);
}

const rgbOf = (c: Vec): Rgb => ({ mode: 'rgb', r: c[0] / 255, g: c[1] / 255, b: c[2] / 255 });

/** Distance from p to the segment a–b, and how far along it the nearest point lies (0 at a, 1 at b). */
function toSegment(p: Vec, a: Vec, b: Vec): { d: number; t: number } {
  const ab: Vec = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const len2 = ab[0] ** 2 + ab[1] ** 2 + ab[2] ** 2;
  if (len2 === 0) return { d: Math.sqrt(dist2(p, a)), t: 0 };
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1] + (p[2] - a[2]) * ab[2]) / len2));
  return { d: Math.sqrt(dist2(p, [a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]])), t };
}

/** Dominant colours of RGB pixels: histogram, k-means, merge, then the palette rule (module comment). */
export function dominantColours(pixels: Uint8Array): PaletteColour[] {
  const centroids = weightedKmeans(colourHistogram(pixels));
  const merged: Array<{ c: Vec; share: number }> = [];
  for (const x of centroids) {
    const same = merged.find((m) => deltaE(rgbOf(m.c), rgbOf(x.c)) < MERGE_DELTA_E);
    if (same) same.share += x.share;
    else merged.push({ c: x.c, share: x.share });
  }
  merged.sort((a, b) => b.share - a.share);
  const surfaces = merged.filter((m) => m.share >= MIN_SHARE);
  if (surfaces.length === 0 && merged[0]) surfaces.push(merged[0]);
  const candidates = merged.filter(
    (m) => !surfaces.includes(m) && m.share >= MIN_FOREGROUND_SHARE && surfaces.every((s) => deltaE(rgbOf(s.c), rgbOf(m.c)) >= FOREGROUND_DELTA_E),
  );
  const all = [...surfaces, ...candidates];
  const blend = (m: { c: Vec }) =>
    all.some(
      (a, i) =>
        a !== m &&
        all.some(
          (b, j) =>
            j > i &&
            b !== m &&
            (() => {
              const s = toSegment(m.c, a.c, b.c);
              return s.d <= BLEND_DISTANCE && s.t >= 0.1 && s.t <= 0.9;
            })(),
        ),
    );
  const foreground = candidates.filter((m) => !blend(m));
  const describe = (m: { c: Vec; share: number }, role: PaletteColour['role']): PaletteColour => {
    const hsv = toHsv(rgbOf(m.c));
    return { hex: formatHex(rgbOf(m.c)), share: m.share, h: hsv.h === undefined || Number.isNaN(hsv.h) ? null : hsv.h, s: hsv.s ?? 0, v: hsv.v ?? 0, role };
  };
  return [...surfaces.map((m) => describe(m, 'surface')), ...foreground.map((m) => describe(m, 'foreground'))];
}
