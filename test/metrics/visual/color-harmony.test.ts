/**
 * color-harmony's five named measurements on hand-made palettes (the study's: diversity by Euclidean distance
 * between dominant colours, saturation mean and variance, brightness range and concentration, hue relations,
 * warm/cool ratio; weights .15/.20/.25/.30/.10). Screenshot-level behaviour is in vision-metrics.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { harmonyOf } from '../../../metrics/visual/color-harmony.js';
import type { PaletteColour } from '../../../metrics/lib/palette.js';

const colour = (hex: string, share: number, h: number | null, s: number, v: number, role: PaletteColour['role'] = 'surface'): PaletteColour => ({
  hex,
  share,
  h,
  s,
  v,
  role,
});
const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-3, `${what}: ${a} ≠ ${b}`);

describe('color-harmony measurements', () => {
  const cases: Array<{
    name: string;
    palette: PaletteColour[];
    expect: Partial<Record<'div' | 'sat' | 'bright' | 'hue' | 'temp' | 'score' | 'meanDistance' | 'satMean' | 'satSd' | 'valueRange' | 'valueSd', number>>;
  }> = [
    {
      // d̄ = 441.67 (black–white), 2 colours → ×1/3; S̄ = σ_S = 0 → (0.5714 + 0.5714)/2; range 1, σ_V = √(0.9·0.1² + 0.1·0.9²) = 0.3 → 1
      name: 'black text (10 %) on white: diversity 1/3 for two colours, full brightness contrast, neutral saturation',
      palette: [colour('#ffffff', 0.9, null, 0, 1), colour('#000000', 0.1, null, 0, 0, 'foreground')],
      expect: {
        meanDistance: 441.673,
        div: 1 / 3,
        satMean: 0,
        satSd: 0,
        sat: 0.5714,
        valueRange: 1,
        valueSd: 0.3,
        bright: 1,
        hue: 0.9,
        temp: 0.7,
        score: 75.4286,
      },
    },
    {
      name: 'one colour: no distance, no contrast',
      palette: [colour('#ffffff', 1, null, 0, 1)],
      expect: { meanDistance: 0, div: 0, valueRange: 0, valueSd: 0, bright: 0 },
    },
    {
      // S̄ = 0.03·0.8 = 0.024, σ_S = √(0.97·0.024² + 0.03·0.776²) = 0.1365 → (0.6057 + 0.9614)/2 = 0.7836
      name: 'a saturated accent (3 %) on a neutral surface: low mean, moderate variance, high saturation balance',
      palette: [colour('#ffffff', 0.97, null, 0, 1), colour('#1d4ed8', 0.03, 225, 0.8, 0.85, 'foreground')],
      expect: { satMean: 0.024, satSd: 0.1365, sat: 0.7836 },
    },
    {
      // S̄ = 0.9, σ_S = 0 → (1 − 0.6/0.7 + 0.5714)/2 = 0.3571
      name: 'an all-saturated screen: mean far above the calm target, no variance',
      palette: [colour('#ff0000', 0.5, 0, 0.9, 1), colour('#00ff00', 0.5, 120, 0.9, 1)],
      expect: { satMean: 0.9, satSd: 0, sat: 0.3571 },
    },
    {
      // range 0.2 → 0.333; σ_V = 0.1 → 0.4; bright = 0.3667
      name: 'brightness concentrated on two close levels: small range, small spread',
      palette: [colour('#cccccc', 0.5, null, 0, 0.8), colour('#999999', 0.5, null, 0, 0.6)],
      expect: { valueRange: 0.2, valueSd: 0.1, bright: 0.3667 },
    },
    {
      name: 'complementary hues (blue 225°, orange 38°) fit a classic relation; warm and cool balanced within 0.1–0.4',
      palette: [colour('#ffffff', 0.7, null, 0, 1), colour('#1d4ed8', 0.2, 225, 0.87, 0.85), colour('#f59e0b', 0.1, 38, 0.96, 0.96)],
      expect: { hue: 1, temp: 1 },
    },
    {
      // 65° apart: 25° from a square → 1 − (25 − 15)/20 = 0.5
      name: 'hues 65° apart fit no classic relation well: 0.5',
      palette: [colour('#ffffff', 0.9, null, 0, 1), colour('#1661cd', 0.05, 215, 0.89, 0.8), colour('#1a8754', 0.05, 150, 0.81, 0.53)],
      expect: { hue: 0.5 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = harmonyOf(c.palette);
      const got: Record<string, number> = { ...r.parts, ...r.measures, score: r.score };
      for (const [k, v] of Object.entries(c.expect)) close(got[k]!, v, k);
    });
  }
});
