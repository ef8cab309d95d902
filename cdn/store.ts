/**
 * The on-disk cache of the CDN module: content-addressed, shared safely by several processes, size-capped with
 * LRU eviction, and portable (a directory filled on one machine can be copied to another and used offline).
 *
 * Layout (all under the cache directory; `layout.json` names the layout version):
 *
 *     blobs/<aa>/<sha256>                    file contents, named by the SHA-256 of the bytes
 *     packages/<enc(name)>/<version>.json    package manifest: {name, version, integrity, files: {path: [sha256, size]},
 *                                            refused: [entries skipped at extraction]}; evictable
 *     builds/<aa>/<sha256(key)>.json         a generated response (ES module build, stub, font CSS, minified file):
 *                                            {key, blob, size, meta}; evictable
 *     pins/<enc(name)>/<enc(range)>.json     a resolution (package, range) → version (kept for good) or "not found"
 *                                            (asked again after {@link NOT_FOUND_PIN_MS}); never evicted
 *     tmp/                                   temp files, renamed into place (same file system, so rename is atomic)
 *     locks/evict.lock                       held by the one process that is evicting
 *
 * Concurrency rules (several webgrade processes may use one directory at once):
 * - every file is written to `tmp/` first and renamed into place, so a reader never sees a partial file;
 *   blobs, manifests and builds are deterministic, so two processes writing the same one write the same bytes;
 * - pins are created exclusively (`link(2)` of a complete temp file, which fails if the pin exists): the first
 *   resolution wins and every later reader, in any process, gets that one;
 * - eviction runs under `locks/evict.lock` (created exclusively; a lock older than 10 minutes is stale), never
 *   removes a blob younger than {@link BLOB_GRACE_MS} (another process may be about to reference it), and a
 *   reader that finds a blob missing treats its package or build as not cached and fetches or builds it again
 *   (the result is byte-identical).
 *
 * Nothing read back is trusted (a cache folder may be copied from elsewhere, or tampered with): every manifest,
 * build record and pin is validated as strictly as a URL before use — blob names exactly 64 lower-case hex digits,
 * file paths relative without `..`, NUL, backslashes or drive letters, name and version those asked for. An invalid
 * entry is dropped with a warning (never served, and never a path to delete); a blob is served only when it is a
 * regular file (not a link) whose bytes hash to its name; folders and files that are links are never walked.
 *
 * LRU: the modification time of a manifest or build record is its last use (touched at most once a minute per
 * process). Size = the bytes of all blobs plus manifests and build records; pins are tiny and not counted.
 *
 * The records and their validation are in store-records.ts, the eviction's scan and removals in eviction.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants as fsConstants,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  blobName,
  isSha,
  sha256,
  encName,
  validBuild,
  validManifest,
  validPin,
  type BuildRecord,
  type FileEntry,
  type PackageManifest,
  type Pin,
  type StoreStats,
} from './store-records.js';
import { evict, EVICTION_SLACK_BYTES, type StoreFiles } from './eviction.js';

export { EVICTION_SLACK_BYTES };

export const LAYOUT_VERSION = 1;
/** A blob younger than this is never collected (a concurrent writer may be about to reference it). */
export const BLOB_GRACE_MS = 60_000;
const TOUCH_EVERY_MS = 60_000;
const STALE_LOCK_MS = 10 * 60_000;

/**
 * The default cache directory: `$XDG_CACHE_HOME/webgrade/cdn`, else `~/.cache/webgrade/cdn`
 * (`WEBGRADE_CDN_CACHE` overrides both).
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEBGRADE_CDN_CACHE) return env.WEBGRADE_CDN_CACHE;
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'webgrade', 'cdn');
}

/**
 * A "not found" pin (no such package, or no version matching) holds for a day, then the registry is asked
 * again: reruns within the day stay byte-identical, and a version named before its release is served once it is
 * out. Version pins are kept for good. Without registry access an older "not found" still answers.
 */
export const NOT_FOUND_PIN_MS = 24 * 3600_000;

export {
  decName,
  encName,
  isSha,
  sha256,
  validFilePath,
  type BuildRecord,
  type FileEntry,
  type PackageManifest,
  type Pin,
  type StoreStats,
} from './store-records.js';

export class CacheStore {
  readonly dir: string;
  readonly maxBytes: number;
  private touched = new Map<string, number>();
  /** Bytes written by this process since the last full scan; the scan total from then. */
  private addedSinceScan = 0;
  private lastScanBytes: number | null = null;

  /** Blobs younger than this are never collected (tests shorten it). */
  private readonly graceMs: number;

  /** Invalid entries met (the first 100), also emitted once each as process warnings. */
  readonly warnings: string[] = [];
  private warned = new Set<string>();

  /** How long a "not found" pin holds (see {@link NOT_FOUND_PIN_MS}). */
  readonly notFoundMs: number;

  constructor(dir: string, maxBytes: number, graceMs = BLOB_GRACE_MS, notFoundMs = NOT_FOUND_PIN_MS) {
    this.notFoundMs = notFoundMs;
    // The real path, once: esbuild and realpath-resolving tools report real paths, and every containment check
    // compares against this (a linked ~/.cache or macOS's /tmp would otherwise put every path "outside").
    mkdirSync(dir, { recursive: true });
    this.dir = realpathSync(dir);
    dir = this.dir;
    this.maxBytes = maxBytes;
    this.graceMs = graceMs;
    for (const sub of ['blobs', 'packages', 'builds', 'pins', 'tmp', 'locks']) {
      mkdirSync(join(dir, sub), { recursive: true });
      // a linked subfolder would make reads, writes and eviction's deletions land outside the cache
      if (!lstatSync(join(dir, sub)).isDirectory())
        throw new Error(`${join(dir, sub)}: not a folder of the CDN cache (a link?); delete it or use another cache folder`);
    }
    const layout = join(dir, 'layout.json');
    if (!existsSync(layout)) this.atomicWrite(layout, JSON.stringify({ layout: LAYOUT_VERSION }) + '\n');
    else {
      const v = (JSON.parse(readFileSync(layout, 'utf8')) as { layout?: number }).layout;
      if (v !== LAYOUT_VERSION) throw new Error(`${dir}: CDN cache layout ${v} is not ${LAYOUT_VERSION} (delete the folder or use another)`);
    }
  }

  /** Note an invalid entry of the cache (once per key per process). */
  private warn(key: string, message: string): void {
    if (this.warned.has(key)) return;
    if (this.warned.size < 10_000) this.warned.add(key);
    if (this.warnings.length < 100) this.warnings.push(message);
    process.emitWarning(`webgrade CDN cache ${this.dir}: ${message}`, { code: 'WEBGRADE_CDN_CACHE' });
  }

  private tmpPath(): string {
    return join(this.dir, 'tmp', `${process.pid}-${randomBytes(6).toString('hex')}`);
  }

  /** Write `data` to a temp file and rename it to `path` (atomic on one file system). */
  private atomicWrite(path: string, data: Buffer | string): void {
    const tmp = this.tmpPath();
    writeFileSync(tmp, data);
    try {
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  // ---- blobs -------------------------------------------------------------------------------------------

  private blobPath(sha: string): string {
    if (!isSha(sha)) throw new Error(`not a blob name: ${JSON.stringify(sha).slice(0, 80)}`);
    return join(this.dir, 'blobs', sha.slice(0, 2), sha);
  }

  /** Store bytes; returns their SHA-256. An existing blob is not rewritten (only its time refreshed). */
  putBlob(data: Buffer): string {
    const sha = sha256(data);
    const p = this.blobPath(sha);
    if (existsSync(p)) {
      // refresh so that a concurrent eviction's grace period covers this new reference
      try {
        const now = new Date();
        utimesSync(p, now, now);
        return sha;
      } catch {
        /* evicted meanwhile: write it again */
      }
    }
    mkdirSync(join(this.dir, 'blobs', sha.slice(0, 2)), { recursive: true });
    this.atomicWrite(p, data);
    this.addedSinceScan += data.length;
    return sha;
  }

  /**
   * The bytes of a blob, or null when it is missing (evicted by another process), not a regular file (a link is
   * not followed), or its bytes do not hash to its name (corrupted or planted in a copied folder).
   */
  getBlob(sha: string): Buffer | null {
    if (!isSha(sha)) return null;
    let data: Buffer;
    try {
      const fd = openSync(this.blobPath(sha), fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
      try {
        if (!fstatSync(fd).isFile()) return null;
        data = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      return null;
    }
    if (sha256(data) !== sha) {
      this.warn(`blob:${sha}`, `blob ${sha} does not hash to its name; not served`);
      return null;
    }
    return data;
  }

  hasBlob(sha: string): boolean {
    return isSha(sha) && existsSync(this.blobPath(sha));
  }

  // ---- package manifests -------------------------------------------------------------------------------

  private manifestPath(name: string, version: string): string {
    return join(this.dir, 'packages', encName(name), `${encName(version)}.json`);
  }

  /** The manifest of a cached package, or null (absent, or one of its blobs is gone). Marks it used. */
  getManifest(name: string, version: string): PackageManifest | null {
    const p = this.manifestPath(name, version);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(p, 'utf8'));
    } catch {
      return null;
    }
    const m = validManifest(raw, `packages/${encName(name)}/${encName(version)}.json`, this.warn.bind(this), name, version);
    if (!m) return null;
    this.touch(p);
    return m;
  }

  putManifest(m: PackageManifest): void {
    mkdirSync(join(this.dir, 'packages', encName(m.name)), { recursive: true });
    const files: Record<string, FileEntry> = {};
    for (const k of Object.keys(m.files).sort()) files[k] = m.files[k]!;
    const text = JSON.stringify({ ...m, files }) + '\n';
    this.atomicWrite(this.manifestPath(m.name, m.version), text);
    this.addedSinceScan += text.length;
  }

  dropManifest(name: string, version: string): void {
    rmSync(this.manifestPath(name, version), { force: true });
  }

  // ---- builds ----------------------------------------------------------------------------------------

  private buildPath(key: string): string {
    const h = sha256(key);
    return join(this.dir, 'builds', h.slice(0, 2), `${h}.json`);
  }

  /** A cached build and its bytes, or null (absent or its blob was evicted). Marks it used. */
  getBuild(key: string): { record: BuildRecord; body: Buffer } | null {
    const p = this.buildPath(key);
    let record: BuildRecord | null;
    try {
      record = validBuild(JSON.parse(readFileSync(p, 'utf8')), p.slice(this.dir.length + 1), this.warn.bind(this));
    } catch {
      return null;
    }
    if (!record || record.key !== key) return null;
    const body = this.getBlob(record.blob);
    if (!body) return null;
    this.touch(p);
    return { record, body };
  }

  putBuild(key: string, body: Buffer, meta: Record<string, unknown>): BuildRecord {
    const blob = this.putBlob(body);
    const record: BuildRecord = { key, blob, size: body.length, meta };
    const p = this.buildPath(key);
    mkdirSync(join(p, '..'), { recursive: true });
    const text = JSON.stringify(record) + '\n';
    this.atomicWrite(p, text);
    this.addedSinceScan += text.length;
    return record;
  }

  // ---- pins ------------------------------------------------------------------------------------------

  private pinPath(name: string, range: string): string {
    return join(this.dir, 'pins', encName(name), `${encName(range)}.json`);
  }

  /**
   * Is this a "not found" pin past its time (or dated in the future, as a copied or hand-made pin may be)? A
   * version named before it is published must not stay a 404 for every later page.
   */
  pinExpired(pin: Pin, now = Date.now()): boolean {
    if (!('notFound' in pin)) return false;
    const at = Date.parse(pin.at);
    return !Number.isFinite(at) || now - at > this.notFoundMs || at > now + 60_000;
  }

  getPin(name: string, range: string): Pin | null {
    try {
      const pin = JSON.parse(readFileSync(this.pinPath(name, range), 'utf8')) as Pin;
      return pin.name === name && pin.range === range && validPin(pin) ? pin : null;
    } catch {
      return null;
    }
  }

  /**
   * Record a resolution unless one exists; returns the pin in force (ours, or the one another process or an
   * earlier run made first). Exclusive: a complete temp file is hard-linked to the pin's name, which fails
   * when the name exists, so concurrent processes agree on the first.
   */
  putPin(pin: Pin): Pin {
    const existing = this.getPin(pin.name, pin.range);
    if (existing && !this.pinExpired(existing)) return existing;
    const p = this.pinPath(pin.name, pin.range);
    mkdirSync(join(p, '..'), { recursive: true });
    const tmp = this.tmpPath();
    writeFileSync(tmp, JSON.stringify(pin) + '\n');
    if (existing) {
      // an expired "not found": replaced in one rename (two processes replacing it at once agree on the last)
      try {
        renameSync(tmp, p);
      } catch (err) {
        rmSync(tmp, { force: true });
        throw err;
      }
      return this.getPin(pin.name, pin.range) ?? pin;
    }
    try {
      linkSync(tmp, p);
      return pin;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return this.getPin(pin.name, pin.range) ?? pin;
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  // ---- LRU and eviction ------------------------------------------------------------------------------

  private touch(path: string): void {
    const now = Date.now();
    if ((this.touched.get(path) ?? 0) > now - TOUCH_EVERY_MS) return;
    if (this.touched.size >= 10_000) this.touched.clear(); // bounded: forgetting only costs an extra utimes
    this.touched.set(path, now);
    try {
      const t = new Date(now);
      utimesSync(path, t, t);
    } catch {
      /* evicted meanwhile */
    }
  }

  private *walk(sub: string): Generator<{ path: string; rel: string }> {
    const root = join(this.dir, sub);
    const stack = [''];
    while (stack.length) {
      const rel = stack.pop()!;
      let names: string[];
      try {
        names = readdirSync(join(root, rel));
      } catch {
        continue;
      }
      for (const n of names) {
        const r = rel ? `${rel}/${n}` : n;
        const p = join(root, r);
        let st;
        try {
          st = lstatSync(p); // a link is neither followed nor listed
        } catch {
          continue;
        }
        if (st.isDirectory()) stack.push(r);
        else if (st.isFile()) yield { path: p, rel: r };
      }
    }
  }

  /** The valid manifest at a path under packages/ (it must sit where its name and version put it), or null. */
  private manifestAt(path: string): PackageManifest | null {
    const where = path.slice(this.dir.length + 1);
    const m = validManifest(JSON.parse(readFileSync(path, 'utf8')), where, this.warn.bind(this));
    if (m && this.manifestPath(m.name, m.version) !== path) {
      this.warn(where, `${where}: names ${m.name}@${m.version}, which belongs elsewhere; ignored`);
      return null;
    }
    return m;
  }

  /** The valid build record at a path under builds/ (where its key puts it), or null. */
  private buildAt(path: string): BuildRecord | null {
    const where = path.slice(this.dir.length + 1);
    const r = validBuild(JSON.parse(readFileSync(path, 'utf8')), where, this.warn.bind(this));
    if (r && this.buildPath(r.key) !== path) {
      this.warn(where, `${where}: its key belongs elsewhere; ignored`);
      return null;
    }
    return r;
  }

  /** Everything in the cache, for `webgrade cdn info` and eviction. */
  stats(): StoreStats {
    let bytes = 0;
    let blobs = 0;
    const blobSize = new Map<string, number>();
    for (const f of this.walk('blobs')) {
      try {
        const sha = blobName(f.rel);
        if (!sha) continue;
        const s = statSync(f.path).size;
        blobSize.set(sha, s);
        bytes += s;
        blobs++;
      } catch {
        /* gone */
      }
    }
    const packages: StoreStats['packages'] = [];
    for (const f of this.walk('packages')) {
      try {
        const st = statSync(f.path);
        bytes += st.size;
        const m = this.manifestAt(f.path);
        if (!m) continue;
        let b = 0;
        for (const [sha] of Object.values(m.files)) b += blobSize.get(sha) ?? 0;
        packages.push({ name: m.name, version: m.version, bytes: b, lastUsed: st.mtimeMs });
      } catch {
        /* partial or gone */
      }
    }
    let builds = 0;
    for (const f of this.walk('builds')) {
      builds++;
      try {
        bytes += statSync(f.path).size;
      } catch {
        /* gone */
      }
    }
    let pins = 0;
    for (const _ of this.walk('pins')) pins++;
    packages.sort((a, b) => (a.name === b.name ? a.version.localeCompare(b.version) : a.name.localeCompare(b.name)));
    return { bytes, blobs, packages, builds, pins };
  }

  /** All pins (for `webgrade cdn info`). */
  pins(): Pin[] {
    const out: Pin[] = [];
    for (const f of this.walk('pins')) {
      try {
        const pin = JSON.parse(readFileSync(f.path, 'utf8')) as Pin;
        if (validPin(pin)) out.push(pin);
      } catch {
        /* partial */
      }
    }
    return out;
  }

  /**
   * Evict least-recently-used packages and builds until the cache is at most 90% of `maxBytes` (and at most
   * {@link EVICTION_SLACK_BYTES} below it), when it is over
   * `maxBytes`. Cheap when this process has written little since its last scan. `keep` (manifest or build
   * paths just written) is never evicted in this call. Returns the number of bytes removed.
   */
  maybeEvict(keep: { packages?: Array<[string, string]>; builds?: string[] } = {}): number {
    if (this.lastScanBytes !== null && this.lastScanBytes + this.addedSinceScan <= this.maxBytes) return 0;
    const lock = join(this.dir, 'locks', 'evict.lock');
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
      } catch {
        /* someone else cleaned it */
      }
      return 0; // another process is evicting
    }
    try {
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return this.evictLocked(keep);
    } finally {
      rmSync(lock, { force: true });
    }
  }

  private evictLocked(keep: { packages?: Array<[string, string]>; builds?: string[] }): number {
    const keepPaths = new Set<string>([
      ...(keep.packages ?? []).map(([n, v]) => this.manifestPath(n, v)),
      ...(keep.builds ?? []).map((k) => this.buildPath(k)),
    ]);
    const files: StoreFiles = {
      walk: (sub) => this.walk(sub),
      manifestAt: (path) => this.manifestAt(path),
      buildAt: (path) => this.buildAt(path),
      blobPath: (sha) => this.blobPath(sha),
    };
    const { before, after } = evict(files, this.maxBytes, this.graceMs, keepPaths);
    this.lastScanBytes = after;
    this.addedSinceScan = 0;
    return before - after;
  }
}
