/**
 * Reads an npm tarball in memory with `tar`'s Parser (it handles gzip and the long-name/pax extensions) and
 * returns its regular files. Nothing is ever written to a path taken from the archive: contents go to the
 * content-addressed store, so no entry can land outside the cache. Entries that a careful extractor would not
 * create are skipped and listed in `refused`:
 * - links of any kind (symbolic and hard) and devices, FIFOs and other special types;
 * - paths that are absolute, have a drive letter, a backslash or NUL, or a `..` segment (after npm's rule of
 *   stripping the first path component, usually `package/`).
 * The unpacked total is capped (`maxBytes`); past it the whole package is refused.
 */
import { Parser, type ReadEntry } from 'tar';
import { UnavailableError } from './registry.js';

export interface TarballFiles {
  files: Map<string, Buffer>;
  refused: string[];
}

const REGULAR = new Set(['File', 'OldFile', 'ContiguousFile']);
const IGNORED = new Set(['Directory', 'GlobalExtendedHeader', 'ExtendedHeader', 'OldExtendedHeader', 'NextFileHasLongPath', 'NextFileHasLongLinkpath', 'OldGnuLongPath']);

/** The package-relative path of an archive entry, or null when it must not be extracted. */
export function safeEntryPath(raw: string): string | null {
  if (!raw || raw.includes('\0') || raw.includes('\\')) return null;
  if (raw.startsWith('/') || /^[a-zA-Z]:/.test(raw)) return null;
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return null;
  parts.shift(); // npm strips the first component ("package/")
  if (parts.length === 0) return null;
  return parts.join('/');
}

export async function readTarball(data: Buffer, maxBytes: number, label: string): Promise<TarballFiles> {
  const files = new Map<string, Buffer>();
  const refused: string[] = [];
  let total = 0;
  let overflow = false;
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      strict: false,
      onReadEntry: (entry: ReadEntry) => {
        const type = entry.type;
        if (IGNORED.has(type)) {
          entry.resume();
          return;
        }
        if (!REGULAR.has(type)) {
          refused.push(`${entry.path}: ${type === 'SymbolicLink' ? 'symbolic link' : type === 'Link' ? 'hard link' : type} not extracted`);
          entry.resume();
          return;
        }
        const path = safeEntryPath(entry.path);
        if (path === null) {
          refused.push(`${entry.path}: unsafe path not extracted`);
          entry.resume();
          return;
        }
        total += entry.size;
        if (total > maxBytes) {
          overflow = true;
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => files.set(path, Buffer.concat(chunks)));
      },
    });
    parser.on('error', (err: Error) => reject(new UnavailableError(`${label}: unreadable tarball (${err.message})`)));
    parser.on('end', () => resolve());
    parser.end(data);
  });
  if (overflow) throw new UnavailableError(`${label} unpacks to more than the per-package cap of ${(maxBytes / 1048576).toFixed(0)} MiB`);
  if (files.size === 0) throw new UnavailableError(`${label}: tarball holds no files`);
  return { files, refused };
}
