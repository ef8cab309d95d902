/**
 * Where the media metrics get an image's bytes: from the artifact itself, never from the network.
 * - `data:` URIs are decoded from the URL;
 * - URLs on the page's own loopback origin map to an artifact file (`MediaInfo.path`), read from disk (the
 *   artifact's own bytes, part of the input rather than gathered evidence; read with `readArtifactFile`, so never
 *   through a link that leaves the artifact);
 * - anything else (remote http(s), blob:, generated) has no bytes offline: **unverified**, never bad.
 */
import { readArtifactFile } from '../../lib/artifact/load.js';
import type { Artifact } from '../../core/artifact/model.js';
import type { MediaInfo } from '../../core/browser-evidence.js';
import { dataUriBytes } from '../lib/image-tools.js';

export type MediaBytes =
  { kind: 'bytes'; bytes: Buffer; via: 'data-uri' | 'file'; svg: boolean } | { kind: 'missing'; reason: string } | { kind: 'unverified'; reason: string };

export function isRemote(src: string): boolean {
  return /^(https?:)?\/\//i.test(src) && !/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//i.test(src);
}

export async function mediaBytes(artifact: Artifact, m: Pick<MediaInfo, 'src' | 'path'>): Promise<MediaBytes> {
  if (m.src.startsWith('data:')) {
    const d = dataUriBytes(m.src);
    if (!d || d.bytes.length === 0) return { kind: 'missing', reason: 'data: URI does not decode' };
    return { kind: 'bytes', bytes: d.bytes, via: 'data-uri', svg: d.mime.includes('svg') };
  }
  if (m.path !== undefined) {
    const path = m.path.split(/[?#]/)[0]!;
    const f = artifact.files.find((x) => x.path === path);
    if (!f) return { kind: 'missing', reason: `${path} is not a file of the artifact` };
    try {
      return { kind: 'bytes', bytes: readArtifactFile(f), via: 'file', svg: f.kind === 'svg' };
    } catch (err) {
      return { kind: 'missing', reason: `${path} cannot be read: ${(err as Error).message}` };
    }
  }
  if (isRemote(m.src)) return { kind: 'unverified', reason: 'remote URL (not fetched offline)' };
  if (!m.src) return { kind: 'missing', reason: 'no source URL' };
  return { kind: 'unverified', reason: `no artifact bytes for ${m.src.slice(0, 60)}` };
}

/** A short display name for a media URL. */
export function shortName(src: string): string {
  if (src.startsWith('data:')) return src.slice(0, src.indexOf(',') > 0 ? Math.min(src.indexOf(','), 30) : 30);
  const clean = src.split(/[?#]/)[0]!;
  return clean.slice(clean.lastIndexOf('/') + 1) || clean;
}
