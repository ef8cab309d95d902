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
import { KMEANS_SEED, dist2, dominantColours, type PaletteColour, type Vec } from '../lib/palette.js';

import { round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import { decodeRgb, pickScreenshot, renderSvg, svgLabel, svgRect } from '../lib/image-tools.js';

/** The largest RGB distance (black to white): diversity's scale. */
export const MAX_RGB_DISTANCE = Math.sqrt(3) * 255;
/** Palettes of this many colours or more get full credit for their count. */
export const DIV_FULL_COUNT = 4;

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
