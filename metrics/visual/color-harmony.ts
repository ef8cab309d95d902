/**
 * `color-harmony` (SPEC #11): are the page's dominant colours a harmonious palette? The study's five named
 * measurements on k-means dominant colours in HSV, weighted .15/.20/.25/.30/.10.
 *
 * Dominant colours
 * - Screenshot: the whole first screen (desktop, 1280×800 CSS px), every pixel. Documented choice: the first
 *   screen is the impression the palette makes. (Before 2026-11 it was downscaled to 128×80 with Lanczos, which
 *   blends text into greys that are not in the design.)
 * - k-means (k = 8, our own weighted Lloyd iteration, since ml-kmeans and the other maintained packages take no
 *   point weights and the histogram's bins must count by their pixels; k-means++ start from a seeded generator, **seed 42**, at
 *   most 50 iterations, squared RGB distance) on the screen's colour histogram: 5 bits per channel, each bin
 *   weighted by its pixel count and placed at the mean colour of its pixels. Deterministic; about 20 ms.
 * - Centroids closer than CIEDE2000 ΔE = 10 (culori) are merged (shares added, the bigger one's colour kept).
 * - The palette: **surfaces**, the colours covering at least 2 % of the screen (MIN_SHARE), and **foreground**
 *   colours, those covering at least 0.05 % (MIN_FOREGROUND_SHARE, about 500 px: a heading's letters, a button,
 *   a row of icons) that differ clearly from every surface (ΔE ≥ 15) and are not antialiasing blends (a colour
 *   within 16 RGB units of the straight line between two other palette colours, 10–90 % of the way along, is
 *   the edge of one drawn on the other, not a colour of the design). When no colour reaches 2 %, the largest is
 *   a surface.
 *   Why: with the 2 % cut alone, most light pages kept only their background (black text and a blue button
 *   cover well under 2 % of the screen) and scored one value, 49.93, whatever their text and accent colours:
 *   19 of a 40-page sample of the llm-tools corpus (47.5 %). With the foreground rule the palette holds the
 *   colours a reader sees, and their shares keep them small where a measure weighs by area; on the same 40
 *   pages no value is shared by more than 2 (mean 70.6, sd 7.1; before: mean 58.9, sd 13.1). A blank screen
 *   still has one colour and scores low (45.4).
 * - HSV (culori `hsv`) of each palette colour; "chromatic" = s ≥ 0.2 and v ≥ 0.2 (greys, white and black are
 *   achromatic); hues within 30° of each other count as one hue family.
 *
 * The five measurements, each 0–1 (the study names them; the formulas are ours)
 * - **div** (diversity), by Euclidean distance between the dominant colours: d̄ = the mean RGB distance over
 *   all pairs of palette colours, divided by the largest possible (black to white, 441.7), times
 *   `min(1, (n − 1) / 3)` for n palette colours: div = (d̄ / 441.7) · min(1, (n − 1) / 3); one colour → 0.
 *   A palette of near-identical tints is not diverse, nor is a pair however far apart (black text on white is
 *   two colours: 1/3); full credit needs four or more clearly different colours.
 * - **sat** (saturation balance), by mean and variance of the saturation, both weighted by share: the mean part
 *   `1 − |S̄ − 0.3| / 0.7` (calm, lightly tinted surfaces score best; an all-saturated screen scores low) and the
 *   spread part `1 − |σ_S − 0.15| / 0.35` (σ_S the standard deviation: some variation, accents against calm
 *   surfaces, scores best; none, or a screen split between grey and loud colour, scores lower); sat = their mean.
 * - **bright** (brightness contrast), by value range and distribution concentration: the range part
 *   `min(1, (max V − min V) / 0.6)` over the palette colours, and the concentration part `min(1, σ_V / 0.25)` with
 *   σ_V the share-weighted standard deviation of V (a screen concentrated on one brightness level, σ_V → 0, has
 *   little contrast however dark its text; light and dark areas both of some size score best); bright = their mean.
 * - **hue** (relations on the colour wheel): no or one hue family → 0.9 (achromatic or monochromatic schemes are
 *   harmonious); otherwise the mean over pairs of hue families of the pair's fit to the nearest classic relation
 *   (analogous ≤ 30°, square 90°, triadic 120°, split-complementary 150°, complementary 180°; within ±15° of the
 *   relation → 1, falling linearly to 0 at 20° further), times `min(1, 3 / F)` for F > 3 hue families.
 * - **temp** (warm/cool ratio): warm hues are [300°, 360°) ∪ [0°, 90°), cool ones [150°, 270°), others neutral,
 *   over the chromatic palette colours weighted by share. m = the smaller of warm and cool shares over their sum.
 *   m = 0 (one temperature, or no hue) → 0.7; 0.1 ≤ m ≤ 0.4 (one temperature dominates, the other accents) → 1;
 *   linear from 0.7 at 0 to 1 at 0.1, and from 1 at 0.4 to 0.5 at 0.5 (an even fight of warm and cool).
 * - Score: `100 × (0.15·div + 0.20·sat + 0.25·bright + 0.30·hue + 0.10·temp)`.
 *
 * `picture(evidence)` draws the palette as swatches sized by share (foreground colours marked), with HSV values
 * and the five sub-scores.
 */
import { converter, differenceCiede2000, formatHex, type Rgb } from 'culori';
import { round2 } from '../formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import { decodeRgb, pickScreenshot, renderSvg, svgLabel, svgRect } from './image-tools.js';

export const KMEANS_SEED = 42;
const K = 8;
const MAX_ITERATIONS = 50;
const MERGE_DELTA_E = 10;
export const MIN_SHARE = 0.02;
export const MIN_FOREGROUND_SHARE = 0.0005;
const FOREGROUND_DELTA_E = 15;
const BLEND_DISTANCE = 16;
/** The largest RGB distance (black to white): diversity's scale. */
export const MAX_RGB_DISTANCE = Math.sqrt(3) * 255;
/** Palettes of this many colours or more get full credit for their count. */
export const DIV_FULL_COUNT = 4;

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

export interface HarmonyParts {
  div: number;
  sat: number;
  bright: number;
  hue: number;
  temp: number;
}

export interface HarmonyResult {
  palette: PaletteColour[];
  parts: HarmonyParts;
  /** The named measurements behind the parts. */
  measures: { meanDistance: number; satMean: number; satSd: number; valueRange: number; valueSd: number };
  score: number;
  hueFamilies: number[];
}

type Vec = [number, number, number];
const dist2 = (a: Vec, b: Vec) => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2;

/** A small seeded generator (mulberry32), so that k-means++ is deterministic. */
function seeded(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
  const rnd = seeded(seed);
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

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

function hueDistance(a: number, b: number): number {
  const d = Math.abs(a - b) % 360;
  return d > 180 ? 360 - d : d;
}

/** Fit of a pair's hue distance to the nearest classic relation. */
export function pairHarmony(d: number): number {
  if (d <= 30) return 1;
  let best = Math.max(0, 1 - (d - 30) / 20);
  for (const target of [90, 120, 150, 180]) {
    const off = Math.max(0, Math.abs(d - target) - 15);
    best = Math.max(best, clamp01(1 - off / 20));
  }
  return best;
}

function temperature(h: number): 'warm' | 'cool' | 'neutral' {
  if (h >= 300 || h < 90) return 'warm';
  if (h >= 150 && h < 270) return 'cool';
  return 'neutral';
}

function hexToVec(hex: string): Vec {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The five measurements and the blend for a palette (module comment). */
export function harmonyOf(palette: PaletteColour[]): HarmonyResult {
  const n = palette.length;
  const total = palette.reduce((a, c) => a + c.share, 0) || 1;
  const w = (c: PaletteColour) => c.share / total;

  // diversity: Euclidean distance between the dominant colours
  let distSum = 0;
  let pairs = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      distSum += Math.sqrt(dist2(hexToVec(palette[i]!.hex), hexToVec(palette[j]!.hex)));
      pairs++;
    }
  const meanDistance = pairs ? distSum / pairs : 0;
  const div = clamp01(meanDistance / MAX_RGB_DISTANCE) * Math.min(1, Math.max(0, n - 1) / (DIV_FULL_COUNT - 1));

  // saturation balance: mean and variance
  const satMean = palette.reduce((a, c) => a + c.s * w(c), 0);
  const satSd = Math.sqrt(palette.reduce((a, c) => a + w(c) * (c.s - satMean) ** 2, 0));
  const sat = (clamp01(1 - Math.abs(satMean - 0.3) / 0.7) + clamp01(1 - Math.abs(satSd - 0.15) / 0.35)) / 2;

  // brightness contrast: value range and distribution concentration
  const vs = palette.map((c) => c.v);
  const valueRange = n ? Math.max(...vs) - Math.min(...vs) : 0;
  const vMean = palette.reduce((a, c) => a + c.v * w(c), 0);
  const valueSd = Math.sqrt(palette.reduce((a, c) => a + w(c) * (c.v - vMean) ** 2, 0));
  const bright = n ? (clamp01(valueRange / 0.6) + clamp01(valueSd / 0.25)) / 2 : 0;

  const chromatic = palette.filter((c) => c.h !== null && c.s >= 0.2 && c.v >= 0.2);
  // hue families: greedy by share, a colour joins the first family within 30°
  const families: Array<{ h: number; share: number }> = [];
  for (const c of [...chromatic].sort((a, b) => b.share - a.share)) {
    const f = families.find((x) => hueDistance(x.h, c.h!) <= 30);
    if (f) f.share += c.share;
    else families.push({ h: c.h!, share: c.share });
  }
  let hue: number;
  if (families.length <= 1) hue = 0.9;
  else {
    let sum = 0;
    let fp = 0;
    for (let i = 0; i < families.length; i++)
      for (let j = i + 1; j < families.length; j++) {
        sum += pairHarmony(hueDistance(families[i]!.h, families[j]!.h));
        fp++;
      }
    hue = (sum / fp) * (families.length > 3 ? 3 / families.length : 1);
  }

  let warm = 0;
  let cool = 0;
  for (const c of chromatic) {
    const t = temperature(c.h!);
    if (t === 'warm') warm += c.share;
    else if (t === 'cool') cool += c.share;
  }
  const m = warm + cool > 0 ? Math.min(warm, cool) / (warm + cool) : 0;
  let temp: number;
  if (m === 0) temp = 0.7;
  else if (m < 0.1) temp = 0.7 + (0.3 * m) / 0.1;
  else if (m <= 0.4) temp = 1;
  else temp = 1 - (0.5 * (m - 0.4)) / 0.1;

  const parts = { div, sat, bright, hue, temp };
  const score = 100 * (0.15 * div + 0.2 * sat + 0.25 * bright + 0.3 * hue + 0.1 * temp);
  return { palette, parts, measures: { meanDistance, satMean, satSd, valueRange, valueSd }, score, hueFamilies: families.map((f) => round2(f.h)) };
}

async function analyse(evidence: Evidence): Promise<HarmonyResult | { reason: string }> {
  const pick = pickScreenshot(evidence, 'desktop');
  const rgb = await decodeRgb(pick.shot.png);
  return harmonyOf(dominantColours(rgb.data));
}

function partsRounded(p: HarmonyParts): HarmonyParts {
  return { div: round2(p.div), sat: round2(p.sat), bright: round2(p.bright), hue: round2(p.hue), temp: round2(p.temp) };
}

/** Swatches sized by share, with HSV of each colour and the five sub-scores. */
export async function picture(evidence: Evidence): Promise<Buffer> {
  const r = await analyse(evidence);
  if ('reason' in r) throw new Error(r.reason);
  const width = 900;
  const height = 330;
  const fgCount = r.palette.filter((c) => c.role === 'foreground').length;
  let body = svgLabel(
    12,
    28,
    `color-harmony ${round2(r.score)}: ${r.palette.length} dominant colours, ${fgCount} foreground (k-means, seed ${KMEANS_SEED})`,
    '#000',
    18,
  );
  // surfaces share the bar by share; foreground colours (tiny by area) get fixed swatches on the right
  const FG_W = 96;
  const barW = width - 24 - fgCount * FG_W;
  const surfaces = r.palette.filter((c) => c.role === 'surface');
  const surfaceTotal = surfaces.reduce((a, c) => a + c.share, 0) || 1;
  let x = 12;
  const label = (c: (typeof r.palette)[number], x0: number) => {
    body += svgLabel(x0 + 4, 172, c.hex, '#000', 12);
    body += svgLabel(x0 + 4, 188, `${round2(c.share * 100)}%${c.role === 'foreground' ? ' fg' : ''}`, '#333', 12, 'normal');
    body += svgLabel(x0 + 4, 204, `h${c.h === null ? '–' : Math.round(c.h)} s${c.s.toFixed(2)} v${c.v.toFixed(2)}`, '#333', 11, 'normal');
  };
  for (const c of surfaces) {
    const w = Math.max(2, Math.round((c.share / surfaceTotal) * barW));
    body += svgRect({ x, y: 44, width: w, height: 110 }, '#333', 1, c.hex);
    if (w >= 90) label(c, x);
    x += w;
  }
  x = 12 + barW;
  for (const c of r.palette.filter((p) => p.role === 'foreground')) {
    body += svgRect({ x, y: 44, width: FG_W, height: 110 }, '#333', 1, c.hex);
    label(c, x);
    x += FG_W;
  }
  const p = r.parts;
  const rows: Array<[string, number, number]> = [
    ['diversity', p.div, 0.15],
    ['saturation balance', p.sat, 0.2],
    ['brightness contrast', p.bright, 0.25],
    ['hue relations', p.hue, 0.3],
    ['warm/cool balance', p.temp, 0.1],
  ];
  for (const [i, [name, v, w]] of rows.entries()) {
    const y = 228 + i * 19;
    body += svgLabel(12, y + 12, `${name} (×${w})`, '#000', 13, 'normal');
    body += svgRect({ x: 230, y, width: 300, height: 14 }, '#999', 1, '#eee');
    body += svgRect({ x: 230, y, width: Math.round(300 * v), height: 14 }, 'none', 0, v >= 0.7 ? '#16a34a' : v >= 0.4 ? '#ca8a04' : '#dc2626');
    body += svgLabel(540, y + 12, v.toFixed(2), '#000', 13);
  }
  return renderSvg(width, height, body);
}

const colorHarmony: MetricDefinition = {
  number: 11,
  id: 'color-harmony',
  perspective: 'visual',
  kind: 'rule',
  needs: ['screenshot'],
  title: 'Colour harmony',
  question: 'Do the page colours work together in hue, saturation, brightness and warmth?',
  suite: 'study',
  async illustrate(evidence) {
    return [
      {
        name: 'palette',
        png: await picture(evidence),
        caption: 'dominant colours as swatches sized by share (foreground colours marked fg), with the five sub-scores',
      },
    ];
  },
  async score(evidence) {
    const r = await analyse(evidence);
    if ('reason' in r) return unscorable(r.reason);
    const p = partsRounded(r.parts);
    const fg = r.palette.filter((c) => c.role === 'foreground').length;
    return scored(
      r.score,
      `${r.palette.length} dominant colours (${fg} foreground); div ${p.div}, sat ${p.sat}, bright ${p.bright}, hue ${p.hue}, temp ${p.temp}`,
      {
        screenshot: 'desktop',
        seed: KMEANS_SEED,
        palette: r.palette.map((c) => ({
          hex: c.hex,
          share: round2(c.share * 100),
          role: c.role,
          h: c.h === null ? null : round2(c.h),
          s: round2(c.s),
          v: round2(c.v),
        })),
        measures: Object.fromEntries(Object.entries(r.measures).map(([k, v]) => [k, round2(v)])),
        hueFamilies: r.hueFamilies,
        subScores: p,
        weights: { div: 0.15, sat: 0.2, bright: 0.25, hue: 0.3, temp: 0.1 },
      },
    );
  },
};

export default colorHarmony;
