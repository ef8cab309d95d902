/**
 * `media-quality` (SPEC #13): do the page's images and videos decode, look sharp, and carry text alternatives?
 *
 * Reads `browser.media` (gather/collectors/media.ts). Only **visible** items count ("every image and
 * video the page shows"); hidden ones are listed in details.
 *
 * Clarity per item (0–100):
 * - Pixels come from the artifact's own bytes (local file or `data:` URI; see media-source.ts), decoded with
 *   sharp and resized to the item's rendered size in CSS px (DPR 1, at most 1024 px on the longer side, at
 *   least 8 px) before measuring: a small image stretched over a large box is judged as blurry, as the user sees
 *   it. Documented choice over cropping the screenshot: crops would include overlays, captions and lazy-load
 *   placeholders, and items below the screenshot's cap would be lost.
 * - Sharpness = variance of the Laplacian (opencv-wasm, 3×3, on grey). Curve: `clarity = 100 × v / (v + 100)`:
 *   50 at v = 100 (the usual blur threshold), 91 at v = 1000, 0 for a flat image.
 * - SVG images are vector graphics: clarity 100 when sharp can render them.
 * - An item the browser did not decode, or whose local file is missing or undecodable, has clarity 0.
 * - Remote URLs (blocked offline) and items without artifact bytes are **unverified**: left out of clarity
 *   and reported, never counted as bad.
 * - Video: clarity 0 when it cannot play (readyState < 2 or a media error); otherwise the sharpness of its first
 *   frame when the collector captured one, else 100. Remote videos are unverified.
 * Accessibility per item (0 or 1; videos 0, 0.5 or 1):
 * - img / picture / svg-image: 1 when it has an `alt` (empty `alt=""` marks a decorative image and is
 *   accepted) or is declared decorative (`aria-hidden`, role presentation/none); 0 otherwise.
 * - video: 0.5 for captions or subtitles (`<track>`) + 0.5 for controls; decorative (aria-hidden) videos 1.
 * - CSS backgrounds are decorative by construction: not counted.
 * Score: `0.7 × clarity + 0.3 × accessibility` with both as means (accessibility × 100). When one side has no
 * items (e.g. every image is remote and unverified, or the only media are CSS backgrounds), the other side is
 * the score and details say so. Unscorable when the page shows no media.
 *
 * `picture(evidence)` is a contact sheet: each item's pixels with its sharpness and alt status.
 */
import { round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import { present, type Evidence } from '../../core/evidence.js';
import type { MediaInfo } from '../../core/browser-evidence.js';
import { contactSheet, decodeGrey, laplacianVariance, thumbnail } from '../lib/image-tools.js';
import { isRemote, mediaBytes, shortName } from './media-source.js';

const MAX_SIDE = 1024;
const MIN_SIDE = 8;
const CURVE_HALF = 100;

/** The documented sharpness curve: variance of the Laplacian → 0–100. */
export function clarityFromVariance(v: number): number {
  return (100 * v) / (v + CURVE_HALF);
}

export interface MediaItemResult {
  tag: MediaInfo['tag'];
  src: string;
  selector: string;
  /** Null when unverified. */
  clarity: number | null;
  laplacianVariance?: number;
  clarityNote: string;
  /** Null when not applicable (CSS backgrounds). */
  accessibility: number | null;
  accessibilityNote: string;
  /** Pixels measured (for the picture). */
  pixels?: Buffer;
}

function targetSize(m: MediaInfo, natural: { width: number; height: number }): { width: number; height: number } {
  let w = m.renderedWidth > 0 ? m.renderedWidth : natural.width;
  let h = m.renderedHeight > 0 ? m.renderedHeight : natural.height;
  const scale = Math.min(1, MAX_SIDE / Math.max(w, h));
  w = Math.max(MIN_SIDE, Math.round(w * scale));
  h = Math.max(MIN_SIDE, Math.round(h * scale));
  return { width: w, height: h };
}

async function sharpnessOf(bytes: Buffer, m: MediaInfo): Promise<{ variance: number; pixels: Buffer }> {
  const sharpMod = (await import('sharp')).default;
  const meta = await sharpMod(bytes, { limitInputPixels: 100_000_000 }).metadata();
  const size = targetSize(m, { width: meta.width ?? MIN_SIDE, height: meta.height ?? MIN_SIDE });
  const grey = await decodeGrey(bytes, size);
  const pixels = await sharpMod(Buffer.from(grey.data), { raw: { width: grey.width, height: grey.height, channels: 1 } })
    .png()
    .toBuffer();
  return { variance: laplacianVariance(grey), pixels };
}

function accessibilityOf(m: MediaInfo): { value: number | null; note: string } {
  if (m.tag === 'css-background') return { value: null, note: 'background (decorative)' };
  if (m.decorative) return { value: 1, note: 'declared decorative' };
  if (m.tag === 'video') {
    const v = m.video;
    const caps = v?.hasCaptions ? 0.5 : 0;
    const ctrl = v?.hasControls ? 0.5 : 0;
    return { value: caps + ctrl, note: `${v?.hasCaptions ? 'captions' : 'no captions'}, ${v?.hasControls ? 'controls' : 'no controls'}` };
  }
  if (m.alt === null) return { value: 0, note: 'no alt' };
  return { value: 1, note: m.alt.trim() ? `alt "${m.alt.trim().slice(0, 40)}"` : 'alt="" (decorative)' };
}

export async function assessItem(evidence: Evidence, m: MediaInfo): Promise<MediaItemResult> {
  const acc = accessibilityOf(m);
  const res: MediaItemResult = {
    tag: m.tag,
    src: m.src.startsWith('data:') ? m.src.slice(0, 60) + '…' : m.src,
    selector: m.selector,
    clarity: null,
    clarityNote: '',
    accessibility: acc.value,
    accessibilityNote: acc.note,
  };
  const src = await mediaBytes(evidence.artifact, m);
  if (m.tag === 'video') {
    if (src.kind === 'unverified' || isRemote(m.src)) return { ...res, clarityNote: `unverified: ${src.kind === 'unverified' ? src.reason : 'remote'}` };
    if (!m.video?.canPlay) return { ...res, clarity: 0, clarityNote: `video cannot play (readyState ${m.video?.readyState ?? '?'})` };
    if (m.video.firstFrame) {
      try {
        const s = await sharpnessOf(m.video.firstFrame, m);
        return { ...res, clarity: clarityFromVariance(s.variance), laplacianVariance: s.variance, pixels: s.pixels, clarityNote: 'first frame' };
      } catch (err) {
        return { ...res, clarity: 0, clarityNote: `first frame does not decode: ${(err as Error).message}` };
      }
    }
    return { ...res, clarity: 100, clarityNote: 'plays (no frame captured)' };
  }
  if (src.kind === 'unverified') return { ...res, clarityNote: `unverified: ${src.reason}` };
  // A background whose size probe got no answer (the visit's clock paused: MediaInfo `unprobed`) is judged by its bytes.
  if (!m.decoded && !m.unprobed && m.tag !== 'svg-image')
    return { ...res, clarity: 0, clarityNote: src.kind === 'missing' ? `broken: ${src.reason}` : 'did not decode in the browser' };
  if (src.kind === 'missing') return { ...res, clarity: 0, clarityNote: `broken: ${src.reason}` };
  try {
    const s = await sharpnessOf(src.bytes, m);
    if (src.svg) return { ...res, clarity: 100, clarityNote: 'vector (SVG)', pixels: s.pixels };
    return { ...res, clarity: clarityFromVariance(s.variance), laplacianVariance: s.variance, pixels: s.pixels, clarityNote: `via ${src.via}` };
  } catch (err) {
    return { ...res, clarity: 0, clarityNote: `does not decode: ${(err as Error).message.slice(0, 80)}` };
  }
}

export interface MediaAnalysis {
  items: MediaItemResult[];
  hidden: number;
}

export async function analyseMedia(evidence: Evidence): Promise<MediaAnalysis | { reason: string }> {
  const b = present(evidence.browser, 'the browser evidence');
  const media = b.media;
  if (!media) return { reason: `media were not collected${b.unavailable?.media ? `: ${b.unavailable.media}` : ''}` };
  const shown = media.filter((m) => m.visible);
  const items: MediaItemResult[] = [];
  for (const m of shown) items.push(await assessItem(evidence, m));
  return { items, hidden: media.length - shown.length };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function mediaOutcome(a: MediaAnalysis): MetricOutcome {
  const clar = a.items.filter((i) => i.clarity !== null).map((i) => i.clarity!);
  const acc = a.items.filter((i) => i.accessibility !== null).map((i) => i.accessibility! * 100);
  const unverified = a.items.filter((i) => i.clarity === null).length;
  const details = {
    shown: a.items.length,
    hidden: a.hidden,
    unverified,
    clarity: clar.length ? round2(mean(clar)) : null,
    accessibility: acc.length ? round2(mean(acc)) : null,
    curve: 'clarity = 100 × v / (v + 100), v = variance of the Laplacian at rendered size',
    items: a.items.slice(0, 200).map(({ pixels: _p, ...i }) => ({
      ...i,
      clarity: i.clarity === null ? null : round2(i.clarity),
      laplacianVariance: i.laplacianVariance === undefined ? undefined : round2(i.laplacianVariance),
    })),
  };
  if (a.items.length === 0) return unscorable('the page shows no images or videos', details);
  let score: number;
  let how: string;
  if (clar.length && acc.length) {
    score = 0.7 * mean(clar) + 0.3 * mean(acc);
    how = `clarity ${round2(mean(clar))}, accessibility ${round2(mean(acc))}`;
  } else if (clar.length) {
    score = mean(clar);
    how = `clarity ${round2(mean(clar))} (no item needs a text alternative)`;
  } else if (acc.length) {
    score = mean(acc);
    how = `accessibility ${round2(mean(acc))} only (clarity unverified)`;
  } else return unscorable('no media item could be measured', details);
  return scored(score, `${a.items.length} media item(s), ${unverified} unverified; ${how}`, details);
}

/** Contact sheet: each shown item with its sharpness and alt status. */
export async function picture(evidence: Evidence): Promise<Buffer> {
  const a = await analyseMedia(evidence);
  if ('reason' in a) throw new Error(a.reason);
  const o = mediaOutcome(a);
  const tiles = [];
  for (const i of a.items.slice(0, 40)) {
    tiles.push({
      image: i.pixels ? await thumbnail(i.pixels, 180) : null,
      bad: i.clarity !== null && i.clarity < 50,
      lines: [
        i.clarity === null
          ? 'sharpness: unverified'
          : `sharpness ${round2(i.clarity)}${i.laplacianVariance !== undefined ? ` (var ${Math.round(i.laplacianVariance)})` : ''}`,
        `${i.tag}: ${shortName(i.src)}`,
        i.clarityNote,
        i.accessibility === null ? 'decorative background' : `access ${i.accessibility * 100}: ${i.accessibilityNote}`,
      ],
    });
  }
  const head = o.score === null ? `media-quality: n/a (${o.reason})` : `media-quality ${round2(o.score)}: ${o.summary}`;
  return contactSheet(head, tiles, { tile: 180, columns: 4 });
}

const mediaQuality: MetricDefinition = {
  number: 13,
  id: 'media-quality',
  perspective: 'content',
  kind: 'rule',
  needs: ['browser'],
  title: 'Media quality',
  question: 'Do images and videos load, look sharp and come with alt text or captions?',
  suite: 'study',
  async illustrate(evidence) {
    return [{ name: 'media', png: await picture(evidence), caption: 'each image and video with its sharpness and alt/caption status' }];
  },
  async score(evidence) {
    const a = await analyseMedia(evidence);
    if ('reason' in a) return unscorable(a.reason);
    return mediaOutcome(a);
  },
};

export default mediaQuality;
