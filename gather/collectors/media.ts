/**
 * In-page collector for `media` (BrowserEvidence.media: MediaInfo[]): every image and video the page has.
 *
 * - `<img>` (tag `picture` when inside `<picture>`; `src` = `currentSrc`), `<video>` (`currentSrc`, else `src`,
 *   else its first `<source>`), SVG `<image href>` (tag `svg-image`), and CSS background images (`url(...)` in
 *   the computed `background-image` of at most MAX_ELEMENTS elements; tag `css-background`; natural size from
 *   loading the URL into an `Image`, a second evaluation bounded from Node, `probeBackgrounds`: with the page's
 *   clock paused (CDP virtual time, visit.ts) an image's load never came, nor the in-page time limit, and a page
 *   with one data-URI background (a select's arrow) lost its media, icons, coverage, fonts and screenshots).
 * - Sizes: natural (intrinsic pixels) and rendered (CSS px of the element's box, or the content box for
 *   `<img>`); `box` in document coordinates; `objectFit` from the computed style.
 * - `decoded`: img: `complete && naturalWidth > 0`; background: the probe image loaded; video: readyState ≥ 2.
 * - `visible`: a non-empty box, not `display:none`/`visibility:hidden`/`opacity:0` on it or an ancestor (via
 *   `checkVisibility` when present), and not entirely left of/above the document.
 * - `alt`: the `alt` attribute (null when absent); for SVG images, the nearest `<svg>`'s `aria-label` or
 *   `<title>`; for videos, `aria-label`/`title`; for backgrounds, the element's `aria-label`/`role="img"` label.
 *   `decorative`: `aria-hidden="true"` or `role="presentation"|"none"` on the element or an ancestor.
 * - `card`: the selector of the nearest ancestor (up to 6 levels) that is one of ≥ 2 siblings with the same tag
 *   and class list: a repeated component (card, tile, list item). Used for "one image reused across cards".
 * - `path`: artifact-relative path when the URL is on the page's own origin.
 * - Video: readyState, `canPlay` (readyState ≥ 2 and no media error), `controls`, captions (`<track>` of kind
 *   captions/subtitles), and the first frame drawn to a canvas (at most 320 px wide, PNG, base64 in the page,
 *   turned into a Buffer by `finish`) when the frame is available and the canvas is not tainted.
 * At most MAX_ITEMS items are returned, in document order per kind.
 */
import type { CDPSession } from 'puppeteer-core';
import type { MediaInfo } from '../../core/browser-evidence.js';
import { COLLECTOR_BOUNDS, evaluateIsolated } from '../isolated-world.js';
import { withTimeout } from '../time.js';
import type { PageCollector } from './collector.js';

interface RawMedia extends Omit<MediaInfo, 'video'> {
  video?: { readyState: number; canPlay: boolean; hasControls: boolean; hasCaptions: boolean; firstFrame?: string };
}

/** Runs in the page: must not reference anything outside itself. */
export async function collectMedia(arg: unknown): Promise<RawMedia[]> {
  const opts = (arg ?? {}) as { maxItems?: number; maxElements?: number };
  const MAX_ITEMS = opts.maxItems ?? 300;
  const MAX_ELEMENTS = opts.maxElements ?? 4000;
  const out: RawMedia[] = [];
  const origin = location.origin;

  function cssPath(el: Element): string {
    const parts: string[] = [];
    let e: Element | null = el;
    while (e && e.nodeType === 1 && parts.length < 8) {
      if (e.id && /^[A-Za-z][\w-]*$/.test(e.id)) {
        parts.unshift(`#${e.id}`);
        break;
      }
      let part = e.tagName.toLowerCase();
      const parent: Element | null = e.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.tagName === e!.tagName);
        if (same.length > 1) part += `:nth-of-type(${same.indexOf(e) + 1})`;
      }
      parts.unshift(part);
      if (e.tagName === 'BODY' || e.tagName === 'HTML') break;
      e = parent;
    }
    return parts.join(' > ');
  }

  function cardOf(el: Element): string | undefined {
    let e: Element | null = el.parentElement;
    for (let depth = 0; e && depth < 6 && e.tagName !== 'BODY'; depth++, e = e.parentElement) {
      const parent = e.parentElement;
      if (!parent) break;
      const key = e.tagName + '|' + (e.getAttribute('class') ?? '').trim().split(/\s+/).sort().join(' ');
      let same = 0;
      for (const s of Array.from(parent.children)) {
        if (s.tagName + '|' + (s.getAttribute('class') ?? '').trim().split(/\s+/).sort().join(' ') === key) same++;
      }
      if (same >= 2) return cssPath(e);
    }
    return undefined;
  }

  function isDecorative(el: Element): boolean {
    for (let e: Element | null = el; e; e = e.parentElement) {
      if (e.getAttribute('aria-hidden') === 'true') return true;
      const role = e.getAttribute('role');
      if (e === el && (role === 'presentation' || role === 'none')) return true;
    }
    return false;
  }

  function isVisible(el: Element, rect: DOMRect): boolean {
    if (rect.width <= 0 || rect.height <= 0) return false;
    const anyEl = el as Element & { checkVisibility?: (o: object) => boolean };
    if (typeof anyEl.checkVisibility === 'function') {
      if (!anyEl.checkVisibility({ opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true })) return false;
    } else {
      const st = getComputedStyle(el);
      if (st.display === 'none' || st.visibility === 'hidden' || st.opacity === '0') return false;
    }
    if (rect.right + scrollX <= 0 || rect.bottom + scrollY <= 0) return false;
    return true;
  }

  function localPath(url: string): string | undefined {
    try {
      const u = new URL(url, location.href);
      if (u.origin !== origin || !/^https?:$/.test(u.protocol)) return undefined;
      return decodeURIComponent(u.pathname).replace(/^\/+/, '');
    } catch {
      return undefined;
    }
  }

  function base(el: Element, tag: RawMedia['tag'], src: string, rect: DOMRect): RawMedia {
    const item: RawMedia = {
      tag,
      src,
      alt: null,
      naturalWidth: 0,
      naturalHeight: 0,
      renderedWidth: Math.round(rect.width * 100) / 100,
      renderedHeight: Math.round(rect.height * 100) / 100,
      decoded: false,
      visible: isVisible(el, rect),
      selector: cssPath(el),
      box: { x: Math.round(rect.left + scrollX), y: Math.round(rect.top + scrollY), width: Math.round(rect.width), height: Math.round(rect.height) },
    };
    const p = localPath(src);
    if (p !== undefined) item.path = p;
    const card = cardOf(el);
    if (card) item.card = card;
    if (isDecorative(el)) item.decorative = true;
    return item;
  }

  // <img> (and <picture>)
  for (const img of Array.from(document.images)) {
    if (out.length >= MAX_ITEMS) break;
    const rect = img.getBoundingClientRect();
    const inPicture = img.parentElement?.tagName === 'PICTURE';
    const item = base(img, inPicture ? 'picture' : 'img', img.currentSrc || img.src || img.getAttribute('src') || '', rect);
    item.alt = img.getAttribute('alt');
    item.naturalWidth = img.naturalWidth;
    item.naturalHeight = img.naturalHeight;
    item.decoded = img.complete && img.naturalWidth > 0;
    item.objectFit = getComputedStyle(img).objectFit;
    out.push(item);
  }

  // <video>
  for (const v of Array.from(document.querySelectorAll('video'))) {
    if (out.length >= MAX_ITEMS) break;
    const rect = v.getBoundingClientRect();
    const src = v.currentSrc || v.getAttribute('src') || v.querySelector('source')?.getAttribute('src') || '';
    const item = base(v, 'video', src ? new URL(src, location.href).href : '', rect);
    item.alt = v.getAttribute('aria-label') ?? v.getAttribute('title');
    item.naturalWidth = v.videoWidth;
    item.naturalHeight = v.videoHeight;
    item.decoded = v.readyState >= 2;
    item.objectFit = getComputedStyle(v).objectFit;
    const video: NonNullable<RawMedia['video']> = {
      readyState: v.readyState,
      canPlay: v.readyState >= 2 && !v.error,
      hasControls: v.controls,
      hasCaptions: Array.from(v.querySelectorAll('track')).some((t) => /^(captions|subtitles)$/i.test(t.getAttribute('kind') ?? 'subtitles')),
    };
    if (v.readyState >= 2 && v.videoWidth > 0) {
      try {
        const scale = Math.min(1, 320 / v.videoWidth);
        const c = document.createElement('canvas');
        c.width = Math.max(1, Math.round(v.videoWidth * scale));
        c.height = Math.max(1, Math.round(v.videoHeight * scale));
        c.getContext('2d')!.drawImage(v, 0, 0, c.width, c.height);
        video.firstFrame = c.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
      } catch {
        /* tainted canvas or no frame: leave it out */
      }
    }
    item.video = video;
    out.push(item);
  }

  // SVG <image>
  for (const im of Array.from(document.querySelectorAll('svg image'))) {
    if (out.length >= MAX_ITEMS) break;
    const href = im.getAttribute('href') ?? im.getAttribute('xlink:href') ?? '';
    if (!href) continue;
    const rect = im.getBoundingClientRect();
    const item = base(im, 'svg-image', new URL(href, location.href).href, rect);
    const svg = im.closest('svg');
    item.alt = svg?.getAttribute('aria-label') ?? svg?.querySelector('title')?.textContent ?? null;
    out.push(item);
  }

  // CSS background images (their natural sizes: `probeBackgrounds`, a second evaluation)
  const all = document.body ? Array.from(document.body.querySelectorAll('*')).slice(0, MAX_ELEMENTS) : [];
  for (const el of [document.body, ...all]) {
    if (!el || out.length >= MAX_ITEMS) break;
    const bg = getComputedStyle(el).backgroundImage;
    if (!bg || bg === 'none' || !bg.includes('url(')) continue;
    const re = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*?))\s*\)/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(bg)) && out.length < MAX_ITEMS) {
      const url = m[1] ?? m[2] ?? m[3] ?? '';
      if (!url) continue;
      const rect = el.getBoundingClientRect();
      const item = base(el, 'css-background', url, rect);
      const role = el.getAttribute('role');
      item.alt = role === 'img' ? el.getAttribute('aria-label') : null;
      out.push(item);
    }
  }
  return out;
}

/** Turn the page's JSON into MediaInfo[] (video first frames: base64 → Buffer). */
export function finishMedia(raw: unknown): MediaInfo[] {
  if (!Array.isArray(raw)) throw new Error('media collector returned no list');
  return (raw as RawMedia[]).map((m) => {
    if (!m.video) return m as MediaInfo;
    const { firstFrame, ...rest } = m.video;
    const video: NonNullable<MediaInfo['video']> = { ...rest };
    if (firstFrame) video.firstFrame = Buffer.from(firstFrame, 'base64');
    return { ...m, video };
  });
}

/** Runs in the page: the natural size of each image URL (null: it did not load within `probeMs`). */
export async function probeImageSizes(arg: unknown): Promise<Array<{ width: number; height: number } | null>> {
  const { urls, probeMs } = (arg ?? {}) as { urls?: string[]; probeMs?: number };
  return Promise.all(
    (urls ?? []).map(
      (url) =>
        new Promise<{ width: number; height: number } | null>((resolve) => {
          const probe = new Image();
          const timer = setTimeout(() => resolve(null), probeMs ?? 1500);
          probe.onload = () => {
            clearTimeout(timer);
            resolve({ width: probe.naturalWidth, height: probe.naturalHeight });
          };
          probe.onerror = () => {
            clearTimeout(timer);
            resolve(null);
          };
          probe.src = url;
        }),
    ),
  );
}

const MEDIA_ARG = { maxItems: 300, maxElements: 4000 };
/** How long the background probes may take, in the page and (with a margin) from Node. */
export const BACKGROUND_PROBE_MS = 1500;

/**
 * The media items, then the natural sizes of the CSS backgrounds in a second evaluation that may not answer (see
 * the module comment): after BACKGROUND_PROBE_MS and a margin without an answer their sizes stay unknown and they
 * are marked `unprobed` (media-quality then judges them by their bytes); one that answered "not loaded" in time
 * is not decoded, as before.
 */
export async function probeBackgrounds(cdp: CDPSession): Promise<RawMedia[]> {
  const items = (await evaluateIsolated(cdp, collectMedia, MEDIA_ARG, COLLECTOR_BOUNDS)) as unknown;
  if (!Array.isArray(items)) return items as RawMedia[];
  const bg = (items as RawMedia[]).filter((m) => m.tag === 'css-background' && typeof m.src === 'string');
  if (!bg.length) return items as RawMedia[];
  const sizes = await withTimeout(
    evaluateIsolated(cdp, probeImageSizes, { urls: bg.map((m) => m.src), probeMs: BACKGROUND_PROBE_MS }),
    BACKGROUND_PROBE_MS + 500,
    'background image probes',
  ).catch(() => null);
  bg.forEach((m, i) => {
    const s = Array.isArray(sizes) ? (sizes[i] as { width?: unknown; height?: unknown } | null | undefined) : undefined;
    if (s && typeof s.width === 'number' && typeof s.height === 'number') {
      m.naturalWidth = s.width;
      m.naturalHeight = s.height;
      m.decoded = s.width > 0;
    } else if (!Array.isArray(sizes)) m.unprobed = true;
  });
  return items as RawMedia[];
}

export const mediaCollector: PageCollector = {
  key: 'media',
  fn: collectMedia as (arg: unknown) => unknown,
  arg: MEDIA_ARG,
  finish: finishMedia,
  collect: probeBackgrounds,
};
