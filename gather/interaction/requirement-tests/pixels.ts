/**
 * What the screen shows, for requirement tests: the viewport captured by the browser (CDP `Page.captureScreenshot`,
 * our own pixels: nothing the page's scripts say), decoded once, and read in regions (`changed: "screen"`,
 * `moving`, `still`, `pixels`, and the crops OCR reads).
 *
 * Interpretations:
 * - Two captures differ when at least max(MIN_CHANGED_PX, CHANGED_SHARE of the region) pixels differ by more than
 *   CHANNEL_STEP in some channel: anti-aliased edges re-rasterised a fraction of a pixel away change by less than
 *   that, a blinking caret or a sprite that moved a few pixels changes more.
 * - The dominant colour of a region is the most common colour at 4 bits a channel (the mean of its pixels):
 *   gradients and anti-aliasing fall into the buckets of the colour they shade.
 * - A colour's share is the share of pixels within `tolerance` (Euclidean RGB distance, default COLOUR_TOLERANCE)
 *   of it; two regions differ when over REGION_DIFF_SHARE of their pixels (the second sampled onto the first's
 *   grid) differ by more than CHANNEL_STEP.
 */
import sharp from 'sharp';
import { parse as parseCssColour, formatHex, converter } from 'culori';
import type { Point, Region } from '../../../core/requirement-tests.js';

export const CHANNEL_STEP = 24;
export const CHANGED_SHARE = 0.0001;
export const MIN_CHANGED_PX = 4;
export const COLOUR_TOLERANCE = 48;
export const REGION_DIFF_SHARE = 0.05;

/** An RGB image (3 bytes a pixel), as decoded from a capture. */
export interface Rgb {
  data: Buffer;
  width: number;
  height: number;
}

/** A rectangle in image pixels (whole numbers, inside the image). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export async function decode(png: Buffer): Promise<Rgb> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** `r` clipped to the image, in whole pixels; null when nothing of it is inside. */
export function clip(img: { width: number; height: number }, r: { x: number; y: number; width: number; height: number }): Rect | null {
  if (![r.x, r.y, r.width, r.height].every(Number.isFinite)) return null;
  const x0 = Math.max(0, Math.floor(r.x));
  const y0 = Math.max(0, Math.floor(r.y));
  const x1 = Math.min(img.width, Math.ceil(r.x + r.width));
  const y1 = Math.min(img.height, Math.ceil(r.y + r.height));
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/** A region of the test language inside `outer` (an element's rectangle, or the whole viewport). */
export function regionIn(
  outer: { x: number; y: number; width: number; height: number },
  region?: Region,
): { x: number; y: number; width: number; height: number } {
  if (!region) return outer;
  if ('fx' in region)
    return { x: outer.x + region.fx * outer.width, y: outer.y + region.fy * outer.height, width: region.fw * outer.width, height: region.fh * outer.height };
  return { x: outer.x + region.x, y: outer.y + region.y, width: region.width, height: region.height };
}

/** A point of the test language inside `outer`. */
export function pointIn(outer: { x: number; y: number; width: number; height: number }, p: Point): { x: number; y: number } {
  return 'fx' in p ? { x: outer.x + p.fx * outer.width, y: outer.y + p.fy * outer.height } : { x: outer.x + p.x, y: outer.y + p.y };
}

export function crop(img: Rgb, r: Rect): Rgb {
  const out = Buffer.alloc(r.width * r.height * 3);
  for (let y = 0; y < r.height; y++) img.data.copy(out, y * r.width * 3, ((r.y + y) * img.width + r.x) * 3, ((r.y + y) * img.width + r.x + r.width) * 3);
  return { data: out, width: r.width, height: r.height };
}

/** How many pixels of two same-sized images differ by more than CHANNEL_STEP in some channel. */
export function changedPixels(a: Rgb, b: Rgb): number {
  if (a.width !== b.width || a.height !== b.height) return a.width * a.height;
  let n = 0;
  const d = a.data;
  const e = b.data;
  for (let i = 0; i < d.length; i += 3) {
    if (Math.abs(d[i]! - e[i]!) > CHANNEL_STEP || Math.abs(d[i + 1]! - e[i + 1]!) > CHANNEL_STEP || Math.abs(d[i + 2]! - e[i + 2]!) > CHANNEL_STEP) n++;
  }
  return n;
}

/** Whether two captures of one region differ beyond anti-aliasing (module comment), with the count of pixels. */
export function differ(a: Rgb, b: Rgb): { differ: boolean; changed: number; of: number } {
  const changed = changedPixels(a, b);
  const of = a.width * a.height;
  return { differ: changed >= Math.max(MIN_CHANGED_PX, Math.ceil(CHANGED_SHARE * of)), changed, of };
}

export type Colour = [number, number, number];

/** A CSS colour as RGB 0–255, or null. */
export function colourOf(css: string): Colour | null {
  const c = parseCssColour(css);
  if (!c) return null;
  const rgb = converter('rgb')(c);
  if (!rgb) return null;
  const ch = (v: number) => Math.max(0, Math.min(255, Math.round(v * 255)));
  return [ch(rgb.r), ch(rgb.g), ch(rgb.b)];
}

export const hexOf = (c: Colour): string => formatHex({ mode: 'rgb', r: c[0] / 255, g: c[1] / 255, b: c[2] / 255 });

const distance = (a: Colour, b: Colour) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The most common colour at 4 bits a channel (the mean of its pixels), and its share of the image. */
export function dominant(img: Rgb): { colour: Colour; share: number } {
  const counts = new Uint32Array(4096);
  const sums = new Float64Array(4096 * 3);
  const d = img.data;
  for (let i = 0; i < d.length; i += 3) {
    const k = ((d[i]! >> 4) << 8) | ((d[i + 1]! >> 4) << 4) | (d[i + 2]! >> 4);
    counts[k]!++;
    sums[k * 3]! += d[i]!;
    sums[k * 3 + 1]! += d[i + 1]!;
    sums[k * 3 + 2]! += d[i + 2]!;
  }
  let best = 0;
  for (let k = 1; k < 4096; k++) if (counts[k]! > counts[best]!) best = k;
  const n = Math.max(1, counts[best]!);
  return {
    colour: [Math.round(sums[best * 3]! / n), Math.round(sums[best * 3 + 1]! / n), Math.round(sums[best * 3 + 2]! / n)],
    share: counts[best]! / Math.max(1, img.width * img.height),
  };
}

/** The share of pixels within `tolerance` of `colour`. */
export function shareOf(img: Rgb, colour: Colour, tolerance = COLOUR_TOLERANCE): number {
  let n = 0;
  const d = img.data;
  for (let i = 0; i < d.length; i += 3) if (distance([d[i]!, d[i + 1]!, d[i + 2]!], colour) <= tolerance) n++;
  return n / Math.max(1, img.width * img.height);
}

/** The share of pixels that differ between two regions (the second sampled onto the first's grid). */
export function regionDifference(a: Rgb, b: Rgb): number {
  let n = 0;
  for (let y = 0; y < a.height; y++) {
    const by = Math.min(b.height - 1, Math.floor((y * b.height) / a.height));
    for (let x = 0; x < a.width; x++) {
      const bx = Math.min(b.width - 1, Math.floor((x * b.width) / a.width));
      const i = (y * a.width + x) * 3;
      const j = (by * b.width + bx) * 3;
      if (Math.max(Math.abs(a.data[i]! - b.data[j]!), Math.abs(a.data[i + 1]! - b.data[j + 1]!), Math.abs(a.data[i + 2]! - b.data[j + 2]!)) > CHANNEL_STEP) n++;
    }
  }
  return n / Math.max(1, a.width * a.height);
}

/** An RGB image as PNG (the crops OCR reads). */
export function pngOf(img: Rgb): Promise<Buffer> {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .png()
    .toBuffer();
}
