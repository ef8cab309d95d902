/**
 * `placeholder-quality` (SPEC #14): how many of the page's images are placeholders or look broken by layout?
 *
 * Images = the **visible** `browser.media` items of kind img, picture, svg-image and css-background (videos
 * are not images). An image is **bad** when any of these holds (each counted once, all reasons listed):
 * - **placeholder service**: its URL's host is a placeholder service (PLACEHOLDER_HOSTS: placehold.co,
 *   via.placeholder.com, picsum.photos, dummyimage.com, placekitten.com, loremflickr.com, source.unsplash.com,
 *   …, and their subdomains), or its file is named like `placeholder.png` / `600x400.jpg`;
 * - **distorted**: an `<img>` drawn with `object-fit: fill` (the default) whose rendered aspect ratio differs from
 *   its natural one by more than 5 % (|ln(rendered/natural)| > ln 1.05). Needs the natural size, so images that
 *   did not load (remote ones offline) cannot be judged on this point;
 * - **reused across cards**: the same URL appears in two or more different repeated components (cards, tiles;
 *   `MediaInfo.card`): every such occurrence is bad, since no card then shows its own picture;
 * - **stretched SVG placeholder**: an SVG image (local file or data: URI) rendered at least 150×100 px and
 *   40 000 px² whose markup is placeholder-like: a `<text>` saying "placeholder", "image", "photo", "img" or
 *   giving dimensions like "400×300", or at most 3 drawing elements in all.
 * Score: `(1 − log2(1 + bad/(total+1))) × 100`; unscorable when the page shows no images.
 *
 * `picture(evidence)` is a contact sheet of the images, bad ones framed in red with their reasons.
 */
import { logPenalty, round2 } from '../formula.js';
import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import type { MediaInfo } from '../../core/browser-evidence.js';
import { contactSheet, thumbnail } from '../visual/image-tools.js';
import { mediaBytes, shortName } from './media-source.js';

export const PLACEHOLDER_HOSTS = [
  'placeholder.com',
  'placehold.co',
  'placehold.it',
  'placehold.jp',
  'placeholder.pics',
  'placekitten.com',
  'placebear.com',
  'placedog.net',
  'placeimg.com',
  'picsum.photos',
  'lorempixel.com',
  'loremflickr.com',
  'dummyimage.com',
  'fakeimg.pl',
  'fpoimg.com',
  'baconmockup.com',
  'placecage.com',
  'fillmurray.com',
  'stevensegallery.com',
  'source.unsplash.com',
  'imageplaceholder.net',
  'placeholderimage.dev',
  'dummyjson.com',
];

const IMAGE_TAGS = new Set<MediaInfo['tag']>(['img', 'picture', 'svg-image', 'css-background']);
const DISTORTION_LIMIT = Math.log(1.05);

export function placeholderService(src: string): string | null {
  let host = '';
  let path = src;
  try {
    const u = new URL(src, 'http://127.0.0.1/');
    host = u.hostname.toLowerCase();
    path = u.pathname;
  } catch {
    /* not a URL */
  }
  const hit = PLACEHOLDER_HOSTS.find((h) => host === h || host.endsWith('.' + h));
  if (hit) return hit;
  if (!src.startsWith('data:') && /(^|\/)(placeholder[\w-]*|\d{2,4}x\d{2,4})\.(png|jpe?g|gif|webp|svg|avif)$/i.test(path)) return 'placeholder file name';
  return null;
}

export function distortion(m: MediaInfo): number | null {
  if (m.tag !== 'img' && m.tag !== 'picture') return null;
  if ((m.objectFit ?? 'fill') !== 'fill') return null;
  if (m.naturalWidth <= 0 || m.naturalHeight <= 0 || m.renderedWidth <= 0 || m.renderedHeight <= 0) return null;
  return Math.log(m.renderedWidth / m.renderedHeight / (m.naturalWidth / m.naturalHeight));
}

export function svgLooksPlaceholder(markup: string): boolean {
  const texts = [...markup.matchAll(/<text\b[^>]*>([\s\S]*?)<\/text>/gi)].map((t) => t[1]!.replace(/<[^>]+>/g, ' '));
  if (texts.some((t) => /placeholder|\bimage\b|\bphoto\b|\bimg\b|\d+\s*[x×]\s*\d+/i.test(t))) return true;
  const shapes = (markup.match(/<(rect|circle|ellipse|path|polygon|polyline|line|text|image)\b/gi) ?? []).length;
  return shapes <= 3;
}

export interface ImageVerdict {
  tag: MediaInfo['tag'];
  src: string;
  selector: string;
  card?: string;
  reasons: string[];
  bytes?: Buffer;
}

export async function analysePlaceholders(evidence: Evidence): Promise<{ items: ImageVerdict[] } | { reason: string }> {
  const b = evidence.browser;
  if (!b) return { reason: 'no browser evidence was gathered' };
  if (!b.ok) return { reason: `browser evidence missing: ${b.reason}` };
  const media = b.value.media;
  if (!media) return { reason: `media were not collected${b.value.unavailable?.media ? `: ${b.value.unavailable.media}` : ''}` };
  const images = media.filter((m) => m.visible && IMAGE_TAGS.has(m.tag));
  // URLs used in more than one distinct card
  const cardsBySrc = new Map<string, Set<string>>();
  for (const m of images) {
    if (!m.card || !m.src) continue;
    const set = cardsBySrc.get(m.src) ?? new Set<string>();
    set.add(m.card);
    cardsBySrc.set(m.src, set);
  }
  const items: ImageVerdict[] = [];
  for (const m of images) {
    const reasons: string[] = [];
    const service = placeholderService(m.src);
    if (service) reasons.push(`placeholder service (${service})`);
    const d = distortion(m);
    if (d !== null && Math.abs(d) > DISTORTION_LIMIT) {
      reasons.push(`distorted: ${m.naturalWidth}×${m.naturalHeight} drawn at ${Math.round(m.renderedWidth)}×${Math.round(m.renderedHeight)} (${d > 0 ? 'widened' : 'narrowed'} ${round2((Math.exp(Math.abs(d)) - 1) * 100)}%)`);
    }
    if (m.card && (cardsBySrc.get(m.src)?.size ?? 0) >= 2) reasons.push(`same image in ${cardsBySrc.get(m.src)!.size} cards`);
    const src = await mediaBytes(evidence.artifact, m);
    const bytes = src.kind === 'bytes' ? src.bytes : undefined;
    const isSvg = (src.kind === 'bytes' && src.svg) || m.tag === 'svg-image' || /\.svg([?#]|$)/i.test(m.src);
    if (isSvg && bytes && m.renderedWidth >= 150 && m.renderedHeight >= 100 && m.renderedWidth * m.renderedHeight >= 40_000) {
      if (svgLooksPlaceholder(bytes.toString('utf8'))) reasons.push(`SVG placeholder stretched over ${Math.round(m.renderedWidth)}×${Math.round(m.renderedHeight)}`);
    }
    const v: ImageVerdict = { tag: m.tag, src: m.src.startsWith('data:') ? m.src.slice(0, 60) + '…' : m.src, selector: m.selector, reasons };
    if (m.card) v.card = m.card;
    if (bytes) v.bytes = bytes;
    items.push(v);
  }
  return { items };
}

function outcome(items: ImageVerdict[]): MetricOutcome {
  const bad = items.filter((i) => i.reasons.length > 0);
  const details = {
    total: items.length,
    bad: bad.length,
    badImages: bad.slice(0, 100).map(({ bytes: _b, ...i }) => i),
    byReason: {
      placeholderService: bad.filter((i) => i.reasons.some((r) => r.startsWith('placeholder'))).length,
      distorted: bad.filter((i) => i.reasons.some((r) => r.startsWith('distorted'))).length,
      reusedAcrossCards: bad.filter((i) => i.reasons.some((r) => r.startsWith('same image'))).length,
      stretchedSvgPlaceholder: bad.filter((i) => i.reasons.some((r) => r.startsWith('SVG'))).length,
    },
  };
  if (items.length === 0) return unscorable('the page shows no images', details);
  return scored(logPenalty(bad.length, items.length), `${bad.length} of ${items.length} image(s) are placeholders, distorted or reused`, details);
}

/** Contact sheet: every shown image, bad ones framed in red with the reasons. */
export async function picture(evidence: Evidence): Promise<Buffer> {
  const a = await analysePlaceholders(evidence);
  if ('reason' in a) throw new Error(a.reason);
  const o = outcome(a.items);
  const tiles = [];
  for (const i of a.items.slice(0, 40)) {
    tiles.push({
      image: i.bytes ? await thumbnail(i.bytes, 180) : null,
      bad: i.reasons.length > 0,
      lines: [i.reasons.length ? 'BAD' : 'ok', `${i.tag}: ${shortName(i.src)}`, ...(i.reasons.length ? i.reasons : ['']).slice(0, 2)],
    });
  }
  const head = o.score === null ? `placeholder-quality: n/a (${o.reason})` : `placeholder-quality ${round2(o.score)}: ${o.summary}`;
  return contactSheet(head, tiles, { tile: 180, columns: 4 });
}

const placeholderQuality: MetricDefinition = {
  number: 14,
  id: 'placeholder-quality',
  perspective: 'content',
  kind: 'rule',
  needs: ['browser', 'dom'],
  title: 'Placeholder quality',
  question: 'Does the page avoid placeholder images, stretched images and the same picture on every card?',
  suite: 'study',
  async illustrate(evidence) {
    return [{ name: 'images', png: await picture(evidence), caption: 'every image, bad ones framed in red with their reasons' }];
  },
  async score(evidence) {
    const a = await analysePlaceholders(evidence);
    if ('reason' in a) return unscorable(a.reason);
    return outcome(a.items);
  },
};

export default placeholderQuality;
