/**
 * Response headers as the CDNs send them, limited to what matters to a browser:
 * - `Content-Type` by extension (scripts as `application/javascript`, wasm as `application/wasm`, fonts as
 *   `font/*`); HTML is sent as `text/plain` like jsDelivr does, so a package cannot host pages on a CDN origin;
 * - `Access-Control-Allow-Origin: *` (module scripts, fonts and `fetch()` are CORS requests) and
 *   `Timing-Allow-Origin: *`;
 * - `Cache-Control`: one year and `immutable` for exact versions, one week for ranges and generated answers
 *   whose content follows a resolution (jsDelivr's policy), a day for Google Fonts CSS;
 * - `Content-Length`, an `ETag` (the SHA-256 of the body; a matching `If-None-Match` gets a 304), and
 *   `X-Content-Type-Options: nosniff`.
 */
import { createHash } from 'node:crypto';

const TYPES: Record<string, string> = {
  js: 'application/javascript; charset=utf-8',
  mjs: 'application/javascript; charset=utf-8',
  cjs: 'application/javascript; charset=utf-8',
  jsx: 'application/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
  wasm: 'application/wasm',
  woff2: 'font/woff2',
  woff: 'font/woff',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  html: 'text/plain; charset=utf-8',
  htm: 'text/plain; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  ts: 'text/plain; charset=utf-8',
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  data: 'application/octet-stream',
  bin: 'application/octet-stream',
  whl: 'application/zip',
};

export const JS_TYPE = TYPES.js!;
export const CSS_TYPE = TYPES.css!;

export function contentType(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot < 0) return 'text/plain; charset=utf-8';
  return TYPES[base.slice(dot + 1).toLowerCase()] ?? 'application/octet-stream';
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const ONE_WEEK = 'public, max-age=604800';
export const ONE_DAY = 'public, max-age=86400';

export function responseHeaders(body: Buffer, type: string, cacheControl: string): Record<string, string> {
  return {
    'content-type': type,
    'content-length': String(body.length),
    'cache-control': cacheControl,
    'access-control-allow-origin': '*',
    'timing-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
    'x-content-type-options': 'nosniff',
    etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`,
  };
}
