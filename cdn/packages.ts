/**
 * Packages as the CDNs see them: version resolution pinned in the cache, package contents fetched once into the
 * content-addressed store, files read back by path, and the package.json fields the CDNs use.
 *
 * Resolution (jsDelivr/unpkg semantics): no version or `latest` → the `latest` dist-tag; any other dist-tag
 * (`next`, `beta`) → its version; an exact version → itself when published; a range (`18`, `^1.2`, `1.x`,
 * `v2.1.0`) → the highest published version matching it (`semver.maxSatisfying`, prereleases only when the range
 * names one). The first resolution of a (package, range) is pinned on disk — a later publish never changes it —
 * so that reruns on one cache are byte-identical and a copied cache answers offline exactly as it did online. A
 * "no such package/version" answer is pinned for a day (store.ts NOT_FOUND_PIN_MS), then asked again.
 */
import semver from 'semver';
import { shared, type CdnBudget } from './budget.js';
import { NotFoundError, RegistryClient, UnavailableError, validPackageName, type Packument } from './registry.js';
import { CacheStore, type PackageManifest } from './store.js';
import { readTarball } from './tarball.js';

export interface PackageJson {
  name?: string;
  version?: string;
  type?: string;
  main?: string;
  module?: string;
  browser?: string | Record<string, string | false>;
  jsdelivr?: string;
  unpkg?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [k: string]: unknown;
}

/** A cached package version: its manifest and a reader for its files. */
export interface Pkg {
  name: string;
  version: string;
  manifest: PackageManifest;
  json: PackageJson;
  has(path: string): boolean;
  /** File bytes, or null when the package has no such file. */
  read(path: string): Promise<Buffer | null>;
}

/** Normalise what a URL gives as version: empty → `latest`; surrounding spaces dropped. */
export function normalizeRange(range: string | undefined | null): string {
  const r = (range ?? '').trim();
  return r === '' ? 'latest' : r;
}

/** The exact version a range names (`1.2.3`, `v1.2.3`, `=1.2.3`), else null. */
export function exactVersion(range: string): string | null {
  if (!/^[=v]?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/.test(range)) return null;
  return semver.valid(range.replace(/^[=v]/, ''));
}

/** The version a range resolves to in a packument, or null. */
export function pickVersion(doc: Packument, range: string): string | null {
  const tags = doc['dist-tags'] ?? {};
  if (Object.prototype.hasOwnProperty.call(tags, range)) {
    const v = tags[range]!;
    return doc.versions[v] ? v : null;
  }
  const exact = exactVersion(range);
  if (exact) return doc.versions[exact] ? exact : null;
  if (!semver.validRange(range)) return null;
  const versions = Object.keys(doc.versions).filter((v) => semver.valid(v));
  return semver.maxSatisfying(versions, range);
}

export class Packages {
  private pending = new Map<string, Promise<PackageManifest>>();
  private jsonCache = new Map<string, PackageJson>();

  constructor(
    readonly store: CacheStore,
    readonly registry: RegistryClient,
    readonly registryAccess: boolean,
  ) {}

  /**
   * The exact version `range` resolves to (pinned). Throws NotFoundError (no such package, or no matching
   * version: the page's defect) or UnavailableError (registry unreachable, or not cached with registry access off).
   */
  async resolve(name: string, rangeIn: string | undefined | null, budget: CdnBudget = this.registry.unpaged): Promise<string> {
    if (!validPackageName(name)) throw new NotFoundError(`"${name}" is not a valid npm package name`);
    const range = normalizeRange(rangeIn);
    const exact = exactVersion(range);
    if (exact && this.store.getManifest(name, exact)) return exact;
    const pin = this.store.getPin(name, range);
    // an expired "not found" is asked again when the registry can be reached (store.ts NOT_FOUND_PIN_MS)
    if (pin && !(this.registryAccess && this.store.pinExpired(pin))) {
      if ('version' in pin) return pin.version;
      throw new NotFoundError(pin.notFound);
    }
    if (!this.registryAccess) throw new UnavailableError(`${name}@${range} is not in the cache (registry access is off)`);
    const doc = await this.registry.packument(name, budget);
    const at = new Date().toISOString();
    if (!doc) {
      const p = this.store.putPin({ name, range, notFound: `${name} does not exist on the npm registry`, at });
      if ('version' in p) return p.version;
      throw new NotFoundError(p.notFound);
    }
    const version = pickVersion(doc, range);
    if (!version) {
      const latest = doc['dist-tags']?.latest;
      const what = exact ? `${name}@${exact} was never published` : `${name}@${range} has no version matching ${range}`;
      const p = this.store.putPin({ name, range, notFound: `${what}${latest ? ` (latest ${latest})` : ''}`, at });
      if ('version' in p) return p.version;
      throw new NotFoundError(p.notFound);
    }
    const p = this.store.putPin({ name, range, version, at });
    if ('version' in p) return p.version;
    throw new NotFoundError(p.notFound);
  }

  /** The manifest of an exact version, fetched (charged to `budget`) and stored when absent. */
  manifest(name: string, version: string, budget: CdnBudget = this.registry.unpaged): Promise<PackageManifest> {
    const cached = this.store.getManifest(name, version);
    if (cached) return Promise.resolve(cached);
    return shared(this.pending, `${name}@${version}`, budget, () => this.download(name, version, budget));
  }

  private async download(name: string, version: string, budget: CdnBudget): Promise<PackageManifest> {
    if (!this.registryAccess) throw new UnavailableError(`${name}@${version} is not in the cache (registry access is off)`);
    const doc = await this.registry.packument(name, budget);
    if (!doc) throw new NotFoundError(`${name} does not exist on the npm registry`);
    const meta = doc.versions[version];
    if (!meta) throw new NotFoundError(`${name}@${version} was never published`);
    const dist = meta.dist ?? {};
    const data = await this.registry.tarball(name, version, dist, budget);
    // the page's signal stops the unpacking too, not only the download (cdn/tarball.ts)
    const { files, refused } = await readTarball(data, this.registry.maxPackageBytes, `${name}@${version}`, this.registry.maxInflatedBytes, budget.signal);
    budget.check(`${name}@${version}`);
    // what a page adds to the cache is bounded, so that it cannot evict more than that of other pages' libraries
    let unpacked = 0;
    for (const bytes of files.values()) unpacked += bytes.length;
    budget.addStored(`${name}@${version}`, unpacked);
    const manifest: PackageManifest = {
      name,
      version,
      integrity: dist.integrity ?? `sha1:${dist.shasum}`,
      files: {},
      refused,
    };
    for (const [path, bytes] of files) manifest.files[path] = [this.store.putBlob(bytes), bytes.length];
    this.store.putManifest(manifest);
    this.store.maybeEvict({ packages: [[name, version]] });
    return manifest;
  }

  /** A package version with a file reader; a blob evicted by another process brings the package back. */
  async open(name: string, version: string, budget: CdnBudget = this.registry.unpaged): Promise<Pkg> {
    let manifest = await this.manifest(name, version, budget);
    const key = `${name}@${version}`;
    let json = this.jsonCache.get(key);
    const readRaw = async (path: string): Promise<Buffer | null> => {
      const e = manifest.files[path];
      if (!e) return null;
      let b = this.store.getBlob(e[0]);
      if (b) return b;
      // evicted under us: fetch the package again (byte-identical) and retry once
      this.store.dropManifest(name, version);
      manifest = await this.manifest(name, version, budget);
      const e2 = manifest.files[path];
      b = e2 ? this.store.getBlob(e2[0]) : null;
      if (!b) throw new UnavailableError(`${key}: ${path} vanished from the cache while being read`);
      return b;
    };
    if (!json) {
      const raw = await readRaw('package.json');
      try {
        json = raw ? (JSON.parse(raw.toString('utf8')) as PackageJson) : {};
      } catch {
        json = {};
      }
      if (this.jsonCache.size > 500) this.jsonCache.clear();
      this.jsonCache.set(key, json);
    }
    return {
      name,
      version,
      get manifest() {
        return manifest;
      },
      json,
      has: (path: string) => Object.prototype.hasOwnProperty.call(manifest.files, path),
      read: readRaw,
    };
  }
}

/** Normalise a path from package.json (`./dist/x.js`, `dist/x`) to a manifest path, probing extensions. */
export function findFile(pkg: Pick<Pkg, 'has'>, raw: string): string | null {
  let p = raw.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  p = p
    .split('/')
    .filter((s) => s && s !== '.')
    .join('/');
  if (p.split('/').includes('..')) return null;
  const candidates = p === '' ? ['index.js'] : [p, `${p}.js`, `${p}.json`, `${p}/index.js`, `${p}.mjs`, `${p}.css`];
  for (const c of candidates) if (pkg.has(c)) return c;
  return null;
}
