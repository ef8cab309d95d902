/**
 * `layout-sparsity` (SPEC #10): how much of the first screen is one empty expanse?
 *
 * - Screenshot: the 1280×800 first screen (desktop, DPR 1). Documented choice: emptiness is judged where the
 *   user looks first; on a full-page shot the share of the largest blank area would depend on page length.
 * - Grey-scale (sharp, Rec. 601 luma), then each pixel goes into a tolerance bucket `floor(grey / 80)`
 *   (buckets 0–79, 80–159, 160–239, 240–255).
 * - Largest rectangle whose pixels all fall into one bucket: row by row, `h[x]` is how many pixels upward from
 *   this row stay in the bucket of (x, row); inside each run of equal buckets along the row, the largest
 *   rectangle under the histogram `h` is found with a monotonic stack. O(width × height).
 * - r = that rectangle's area / image area × 100; score = `min(√(100 − r) × 10, 100)`: an empty page (r = 100)
 *   scores 0, a page whose largest uniform rectangle covers 19 % scores 90.
 *
 * `picture(evidence)` outlines the rectangle in red on the screenshot and prints its share.
 */
import { round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import { decodeGrey, overlay, pickScreenshot, svgLabel, svgRect, type Box, type GreyImage } from '../lib/image-tools.js';

export const BUCKET_WIDTH = 80;

export interface BlankRect extends Box {
  bucket: number;
  area: number;
}

/** The largest rectangle of one grey bucket (histogram + monotonic stack per run of equal buckets). */
export function largestUniformRectangle(img: GreyImage, bucketWidth = BUCKET_WIDTH): BlankRect {
  const { width: w, height: h, data } = img;
  const heights = new Int32Array(w);
  const prev = new Int16Array(w).fill(-1);
  const cur = new Int16Array(w);
  const stack = new Int32Array(w + 1);
  let best: BlankRect = { x: 0, y: 0, width: 0, height: 0, bucket: -1, area: 0 };
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const b = (data[row + x]! / bucketWidth) | 0;
      cur[x] = b;
      heights[x] = b === prev[x] ? heights[x]! + 1 : 1;
    }
    // each maximal run of equal buckets along the row is an independent histogram
    let start = 0;
    while (start < w) {
      let end = start;
      const b = cur[start]!;
      while (end + 1 < w && cur[end + 1] === b) end++;
      // monotonic stack over heights[start..end], with a sentinel of height 0 at end+1
      let top = 0;
      for (let x = start; x <= end + 1; x++) {
        const hx = x <= end ? heights[x]! : 0;
        while (top > 0 && heights[stack[top - 1]!]! >= hx) {
          const hh = heights[stack[--top]!]!;
          const left = top > 0 ? stack[top - 1]! + 1 : start;
          const area = hh * (x - left);
          if (area > best.area) best = { x: left, y: y - hh + 1, width: x - left, height: hh, bucket: b, area };
        }
        stack[top++] = x;
      }
      start = end + 1;
    }
    prev.set(cur);
  }
  return best;
}

export function sparsityScore(sharePercent: number): number {
  return Math.min(Math.sqrt(Math.max(0, 100 - sharePercent)) * 10, 100);
}

interface SparsityAnalysis {
  png: Buffer;
  width: number;
  height: number;
  rect: BlankRect;
  share: number;
}

async function analyse(evidence: Evidence): Promise<SparsityAnalysis | { reason: string }> {
  const pick = pickScreenshot(evidence, 'desktop');
  const grey = await decodeGrey(pick.shot.png);
  const rect = largestUniformRectangle(grey);
  const share = (rect.area / (grey.width * grey.height)) * 100;
  return { png: pick.shot.png, width: grey.width, height: grey.height, rect, share };
}

const BUCKET_NAMES = ['dark (0–79)', 'mid (80–159)', 'light (160–239)', 'white (240–255)'];

function outcome(a: SparsityAnalysis): MetricOutcome {
  const { rect } = a;
  return scored(
    sparsityScore(a.share),
    `largest uniform ${BUCKET_NAMES[rect.bucket] ?? rect.bucket} rectangle covers ${round2(a.share)}% of the first screen`,
    {
      screenshot: 'desktop',
      imageSize: `${a.width}x${a.height}`,
      bucketWidth: BUCKET_WIDTH,
      largestRectangle: { x: rect.x, y: rect.y, width: rect.width, height: rect.height, bucket: BUCKET_NAMES[rect.bucket] ?? rect.bucket },
      sharePercent: round2(a.share),
    },
  );
}

/** Annotated PNG: the largest blank rectangle outlined in red, with its share of the screen. */
export async function picture(evidence: Evidence): Promise<Buffer> {
  const a = await analyse(evidence);
  if ('reason' in a) throw new Error(a.reason);
  const o = outcome(a);
  const r = a.rect;
  let body = svgRect(r, '#dc2626', 4, '#dc2626', 'fill-opacity="0.12"');
  body += svgLabel(r.x + 8, r.y + 24, `largest blank area: ${r.width}×${r.height}px = ${round2(a.share)}% of the screen`, '#dc2626', 16);
  body += svgLabel(8, a.height - 10, `layout-sparsity ${round2(o.score ?? 0)} = min(√(100 − ${round2(a.share)}) × 10, 100)`, '#000', 16);
  return overlay(a.png, a.width, a.height, body);
}

const layoutSparsity: MetricDefinition = {
  number: 10,
  id: 'layout-sparsity',
  perspective: 'visual',
  kind: 'rule',
  needs: ['screenshot'],
  title: 'Layout sparsity',
  question: 'Does the page use its space well, without large empty areas?',
  suite: 'study',
  async illustrate(evidence) {
    return [{ name: 'blank-area', png: await picture(evidence), caption: 'the largest single-bucket rectangle outlined in red, with its share of the screen' }];
  },
  async score(evidence) {
    const a = await analyse(evidence);
    if ('reason' in a) return unscorable(a.reason);
    return outcome(a);
  },
};

export default layoutSparsity;
