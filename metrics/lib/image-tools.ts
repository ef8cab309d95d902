/**
 * Shared image plumbing for the screenshot and media metrics (layout-consistency, layout-sparsity,
 * color-harmony, media-quality, placeholder-quality):
 * - decoding PNG/JPEG/WebP/GIF/SVG bytes to raw grey or RGB pixels with sharp;
 * - loading opencv-wasm once per process (and removing the process-wide `uncaughtException` /
 *   `unhandledRejection` handlers its Emscripten loader installs, which would otherwise rethrow or abort on any
 *   unrelated error in the host process);
 * - choosing the screenshot a metric reads (with the reason when it is missing);
 * - drawing annotations: an SVG overlay composited on a PNG by sharp (boxes, labels), and whole pictures drawn
 *   from SVG (swatches, contact sheets). Text is rendered by librsvg with the system's fonts.
 */
import { createRequire } from 'node:module';
import { escapeHtml } from '../../lib/html.js';
import sharp, { type OverlayOptions } from 'sharp';
import { present, type Evidence } from '../../core/evidence.js';
import type { Screenshot } from '../../core/browser-evidence.js';

// ---------------------------------------------------------------------------------------------------------
// OpenCV

/** The opencv-wasm module object (typed loosely: its bundled typings cover only part of the API we call). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CV = any;

let cvInstance: CV | undefined;

/**
 * opencv-wasm, loaded on first use and kept for the life of the process (it loads in ~150 ms and its wasm
 * memory never shrinks, so loading it once matters). Its loader adds `uncaughtException` and
 * `unhandledRejection` listeners that rethrow; we remove exactly the listeners that appeared while loading.
 */
export function opencv(): CV {
  if (cvInstance) return cvInstance;
  const before = {
    uncaughtException: new Set(process.listeners('uncaughtException')),
    unhandledRejection: new Set(process.listeners('unhandledRejection')),
  };
  const require = createRequire(import.meta.url);
  const mod = require('opencv-wasm') as { cv: CV };
  for (const l of process.listeners('uncaughtException')) {
    if (!before.uncaughtException.has(l)) process.removeListener('uncaughtException', l);
  }
  for (const l of process.listeners('unhandledRejection')) {
    if (!before.unhandledRejection.has(l)) process.removeListener('unhandledRejection', l);
  }
  cvInstance = mod.cv;
  return cvInstance;
}

/** Run `fn` with Mats that are deleted afterwards, whatever happens (wasm memory is not garbage-collected). */
export function withMats<T>(fn: (track: <M extends { delete(): void }>(m: M) => M) => T): T {
  const mats: Array<{ delete(): void }> = [];
  const track = <M extends { delete(): void }>(m: M): M => {
    mats.push(m);
    return m;
  };
  try {
    return fn(track);
  } finally {
    for (const m of mats.reverse()) {
      try {
        m.delete();
      } catch {
        /* already deleted */
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Decoding

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface RgbImage {
  /** Interleaved R, G, B bytes. */
  data: Uint8Array;
  width: number;
  height: number;
}

/** Decode any image sharp reads to 8-bit grey (alpha flattened onto white). */
export async function decodeGrey(input: Buffer, resize?: { width: number; height: number; fit?: 'fill' | 'inside' }): Promise<GreyImage> {
  let img = sharp(input, { limitInputPixels: 100_000_000 }).flatten({ background: '#ffffff' });
  if (resize) img = img.resize(Math.max(1, Math.round(resize.width)), Math.max(1, Math.round(resize.height)), { fit: resize.fit ?? 'fill' });
  const { data, info } = await img.greyscale().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected 1 grey channel, got ${info.channels}`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** Decode to 8-bit RGB (alpha flattened onto white), optionally resized (sharp's default Lanczos kernel). */
export async function decodeRgb(input: Buffer, resize?: { width: number; height: number }): Promise<RgbImage> {
  let img = sharp(input, { limitInputPixels: 100_000_000 }).flatten({ background: '#ffffff' });
  if (resize) img = img.resize(Math.max(1, Math.round(resize.width)), Math.max(1, Math.round(resize.height)), { fit: 'fill' });
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** The top `maxHeight` pixels of a PNG (for long full-page screenshots); the input itself when shorter. */
export async function cropTop(png: Buffer, width: number, height: number, maxHeight: number): Promise<Buffer> {
  if (height <= maxHeight) return png;
  return sharp(png).extract({ left: 0, top: 0, width, height: maxHeight }).png().toBuffer();
}

/** Variance of the Laplacian (3×3 aperture, 64-bit float) of a grey image: the classic sharpness measure. */
export function laplacianVariance(img: GreyImage): number {
  const cv = opencv();
  return withMats((track) => {
    const src = track(new cv.Mat(img.height, img.width, cv.CV_8UC1));
    src.data.set(img.data);
    const lap = track(new cv.Mat());
    cv.Laplacian(src, lap, cv.CV_64F, 1, 1, 0, cv.BORDER_DEFAULT);
    const mean = track(new cv.Mat());
    const std = track(new cv.Mat());
    cv.meanStdDev(lap, mean, std);
    const sd = std.doubleAt(0, 0) as number;
    return sd * sd;
  });
}

/** Decode a `data:` URI's bytes (base64 or percent-encoded); null when it is not one. */
export function dataUriBytes(uri: string): { mime: string; bytes: Buffer } | null {
  const m = /^data:([^,;]*)((?:;[^,;]*)*?),(.*)$/s.exec(uri);
  if (!m) return null;
  const base64 = /;base64/i.test(m[2]!);
  const payload = m[3]!;
  try {
    const bytes = base64 ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
    return { mime: (m[1] || 'text/plain').toLowerCase(), bytes };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Screenshots

export type ScreenshotChoice = 'desktop' | 'fullPage';

/**
 * The screenshot a metric reads (the runner scores a metric that needs `screenshot` only when the desktop one
 * exists). `fullPage` falls back to the first screen.
 */
export function pickScreenshot(evidence: Evidence, which: ScreenshotChoice): { shot: Screenshot; which: ScreenshotChoice } {
  const shots = present(evidence.browser, 'the browser evidence').screenshots;
  if (which === 'fullPage' && shots.fullPage) return { shot: shots.fullPage, which: 'fullPage' };
  return { shot: shots.desktop!, which: 'desktop' };
}

// ---------------------------------------------------------------------------------------------------------
// Drawing

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The farthest any coordinate may lie from the origin in an SVG we draw (far beyond any kept picture). */
const SVG_COORD_LIMIT = 100_000;

/**
 * A number as an SVG attribute value: finite, clamped to ±SVG_COORD_LIMIT and rounded to 0.01; null for anything
 * else. Typed numbers are not trusted here: boxes and sizes come from the page under test, which may hand back a
 * string (`10" /><rect …`), NaN or 1e308 in their place.
 */
export function svgNumber(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return null;
  return String(Math.round(Math.min(SVG_COORD_LIMIT, Math.max(-SVG_COORD_LIMIT, v)) * 100) / 100);
}

/**
 * A box from evidence made fit to draw on a `width`×`height` picture: four finite numbers, clamped to the picture;
 * null when it is not four finite numbers, or lies wholly outside (so it is left out of the picture).
 */
export function boxInImage(b: unknown, width: number, height: number): Box | null {
  if (typeof b !== 'object' || b === null) return null;
  const { x, y, width: w, height: h } = b as Record<string, unknown>;
  const nums = [x, y, w, h];
  if (!nums.every((n) => typeof n === 'number' && Number.isFinite(n))) return null;
  const [bx, by, bw, bh] = nums as number[];
  const clampTo = (v: number, hi: number) => Math.min(hi, Math.max(0, v));
  const x1 = clampTo(bx!, width);
  const y1 = clampTo(by!, height);
  const x2 = clampTo(bx! + bw!, width);
  const y2 = clampTo(by! + bh!, height);
  if (x2 < x1 || y2 < y1 || bx! > width || by! > height || bx! + bw! < 0 || by! + bh! < 0) return null;
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/**
 * An SVG rectangle outline; '' when a coordinate is not a finite number (see `svgNumber`). Colours are escaped;
 * `extra` is markup written by the caller (constant attributes), never evidence.
 */
export function svgRect(b: Box, stroke: string, strokeWidth = 2, fill = 'none', extra = ''): string {
  const [x, y, w, h, sw] = [b.x, b.y, b.width, b.height, strokeWidth].map(svgNumber);
  if (x === null || y === null || w === null || h === null || sw === null) return '';
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${escapeHtml(fill)}" stroke="${escapeHtml(stroke)}" stroke-width="${sw}" ${extra}/>`;
}

/** SVG text with a white halo so it reads on any background; '' when its position is not a pair of finite numbers. */
export function svgLabel(x: number, y: number, text: string, color = '#000', size = 14, weight = 'bold'): string {
  const [sx, sy, ss] = [x, y, size].map(svgNumber);
  if (sx === null || sy === null || ss === null) return '';
  return (
    `<text x="${sx}" y="${sy}" font-family="DejaVu Sans, sans-serif" font-size="${ss}" font-weight="${escapeHtml(weight)}" ` +
    `stroke="#fff" stroke-width="3" paint-order="stroke" fill="${escapeHtml(color)}">${escapeHtml(text)}</text>`
  );
}

/** Composite an SVG overlay (same coordinate system as the image) onto a PNG and return the PNG. */
export async function overlay(png: Buffer, width: number, height: number, svgBody: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${svgBody}</svg>`;
  return sharp(png)
    .composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
    .png()
    .toBuffer();
}

/** Render a whole picture from SVG markup (white background). */
export async function renderSvg(width: number, height: number, svgBody: string, images: OverlayOptions[] = []): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${svgBody}</svg>`;
  let img = sharp(Buffer.from(svg));
  if (images.length) img = sharp(await img.png().toBuffer()).composite(images);
  return img.png().toBuffer();
}

/** A thumbnail of any image bytes, fitted inside `size`×`size`; null when sharp cannot decode them. */
export async function thumbnail(bytes: Buffer, size: number): Promise<Buffer | null> {
  try {
    return await sharp(bytes, { limitInputPixels: 100_000_000 }).flatten({ background: '#ffffff' }).resize(size, size, { fit: 'inside' }).png().toBuffer();
  } catch {
    return null;
  }
}

/** Lay out tiles (thumbnail + caption lines) in a grid picture: the contact sheet of the media metrics. */
export async function contactSheet(
  title: string,
  tiles: Array<{ image: Buffer | null; lines: string[]; bad?: boolean }>,
  opts: { tile?: number; columns?: number } = {},
): Promise<Buffer> {
  const tile = opts.tile ?? 200;
  const columns = Math.max(1, Math.min(opts.columns ?? 4, tiles.length || 1));
  const captionLines = Math.max(1, ...tiles.map((t) => t.lines.length));
  const cellW = tile + 20;
  const cellH = tile + 16 + captionLines * 16 + 10;
  const rows = Math.max(1, Math.ceil(tiles.length / columns));
  const width = Math.max(cellW * columns + 20, 480);
  const height = 40 + rows * cellH + 10;
  let body = svgLabel(10, 26, title, '#000', 16);
  const images: OverlayOptions[] = [];
  for (const [i, t] of tiles.entries()) {
    const cx = 10 + (i % columns) * cellW;
    const cy = 40 + Math.floor(i / columns) * cellH;
    body += svgRect({ x: cx + 4, y: cy, width: tile + 8, height: tile + 8 }, t.bad ? '#d00' : '#999', t.bad ? 4 : 1, '#f4f4f4');
    if (t.image) {
      const meta = await sharp(t.image).metadata();
      const w = meta.width ?? tile;
      const h = meta.height ?? tile;
      images.push({ input: t.image, left: Math.round(cx + 8 + (tile - w) / 2), top: Math.round(cy + 4 + (tile - h) / 2) });
    } else {
      body += svgLabel(cx + 14, cy + tile / 2, 'no pixels', '#666', 12, 'normal');
    }
    for (const [j, line] of t.lines.entries()) {
      body += svgLabel(
        cx + 4,
        cy + tile + 26 + j * 16,
        line.length > 30 ? line.slice(0, 29) + '…' : line,
        j === 0 && t.bad ? '#c00' : '#222',
        12,
        j === 0 ? 'bold' : 'normal',
      );
    }
  }
  return renderSvg(width, height, body, images);
}
