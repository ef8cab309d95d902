/**
 * The `<img>` elements of a page and where their bytes are: a file of the artifact, a `data:` URI, or elsewhere
 * (remote, which the page may not reach). Operators that change pixels (blur) or need the natural size (stretch)
 * work only on images whose bytes are in the artifact; the media metrics read those same bytes.
 */
import sharp from 'sharp';
import { classifyUrl } from '../lib/artifact/extract.js';
import { readArtifactFile } from '../lib/artifact/load.js';
import type { PageModel } from './page.js';

export interface PageImage {
  el: Element;
  src: string;
  where: 'local' | 'data' | 'remote' | 'other';
  /** Artifact-relative path of a local image that exists. */
  path?: string;
  /** MIME type of a data: URI, or guessed from a local file's extension. */
  mime?: string;
  /** The bytes, for local files that exist and data: URIs. */
  bytes?: Buffer;
}

const RASTER = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const EXT_MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** Decode `data:[mime][;params][;base64],payload`; null when it is not one. */
export function decodeDataUri(uri: string): { mime: string; bytes: Buffer } | null {
  if (!uri.toLowerCase().startsWith('data:')) return null;
  const comma = uri.indexOf(',');
  if (comma < 0) return null;
  const meta = uri
    .slice(5, comma)
    .split(';')
    .map((s) => s.trim());
  const mime = (meta[0] || 'text/plain').toLowerCase();
  const payload = uri.slice(comma + 1);
  if (meta.slice(1).some((p) => p.toLowerCase() === 'base64')) return { mime, bytes: Buffer.from(payload.replace(/\s+/g, ''), 'base64') };
  try {
    return { mime, bytes: Buffer.from(decodeURIComponent(payload), 'utf8') };
  } catch {
    return { mime, bytes: Buffer.from(payload, 'utf8') };
  }
}

export function encodeDataUri(mime: string, bytes: Buffer): string {
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

/** Rendered `<img>` elements with a `src` in document order, with where their bytes are. */
export function pageImages(page: PageModel): PageImage[] {
  const files = new Set(page.artifact.files.map((f) => f.path));
  const out: PageImage[] = [];
  for (const el of page.elements('img[src]')) {
    const src = (el.getAttribute('src') ?? '').trim();
    if (!src) continue;
    const data = decodeDataUri(src);
    if (data) {
      out.push({ el, src, where: 'data', mime: data.mime, bytes: data.bytes });
      continue;
    }
    const c = classifyUrl(src, page.entry, files);
    if (c.location === 'remote') out.push({ el, src, where: 'remote' });
    else if (c.location === 'local' && c.exists && c.path) {
      const file = page.file(c.path)!;
      const ext = c.path.split('.').pop()!.toLowerCase();
      out.push({ el, src, where: 'local', path: c.path, mime: EXT_MIME[ext], bytes: readArtifactFile(file) });
    } else out.push({ el, src, where: 'other' });
  }
  return out;
}

export function isRaster(img: PageImage): boolean {
  return !!img.bytes && !!img.mime && RASTER.has(img.mime);
}

/** Natural size of an image's bytes (null when sharp cannot read them). */
export async function naturalSize(bytes: Buffer): Promise<{ width: number; height: number } | null> {
  try {
    const m = await sharp(bytes).metadata();
    return m.width && m.height ? { width: m.width, height: m.height } : null;
  } catch {
    return null;
  }
}

/**
 * The bytes blurred (Gaussian, sigma = width / 25, at least 2 px: the image stays blurred when it is shown
 * smaller than its natural size), re-encoded in the same format.
 */
export async function blurred(bytes: Buffer, mime: string): Promise<Buffer | null> {
  try {
    const size = await naturalSize(bytes);
    if (!size) return null;
    const sigma = Math.min(100, Math.max(2, size.width / 25));
    const img = sharp(bytes, { animated: false }).blur(sigma);
    if (mime === 'image/jpeg') return await img.jpeg({ quality: 90 }).toBuffer();
    if (mime === 'image/webp') return await img.webp().toBuffer();
    if (mime === 'image/gif') return await img.gif().toBuffer();
    return await img.png().toBuffer();
  } catch {
    return null;
  }
}
