/**
 * The loopback HTTP server of one artifact: it serves exactly the files of `artifact.files` (by their
 * artifact-relative path), with the right MIME type, and 404 for everything else. `/` serves the entry page.
 * Nothing outside the artifact can be read: the path is looked up in the artifact's file list, never joined
 * onto the file system. Only GET and HEAD are answered. Every response carries `Cache-Control: no-store`.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import type { Artifact, ArtifactFile } from '../../core/artifact.js';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.xhtml': 'application/xhtml+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json', '.webmanifest': 'application/manifest+json', '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8', '.md': 'text/markdown; charset=utf-8', '.csv': 'text/csv; charset=utf-8', '.xml': 'application/xml',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif',
  '.webp': 'image/webp', '.avif': 'image/avif', '.ico': 'image/x-icon', '.bmp': 'image/bmp',
  '.mp4': 'video/mp4', '.webm': 'video/webm', '.ogv': 'video/ogg', '.mov': 'video/quicktime',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.ogg': 'audio/ogg', '.m4a': 'audio/mp4', '.flac': 'audio/flac',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.otf': 'font/otf', '.eot': 'application/vnd.ms-fontobject',
  '.vtt': 'text/vtt', '.wasm': 'application/wasm', '.pdf': 'application/pdf',
};

export function mimeType(path: string): string {
  return MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

export interface ArtifactServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** URL of the entry page. */
  entryUrl: string;
  /** Paths requested so far (artifact-relative, or the raw path for 404s), with the status sent. */
  log: Array<{ path: string; status: number }>;
  close(): Promise<void>;
}

/** Artifact-relative path of a request path, or null when it cannot name an artifact file. */
export function requestPath(urlPath: string): string | null {
  const q = urlPath.search(/[?#]/);
  let p = q >= 0 ? urlPath.slice(0, q) : urlPath;
  try {
    p = decodeURIComponent(p);
  } catch {
    return null;
  }
  if (p.includes('\0') || p.includes('\\')) return null;
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return null;
    parts.push(seg);
  }
  return parts.join('/');
}

export async function startArtifactServer(artifact: Artifact): Promise<ArtifactServer> {
  const byPath = new Map<string, ArtifactFile>(artifact.files.map((f) => [f.path, f]));
  const log: ArtifactServer['log'] = [];
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: Buffer | string, type: string, path: string) => {
      log.push({ path, status });
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed', 'text/plain', req.url ?? '');
    const rel = requestPath(req.url ?? '/');
    const file = rel === null ? undefined : byPath.get(rel === '' ? artifact.entry : rel);
    if (!file) return send(404, 'not found', 'text/plain; charset=utf-8', rel ?? req.url ?? '');
    readFile(file.absPath).then(
      (buf) => send(200, buf, mimeType(file.path), file.path),
      () => send(404, 'not found', 'text/plain; charset=utf-8', file.path),
    );
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    entryUrl: `${origin}/${artifact.entry.split('/').map(encodeURIComponent).join('/')}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
