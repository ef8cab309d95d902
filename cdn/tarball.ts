/**
 * Reads an npm tarball with `tar`'s Parser (it handles the long-name/pax extensions) and returns its regular
 * files. Nothing is ever written to a path taken from the archive: contents go to the content-addressed store,
 * so no entry can land outside the cache. Entries that a careful extractor would not create are skipped and
 * listed in `refused`:
 * - links of any kind (symbolic and hard) and devices, FIFOs and other special types;
 * - paths that are absolute, have a drive letter, a backslash or NUL, or a `..` segment (after npm's rule of
 *   stripping the first path component, usually `package/`).
 *
 * Two caps, because a small tarball can inflate to gigabytes:
 * - the unpacked total of the files kept (`maxBytes`); past it the whole package is refused;
 * - every inflated byte, kept or not (`maxInflatedBytes`, default {@link DEFAULT_MAX_INFLATED_BYTES}): skipped
 *   entries, padding and data after the end of the archive all count. The gzip stream is inflated here, a slice
 *   of the compressed bytes at a time, and handed to the Parser as it comes, so memory holds one slice's output
 *   and the files kept, never the whole inflated stream; reading stops as soon as the count passes the cap.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { DEFAULT_MAX_INFLATED_BYTES, UnavailableError } from './registry.js';

export { DEFAULT_MAX_INFLATED_BYTES };
/** Compressed bytes inflated at a time; deflate's ratio is at most ~1032:1, so one slice yields ≤ 17 MB. */
const SLICE_BYTES = 16 * 1024;

export interface TarballFiles {
  files: Map<string, Buffer>;
  refused: string[];
}

const REGULAR = new Set(['File', 'OldFile', 'ContiguousFile']);
const IGNORED = new Set([
  'Directory',
  'GlobalExtendedHeader',
  'ExtendedHeader',
  'OldExtendedHeader',
  'NextFileHasLongPath',
  'NextFileHasLongLinkpath',
  'OldGnuLongPath',
]);
const GZIP_MAGIC = [0x1f, 0x8b];
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const startsWith = (b: Buffer, magic: number[]) => b.length >= magic.length && magic.every((m, i) => b[i] === m);

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

class InflatedCapError extends Error {}

/** Why reading stopped early (pipeline() reports an error thrown in its last stage as an AbortError). */
type Stop = InflatedCapError | UnavailableError;

export async function readTarball(data: Buffer, maxBytes: number, label: string, maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES): Promise<TarballFiles> {
  const files = new Map<string, Buffer>();
  const refused: string[] = [];
  let total = 0;
  let overflow = false;
  let parseError: Error | null = null;
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
      if (overflow || total > maxBytes) {
        overflow = true;
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => files.set(path, Buffer.concat(chunks)));
    },
  });
  const parsed = new Promise<void>((resolve) => {
    parser.on('error', (err: Error) => {
      parseError ??= err;
      resolve();
    });
    parser.on('abort', (err: Error) => {
      parseError ??= err;
      resolve();
    });
    parser.on('end', () => resolve());
  });
  // The Parser would itself inflate a gzip or zstd stream it finds (uncounted): a second layer is refused.
  let first = true;
  let stop: Stop | null = null;
  const feed = (chunk: Buffer) => {
    if (first) {
      first = false;
      if (startsWith(chunk, GZIP_MAGIC) || startsWith(chunk, ZSTD_MAGIC))
        throw (stop = new UnavailableError(`${label}: unreadable tarball (compressed twice)`));
    }
    parser.write(chunk);
  };
  try {
    if (startsWith(data, GZIP_MAGIC)) {
      let inflated = 0;
      await pipeline(Readable.from(slices(data)), createGunzip(), async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) {
          inflated += chunk.length;
          if (inflated > maxInflatedBytes) throw (stop = new InflatedCapError());
          feed(chunk);
          if (parseError) return;
        }
      });
    } else {
      if (data.length > maxInflatedBytes) throw new InflatedCapError();
      feed(data);
    }
  } catch (caught) {
    const err = stop ?? caught;
    if (parseError) throw new UnavailableError(`${label}: unreadable tarball (${(parseError as Error).message})`);
    if (err instanceof InflatedCapError)
      throw new UnavailableError(`${label} inflates to more than the per-tarball cap of ${(maxInflatedBytes / 1048576).toFixed(0)} MiB`);
    if (err instanceof UnavailableError) throw err;
    throw new UnavailableError(`${label}: unreadable tarball (${(err as Error).message})`);
  }
  parser.end();
  await parsed;
  if (parseError) throw new UnavailableError(`${label}: unreadable tarball (${(parseError as Error).message})`);
  if (overflow) throw new UnavailableError(`${label} unpacks to more than the per-package cap of ${(maxBytes / 1048576).toFixed(0)} MiB`);
  if (files.size === 0) throw new UnavailableError(`${label}: tarball holds no files`);
  return { files, refused };
}

function* slices(data: Buffer): Generator<Buffer> {
  for (let off = 0; off < data.length; off += SLICE_BYTES) yield data.subarray(off, off + SLICE_BYTES);
}
