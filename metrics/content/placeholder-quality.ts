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
 * - **reused across cards**: the same image appears in two or more different repeated components (cards, tiles;
 *   `MediaInfo.card`): every such occurrence is bad, since no card then shows its own picture. "The same image"
 *   is the same **base URL** (`baseImageUrl`), as the study compares them: scheme, host and path, plus only the
 *   query parameters that choose *which* image is served. Parameters that choose a rendition of the same image
 *   or defeat a cache are dropped (RENDITION_PARAMS: size `w`/`h`/`width`/`height`/`size`/`s`/`dpr`/`resize`,
 *   crop and fit, quality and format `q`/`quality`/`auto`/`fm`/`format`, CDN bookkeeping `ixlib`/`ixid`,
 *   versions and cache busters `v`/`ver`/`version`/`t`/`ts`/`cb`/`cache`/`_`, and `utm_*` tracking), so
 *   `a.png?v=1`, `a.png?v=2` and `a.png?v=3` in three cards are one image reused three times, and so are
 *   `photo.jpg?w=400` and `photo.jpg?w=800` (one picture at two sizes is still the same picture). Other
 *   parameters are kept, because on image endpoints they select the picture: `avatar?name=Ann` and
 *   `avatar?name=Bob`, `pravatar.cc/150?img=3` and `?img=5` are different images. The fragment is kept too
 *   (`icons.svg#home` and `icons.svg#user` are different views of a sprite). Paths are compared as they are
 *   (sizes written into the path, as some CDNs do, are not recognised). data: URIs are compared whole;
 * - **stretched SVG placeholder**: an SVG image (local file or data: URI) rendered at least 150×100 px and
 *   40 000 px² whose markup is placeholder-like: a `<text>` saying "placeholder", "image", "photo", "img" or
 *   giving dimensions like "400×300", or at most 3 drawing elements in all. **QR codes are exempt**: a QR code
 *   is a real picture that is meant to be shown large, yet it is often one `<path>` (so "at most 3 drawing
 *   elements"). An SVG counts as QR-like (`qrLike`) when (a) it is named so: the image's `alt` or selector, or
 *   an `id`/`class`/`aria-label`/`name` attribute, `<title>` or `<desc>` in the markup, contains "qr" as a word
 *   or "qrcode" / "qr-code" / "qr_code"; or (b) it is drawn on a module grid: at least 50 `<rect>`s, 80 % of
 *   them with width, height and position whole multiples of one module size (the most common short side,
 *   positions measured from the smallest x and y), or `<path>` data of only move/line/horizontal/vertical/close
 *   commands with at least 50 segments, 90 % of whose horizontal and vertical lengths are whole multiples of the
 *   shortest one. Exempt images are counted in `details.qrExempt`.
 * Score: `(1 − log2(1 + bad/(total+1))) × 100`; unscorable when the page shows no images.
 *
 * `picture(evidence)` is a contact sheet of the images, bad ones framed in red with their reasons.
 */
import { logPenalty, round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import { present, type Evidence } from '../../core/evidence.js';
import type { MediaInfo } from '../../core/browser-evidence.js';
import { contactSheet, thumbnail } from '../lib/image-tools.js';
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

/** Query parameters that pick a rendition (size, crop, quality, format) or bust a cache: not part of the base URL. */
export const RENDITION_PARAMS = new Set([
  'w',
  'h',
  'width',
  'height',
  'size',
  's',
  'sz',
  'dpr',
  'resize',
  'fit',
  'crop',
  'q',
  'quality',
  'auto',
  'fm',
  'format',
  'ixlib',
  'ixid',
  'cs',
  'v',
  'ver',
  'version',
  't',
  'ts',
  'timestamp',
  'cb',
  'cache',
  'cachebust',
  'nocache',
  '_',
  'rev',
]);

/** The base URL of an image (see the module comment): what "the same image" means for reuse across cards. */
export function baseImageUrl(src: string): string {
  if (src.startsWith('data:')) return src;
  let u: URL;
  try {
    u = new URL(src, 'http://127.0.0.1/');
  } catch {
    return src;
  }
  const kept = [...u.searchParams.entries()]
    .filter(([k]) => !RENDITION_PARAMS.has(k.toLowerCase()) && !k.toLowerCase().startsWith('utm_'))
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const query = kept.length ? '?' + kept.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&') : '';
  return `${u.protocol}//${u.host}${u.pathname}${query}${u.hash}`;
}

const QR_NAME = /\bqr(?:[-_ ]?code)?\b|qrcode/i;
const QR_MIN_SHAPES = 50;

function nums(s: string): number[] {
  return (s.match(/-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?/gi) ?? []).map(Number);
}

const isMultiple = (x: number, unit: number) => Math.abs(x / unit - Math.round(x / unit)) < 1e-3;

function attr(tag: string, name: string): number | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*["']?(-?[\\d.]+)`, 'i').exec(tag);
  return m ? Number(m[1]) : null;
}

/**
 * Why an SVG looks like a QR code (see the module comment), or null. `context` is the image's alt text and
 * selector. Linear in the markup size: one pass of bounded regular expressions.
 */
export function qrLike(markup: string, context: { alt?: string | null; selector?: string } = {}): string | null {
  if ((context.alt && QR_NAME.test(context.alt)) || (context.selector && QR_NAME.test(context.selector))) return 'named QR (alt or selector)';
  for (const m of markup.matchAll(/\s(?:id|class|aria-label|name)\s*=\s*(?:"([^"]{0,200})"|'([^']{0,200})')/gi)) {
    if (QR_NAME.test(m[1] ?? m[2] ?? '')) return 'named QR (attribute)';
  }
  for (const m of markup.matchAll(/<(title|desc)\b[^>]{0,200}>([^<]{0,300})</gi)) if (QR_NAME.test(m[2]!)) return `named QR (<${m[1]!.toLowerCase()}>)`;
  // a grid of rects
  const rects = [...markup.matchAll(/<rect\b[^>]{0,500}>/gi)].map((m) => m[0]);
  if (rects.length >= QR_MIN_SHAPES) {
    const boxes = rects
      .map((r) => ({ x: attr(r, 'x') ?? 0, y: attr(r, 'y') ?? 0, w: attr(r, 'width'), h: attr(r, 'height') }))
      .filter((b): b is { x: number; y: number; w: number; h: number } => b.w !== null && b.h !== null && b.w > 0 && b.h > 0);
    const sides = new Map<number, number>();
    for (const b of boxes) sides.set(Math.min(b.w, b.h), (sides.get(Math.min(b.w, b.h)) ?? 0) + 1);
    const unit = [...sides.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (unit) {
      const x0 = boxes.reduce((a, b) => Math.min(a, b.x), Infinity);
      const y0 = boxes.reduce((a, b) => Math.min(a, b.y), Infinity);
      const onGrid = boxes.filter((b) => isMultiple(b.w, unit) && isMultiple(b.h, unit) && isMultiple(b.x - x0, unit) && isMultiple(b.y - y0, unit)).length;
      if (onGrid >= QR_MIN_SHAPES && onGrid >= 0.8 * rects.length) return `${onGrid} rects on a ${unit}-unit module grid`;
    }
  }
  // axis-aligned path segments on a grid
  for (const m of markup.matchAll(/\sd\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
    const d = m[1] ?? m[2] ?? '';
    if (/[CcSsQqTtAa]/.test(d)) continue;
    const lengths: number[] = [];
    let segments = 0;
    for (const c of d.matchAll(/([MmLlHhVvZz])([^MmLlHhVvZz]*)/g)) {
      const cmd = c[1]!;
      if (cmd === 'M' || cmd === 'm') continue;
      segments++;
      if ('HhVv'.includes(cmd)) for (const n of nums(c[2]!)) if (n !== 0) lengths.push(Math.abs(n));
    }
    if (segments < QR_MIN_SHAPES || lengths.length === 0) continue;
    const unit = lengths.reduce((a, b) => Math.min(a, b), Infinity);
    const onGrid = lengths.filter((x) => isMultiple(x, unit)).length;
    if (onGrid >= 0.9 * lengths.length) return `${segments} path segments on a ${round2(unit)}-unit module grid`;
  }
  return null;
}

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

export async function analysePlaceholders(evidence: Evidence): Promise<{ items: ImageVerdict[]; qrExempt: number } | { reason: string }> {
  const b = present(evidence.browser, 'the browser evidence');
  const media = b.media;
  if (!media) return { reason: `media were not collected${b.unavailable?.media ? `: ${b.unavailable.media}` : ''}` };
  const images = media.filter((m) => m.visible && IMAGE_TAGS.has(m.tag));
  // base URLs used in more than one distinct card
  const cardsByBase = new Map<string, Set<string>>();
  for (const m of images) {
    if (!m.card || !m.src) continue;
    const base = baseImageUrl(m.src);
    const set = cardsByBase.get(base) ?? new Set<string>();
    set.add(m.card);
    cardsByBase.set(base, set);
  }
  let qrExempt = 0;
  const items: ImageVerdict[] = [];
  for (const m of images) {
    const reasons: string[] = [];
    const service = placeholderService(m.src);
    if (service) reasons.push(`placeholder service (${service})`);
    const d = distortion(m);
    if (d !== null && Math.abs(d) > DISTORTION_LIMIT) {
      reasons.push(
        `distorted: ${m.naturalWidth}×${m.naturalHeight} drawn at ${Math.round(m.renderedWidth)}×${Math.round(m.renderedHeight)} (${d > 0 ? 'widened' : 'narrowed'} ${round2((Math.exp(Math.abs(d)) - 1) * 100)}%)`,
      );
    }
    const cards = m.card && m.src ? (cardsByBase.get(baseImageUrl(m.src))?.size ?? 0) : 0;
    if (cards >= 2) reasons.push(`same image in ${cards} cards${baseImageUrl(m.src) !== m.src ? ` (base URL ${shortName(baseImageUrl(m.src))})` : ''}`);
    const src = await mediaBytes(evidence.artifact, m);
    const bytes = src.kind === 'bytes' ? src.bytes : undefined;
    const isSvg = (src.kind === 'bytes' && src.svg) || m.tag === 'svg-image' || /\.svg([?#]|$)/i.test(m.src);
    if (isSvg && bytes && m.renderedWidth >= 150 && m.renderedHeight >= 100 && m.renderedWidth * m.renderedHeight >= 40_000) {
      const markup = bytes.toString('utf8');
      if (svgLooksPlaceholder(markup)) {
        const qr = qrLike(markup, { alt: m.alt, selector: m.selector });
        if (qr) qrExempt++;
        else reasons.push(`SVG placeholder stretched over ${Math.round(m.renderedWidth)}×${Math.round(m.renderedHeight)}`);
      }
    }
    const v: ImageVerdict = { tag: m.tag, src: m.src.startsWith('data:') ? m.src.slice(0, 60) + '…' : m.src, selector: m.selector, reasons };
    if (m.card) v.card = m.card;
    if (bytes) v.bytes = bytes;
    items.push(v);
  }
  return { items, qrExempt };
}

function outcome(items: ImageVerdict[], qrExempt = 0): MetricOutcome {
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
    qrExempt,
  };
  if (items.length === 0) return unscorable('the page shows no images', details);
  return scored(logPenalty(bad.length, items.length), `${bad.length} of ${items.length} image(s) are placeholders, distorted or reused`, details);
}

/** Contact sheet: every shown image, bad ones framed in red with the reasons. */
export async function picture(evidence: Evidence): Promise<Buffer> {
  const a = await analysePlaceholders(evidence);
  if ('reason' in a) throw new Error(a.reason);
  const o = outcome(a.items, a.qrExempt);
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
    return outcome(a.items, a.qrExempt);
  },
};

export default placeholderQuality;
