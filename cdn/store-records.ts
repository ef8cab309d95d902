/**
 * What the CDN cache keeps on disk, and the checks every entry read back must pass: a cache folder may be copied
 * from elsewhere or tampered with, so manifests, build records and pins are validated as strictly as a URL.
 */
import { createHash } from 'node:crypto';
import semver from 'semver';

/** Notes an invalid entry (the store warns once per key). */
export type Warn = (key: string, message: string) => void;

/** A blob name: the SHA-256 of its bytes, lower-case hex, exactly. */
const SHA_RE = /^[0-9a-f]{64}$/;
export const isSha = (s: unknown): s is string => typeof s === 'string' && SHA_RE.test(s);

/** A file path inside a package as a manifest may hold it (what tarball.ts safeEntryPath can produce). */
export function validFilePath(p: unknown): p is string {
  if (typeof p !== 'string' || p === '' || p.length > 4096 || /[\0\\]/.test(p) || p.startsWith('/') || /^[a-zA-Z]:/.test(p)) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/** What a manifest's `integrity` may be: SRI hashes (base64), or `sha1:<hex>` from a packument with a shasum only. */
const INTEGRITY_RE = /^(?:sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}(?: sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2})*|sha1:[0-9a-f]{40})$/;

const isSize = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isString = (v: unknown): v is string => typeof v === 'string';

/** The blob name of a path under blobs/ (`<aa>/<sha>` with aa its first two digits), else null. */
export function blobName(rel: string): string | null {
  const m = /^([0-9a-f]{2})\/([0-9a-f]{64})$/.exec(rel);
  return m && m[2]!.startsWith(m[1]!) ? m[2]! : null;
}

/** A pin as read from disk: well-formed, and a version pin names a valid exact version. */
export function validPin(p: unknown): p is Pin {
  const pin = p as Record<string, unknown> | null;
  if (!pin || typeof pin !== 'object' || !isString(pin.name) || !isString(pin.range) || !isString(pin.at)) return false;
  if ('version' in pin) return isString(pin.version) && semver.valid(pin.version) === pin.version;
  return isString(pin.notFound);
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** A file-name-safe, reversible encoding: every byte outside [A-Za-z0-9._-] (and a leading dot) as %XX. */
export function encName(s: string): string {
  const e = Buffer.from(s, 'utf8')
    .toString('latin1')
    .replace(/[^A-Za-z0-9._-]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'))
    .replace(/^\./, '%2E');
  // very long ranges: keep names short enough for any file system, still unique
  return e.length > 120 ? `${e.slice(0, 56)}~${sha256(s).slice(0, 32)}` : e;
}

export function decName(s: string): string {
  if (s.includes('~')) return s;
  return Buffer.from(
    s.replace(/%([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
}

/** One file of a package: its SHA-256 and size. */
export type FileEntry = [sha: string, size: number];

export interface PackageManifest {
  name: string;
  version: string;
  integrity: string;
  /** Path inside the package (first tarball component stripped) → content. Sorted by path. */
  files: Record<string, FileEntry>;
  /** Tarball entries that were not extracted, with why (links, traversal, absolute paths, devices). */
  refused: string[];
}

export interface BuildRecord {
  key: string;
  blob: string;
  size: number;
  meta: Record<string, unknown>;
}

/** A pinned resolution: the version the (package, range) resolved to the first time, or why there is none. */
export type Pin = { name: string; range: string; version: string; at: string } | { name: string; range: string; notFound: string; at: string };

export interface StoreStats {
  bytes: number;
  blobs: number;
  packages: Array<{ name: string; version: string; bytes: number; lastUsed: number }>;
  builds: number;
  pins: number;
}

/**
 * A manifest as read from disk, validated: null when it is not one of `name@version` (when given); file
 * entries with an unsafe path or a malformed blob name or size are dropped with a warning.
 */
export function validManifest(raw: unknown, where: string, warn: Warn, name?: string, version?: string): PackageManifest | null {
  const m = raw as Partial<PackageManifest> | null;
  if (!m || typeof m !== 'object' || !isString(m.name) || !isString(m.version) || !m.files || typeof m.files !== 'object' || Array.isArray(m.files)) {
    warn(where, `${where}: not a package manifest; ignored`);
    return null;
  }
  if ((name !== undefined && m.name !== name) || (version !== undefined && m.version !== version)) {
    warn(where, `${where}: names ${m.name}@${m.version}, not ${name}@${version}; ignored`);
    return null;
  }
  const files: Record<string, FileEntry> = {};
  const bad: string[] = [];
  for (const [path, e] of Object.entries(m.files as Record<string, unknown>)) {
    if (validFilePath(path) && Array.isArray(e) && e.length === 2 && isSha(e[0]) && isSize(e[1])) files[path] = [e[0], e[1]];
    else bad.push(path);
  }
  if (bad.length)
    warn(
      where,
      `${where}: ${bad.length} invalid file entr${bad.length === 1 ? 'y' : 'ies'} dropped (${bad
        .slice(0, 3)
        .map((b) => JSON.stringify(b).slice(0, 80))
        .join(', ')})`,
    );
  let integrity = '';
  if (isString(m.integrity) && INTEGRITY_RE.test(m.integrity)) integrity = m.integrity;
  else warn(`${where}#integrity`, `${where}: malformed integrity dropped`);
  return { name: m.name, version: m.version, integrity, files, refused: Array.isArray(m.refused) ? m.refused.filter(isString) : [] };
}

/** A build record as read from disk, validated (null when invalid, with a warning). */
export function validBuild(raw: unknown, where: string, warn: Warn): BuildRecord | null {
  const r = raw as Partial<BuildRecord> | null;
  if (!r || typeof r !== 'object' || !isString(r.key) || !isSha(r.blob) || !isSize(r.size) || !r.meta || typeof r.meta !== 'object') {
    warn(where, `${where}: not a valid build record; ignored`);
    return null;
  }
  return { key: r.key, blob: r.blob, size: r.size, meta: r.meta };
}
