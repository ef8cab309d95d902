/**
 * Serving an artifact's files over HTTP. `artifactResponse` answers one request path: exactly the files of
 * `artifact.files` (by their artifact-relative path), with the right MIME type, and 404 for everything else; `/`
 * serves the entry page. Nothing outside the artifact can be read: the path is looked up in the artifact's file
 * list, never joined onto the file system, and the file is read with `readArtifactFile` (its verified real path,
 * opened without following links: lib/artifact/load.ts). Only GET and HEAD are answered. Every response carries
 * `Cache-Control: no-store`.
 *
 * The sandbox proxy (sandbox/sandbox.ts) answers the browser's requests for the artifact's origin with it; the
 * loopback listener of `startArtifactServer` holds the origin's port (so that every artifact has an origin of its
 * own) and answers direct requests the same way (benchmarks, tests).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { readArtifactFile } from '../lib/artifact/load.js';
import type { Artifact, ArtifactFile } from '../core/artifact/model.js';

/** What serving needs of an artifact (small enough to send to the sandbox thread). */
export type ServedArtifact = Pick<Artifact, 'entry' | 'refused'> & { files: ReadonlyArray<Pick<ArtifactFile, 'path' | 'absPath'>> };

export function servedArtifact(artifact: Artifact): ServedArtifact {
  const a = artifact.served ?? artifact; // a built project serves its output folder, not its sources
  return { entry: a.entry, refused: a.refused, files: a.files.map((f) => ({ path: f.path, absPath: f.absPath })) };
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xhtml': 'application/xhtml+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.bmp': 'image/bmp',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.ogv': 'video/ogg',
  '.mov': 'video/quicktime',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.flac': 'audio/flac',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.eot': 'application/vnd.ms-fontobject',
  '.vtt': 'text/vtt',
  '.wasm': 'application/wasm',
  '.pdf': 'application/pdf',
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

export interface ArtifactResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Artifact-relative path served, or the raw path of a 404. */
  path: string;
  /** Why the answer is not 200 (shown in the network log). */
  reason?: string;
}

/** The answer to `method urlPath` (path and query of the request URL) for `artifact`. */
export function artifactResponse(artifact: ServedArtifact, method: string, urlPath: string): ArtifactResponse {
  const text = (status: number, body: string, path: string, reason: string): ArtifactResponse => ({
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
    body: Buffer.from(body),
    path,
    reason,
  });
  if (method !== 'GET' && method !== 'HEAD') return text(405, 'method not allowed', urlPath, `${method} is not answered (GET and HEAD only)`);
  const rel = requestPath(urlPath);
  const file = rel === null ? undefined : artifact.files.find((f) => f.path === (rel === '' ? artifact.entry : rel));
  if (!file) {
    const refused = rel === null ? undefined : artifact.refused.find((r) => r.path === rel);
    return text(404, 'not found', rel ?? urlPath, refused ? `not served: ${rel} is ${refused.reason}` : 'not a file of the artifact');
  }
  let body: Buffer;
  try {
    body = readArtifactFile(file);
  } catch (err) {
    return text(404, 'not found', file.path, `cannot be read safely (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return {
    status: 200,
    headers: { 'Content-Type': mimeType(file.path), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
    body,
    path: file.path,
  };
}

/** A listener on 127.0.0.1 that answers direct requests with `artifactResponse` (and holds the origin's port). */
export async function startArtifactServer(artifact: ServedArtifact): Promise<ArtifactServer> {
  const log: ArtifactServer['log'] = [];
  const server: Server = createServer((req, res) => {
    const r = artifactResponse(artifact, req.method ?? 'GET', req.url ?? '/');
    log.push({ path: r.path, status: r.status });
    res.writeHead(r.status, { ...r.headers, 'Content-Length': r.body.length });
    res.end(req.method === 'HEAD' ? undefined : r.body);
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
