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
import mime from 'mime-types';

/**
 * Where the CDNs answer otherwise than the registry of media types (mime-types): scripts as
 * `application/javascript` (jsDelivr and unpkg), pages and sources as plain text (a package cannot host a page on
 * a CDN origin), Python wheels as zip (Pyodide), and the extensions mime-types does not know.
 */
const CDN_TYPES: Record<string, string> = {
  js: 'application/javascript; charset=utf-8',
  mjs: 'application/javascript; charset=utf-8',
  cjs: 'application/javascript; charset=utf-8',
  jsx: 'application/javascript; charset=utf-8',
  map: 'application/json; charset=utf-8',
  html: 'text/plain; charset=utf-8',
  htm: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  ts: 'text/plain; charset=utf-8',
  whl: 'application/zip',
  tgz: 'application/gzip',
  data: 'application/octet-stream',
  ico: 'image/x-icon',
  wav: 'audio/wav',
  xml: 'application/xml; charset=utf-8',
};

export const JS_TYPE = CDN_TYPES.js!;
export const CSS_TYPE = 'text/css; charset=utf-8';

/** The Content-Type a CDN sends for `path` (a name without an extension: plain text, as jsDelivr answers). */
export function contentType(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot < 0) return 'text/plain; charset=utf-8';
  const ext = base.slice(dot + 1).toLowerCase();
  return CDN_TYPES[ext] ?? (mime.contentType(ext) || 'application/octet-stream').replace('; charset=UTF-8', '; charset=utf-8');
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
