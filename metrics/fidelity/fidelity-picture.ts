/**
 * The explanatory picture of the fidelity metrics (`--explain <id> --out <dir>`): the reference's screenshot on
 * the left, the page's on the right (each scaled to at most PANEL_WIDTH px wide), matched boxes drawn green on
 * both and joined by a line, reference boxes without a match red (missing from the page), page boxes without a
 * match orange (not in the reference). A box beyond its screenshot (a page wider than the viewport) is drawn clamped to
 * its panel's edge.
 */
import sharp from 'sharp';
import type { Screenshot } from '../../core/browser-evidence.js';
import type { ViewportSpec } from '../../core/fidelity.js';
import { svgNumber } from '../lib/image-tools.js';
import { escapeHtml } from '../../lib/html.js';
import type { NormBox } from './fidelity-tools.js';

const PANEL_WIDTH = 900;
const GAP = 24;
const HEADER = 28;

export async function drawPair(
  ref: Screenshot,
  cand: Screenshot,
  v: ViewportSpec,
  refBoxes: readonly NormBox[],
  candBoxes: readonly NormBox[],
  matches: ReadonlyArray<{ r: number; c: number }>,
): Promise<Buffer> {
  const s = Math.min(1, PANEL_WIDTH / Math.max(ref.width, cand.width));
  const rw = Math.round(ref.width * s);
  const rh = Math.round(ref.height * s);
  const cw = Math.round(cand.width * s);
  const ch = Math.round(cand.height * s);
  const width = rw + GAP + cw;
  const height = HEADER + Math.max(rh, ch);
  const ox = rw + GAP;
  // box → picture pixels: CSS px × the shot's pixels per CSS px × the panel scale
  const kr = (ref.deviceScaleFactor || 1) * s;
  const kc = (cand.deviceScaleFactor || 1) * s;
  // A block outside its screenshot (a page wider than the viewport scrolls sideways; the shot holds the viewport's
  // width) is clamped to its panel's edge, so it never lands on the other panel.
  const px = (b: NormBox, x0: number) => {
    const k = x0 === 0 ? kr : kc;
    const pw = x0 === 0 ? rw : cw;
    const ph = x0 === 0 ? rh : ch;
    const clampTo = (lo: number, hi: number, a: number) => Math.min(hi, Math.max(lo, a));
    // 1 px inside the panel: the 2 px stroke is centred on the box's edge
    const x1 = clampTo(x0 + 1, x0 + pw - 3, x0 + b.x * v.width * k);
    const x2 = clampTo(x1 + 2, x0 + pw - 1, x0 + (b.x + b.w) * v.width * k);
    const y1 = clampTo(HEADER + 1, HEADER + ph - 3, HEADER + b.y * v.height * k);
    const y2 = clampTo(y1 + 2, HEADER + ph - 1, HEADER + (b.y + b.h) * v.height * k);
    return { x: x1, y: y1, w: Math.max(1, x2 - x1), h: Math.max(1, y2 - y1) };
  };
  // A block the page reported with a coordinate that is not a finite number is left out (svgNumber).
  const rect = (b: { x: number; y: number; w: number; h: number }, colour: string, dash = '') => {
    const [x, y, w, h] = [b.x, b.y, b.w, b.h].map(svgNumber);
    if (x === null || y === null || w === null || h === null) return '';
    return `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${colour}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
  };
  const parts: string[] = [];
  const matchedR = new Set(matches.map((m) => m.r));
  const matchedC = new Set(matches.map((m) => m.c));
  refBoxes.forEach((b, i) => {
    if (!matchedR.has(i)) parts.push(rect(px(b, 0), '#d32f2f', '5,3'));
  });
  candBoxes.forEach((b, i) => {
    if (!matchedC.has(i)) parts.push(rect(px(b, ox), '#f57c00', '5,3'));
  });
  for (const m of matches) {
    const a = px(refBoxes[m.r]!, 0);
    const b = px(candBoxes[m.c]!, ox);
    parts.push(rect(a, '#2e7d32'), rect(b, '#2e7d32'));
    const [x1, y1, x2, y2] = [a.x + a.w, a.y + a.h / 2, b.x, b.y + b.h / 2].map(svgNumber);
    if (x1 !== null && y1 !== null && x2 !== null && y2 !== null)
      parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#2e7d32" stroke-width="1" stroke-opacity="0.55"/>`);
  }
  const label = (x: number, text: string) =>
    `<text x="${x + 4}" y="19" font-family="sans-serif" font-size="15" font-weight="bold" fill="#222">${escapeHtml(text)}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${label(0, `reference (${v.name})`)}${label(ox, 'page')}${parts.join('')}</svg>`;
  const [a, b] = await Promise.all([sharp(ref.png).resize(rw, rh).png().toBuffer(), sharp(cand.png).resize(cw, ch).png().toBuffer()]);
  return sharp({ create: { width, height, channels: 4, background: '#ffffff' } })
    .composite([
      { input: a, left: 0, top: HEADER },
      { input: b, left: ox, top: HEADER },
      { input: Buffer.from(svg), left: 0, top: 0 },
    ])
    .png()
    .toBuffer();
}
