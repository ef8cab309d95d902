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

/** Votes for the most common exact colour (an open-addressing table: a Map of a quarter million keys is slow). */
class ColourVotes {
  private readonly keys: Uint32Array;
  private readonly counts: Uint32Array;
  /** When each colour first voted: among equal counts the first wins, as in a vote by document order. */
  private readonly order: Uint32Array;
  private readonly mask: number;
  private next = 0;
  constructor(capacity: number) {
    let size = 1024;
    while (size < capacity * 2) size *= 2;
    this.keys = new Uint32Array(size);
    this.counts = new Uint32Array(size);
    this.order = new Uint32Array(size);
    this.mask = size - 1;
  }
  add(rgb: number): void {
    const key = rgb + 1;
    let i = Math.imul(key, 0x9e3779b1) >>> 0;
    for (;;) {
      i &= this.mask;
      const k = this.keys[i]!;
      if (k === key) {
        this.counts[i]!++;
        return;
      }
      if (k === 0) {
        this.keys[i] = key;
        this.counts[i] = 1;
        this.order[i] = this.next++;
        return;
      }
      i++;
    }
  }
  /** The colour with the most votes (the first found among equals). */
  mode(): number {
    let best = 0;
    let first = 0;
    let mode = 0;
    for (let i = 0; i < this.keys.length; i++) {
      if (this.keys[i] === 0) continue;
      const n = this.counts[i]!;
      if (n > best || (n === best && this.order[i]! < first)) {
        best = n;
        first = this.order[i]!;
        mode = this.keys[i]! - 1;
      }
    }
    return mode;
  }
}

/** An RGB image, `stride` bytes a row, with the luminance of each pixel. */
interface Rgb {
  rgb: Buffer;
  lum: Uint8Array;
  width: number;
  stride: number;
}

/** The pixels of the rectangle (x, y, w, h) of the image. */
function readRegion(img: Rgb, x: number, y: number, w: number, h: number): PixelReading & { mode: number } {
  const { rgb, lum, width, stride } = img;
  const bins = new Uint32Array(4096);
  const votes = new ColourVotes(Math.ceil((w * h) / 4) + 1);
  let edges = 0;
  for (let r = y; r < y + h; r++) {
    const row = r * stride;
    for (let c = x; c < x + w; c++) {
      const i = row + c * 3;
      const R = rgb[i]!;
      const G = rgb[i + 1]!;
      const B = rgb[i + 2]!;
      bins[((R >> 4) << 8) | ((G >> 4) << 4) | (B >> 4)]!++;
      // Every 4th pixel of a row votes for the most common exact colour: enough to find a background.
      if ((c & 3) === 0) votes.add((R << 16) | (G << 8) | B);
      const p = r * width + c;
      const l = lum[p]!;
      if ((c + 1 < x + w && Math.abs(lum[p + 1]! - l) > EDGE_STEP) || (r + 1 < y + h && Math.abs(lum[p + width]! - l) > EDGE_STEP)) edges++;
    }
  }
  const mode = votes.mode();
  const mr = mode >> 16;
  const mg = (mode >> 8) & 255;
  const mb = mode & 255;
  let content = 0;
  for (let r = y; r < y + h; r++) {
    const row = r * stride;
    for (let c = x; c < x + w; c++) {
      const i = row + c * 3;
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
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const width = Math.min(viewport.width, info.width);
  const height = Math.min(viewport.height, info.height);
  if (width < 2 || height < 2) throw new Error('the screenshot is empty');
  const stride = info.width * info.channels;
  if (info.channels !== 3) throw new Error(`the screenshot has ${info.channels} channels`);
  const lum = new Uint8Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0, i = r * stride, p = r * width; c < width; c++, i += 3, p++) lum[p] = (data[i]! * 299 + data[i + 1]! * 587 + data[i + 2]! * 114) / 1000;
  }
  const img: Rgb = { rgb: data, lum, width, stride };
  const whole = readRegion(img, 0, 0, width, height);
  const visuals = boxes.map((b) => {
    const x = Math.min(b.x, width - 1);
    const y = Math.min(b.y, height - 1);
    const w = Math.max(1, Math.min(b.width, width - x));
    const h = Math.max(1, Math.min(b.height, height - y));
    // A visual covering the whole viewport (a canvas sized to the window) reads as the whole: read once.
    const { mode: _m, ...px } = x === 0 && y === 0 && w === width && h === height ? whole : readRegion(img, x, y, w, h);
    return { ...px, share: round4((w * h) / (width * height)) };
  });
  const { mode, ...px } = whole;
  return { ...px, width, height, background: `#${mode.toString(16).padStart(6, '0')}`, visuals };
}
