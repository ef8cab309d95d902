/**
 * LRU eviction of the CDN store, run under its eviction lock: a scan of what the cache holds and who references
 * which blob, then the removal of unreferenced blobs and of the least recently used packages and builds.
 */
import { statSync, unlinkSync } from 'node:fs';
import { blobName, type BuildRecord, type PackageManifest } from './store-records.js';

/** Eviction frees at most this much beyond what is over the cap (see evict). */
export const EVICTION_SLACK_BYTES = 64 * 1024 ** 2;

/** The store's files as eviction reads them (only valid entries are ever a reason to delete). */
export interface StoreFiles {
  walk(sub: string): Iterable<{ path: string; rel: string }>;
  manifestAt(path: string): PackageManifest | null;
  buildAt(path: string): BuildRecord | null;
  blobPath(sha: string): string;
}

/** A manifest or build record: evicted as a whole, with the blobs it references. */
interface Item {
  path: string;
  time: number;
  size: number;
  blobs: string[];
}

interface Scan {
  items: Item[];
  /** How many items reference each blob. */
  refs: Map<string, number>;
  blobInfo: Map<string, { size: number; mtime: number }>;
  total: number;
}

function scanItems(files: StoreFiles, scan: Scan): void {
  const addRefs = (shas: string[]) => {
    for (const s of new Set(shas)) scan.refs.set(s, (scan.refs.get(s) ?? 0) + 1);
  };
  for (const f of files.walk('packages')) {
    try {
      const st = statSync(f.path);
      const m = files.manifestAt(f.path);
      // an invalid manifest is left alone: no blob it names is trusted, so none is freed or deleted through it
      if (!m) continue;
      const blobs = Object.values(m.files).map((e) => e[0]);
      scan.items.push({ path: f.path, time: st.mtimeMs, size: st.size, blobs });
      addRefs(blobs);
    } catch {
      /* partial */
    }
  }
  for (const f of files.walk('builds')) {
    try {
      const st = statSync(f.path);
      const r = files.buildAt(f.path);
      if (!r) continue;
      scan.items.push({ path: f.path, time: st.mtimeMs, size: st.size, blobs: [r.blob] });
      addRefs([r.blob]);
    } catch {
      /* partial */
    }
  }
}

function scanBlobs(files: StoreFiles, scan: Scan): void {
  for (const f of files.walk('blobs')) {
    try {
      const sha = blobName(f.rel);
      if (!sha) continue; // not a blob's name: never deleted
      const st = statSync(f.path);
      scan.blobInfo.set(sha, { size: st.size, mtime: st.mtimeMs });
      scan.total += st.size;
    } catch {
      /* gone */
    }
  }
}

/**
 * Remove what eviction may when the cache is over `maxBytes`: unreferenced blobs first, then the least recently
 * used items not in `keepPaths`, down to the target; a blob younger than `graceMs` is never removed.
 * Returns the bytes before and after.
 */
export function evict(files: StoreFiles, maxBytes: number, graceMs: number, keepPaths: Set<string>): { before: number; after: number } {
  const scan: Scan = { items: [], refs: new Map(), blobInfo: new Map(), total: 0 };
  scanItems(files, scan);
  scan.total = scan.items.reduce((s, i) => s + i.size, 0);
  scanBlobs(files, scan);
  const before = scan.total;
  const now = Date.now();
  const removeBlob = (sha: string) => {
    const info = scan.blobInfo.get(sha);
    if (!info || now - info.mtime < graceMs) return;
    try {
      unlinkSync(files.blobPath(sha));
      scan.total -= info.size;
      scan.blobInfo.delete(sha);
    } catch {
      /* gone */
    }
  };
  // unreferenced blobs (left by an interrupted write or an earlier eviction) go first
  if (scan.total > maxBytes) for (const sha of [...scan.blobInfo.keys()]) if (!scan.refs.has(sha)) removeBlob(sha);
  if (scan.total > maxBytes) evictLru(scan, maxBytes, keepPaths, removeBlob);
  return { before, after: scan.total };
}

/**
 * Down to 90% of the cap, but never more than EVICTION_SLACK_BYTES below it: what one writer (one page, whose
 * additions are capped by its budget) can push out is what it added plus this slack.
 */
function evictLru(scan: Scan, maxBytes: number, keepPaths: Set<string>, removeBlob: (sha: string) => void): void {
  const target = maxBytes - Math.min(maxBytes * 0.1, EVICTION_SLACK_BYTES);
  scan.items.sort((a, b) => a.time - b.time);
  for (const it of scan.items) {
    if (scan.total <= target) break;
    if (keepPaths.has(it.path)) continue;
    try {
      unlinkSync(it.path);
      scan.total -= it.size;
    } catch {
      continue;
    }
    for (const sha of new Set(it.blobs)) {
      const n = (scan.refs.get(sha) ?? 1) - 1;
      scan.refs.set(sha, n);
      if (n <= 0) removeBlob(sha);
    }
  }
}
