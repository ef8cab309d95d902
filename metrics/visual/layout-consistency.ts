/**
 * `layout-consistency` (SPEC #9): do elements that look meant to line up actually line up?
 *
 * Pipeline (opencv-wasm on the screenshot):
 * 1. Screenshot: the full-page shot cut to its top 2400 px (three desktop screens; card grids often sit below
 *    the fold), else the 1280×800 first screen. Documented choice: three screens bound the cost on very long
 *    pages while seeing more than the hero.
 * 2. Grey → 3×3 Gaussian blur → Canny (thresholds 50/150) → morphological close with a 9×3 rectangle (joins the
 *    letters of a text line and the broken sides of a bordered box) → contours (RETR_LIST) → bounding boxes.
 * 3. Filters: **size**: at least 12×12 px and 400 px², at most 25 % of the analysed area (sections and page
 *    wrappers are containers, not elements); **banner**: boxes at least 85 % of the width (full-width header,
 *    hero, footer and section bands) are dropped, their contents kept; **nesting**: boxes are taken largest
 *    first and a box inside one already kept (2 px tolerance) is dropped, so a card counts once and its text
 *    does not; near-duplicates (all edges within 2 px, e.g. the inner and outer contour of a border) count once.
 * 4. Neighbours: for every box, its nearest box to the right that shares ≥ 50 % of the smaller height (a row
 *    pair) and its nearest box below that shares ≥ 50 % of the smaller width (a column pair).
 *    A row pair compares tops, bottoms and vertical centres; a column pair compares lefts, rights and
 *    horizontal centres. Two edges **align** when they differ by ≤ 1 px and **miss** when they differ by more
 *    than 1 and at most 6 px (larger offsets are taken as intentional). A pair is one misalignment when none
 *    of its three edges aligns and at least one misses (so centred text over a left-aligned box is not an
 *    error, and a pair counts at most once).
 * 5. Bottom alignment across the columns of a row: boxes whose tops align and whose widths agree within 10 %
 *    form a grid row (≥ 2 members); each member whose bottom differs by more than 1 px from the row's most
 *    common bottom is one more misalignment (ragged card heights), whatever the size of the difference.
 * 6. Score: `(1 − log2(1 + errors/(elements+1))) × 100` (formula.logPenalty), elements = kept boxes.
 *    Unscorable when fewer than 2 boxes are found (nothing can be misaligned) or there is no screenshot.
 *
 * `picture(evidence)` draws every kept box in green and each misaligned one in red with the edge and offset.
 */
import { NEST_TOLERANCE, detectBoxes } from '../lib/layout-boxes.js';
import { logPenalty, round2 } from '../lib/formula.js';

import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import { cropTop, decodeGrey, overlay, pickScreenshot, svgLabel, svgRect, type Box } from '../lib/image-tools.js';
import { escapeHtml } from '../../lib/html.js';

export const MAX_ANALYSED_HEIGHT = 2400;
const ALIGNED_PX = 1;
const MISS_PX = 6;

export interface Misalignment {
  kind: 'row-pair' | 'column-pair' | 'row-bottom';
  /** Indexes into `boxes`. */
  a: number;
  b: number;
  /** The closest edge that missed and by how much. */
  edge: string;
  deltaPx: number;
}

export interface LayoutAnalysis {
  screenshot: 'desktop' | 'fullPage';
  width: number;
  height: number;
  png: Buffer;
  boxes: Box[];
  rawContours: number;
  misalignments: Misalignment[];
  rows: number;
}

function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

/** Compare three edge offsets: aligned if any is ≤ 1 px; otherwise the smallest miss (≤ 6 px), or null. */
function pairVerdict(diffs: Array<[string, number]>): { edge: string; delta: number } | null {
  if (diffs.some(([, d]) => d <= ALIGNED_PX)) return null;
  const misses = diffs.filter(([, d]) => d <= MISS_PX).sort((x, y) => x[1] - y[1]);
  return misses.length ? { edge: misses[0]![0], delta: misses[0]![1] } : null;
}

/** Steps 4 and 5 on a list of boxes. Exported for tests. */
export function findMisalignments(boxes: Box[]): { misalignments: Misalignment[]; rows: number } {
  const out: Misalignment[] = [];
  const seen = new Set<string>();
  for (const [i, a] of boxes.entries()) {
    // nearest to the right sharing ≥ 50 % of the smaller height
    let right = -1;
    let rightGap = Infinity;
    let below = -1;
    let belowGap = Infinity;
    for (const [j, b] of boxes.entries()) {
      if (i === j) continue;
      const vOverlap = overlap(a.y, a.y + a.height, b.y, b.y + b.height);
      if (b.x >= a.x + a.width - NEST_TOLERANCE && vOverlap >= 0.5 * Math.min(a.height, b.height)) {
        const gap = b.x - (a.x + a.width);
        if (gap < rightGap) ((rightGap = gap), (right = j));
      }
      const hOverlap = overlap(a.x, a.x + a.width, b.x, b.x + b.width);
      if (b.y >= a.y + a.height - NEST_TOLERANCE && hOverlap >= 0.5 * Math.min(a.width, b.width)) {
        const gap = b.y - (a.y + a.height);
        if (gap < belowGap) ((belowGap = gap), (below = j));
      }
    }
    if (right >= 0 && !seen.has(`r${i}-${right}`)) {
      seen.add(`r${i}-${right}`);
      const b = boxes[right]!;
      const v = pairVerdict([
        ['top', Math.abs(a.y - b.y)],
        ['bottom', Math.abs(a.y + a.height - (b.y + b.height))],
        ['middle', Math.abs(a.y + a.height / 2 - (b.y + b.height / 2))],
      ]);
      if (v) out.push({ kind: 'row-pair', a: i, b: right, edge: v.edge, deltaPx: v.delta });
    }
    if (below >= 0 && !seen.has(`c${i}-${below}`)) {
      seen.add(`c${i}-${below}`);
      const b = boxes[below]!;
      const v = pairVerdict([
        ['left', Math.abs(a.x - b.x)],
        ['right', Math.abs(a.x + a.width - (b.x + b.width))],
        ['centre', Math.abs(a.x + a.width / 2 - (b.x + b.width / 2))],
      ]);
      if (v) out.push({ kind: 'column-pair', a: i, b: below, edge: v.edge, deltaPx: v.delta });
    }
  }
  // grid rows: aligned tops, widths within 10 %, horizontally disjoint
  const used = new Set<number>();
  let rows = 0;
  for (const [i, a] of boxes.entries()) {
    if (used.has(i)) continue;
    const members = [i];
    for (const [j, b] of boxes.entries()) {
      if (j <= i || used.has(j)) continue;
      if (Math.abs(a.y - b.y) > ALIGNED_PX) continue;
      if (Math.abs(a.width - b.width) > 0.1 * Math.max(a.width, b.width)) continue;
      if (members.some((m) => overlap(boxes[m]!.x, boxes[m]!.x + boxes[m]!.width, b.x, b.x + b.width) > 0)) continue;
      members.push(j);
    }
    if (members.length < 2) continue;
    rows++;
    for (const m of members) used.add(m);
    const bottoms = members.map((m) => boxes[m]!.y + boxes[m]!.height);
    const counts = new Map<number, number>();
    for (const b of bottoms) counts.set(b, (counts.get(b) ?? 0) + 1);
    // most common bottom (ties: the lowest value, for determinism)
    const common = [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0]![0];
    const ref = members[bottoms.indexOf(common)]!;
    for (const [k, m] of members.entries()) {
      const d = Math.abs(bottoms[k]! - common);
      if (d > ALIGNED_PX) out.push({ kind: 'row-bottom', a: m, b: ref, edge: 'bottom', deltaPx: d });
    }
  }
  return { misalignments: out, rows };
}

export async function analyseLayout(evidence: Evidence): Promise<LayoutAnalysis | { reason: string }> {
  const pick = pickScreenshot(evidence, 'fullPage');
  const { shot } = pick;
  const png = await cropTop(shot.png, shot.width, shot.height, MAX_ANALYSED_HEIGHT);
  const grey = await decodeGrey(png);
  const { boxes, raw } = detectBoxes(grey);
  const { misalignments, rows } = findMisalignments(boxes);
  return { screenshot: pick.which, width: grey.width, height: grey.height, png, boxes, rawContours: raw, misalignments, rows };
}

function outcome(a: LayoutAnalysis): MetricOutcome {
  const details = {
    screenshot: a.screenshot,
    analysedSize: `${a.width}x${a.height}`,
    contours: a.rawContours,
    elements: a.boxes.length,
    gridRows: a.rows,
    errors: a.misalignments.length,
    misalignments: a.misalignments.slice(0, 100).map((m) => ({
      kind: m.kind,
      edge: m.edge,
      deltaPx: round2(m.deltaPx),
      a: a.boxes[m.a],
      b: a.boxes[m.b],
    })),
    boxes: a.boxes.slice(0, 300),
  };
  if (a.boxes.length < 2) return unscorable(`only ${a.boxes.length} element box found on the screenshot: nothing to align`, details);
  const score = logPenalty(a.misalignments.length, a.boxes.length);
  return scored(score, `${a.misalignments.length} misalignment(s) among ${a.boxes.length} element boxes (${a.rows} grid row(s))`, details);
}

/** Annotated PNG: kept boxes in green, misaligned ones in red with the missed edge and offset. */
export async function picture(evidence: Evidence): Promise<Buffer> {
  const a = await analyseLayout(evidence);
  if ('reason' in a) throw new Error(a.reason);
  const o = outcome(a);
  const bad = new Set(a.misalignments.flatMap((m) => [m.a, m.b]));
  let body = '';
  for (const [i, b] of a.boxes.entries()) if (!bad.has(i)) body += svgRect(b, '#16a34a', 2);
  for (const m of a.misalignments) {
    const A = a.boxes[m.a]!;
    const B = a.boxes[m.b]!;
    body += svgRect(A, '#dc2626', 3) + svgRect(B, '#dc2626', 3, 'none', 'stroke-dasharray="6,4"');
    body += `<line x1="${A.x + A.width / 2}" y1="${A.y + A.height / 2}" x2="${B.x + B.width / 2}" y2="${B.y + B.height / 2}" stroke="#dc2626" stroke-width="2"/>`;
    body += svgLabel(B.x + 4, Math.max(14, B.y - 4), `${m.edge} off by ${round2(m.deltaPx)}px`, '#dc2626', 13);
  }
  const head = o.score === null ? `layout-consistency: n/a (${o.reason})` : `layout-consistency ${round2(o.score)}: ${o.summary}`;
  body += `<rect x="0" y="0" width="${a.width}" height="26" fill="#000" fill-opacity="0.75"/>`;
  body += `<text x="8" y="18" font-family="DejaVu Sans, sans-serif" font-size="14" fill="#fff">${escapeHtml(head)} (green = element, red = misaligned)</text>`;
  return overlay(a.png, a.width, a.height, body);
}

const layoutConsistency: MetricDefinition = {
  number: 9,
  id: 'layout-consistency',
  perspective: 'visual',
  kind: 'rule',
  needs: ['screenshot'],
  title: 'Layout consistency',
  question: 'Are elements on the page neatly aligned with their neighbours?',
  suite: 'study',
  async illustrate(evidence) {
    return [{ name: 'boxes', png: await picture(evidence), caption: 'kept element boxes in green, misaligned ones in red with the edge and offset' }];
  },
  async score(evidence) {
    const a = await analyseLayout(evidence);
    if ('reason' in a) return unscorable(a.reason);
    return outcome(a);
  },
};

export default layoutConsistency;
