/**
 * What the two fidelity metrics share (visual-fidelity.ts, component-fidelity.ts): the viewport pairs of the
 * evidence, text-block preparation (filters and row merging), the SequenceMatcher-style ratio, optimal
 * assignment, colour and position similarity, SSIM of two screenshots, and edge boxes for picture references.
 *
 * Libraries: `difflib` (the npm port of Python's difflib) for the ratio, `munkres` for the Hungarian algorithm
 * on rectangular cost matrices, culori's `differenceCiede2000` for ΔE2000, `ssim.js` for SSIM, and the repo's
 * opencv-based box detection (visual/layout-consistency.ts) and palette (visual/color-harmony.ts) for pictures.
 *
 * Interpretations (each is a choice, tested in test/metrics/fidelity/):
 * - Text blocks: blocks smaller than 2×2 px, starting further than FIDELITY_SCREENS viewport heights down, or
 *   longer than 500 characters are dropped; the text is lower-cased and cut to 200 characters; boxes are
 *   normalised to the viewport (x and width by its width, y and height by its height, so y runs to 3 on a page
 *   three screens tall). Fragments of the same tag on the same row are merged: blocks taken top to bottom, left
 *   to right; a block joins the last merged block of its tag when their tops and their bottoms each differ by at
 *   most 0.02 (of the viewport height) and it starts at most 0.02 (of the viewport width) right of that block's
 *   right edge, and not left of its left edge; the merged text is both texts joined by a space (cut to 200
 *   again), the box their union, the colour the first fragment's.
 * - The ratio ρ is Python difflib's `SequenceMatcher(None, a, b).ratio()` (2·M / (|a| + |b|), M the characters
 *   of the Ratcliff–Obershelp matching blocks) with **autojunk off**: Python turns it on by default and it engages
 *   when the second string has 200 or more items, exactly the length of our cut texts; it then treats every
 *   character that occurs more than 1 % + 1 times (spaces, e, t ...) as junk, so that a 200-character text and
 *   the same words in another order score 0.085 instead of 0.36, and one word changed 0.975 instead of 0.985,
 *   while the same texts cut at 199 characters would be compared without it. It is a speed heuristic for long
 *   sequences; ours are at most 200 characters. Pairs whose `realQuickRatio` or `quickRatio` upper bound
 *   is already below the 0.3 threshold are not computed (exact: those bounds never exclude a pair at or above it).
 * - Matching: the Hungarian algorithm on cost 1 − ρ, plus 0.001 × the centre distance as a tie-break (identical
 *   texts such as three "Read more" links pair with the nearest, not crosswise); pairs with ρ < 0.3 are dropped.
 * - Position similarity of two boxes: 1 − max(|Δcx|, |Δcy|) of their normalised centres, at least 0.
 * - Colour similarity: 1 − ΔE2000/100 of the two RGB colours (alpha ignored), at least 0.
 */
import difflib from 'difflib';
import munkres from 'munkres';
import { differenceCiede2000 } from 'culori';
import sharp from 'sharp';
import { ssim } from 'ssim.js';
import { present, type Evidence } from '../../core/evidence.js';
import { FIDELITY_SCREENS, type PageBox, type RenderedView, type Rgba, type TextBlock, type ViewportSpec } from '../../core/fidelity.js';
import type { Screenshot } from '../../core/browser-evidence.js';
import { decodeGrey, decodeRgb } from '../lib/image-tools.js';
import { detectBoxes } from '../lib/layout-boxes.js';
import { dominantColours } from '../lib/palette.js';

export const MIN_BLOCK_PX = 2;
export const MAX_BLOCK_CHARS = 500;
export const CUT_CHARS = 200;
export const MERGE_GAP = 0.02;
export const MIN_RATIO = 0.3;
const TIE_BREAK = 0.001;

/** A block normalised to its viewport. */
export interface NormBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PreparedBlock extends NormBox {
  text: string;
  color: Rgba;
  tag: string;
}

export interface UsablePair {
  viewport: ViewportSpec;
  candidate: RenderedView;
  reference: RenderedView;
}

export interface PairsOutcome {
  pairs: UsablePair[];
  /** Viewports left out, with why. */
  skipped: Record<string, string>;
  /**
   * Viewports where the reference rendered and the page did not respond (its view timed out: a busy main thread,
   * an endless loop), with why: the page's own failure, not the tool's. Filled only when asked (`didNotRun`).
   */
  didNotRun: Record<string, string>;
  reference?: string;
}

/** A candidate view missing because the page itself did not respond (render.ts), not because of the tool or the budget. */
export const PAGE_DID_NOT_RUN = /page did not respond|view timed out/;

/**
 * The viewport pairs with both views rendered; or why there is nothing to compare. With `didNotRun`, viewports
 * where the page did not respond are returned apart (UI2App scores a build that does not run 0) instead of being
 * skipped.
 */
export function viewPairs(evidence: Evidence, opts: { didNotRun?: boolean } = {}): PairsOutcome | { unscorable: string } {
  const f = present(evidence.fidelity, 'the fidelity renders');
  const pairs: UsablePair[] = [];
  const skipped: Record<string, string> = {};
  const didNotRun: Record<string, string> = {};
  for (const p of f.pairs) {
    if (!p.reference.ok) skipped[p.viewport.name] = `reference: ${p.reference.reason}`;
    else if (!p.candidate.ok) {
      if (opts.didNotRun && PAGE_DID_NOT_RUN.test(p.candidate.reason)) didNotRun[p.viewport.name] = p.candidate.reason;
      else skipped[p.viewport.name] = `page: ${p.candidate.reason}`;
    } else pairs.push({ viewport: p.viewport, candidate: p.candidate.value, reference: p.reference.value });
  }
  if (pairs.length === 0 && Object.keys(didNotRun).length === 0)
    return {
      unscorable: `no viewport could be rendered on both sides (${Object.entries(skipped)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ')})`,
    };
  return { pairs, skipped, didNotRun, reference: f.reference.input };
}

export const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
export const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export function normalise(b: PageBox, v: ViewportSpec): NormBox {
  return { x: b.x / v.width, y: b.y / v.height, w: b.w / v.width, h: b.h / v.height };
}

/** Text blocks of a view after the filters and the row merging (module comment). */
export function prepareBlocks(
  blocks: readonly TextBlock[],
  v: ViewportSpec,
): { blocks: PreparedBlock[]; dropped: { small: number; deep: number; long: number }; merged: number } {
  const dropped = { small: 0, deep: 0, long: 0 };
  const kept: PreparedBlock[] = [];
  for (const b of blocks) {
    if (b.w < MIN_BLOCK_PX || b.h < MIN_BLOCK_PX) dropped.small++;
    else if (b.y >= FIDELITY_SCREENS * v.height) dropped.deep++;
    else if (b.length > MAX_BLOCK_CHARS) dropped.long++;
    else kept.push({ ...normalise(b, v), text: b.text.toLowerCase().slice(0, CUT_CHARS), color: b.color, tag: b.tag });
  }
  kept.sort((a, b) => a.y - b.y || a.x - b.x);
  const out: PreparedBlock[] = [];
  const lastOfTag = new Map<string, PreparedBlock>();
  let merged = 0;
  for (const b of kept) {
    const m = lastOfTag.get(b.tag);
    if (m && Math.abs(m.y - b.y) <= MERGE_GAP && Math.abs(m.y + m.h - (b.y + b.h)) <= MERGE_GAP && b.x >= m.x && b.x - (m.x + m.w) <= MERGE_GAP) {
      const x1 = Math.max(m.x + m.w, b.x + b.w);
      const y1 = Math.max(m.y + m.h, b.y + b.h);
      m.y = Math.min(m.y, b.y);
      m.w = x1 - m.x;
      m.h = y1 - m.y;
      m.text = `${m.text} ${b.text}`.slice(0, CUT_CHARS);
      merged++;
      continue;
    }
    const copy = { ...b };
    out.push(copy);
    lastOfTag.set(b.tag, copy);
  }
  return { blocks: out, dropped, merged };
}

/** Python difflib's SequenceMatcher ratio with autojunk off; `upTo` skips the exact ratio below a threshold. */
export class RatioTable {
  private readonly sm = new difflib.SequenceMatcher<string>(null, '', '', false);
  /** ρ of every pair (a row per `a`), 0 where the bounds show it is below `floor`. */
  static of(a: readonly string[], b: readonly string[], floor = MIN_RATIO): number[][] {
    const t = new RatioTable();
    const out = a.map(() => new Array<number>(b.length).fill(0));
    for (let j = 0; j < b.length; j++) {
      t.sm.setSeq2(b[j]!);
      for (let i = 0; i < a.length; i++) {
        t.sm.setSeq1(a[i]!);
        if (realQuick(t.sm) < floor || t.sm.quickRatio() < floor) continue;
        out[i]![j] = t.sm.ratio();
      }
    }
    return out;
  }
}

function realQuick(sm: difflib.SequenceMatcher<string>): number {
  const s = sm as unknown as { realQuickRatio?: () => number };
  return typeof s.realQuickRatio === 'function' ? s.realQuickRatio() : 1;
}

/** ρ of two strings (difflib, autojunk off). */
export function ratio(a: string, b: string): number {
  return new difflib.SequenceMatcher<string>(null, a, b, false).ratio();
}

export function centreDistance(a: NormBox, b: NormBox): number {
  return Math.max(Math.abs(a.x + a.w / 2 - (b.x + b.w / 2)), Math.abs(a.y + a.h / 2 - (b.y + b.h / 2)));
}

export function positionSimilarity(a: NormBox, b: NormBox): number {
  return clamp01(1 - centreDistance(a, b));
}

/**
 * CANVAS's position similarity: 1 − the Euclidean distance of the two centres in CSS px over the viewport's
 * diagonal (boxes are normalised, so the distance is scaled back by the viewport's width and height), at least 0.
 */
export function euclideanPositionSimilarity(a: NormBox, b: NormBox, v: ViewportSpec): number {
  const dx = (a.x + a.w / 2 - (b.x + b.w / 2)) * v.width;
  const dy = (a.y + a.h / 2 - (b.y + b.h / 2)) * v.height;
  return clamp01(1 - Math.hypot(dx, dy) / Math.hypot(v.width, v.height));
}

/** CANVAS's colour similarity: 1 − the Euclidean RGB distance over its largest value √3·255 (alpha ignored). */
export function rgbColourSimilarity(a: Rgba, b: Rgba): number {
  return clamp01(1 - Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) / (Math.sqrt(3) * 255));
}

/**
 * The F1 of two strings over their words (lower-case letter/digit runs, as multisets: the SQuAD-style token F1
 * that "string F1" names); null when neither has a word, 0 when only one has.
 */
export function stringF1(a: string, b: string): number | null {
  const words = (x: string) => x.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const wa = words(a);
  const wb = words(b);
  if (wa.length === 0 && wb.length === 0) return null;
  if (wa.length === 0 || wb.length === 0) return 0;
  const count = new Map<string, number>();
  for (const w of wa) count.set(w, (count.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of wb) {
    const n = count.get(w) ?? 0;
    if (n > 0) {
      common++;
      count.set(w, n - 1);
    }
  }
  return (2 * common) / (wa.length + wb.length);
}

export function colourSimilarity(a: Rgba, b: Rgba): number {
  const de = differenceCiede2000()({ mode: 'rgb', r: a[0] / 255, g: a[1] / 255, b: a[2] / 255 }, { mode: 'rgb', r: b[0] / 255, g: b[1] / 255, b: b[2] / 255 });
  return clamp01(1 - de / 100);
}

/** Optimal assignment (Hungarian) on a rows×cols cost matrix; returns [row, col] pairs. */
export function assign(cost: number[][]): Array<[number, number]> {
  if (cost.length === 0 || cost[0]!.length === 0) return [];
  return munkres(cost) as Array<[number, number]>;
}

export interface BlockMatch {
  /** Index into the reference blocks and the candidate blocks. */
  r: number;
  c: number;
  rho: number;
}

/** Text blocks matched as visual-fidelity matches them (module comment). */
export function matchBlocks(ref: readonly PreparedBlock[], cand: readonly PreparedBlock[]): BlockMatch[] {
  const rho = RatioTable.of(
    ref.map((b) => b.text),
    cand.map((b) => b.text),
  );
  const cost = ref.map((r, i) => cand.map((c, j) => 1 - rho[i]![j]! + TIE_BREAK * Math.min(1, centreDistance(r, c))));
  return assign(cost)
    .map(([i, j]) => ({ r: i, c: j, rho: rho[i]![j]! }))
    .filter((m) => m.rho >= MIN_RATIO);
}

export function area(b: NormBox): number {
  return Math.max(0, b.w) * Math.max(0, b.h);
}

export function iou(a: NormBox, b: NormBox): number {
  const ix = Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const inter = ix * iy;
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

// ---------------------------------------------------------------------------------------------------------
// SSIM

/**
 * SSIM of two screenshots of one viewport (a reported sub-score, not part of any score: CANVAS found it not
 * significant against human preference). Both are flattened on white, scaled to 1/f of their CSS size with
 * Wang et al.'s factor f = max(1, round(min(width, height) / 256)) (width and height of the larger, in CSS px;
 * libvips' linear kernel), padded at the bottom with white to the taller one (the shorter page simply ends) and
 * converted to grey (luma); then the mean SSIM over a **uniform
 * 7×7 window** (scikit-image's default window; ssim.js's `weber` algorithm, summed-area tables), K1 = 0.01,
 * K2 = 0.03, L = 255.
 */
const prepared = new WeakMap<Buffer, Map<string, { data: Uint8ClampedArray; width: number; height: number }>>();

export async function screenshotSsim(a: Screenshot, b: Screenshot): Promise<{ ssim: number; factor: number; width: number; height: number }> {
  // Sizes in CSS px (a screenshot may be taken at another scale: deviceScaleFactor pixels per CSS px).
  const css = (s: Screenshot) => ({ w: s.width / (s.deviceScaleFactor || 1), h: s.height / (s.deviceScaleFactor || 1) });
  const ca = css(a);
  const cb = css(b);
  const width = Math.max(ca.w, cb.w);
  const height = Math.max(ca.h, cb.h);
  const f = Math.max(1, Math.round(Math.min(width, height) / 256));
  const w = Math.max(8, Math.round(width / f));
  const h = Math.max(8, Math.round(height / f));
  const prep = async (s: Screenshot) => {
    // Scale to 1/f of the CSS size, then pad at the bottom (and right) with white to the common size. Memoised per
    // screenshot buffer (a cached reference's screenshot is compared with every model's page).
    const memoKey = `${w}x${h}`;
    const memo = prepared.get(s.png)?.get(memoKey);
    if (memo) return memo;
    const c = css(s);
    const sw = Math.max(1, Math.min(w, Math.round(c.w / f)));
    const sh = Math.max(1, Math.min(h, Math.round(c.h / f)));
    const { data } = await sharp(s.png)
      .flatten({ background: '#ffffff' })
      .resize(sw, sh, { fit: 'fill', kernel: 'linear' })
      .extend({ right: w - sw, bottom: h - sh, background: '#ffffff' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const rgba = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      const g = data[i]!;
      rgba[i * 4] = g;
      rgba[i * 4 + 1] = g;
      rgba[i * 4 + 2] = g;
      rgba[i * 4 + 3] = 255;
    }
    const out = { data: rgba, width: w, height: h };
    let m = prepared.get(s.png);
    if (!m) prepared.set(s.png, (m = new Map()));
    m.set(memoKey, out);
    return out;
  };
  const [x, y] = await Promise.all([prep(a), prep(b)]);
  const r = ssim(x, y, { ssim: 'weber', windowSize: 7, k1: 0.01, k2: 0.03, downsample: false });
  return { ssim: clamp01(r.mssim), factor: f, width: w, height: h };
}

// ---------------------------------------------------------------------------------------------------------
// Pictures (a PNG reference has no DOM)

/**
 * Element boxes of a screenshot from its edges: layout-consistency's detection (Canny, morphological close,
 * contours, size/banner/nesting filters) on the grey image, normalised to the viewport.
 */
export async function edgeBoxes(shot: Screenshot, v: ViewportSpec): Promise<NormBox[]> {
  const grey = await decodeGrey(shot.png);
  const k = shot.deviceScaleFactor || 1;
  return detectBoxes(grey).boxes.map((b) => normalise({ x: b.x / k, y: b.y / k, w: b.width / k, h: b.height / k }, v));
}

export interface BoxMatch {
  r: number;
  c: number;
  iou: number;
}

/** Boxes matched by the Hungarian algorithm on 1 − IoU, pairs with IoU ≥ `min` kept. */
export function matchByIou(
  ref: readonly NormBox[],
  cand: readonly NormBox[],
  min = 0.5,
  compatible: (r: number, c: number) => boolean = () => true,
): BoxMatch[] {
  const cost = ref.map((r, i) => cand.map((c, j) => (compatible(i, j) ? 1 - iou(r, c) : 1 + TIE_BREAK)));
  return assign(cost)
    .map(([i, j]) => ({ r: i, c: j, iou: compatible(i, j) ? iou(ref[i]!, cand[j]!) : 0 }))
    .filter((m) => m.iou >= min);
}

/** Dominant colours of a screenshot with their shares (color-harmony's palette). */
export async function palette(shot: Screenshot): Promise<Array<{ rgb: Rgba; share: number }>> {
  const img = await decodeRgb(shot.png);
  return dominantColours(img.data).map((p) => {
    const n = parseInt(p.hex.slice(1), 16);
    return { rgb: [(n >> 16) & 255, (n >> 8) & 255, n & 255, 1] as Rgba, share: p.share };
  });
}

/**
 * Palette similarity: each colour of one palette is paired with the nearest (ΔE2000) of the other; the mean of
 * those colour similarities weighted by share, taken both ways and averaged.
 */
export function paletteSimilarity(a: ReadonlyArray<{ rgb: Rgba; share: number }>, b: ReadonlyArray<{ rgb: Rgba; share: number }>): number {
  if (a.length === 0 || b.length === 0) return 0;
  const oneWay = (x: typeof a, y: typeof b) => {
    const total = x.reduce((s, p) => s + p.share, 0) || 1;
    return x.reduce((s, p) => s + p.share * Math.max(...y.map((q) => colourSimilarity(p.rgb, q.rgb))), 0) / total;
  };
  return (oneWay(a, b) + oneWay(b, a)) / 2;
}

/** Mean colour of a box region of a screenshot (RGB, flattened on white). */
export async function regionColour(shot: Screenshot, box: NormBox, v: ViewportSpec): Promise<Rgba> {
  const k = shot.deviceScaleFactor || 1;
  const left = Math.max(0, Math.min(shot.width - 1, Math.round(box.x * v.width * k)));
  const top = Math.max(0, Math.min(shot.height - 1, Math.round(box.y * v.height * k)));
  const width = Math.max(1, Math.min(shot.width - left, Math.round(box.w * v.width * k)));
  const height = Math.max(1, Math.min(shot.height - top, Math.round(box.h * v.height * k)));
  const st = await sharp(shot.png).flatten({ background: '#ffffff' }).extract({ left, top, width, height }).stats();
  return [Math.round(st.channels[0]!.mean), Math.round(st.channels[1]!.mean), Math.round(st.channels[2]!.mean), 1];
}
