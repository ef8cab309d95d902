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
 *   entries and padding count. The gzip stream is inflated here, a slice of the compressed bytes at a time, and
 *   handed to the Parser as it comes, so memory holds one slice's output and the files kept, never the whole
 *   inflated stream; reading stops as soon as the count passes the cap.
 *
 * The end of the archive (two zero blocks) ends the reading: what follows it is never inflated nor handed to the
 * Parser. (The Parser keeps every byte written after its end marker in one buffer that it copies again on each
 * write, so a 32 KiB gzip whose tail inflates to megabytes of zeros took 24 CPU-seconds, and a 1.65 MB one over
 * 11 minutes.) Interpretation: data after the end marker is not part of the archive (tar itself ignores it), so
 * the package is read as if it were not there, not refused; at most the inflated chunk the marker falls in is
 * read past it (`readBytes` says how much was read in all).
 *
 * `signal` (the asking page's, cdn/budget.ts) is checked before every inflated chunk: when the page's site
 * closes, the reading stops with an {@link AbortedError} and the promise settles at once.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { AbortedError } from './budget.js';
import { DEFAULT_MAX_INFLATED_BYTES, UnavailableError } from './registry.js';

export { DEFAULT_MAX_INFLATED_BYTES };
/** Compressed bytes inflated at a time; deflate's ratio is at most ~1032:1, so one slice yields ≤ 17 MB. */
const SLICE_BYTES = 16 * 1024;

export interface TarballFiles {
  files: Map<string, Buffer>;
  refused: string[];
  /** Archive bytes read (inflated, for a gzip stream): up to the end-of-archive marker and the chunk it is in. */
  readBytes: number;
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

export async function readTarball(
  data: Buffer,
  maxBytes: number,
  label: string,
  maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES,
  signal?: AbortSignal,
): Promise<TarballFiles> {
  const files = new Map<string, Buffer>();
  const refused: string[] = [];
  let total = 0;
  let overflow = false;
  let parseError: Error | null = null;
  let archiveEnded = false;
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
  // the second zero block: nothing after it is read (module comment)
  parser.on('eof', () => (archiveEnded = true));
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
  let readBytes = 0;
  /** Hand one chunk to the Parser; true when reading is over (the archive ended, or the Parser failed). */
  const take = (chunk: Buffer): boolean => {
    if (signal?.aborted) throw (stop = new AbortedError(`${label}: unpacking stopped, the page is closed or out of time`));
    readBytes += chunk.length;
    if (readBytes > maxInflatedBytes) throw (stop = new InflatedCapError());
    if (first) {
      first = false;
      if (startsWith(chunk, GZIP_MAGIC) || startsWith(chunk, ZSTD_MAGIC))
        throw (stop = new UnavailableError(`${label}: unreadable tarball (compressed twice)`));
    }
    parser.write(chunk);
    return archiveEnded || parseError !== null;
  };
  let over = false;
  try {
    if (startsWith(data, GZIP_MAGIC)) {
      await pipeline(Readable.from(slices(data)), createGunzip(), async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) if ((over = take(chunk))) return;
      });
    } else {
      for (const chunk of slices(data)) if ((over = take(chunk))) break;
    }
  } catch (caught) {
    // Left early because the archive ended, pipeline() reports the premature close of its earlier stages: not an error.
    if (!over || stop || parseError) throw failure(stop ?? caught);
  }
  parser.end();
  await parsed;
  if (parseError) throw failure(parseError);
  if (overflow) throw new UnavailableError(`${label} unpacks to more than the per-package cap of ${(maxBytes / 1048576).toFixed(0)} MiB`);
  if (files.size === 0) throw new UnavailableError(`${label}: tarball holds no files`);
  return { files, refused, readBytes };

  /** The error to throw for why reading stopped (a Parser error first: it explains the others). */
  function failure(err: unknown): UnavailableError {
    if (parseError) return new UnavailableError(`${label}: unreadable tarball (${(parseError as Error).message})`);
    if (err instanceof InflatedCapError)
      return new UnavailableError(`${label} inflates to more than the per-tarball cap of ${(maxInflatedBytes / 1048576).toFixed(0)} MiB`);
    if (err instanceof UnavailableError) return err;
    return new UnavailableError(`${label}: unreadable tarball (${(err as Error).message})`);
  }
}

function* slices(data: Buffer): Generator<Buffer> {
  for (let off = 0; off < data.length; off += SLICE_BYTES) yield data.subarray(off, off + SLICE_BYTES);
}
