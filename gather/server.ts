/**
 * Serving an artifact's files over HTTP. `artifactResponse` answers one request path: exactly the files of
 * `artifact.files` (by their artifact-relative path), with the right MIME type, and 404 for everything else; `/`
 * serves the entry page. Nothing outside the artifact can be read: the path is looked up in the artifact's file
 * list, never joined onto the file system, and the file is read with `readArtifactFile` (its verified real path,
 * opened without following links: lib/artifact/load.ts). Only GET and HEAD are answered. Every response carries
 * `Cache-Control: no-store`.
 *
 * The sandbox proxy (sandbox/sandbox.ts) answers the browser's requests for the artifact's origin with it. Every
 * artifact is served at one fixed origin, ARTIFACT_ORIGIN (`artifactSite`): the browser sends every request,
 * loopback included, to the proxy of its context, and each artifact's contexts have proxies of their own, so the
 * proxy knows the artifact without the origin naming it; nothing listens on that port. Until 2026-11-29 each
 * artifact had a loopback listener holding a port of its own as its origin, and a page that shows its own address
 * (a URL bar, a share link, a "running at" line: datasette-extras-explorer in the corpus) gave a new DOM, a new
 * screenshot and new judge prompts on every run. Two artifacts scored side by side share the origin's name but
 * nothing behind it: each browser context has its own storage, cookies, caches and service workers.
 */
import { extname } from 'node:path';
import mime from 'mime-types';
import { readArtifactFile } from '../lib/artifact/load.js';
import type { Artifact, ArtifactFile } from '../core/artifact/model.js';

/** What serving needs of an artifact (small enough to send to the sandbox thread). */
export type ServedArtifact = Pick<Artifact, 'entry' | 'refused'> & { files: ReadonlyArray<Pick<ArtifactFile, 'path' | 'absPath'>> };

export function servedArtifact(artifact: Artifact): ServedArtifact {
  const a = artifact.served ?? artifact; // a built project serves its output folder, not its sources
  return { entry: a.entry, refused: a.refused, files: a.files.map((f) => ({ path: f.path, absPath: f.absPath })) };
}

/**
 * Where the artifact server answers otherwise than the registry of media types (mime-types): JSON, manifests,
 * source maps and subtitles without a charset parameter, `.cjs` as a script, and the icon and FLAC names
 * browsers have always accepted.
 */
const SERVED_TYPES: Record<string, string> = {
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.vtt': 'text/vtt',
  '.ico': 'image/x-icon',
  '.flac': 'audio/flac',
};

/** The Content-Type of an artifact file by its extension (unknown: `application/octet-stream`). */
export function mimeType(path: string): string {
  const ext = extname(path).toLowerCase();
  if (!ext) return 'application/octet-stream';
  return SERVED_TYPES[ext] ?? (mime.contentType(ext) || 'application/octet-stream').replace('; charset=UTF-8', '; charset=utf-8');
}

/**
 * The origin every artifact is served at (module comment). A port no server is expected on (the browser never
 * connects to it: the proxy answers), unusual enough that a page's own reference to a local server (`:8000`,
 * `:3000`, `:5173`) is not taken for its own origin.
 */
export const ARTIFACT_ORIGIN = 'http://127.0.0.1:61080';

/** Where the browser finds an artifact: its origin and its entry page's URL. */
export interface ArtifactSite {
  /** ARTIFACT_ORIGIN */
  origin: string;
  /** URL of the entry page. */
  entryUrl: string;
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

/** The artifact's origin and entry URL (module comment). */
export function artifactSite(artifact: ServedArtifact): ArtifactSite {
  return { origin: ARTIFACT_ORIGIN, entryUrl: `${ARTIFACT_ORIGIN}/${artifact.entry.split('/').map(encodeURIComponent).join('/')}` };
}
