/**
 * The first view as a person sees it: the viewport's pixels in the start-state screenshot, read as a whole and
 * in each visual's region (render-validity judges a canvas by what shows, which works for a WebGL canvas whose
 * drawing buffer reads back blank, and for a scene without text).
 *
 * Colours are RGB quantised to 4 bits a channel; one counts when it covers at least MIN_COLOUR_SHARE of the
 * region (and 4 pixels), so that anti-aliasing of a single line of text adds few. "Content" is the share of
 * pixels farther than FAINT (any channel) from the region's most common exact colour; an edge pixel steps by
 * more than EDGE_STEP of luminance to its right or lower neighbour.
 */
import sharp from 'sharp';
import type { PixelReading, ScreenReading, VisualBox } from '../../../core/browser-evidence.js';

const FAINT = 20;
const EDGE_STEP = 48;
const MIN_COLOUR_SHARE = 0.00002;

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The pixels of the rectangle (x, y, w, h) of an RGB image `width` pixels wide. */
function readRegion(rgb: Buffer, lum: Uint8Array, width: number, x: number, y: number, w: number, h: number): PixelReading & { mode: number } {
  const bins = new Uint32Array(4096);
  const exact = new Map<number, number>();
  let edges = 0;
  for (let r = y; r < y + h; r++) {
    for (let c = x; c < x + w; c++) {
      const i = (r * width + c) * 3;
      const v = (rgb[i]! << 16) | (rgb[i + 1]! << 8) | rgb[i + 2]!;
      bins[((rgb[i]! >> 4) << 8) | ((rgb[i + 1]! >> 4) << 4) | (rgb[i + 2]! >> 4)]!++;
      // Every 4th pixel of a row votes for the most common exact colour: enough to find a background.
      if ((c & 3) === 0) exact.set(v, (exact.get(v) ?? 0) + 1);
      const p = r * width + c;
      const l = lum[p]!;
      if ((c + 1 < x + w && Math.abs(lum[p + 1]! - l) > EDGE_STEP) || (r + 1 < y + h && Math.abs(lum[p + width]! - l) > EDGE_STEP)) edges++;
    }
  }
  let mode = 0;
  let best = -1;
  for (const [v, n] of exact) if (n > best) [mode, best] = [v, n];
  const mr = mode >> 16;
  const mg = (mode >> 8) & 255;
  const mb = mode & 255;
  let content = 0;
  for (let r = y; r < y + h; r++) {
    for (let c = x; c < x + w; c++) {
      const i = (r * width + c) * 3;
      if (Math.abs(rgb[i]! - mr) > FAINT || Math.abs(rgb[i + 1]! - mg) > FAINT || Math.abs(rgb[i + 2]! - mb) > FAINT) content++;
    }
  }
  const area = w * h;
  const minCount = Math.max(4, area * MIN_COLOUR_SHARE);
  let colours = 0;
  for (const n of bins) if (n >= minCount) colours++;
  return { content: round4(content / area), colours, edges: round4(edges / area), mode };
}

/** Read the viewport (`viewport` CSS px at the top of the screenshot `png`, scale 1) and the visuals' regions. */
export async function readScreen(png: Buffer, viewport: { width: number; height: number }, boxes: readonly VisualBox[]): Promise<ScreenReading> {
  const meta = await sharp(png).metadata();
  const width = Math.min(viewport.width, meta.width ?? 0);
  const height = Math.min(viewport.height, meta.height ?? 0);
  if (width < 2 || height < 2) throw new Error('the screenshot is empty');
  const rgb = await sharp(png).extract({ left: 0, top: 0, width, height }).removeAlpha().raw().toBuffer();
  const lum = new Uint8Array(width * height);
  for (let p = 0, i = 0; p < lum.length; p++, i += 3) lum[p] = (rgb[i]! * 299 + rgb[i + 1]! * 587 + rgb[i + 2]! * 114) / 1000;
  const whole = readRegion(rgb, lum, width, 0, 0, width, height);
  const visuals = boxes.map((b) => {
    const x = Math.min(b.x, width - 1);
    const y = Math.min(b.y, height - 1);
    const w = Math.max(1, Math.min(b.width, width - x));
    const h = Math.max(1, Math.min(b.height, height - y));
    const { mode: _m, ...px } = readRegion(rgb, lum, width, x, y, w, h);
    return { ...px, share: round4((w * h) / (width * height)) };
  });
  const { mode, ...px } = whole;
  return { ...px, width, height, background: `#${mode.toString(16).padStart(6, '0')}`, visuals };
}
