/** Synthetic screenshots and browser evidence for the vision metric tests (PNG bytes made with sharp from SVG). */
import sharp from 'sharp';
import { gathered } from '../../../core/evidence.js';
import type { BrowserEvidence, MediaInfo, Screenshot } from '../../../core/browser-evidence.js';

/** Render SVG markup (body only) to a PNG of the given size on a white background. */
export async function svgPng(width: number, height: number, body: string, background = '#ffffff'): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${background}"/>${body}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

export function shot(png: Buffer, width: number, height: number): Screenshot {
  return { png, width, height, deviceScaleFactor: 1 };
}

/** Browser evidence with only screenshots and media filled. */
export function browserEvidence(parts: { desktop?: Screenshot; fullPage?: Screenshot; media?: MediaInfo[] }) {
  const value: BrowserEvidence = {
    url: 'http://127.0.0.1:1/',
    finalUrl: 'http://127.0.0.1:1/',
    timings: {},
    console: [],
    pageErrors: [],
    network: [],
    domHtml: '<html></html>',
    domNodeCount: 1,
    screenshots: { desktop: parts.desktop, fullPage: parts.fullPage },
    faults: [],
  };
  if (parts.media) value.media = parts.media;
  return { browser: gathered(value) };
}

/** A grid of bordered cards with a few text-like bars inside; `jitter(i)` shifts card i by [dx, dy]. */
export function cardGrid(opts: { cols?: number; rows?: number; jitter?: (i: number) => [number, number]; heights?: (i: number) => number } = {}): string {
  const cols = opts.cols ?? 3;
  const rows = opts.rows ?? 2;
  let body = '<rect x="0" y="0" width="1280" height="70" fill="#1e293b"/>';
  let i = 0;
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++, i++) {
      const [dx, dy] = opts.jitter?.(i) ?? [0, 0];
      const x = 100 + c * 370 + dx;
      const y = 130 + r * 320 + dy;
      const h = opts.heights?.(i) ?? 280;
      body += `<rect x="${x}" y="${y}" width="330" height="${h}" fill="#fff" stroke="#94a3b8" stroke-width="2"/>`;
      body += `<rect x="${x + 20}" y="${y + 20}" width="290" height="120" fill="#cbd5e1"/>`;
      body += `<rect x="${x + 20}" y="${y + 160}" width="200" height="16" fill="#334155"/>`;
      body += `<rect x="${x + 20}" y="${y + 190}" width="260" height="10" fill="#64748b"/>`;
    }
  return body;
}
