/**
 * `color-harmony` (SPEC #11): are the page's dominant colours a harmonious palette?
 *
 * - Screenshot: the 1280×800 first screen, downscaled to 128×80 (sharp, Lanczos) = 10 240 RGB points.
 *   Documented choice: the first screen is the impression the palette makes.
 * - Dominant colours: k-means (ml-kmeans, k-means++ initialisation, **fixed seed 42**, k = 6, at most 50
 *   iterations) in RGB; each centroid's share = its points / all points. Centroids closer than CIEDE2000
 *   ΔE = 10 (culori) are merged (shares added, the bigger one's colour kept), and colours under 2 % share
 *   are ignored: the palette is what is left.
 * - HSV (culori `hsv`) of each palette colour; "chromatic" = s ≥ 0.2 and v ≥ 0.2 (greys, white and black are
 *   achromatic); hues within 30° of each other count as one hue family.
 * - Sub-scores, each 0–1:
 *   - **div** (diversity), by palette size n: 1 → 0.3, 2 → 0.7, 3–5 → 1, 6 → 0.8 (too few colours look flat,
 *     too many look busy);
 *   - **sat** (saturation balance): with S̄ the share-weighted mean saturation, `1 − |S̄ − 0.3| / 0.7`, times
 *     `min(1, 2 / H)` when H > 2 palette colours are highly saturated (s ≥ 0.6): calm surfaces with a few
 *     saturated accents score best;
 *   - **bright** (brightness contrast): `min(1, (max v − min v) / 0.6)` over the palette;
 *   - **hue** (relations on the colour wheel): no or one hue family → 0.9 (achromatic or monochromatic
 *     schemes are harmonious); otherwise the mean over pairs of hue families of the pair's fit to the nearest
 *     classic relation (analogous ≤ 30°, square 90°, triadic 120°, split-complementary 150°, complementary
 *     180°; within ±15° of the relation → 1, falling linearly to 0 at 20° further), times `min(1, 3 / F)` for
 *     F > 3 hue families;
 *   - **temp** (warm/cool balance): warm hues are [300°, 360°) ∪ [0°, 90°), cool ones [150°, 270°), others
 *     neutral. m = the smaller of warm and cool shares over their sum. m = 0 (one temperature, or no hue) →
 *     0.7; 0.1 ≤ m ≤ 0.4 (one temperature dominates, the other accents) → 1; linear from 0.7 at 0 to 1 at
 *     0.1, and from 1 at 0.4 to 0.5 at 0.5 (an even fight of warm and cool).
 * - Score: `100 × (0.15·div + 0.20·sat + 0.25·bright + 0.30·hue + 0.10·temp)`.
 *
 * `picture(evidence)` draws the palette as swatches sized by share, with HSV values and the five sub-scores.
 */
import { kmeans } from 'ml-kmeans';
import { converter, differenceCiede2000, formatHex, type Rgb } from 'culori';
import { round2 } from '../formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import { decodeRgb, pickScreenshot, renderSvg, svgLabel, svgRect } from './image-tools.js';

export const KMEANS_SEED = 42;
const K = 6;
const SAMPLE_W = 128;
const SAMPLE_H = 80;
const MERGE_DELTA_E = 10;
const MIN_SHARE = 0.02;

const toHsv = converter('hsv');
const deltaE = differenceCiede2000();

export interface PaletteColour {
  hex: string;
  share: number;
  h: number | null;
  s: number;
  v: number;
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
  score: number;
  hueFamilies: number[];
}

/** Dominant colours of RGB pixels (step 2). Deterministic for a given input. */
export function dominantColours(pixels: Uint8Array): PaletteColour[] {
  const points: number[][] = [];
  for (let i = 0; i + 2 < pixels.length; i += 3) points.push([pixels[i]!, pixels[i + 1]!, pixels[i + 2]!]);
  const distinct = new Set(points.map((p) => (p[0]! << 16) | (p[1]! << 8) | p[2]!)).size;
  const k = Math.max(1, Math.min(K, distinct));
  const res = kmeans(points, k, { seed: KMEANS_SEED, initialization: 'kmeans++', maxIterations: 50 });
  const counts = new Array<number>(k).fill(0);
  for (const c of res.clusters) counts[c]!++;
  let colours = res.centroids
    .map((c, i) => ({ rgb: { mode: 'rgb', r: c[0]! / 255, g: c[1]! / 255, b: c[2]! / 255 } as Rgb, share: counts[i]! / points.length }))
    .filter((c) => c.share > 0)
    .sort((a, b) => b.share - a.share);
  // merge perceptually identical centroids
  const merged: typeof colours = [];
  for (const c of colours) {
    const near = merged.find((m) => deltaE(m.rgb, c.rgb) < MERGE_DELTA_E);
    if (near) near.share += c.share;
    else merged.push({ ...c });
  }
  colours = merged.filter((c) => c.share >= MIN_SHARE).sort((a, b) => b.share - a.share);
  return colours.map((c) => {
    const hsv = toHsv(c.rgb);
    return {
      hex: formatHex(c.rgb),
      share: c.share,
      h: hsv.h === undefined || Number.isNaN(hsv.h) ? null : hsv.h,
      s: hsv.s ?? 0,
      v: hsv.v ?? 0,
    };
  });
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

/** The five sub-scores and the blend (steps 3–5) for a palette. */
export function harmonyOf(palette: PaletteColour[]): HarmonyResult {
  const n = palette.length;
  const total = palette.reduce((a, c) => a + c.share, 0) || 1;
  const div = n <= 1 ? 0.3 : n === 2 ? 0.7 : n <= 5 ? 1 : 0.8;

  const meanS = palette.reduce((a, c) => a + c.s * c.share, 0) / total;
  const highSat = palette.filter((c) => c.s >= 0.6 && c.v >= 0.2).length;
  const sat = clamp01(1 - Math.abs(meanS - 0.3) / 0.7) * (highSat > 2 ? 2 / highSat : 1);

  const vs = palette.map((c) => c.v);
  const bright = n ? clamp01((Math.max(...vs) - Math.min(...vs)) / 0.6) : 0;

  const chromatic = palette.filter((c) => c.h !== null && c.s >= 0.2 && c.v >= 0.2);
  // hue families: greedy by share, a colour joins the first family within 30°
  const families: Array<{ h: number; share: number }> = [];
  for (const c of chromatic) {
    const f = families.find((x) => hueDistance(x.h, c.h!) <= 30);
    if (f) f.share += c.share;
    else families.push({ h: c.h!, share: c.share });
  }
  let hue: number;
  if (families.length <= 1) hue = 0.9;
  else {
    let sum = 0;
    let pairs = 0;
    for (let i = 0; i < families.length; i++)
      for (let j = i + 1; j < families.length; j++) {
        sum += pairHarmony(hueDistance(families[i]!.h, families[j]!.h));
        pairs++;
      }
    hue = (sum / pairs) * (families.length > 3 ? 3 / families.length : 1);
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
  return { palette, parts, score, hueFamilies: families.map((f) => round2(f.h)) };
}

async function analyse(evidence: Evidence): Promise<HarmonyResult | { reason: string }> {
  const pick = pickScreenshot(evidence, 'desktop');
  if ('reason' in pick) return pick;
  const rgb = await decodeRgb(pick.shot.png, { width: SAMPLE_W, height: SAMPLE_H });
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
  let body = svgLabel(12, 28, `color-harmony ${round2(r.score)}: ${r.palette.length} dominant colours (k-means, seed ${KMEANS_SEED})`, '#000', 18);
  let x = 12;
  const barW = width - 24;
  for (const c of r.palette) {
    const w = Math.max(2, Math.round(c.share * barW));
    body += svgRect({ x, y: 44, width: w, height: 110 }, '#333', 1, c.hex);
    if (w >= 70) {
      body += svgLabel(x + 4, 172, c.hex, '#000', 12);
      body += svgLabel(x + 4, 188, `${Math.round(c.share * 100)}%`, '#333', 12, 'normal');
      body += svgLabel(x + 4, 204, `h${c.h === null ? '–' : Math.round(c.h)} s${c.s.toFixed(2)} v${c.v.toFixed(2)}`, '#333', 11, 'normal');
    }
    x += w;
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
    return [{ name: 'palette', png: await picture(evidence), caption: 'dominant colours as swatches sized by share, with the five sub-scores' }];
  },
  async score(evidence) {
    const r = await analyse(evidence);
    if ('reason' in r) return unscorable(r.reason);
    const p = partsRounded(r.parts);
    return scored(r.score, `${r.palette.length} dominant colours; div ${p.div}, sat ${p.sat}, bright ${p.bright}, hue ${p.hue}, temp ${p.temp}`, {
      screenshot: 'desktop',
      seed: KMEANS_SEED,
      palette: r.palette.map((c) => ({ hex: c.hex, share: round2(c.share * 100), h: c.h === null ? null : round2(c.h), s: round2(c.s), v: round2(c.v) })),
      hueFamilies: r.hueFamilies,
      subScores: p,
      weights: { div: 0.15, sat: 0.2, bright: 0.25, hue: 0.3, temp: 0.1 },
    });
  },
};

export default colorHarmony;
