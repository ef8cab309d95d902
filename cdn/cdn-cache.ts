/**
 * CdnCache: answers requests for well-known CDN URLs from a local content-addressed cache filled from the npm
 * registry. One instance per process (no global state); several processes may share one cache directory.
 *
 * URL forms answered (see each handler's comment for details):
 * - jsDelivr `cdn.jsdelivr.net/npm/<pkg>@<range>/<file>`, the default entry, `/+esm`, `/gh/<user>/<repo>@<ref>/`
 *   (shipped mapping to npm packages), `/pyodide/v<ver>/full/<file>` (npm `pyodide`, core files only);
 *   `esm.run/<pkg>`;
 * - unpkg `unpkg.com/<pkg>@<range>/<file>`, default entry, `?module`;
 * - cdnjs `cdnjs.cloudflare.com/ajax/libs/<lib>/<ver>/<file>` (shipped mapping, cdn/data/cdnjs.json);
 * - esm.sh and Skypack ES modules;
 * - Google Fonts CSS (`/css`, `/css2`) from Fontsource;
 * - Font Awesome `use.fontawesome.com/releases/v<ver>/…` and `kit.fontawesome.com/<id>.js`;
 * - Tailwind's v3 Play CDN `cdn.tailwindcss.com[/<ver>][?plugins=…]` from the npm package `tailwindcss-cdn`.
 *
 * Answers: `served` (status 200, or 304 for a matching If-None-Match; HEAD has an empty body but the full
 * Content-Length), `not-found` (404: the registry says the package, version or file does not exist — a defect
 * of the page), `unavailable` (501 for a URL form we do not support, 503 for everything else we could not do:
 * registry unreachable, over a size cap, over the asking page's or the run's download budget, the page closed,
 * not in the cache with registry access off).
 *
 * Budgets (cdn/budget.ts): every request may carry its page's {@link CdnBudget}; it is threaded through every
 * resolution, download and build made for that request, so what one page makes the cache fetch is bounded and
 * stops when the page's site closes.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import semver from 'semver';
import { buildEsm, BUILDER_VERSION, ESBUILD_VERSION } from './esm-build.js';
import { familyCss, fontSlug, parseGoogleFontsUrl, type FontsourceData } from './fonts.js';
import { cdnOf, type CdnId } from './hosts.js';
import { CSS_TYPE, contentType, IMMUTABLE, JS_TYPE, ONE_DAY, ONE_WEEK, responseHeaders } from './mime.js';
import { exactVersion, findFile, Packages, type Pkg } from './packages.js';
import { AbortedError, BudgetError, CdnBudget, PAGE_LIMITS, shared, type BudgetLimits } from './budget.js';
import { configuredRegistry, DEFAULT_MAX_INFLATED_BYTES, NotFoundError, RegistryClient, UnavailableError, validPackageName } from './registry.js';
import { CacheStore, defaultCacheDir } from './store.js';

export interface CdnOptions {
  /** Cache directory; default {@link defaultCacheDir} (`$XDG_CACHE_HOME/webgrade/cdn` or `~/.cache/webgrade/cdn`). */
  dir?: string;
  /** npm registry URL; default: npm's configured registry (`npm_config_registry`, `~/.npmrc`), else npmjs. */
  registry?: string;
  /** Cache size cap in bytes (LRU eviction of packages and builds; pins are kept). Default 4 GiB. */
  maxBytes?: number;
  /** false: serve only what is pinned and cached; everything else is `unavailable` "not in the cache". Default true. */
  registryAccess?: boolean;
  /** Per registry request. Default 30 s. */
  timeoutMs?: number;
  /** Per package: tarball bytes and unpacked total. Default 128 MiB (pyodide's core ~ 30 MiB, @ffmpeg/core ~ 32 MiB). */
  maxPackageBytes?: number;
  /**
   * Per tarball: every inflated byte read, kept or skipped. Default 256 MiB (twice the per-package cap: a gzip
   * stream inflates up to ~1000:1, so without it a 2 MB tarball could take gigabytes to read).
   */
  maxInflatedBytes?: number;
  /** Blobs younger than this are never evicted (tests shorten it). Default 60 s. */
  evictionGraceMs?: number;
  /** How long a "not found" resolution is pinned before the registry is asked again. Default 24 h. */
  notFoundPinMs?: number;
  /** Limits of each page's budget ({@link CdnCache.pageBudget}); defaults in cdn/budget.ts (64 MiB, 48 packages, 256 MiB stored). */
  pageLimits?: Partial<BudgetLimits>;
  /** Registry bytes this cache may download in its life (a run). Default 1 GiB (cdn/budget.ts). */
  maxRunBytes?: number;
}

export const DEFAULT_MAX_BYTES = 4 * 1024 ** 3;
export const DEFAULT_MAX_PACKAGE_BYTES = 128 * 1024 ** 2;
export const DEFAULT_TIMEOUT_MS = 30_000;

export type CdnAnswer =
  | {
      kind: 'served';
      status: 200 | 304;
      headers: Record<string, string>;
      body: Buffer;
      package: string;
      version: string;
      /** Path inside the package, or a build id such as `+esm`, `esm.sh:client`, `google-fonts-css`. */
      file: string;
      /** What was approximated or left out (ignored query parameters, missing font families…). */
      notes?: string[];
    }
  | { kind: 'not-found'; status: 404; reason: string }
  | { kind: 'unavailable'; status: 501 | 503; reason: string };

export interface CdnRequest {
  method: 'GET' | 'HEAD';
  headers: Record<string, string | undefined>;
  /**
   * What the page that asks may still make the cache download, and its AbortSignal (one budget per page: see
   * cdn/budget.ts and {@link CdnCache.pageBudget}). Without one, only the run's cap applies.
   */
  budget?: CdnBudget;
}

/** An intermediate answer of a handler. */
interface Body {
  body: Buffer;
  type: string;
  cache: string;
  package: string;
  version: string;
  file: string;
  notes?: string[];
}

class UnsupportedError extends UnavailableError {}

interface CdnjsEntry {
  npm: string;
  prefix?: string;
  versions?: string;
  version?: 'three-r';
  sample?: string;
}

const DATA_DIR = new URL('../../cdn/data/', import.meta.url);
function loadJson<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, DATA_DIR), 'utf8')) as T;
}

/** The shipped cdnjs → npm mapping (cdn/data/cdnjs.json). */
export function cdnjsMapping(): Record<string, CdnjsEntry | CdnjsEntry[]> {
  return loadJson<{ libraries: Record<string, CdnjsEntry | CdnjsEntry[]> }>('cdnjs.json').libraries;
}

/** The shipped GitHub repository → npm mapping for jsDelivr `/gh/` URLs (cdn/data/github.json). */
export function githubMapping(): Record<string, { npm: string; strip?: string; sample?: string }> {
  return loadJson<{ repositories: Record<string, { npm: string; strip?: string }> }>('github.json').repositories;
}

/** Split `<pkg>[@<range>][/<rest>]` (scoped names included) from a path without its leading slash. */
export function splitPackagePath(path: string): { name: string; range: string | null; rest: string | null } | null {
  const m = /^((?:@[^/@]+\/)?[^/@]+)(?:@([^/]*))?(?:\/(.*))?$/.exec(path);
  if (!m) return null;
  let name: string;
  let range: string | null;
  try {
    name = decodeURIComponent(m[1]!);
    range = m[2] !== undefined ? decodeURIComponent(m[2]) : null;
  } catch {
    return null;
  }
  return { name, range: range === '' ? null : range, rest: m[3] ?? null };
}

function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

const cacheFor = (range: string | null, version: string) => (range !== null && exactVersion(range) === version ? IMMUTABLE : ONE_WEEK);

export class CdnCache {
  readonly dir: string;
  readonly registryUrl: string;
  readonly store: CacheStore;
  readonly registry: RegistryClient;
  readonly packages: Packages;
  private readonly registryAccess: boolean;
  private readonly pageLimits: BudgetLimits;
  private readonly builds = new Map<string, Promise<{ body: Buffer; exports: string[] }>>();
  private cdnjs: Record<string, CdnjsEntry | CdnjsEntry[]> | null = null;
  private github: Record<string, { npm: string; strip?: string }> | null = null;

  constructor(opts: CdnOptions = {}) {
    this.registryUrl = opts.registry ?? configuredRegistry();
    this.registryAccess = opts.registryAccess ?? true;
    this.store = new CacheStore(opts.dir ?? defaultCacheDir(), opts.maxBytes ?? DEFAULT_MAX_BYTES, opts.evictionGraceMs, opts.notFoundPinMs);
    this.dir = this.store.dir; // its real path (see CacheStore)
    this.registry = new RegistryClient({
      registry: this.registryUrl,
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxPackageBytes: opts.maxPackageBytes ?? DEFAULT_MAX_PACKAGE_BYTES,
      maxInflatedBytes: opts.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES,
      ...(opts.maxRunBytes !== undefined ? { maxRunBytes: opts.maxRunBytes } : {}),
    });
    this.pageLimits = { ...PAGE_LIMITS, ...opts.pageLimits };
    this.packages = new Packages(this.store, this.registry, this.registryAccess);
  }

  /**
   * A new budget for one page (one artifact): pass it with every request of that page. `signal` aborts the
   * page's downloads when its site closes.
   */
  pageBudget(signal?: AbortSignal, limits: Partial<BudgetLimits> = {}): CdnBudget {
    return new CdnBudget({ ...this.pageLimits, ...limits }, signal, 'the page', this.registry.run);
  }

  /** Answer a request for `url` (any host; non-CDN hosts get `unavailable`, but the proxy should ask isCdnHost first). */
  async answer(url: URL, req: CdnRequest = { method: 'GET', headers: {} }): Promise<CdnAnswer> {
    const cdn = cdnOf(url.host);
    if (!cdn) return { kind: 'unavailable', status: 501, reason: `${url.host} is not a CDN host answered from the cache` };
    if (req.method !== 'GET' && req.method !== 'HEAD') return { kind: 'unavailable', status: 501, reason: `${cdn}: method ${String(req.method)} is not served` };
    let b: Body;
    try {
      b = await this.dispatch(cdn, url, req.budget ?? this.registry.unpaged);
    } catch (err) {
      if (err instanceof NotFoundError) return { kind: 'not-found', status: 404, reason: `${cdn}: ${err.message}` };
      if (err instanceof UnsupportedError) return { kind: 'unavailable', status: 501, reason: `${cdn}: ${err.message}` };
      if (err instanceof UnavailableError) return { kind: 'unavailable', status: 503, reason: `${cdn}: ${err.message}` };
      return { kind: 'unavailable', status: 503, reason: `${cdn}: internal error (${(err as Error).message ?? String(err)})` };
    }
    const headers = responseHeaders(b.body, b.type, b.cache);
    const inm = req.headers['if-none-match'] ?? req.headers['If-None-Match'];
    const notModified = inm !== undefined && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === headers.etag);
    const answer: CdnAnswer = {
      kind: 'served',
      status: notModified ? 304 : 200,
      headers,
      body: req.method === 'HEAD' || notModified ? Buffer.alloc(0) : b.body,
      package: b.package,
      version: b.version,
      file: b.file,
    };
    if (b.notes && b.notes.length) answer.notes = b.notes;
    return answer;
  }

  private dispatch(cdn: CdnId, url: URL, budget: CdnBudget): Promise<Body> {
    switch (cdn) {
      case 'jsdelivr':
        return this.jsdelivr(url, budget);
      case 'esm.run':
        return this.esmRun(url, budget);
      case 'unpkg':
        return this.unpkg(url, budget);
      case 'cdnjs':
        return this.cdnjsAnswer(url, budget);
      case 'esm.sh':
        return this.esmSh(url, budget);
      case 'skypack':
        return this.skypack(url, budget);
      case 'google-fonts':
        return this.googleFonts(url, budget);
      case 'google-fonts-files':
        throw new UnsupportedError('font files on fonts.gstatic.com are named by Google’s hashes and cannot be mapped; the CSS from fonts.googleapis.com points at files this cache serves');
      case 'tailwind':
        return this.tailwind(url, budget);
      case 'fontawesome':
        return this.fontAwesomeUse(url, budget);
      case 'fontawesome-kit':
        return this.fontAwesomeKit(url, budget);
    }
  }

  // ---- plain package files ---------------------------------------------------------------------------

  /**
   * A file of a package as jsDelivr/unpkg serve it: `file` null → the default entry. jsDelivr picks the
   * `jsdelivr` field, then `browser` when a string, then `main`, then `index.js`, and serves the `.min` sibling
   * of a .js/.css entry when the package has one; unpkg picks `unpkg`, then `browser` (string), then `main`.
   * A missing `x.min.js`/`x.min.css` whose unminified file exists is minified with esbuild (jsDelivr does the
   * same with its own minifier; the bytes differ from jsDelivr's, the behaviour does not).
   */
  private async packageFile(cdn: 'jsdelivr' | 'unpkg', name: string, range: string | null, file: string | null, budget: CdnBudget): Promise<Body> {
    const version = await this.packages.resolve(name, range, budget);
    const pkg = await this.packages.open(name, version, budget);
    const cache = cacheFor(range, version);
    let path: string | null;
    if (file === null || file === '') {
      const fields = cdn === 'jsdelivr' ? ['jsdelivr', 'browser', 'main'] : ['unpkg', 'browser', 'main'];
      path = null;
      for (const f of fields) {
        const v = pkg.json[f];
        if (typeof v === 'string' && v.trim()) {
          path = findFile(pkg, v);
          if (path) break;
        }
      }
      path ??= findFile(pkg, 'index.js');
      if (!path) throw new NotFoundError(`${name}@${version} has no default file (no ${fields.join(', ')} field, no index.js)`);
      const min = /^(.*?)(?<!\.min)\.(js|css)$/.exec(path);
      if (cdn === 'jsdelivr' && min && pkg.has(`${min[1]}.min.${min[2]}`)) path = `${min[1]}.min.${min[2]}`;
    } else {
      const f = decodePath(file).replace(/^\/+/, '');
      if (f.endsWith('/') || this.isDirectory(pkg, f)) throw new UnsupportedError(`directory listings are not served (${name}@${version}/${f})`);
      const probed = cdn === 'unpkg' ? findFile(pkg, f) : null;
      if (pkg.has(f)) path = f;
      else if (probed) path = probed;
      else {
        const min = /^(.*)\.min\.(js|css)$/.exec(f);
        if (cdn === 'jsdelivr' && min && pkg.has(`${min[1]}.${min[2]}`)) return this.minified(pkg, `${min[1]}.${min[2]}`, f, cache);
        throw new NotFoundError(`${name}@${version} has no file ${f}`);
      }
    }
    return this.fileBody(pkg, path, cache);
  }

  private isDirectory(pkg: Pkg, path: string): boolean {
    const prefix = path.replace(/\/+$/, '') + '/';
    return !pkg.has(path) && Object.keys(pkg.manifest.files).some((f) => f.startsWith(prefix));
  }

  private async fileBody(pkg: Pkg, path: string, cache: string): Promise<Body> {
    const body = await pkg.read(path);
    if (!body) throw new NotFoundError(`${pkg.name}@${pkg.version} has no file ${path}`);
    return { body, type: contentType(path), cache, package: pkg.name, version: pkg.version, file: path };
  }

  /** `x.min.js` generated from `x.js` (esbuild minify; cached as a build). */
  private async minified(pkg: Pkg, source: string, asked: string, cache: string): Promise<Body> {
    const key = JSON.stringify({ kind: 'minify', b: BUILDER_VERSION, esbuild: ESBUILD_VERSION, name: pkg.name, version: pkg.version, source });
    const hit = this.store.getBuild(key);
    let body: Buffer;
    if (hit) body = hit.body;
    else {
      const src = (await pkg.read(source))!;
      const loader = source.endsWith('.css') ? 'css' : 'js';
      try {
        const r = await esbuild.transform(src.toString('utf8'), { loader, minify: true, legalComments: 'inline', charset: 'utf8', logLevel: 'silent' });
        body = Buffer.from(r.code);
      } catch {
        body = src; // not parseable by esbuild: serve it as published
      }
      this.store.putBuild(key, body, { source });
      this.store.maybeEvict({ builds: [key] });
    }
    return { body, type: contentType(asked), cache, package: pkg.name, version: pkg.version, file: asked, notes: [`${asked} minified from ${source}`] };
  }

  // ---- jsDelivr ----------------------------------------------------------------------------------------

  /**
   * `/npm/<pkg>@<range>/<file>`, `/npm/<pkg>@<range>` (default entry), `/npm/<pkg>@<range>[/<subpath>]/+esm`,
   * `/gh/<user>/<repo>@<ref>/<file>` (through cdn/data/github.json: the ref `master`/`main`/none means the
   * latest npm version, `v1.2.3` and ranges map to npm versions), `/pyodide/v<ver>/<dist>/<file>` (npm
   * `pyodide@<ver>`: the core files only — pyodide.js/.mjs/.asm.js/.asm.wasm, python_stdlib.zip, the lock
   * file; the Python packages of the full distribution are not on npm and are `unavailable`).
   * Directory listings and `/combine/` are `unavailable`.
   */
  private async jsdelivr(url: URL, budget: CdnBudget): Promise<Body> {
    const path = url.pathname;
    if (path.startsWith('/npm/')) {
      const rest = path.slice(5);
      const esm = /^(.*?)\/\+esm$/.exec(rest);
      if (esm) {
        const sp = splitPackagePath(esm[1]!);
        if (!sp) throw new UnsupportedError(`unsupported jsdelivr URL form ${path}`);
        return this.esmEntry('jsdelivr', sp.name, sp.range, sp.rest, {}, url, budget);
      }
      const sp = splitPackagePath(rest);
      if (!sp) throw new UnsupportedError(`unsupported jsdelivr URL form ${path}`);
      if (sp.rest !== null && (sp.rest === '' || sp.rest.endsWith('/'))) {
        // a base URL (a library's baseURL/indexURL): the package is still fetched, so its files are cached
        const version = await this.packages.resolve(sp.name, sp.range, budget);
        await this.packages.open(sp.name, version, budget);
        throw new UnsupportedError(`directory listings are not served (${sp.name}@${version}/${sp.rest})`);
      }
      return this.packageFile('jsdelivr', sp.name, sp.range, sp.rest, budget);
    }
    if (path.startsWith('/gh/')) return this.jsdelivrGithub(path.slice(4), budget);
    const py = /^\/pyodide\/v([^/]+)\/(full|debug|pyc)\/(.*)$/.exec(path);
    if (py) {
      const [, ver, , file] = py as unknown as [string, string, string, string];
      const version = await this.packages.resolve('pyodide', ver, budget);
      const pkg = await this.packages.open('pyodide', version, budget);
      // the indexURL itself: not a file, but the package (pyodide's core) is now in the cache
      if (file === '') throw new UnsupportedError(`directory listings are not served (pyodide v${ver})`);
      const f = decodePath(file);
      if (!pkg.has(f)) throw new UnavailableError(`pyodide v${ver}: ${f} is not in the npm package pyodide (only its core files are served; Python packages of the full distribution are not)`);
      return this.fileBody(pkg, f, exactVersion(ver) ? IMMUTABLE : ONE_WEEK);
    }
    throw new UnsupportedError(`unsupported jsdelivr URL form ${path}`);
  }

  private async jsdelivrGithub(rest: string, budget: CdnBudget): Promise<Body> {
    const m = /^([^/]+)\/([^/@]+)(?:@([^/]*))?(?:\/(.*))?$/.exec(rest);
    if (!m) throw new UnsupportedError(`unsupported jsdelivr URL form /gh/${rest}`);
    const [, user, repo, ref, file] = m as unknown as [string, string, string, string | undefined, string | undefined];
    this.github ??= githubMapping();
    const key = `${user}/${repo}`;
    const entry = this.github[key] ?? this.github[key.toLowerCase()];
    if (!entry) throw new UnavailableError(`GitHub repository ${key} has no npm mapping (files from GitHub are not served)`);
    const r = ref === undefined || ref === '' || /^(master|main|latest|HEAD|gh-pages)$/.test(ref) ? 'latest' : ref.replace(/^v(?=\d)/, '');
    if (!file) throw new UnsupportedError(`directory listings are not served (/gh/${rest})`);
    const version = await this.packages.resolve(entry.npm, r, budget);
    const pkg = await this.packages.open(entry.npm, version, budget);
    const f = decodePath(file);
    const stripped = entry.strip && f.startsWith(entry.strip) ? f.slice(entry.strip.length) : f;
    const path = this.lookupMapped(pkg, '', stripped);
    if (!path) throw new UnavailableError(`/gh/${key}@${ref ?? ''}/${f} maps to ${entry.npm}@${version}, which has no ${stripped}`);
    return this.fileBody(pkg, path, exactVersion(r) ? IMMUTABLE : ONE_WEEK);
  }

  private esmRun(url: URL, budget: CdnBudget): Promise<Body> {
    const sp = splitPackagePath(url.pathname.slice(1));
    if (!sp || !sp.name) throw new UnsupportedError(`unsupported esm.run URL form ${url.pathname}`);
    return this.esmEntry('esm.run', sp.name, sp.range, sp.rest || null, {}, url, budget);
  }

  // ---- unpkg -------------------------------------------------------------------------------------------

  /** `/<pkg>@<range>[/<file>]`, `@v1.2.3` tolerated; `?module` → an ES module build with `?module` imports. */
  private unpkg(url: URL, budget: CdnBudget): Promise<Body> {
    const sp = splitPackagePath(url.pathname.slice(1));
    if (!sp || !sp.name) throw new UnsupportedError(`unsupported unpkg URL form ${url.pathname}`);
    if (url.searchParams.has('meta')) throw new UnsupportedError('?meta listings are not served');
    if (sp.rest !== null && sp.rest.endsWith('/')) throw new UnsupportedError(`directory listings are not served (${url.pathname})`);
    const range = sp.range === null ? null : sp.range.replace(/^v(?=\d+\.\d+\.\d+)/, '');
    if (url.searchParams.has('module')) return this.esmEntry('unpkg', sp.name, range, sp.rest || null, {}, url, budget);
    return this.packageFile('unpkg', sp.name, range, sp.rest, budget);
  }

  // ---- cdnjs -------------------------------------------------------------------------------------------

  /**
   * `/ajax/libs/<lib>/<ver>/<file>` through cdn/data/cdnjs.json (library → npm package, the folder cdnjs
   * flattens away, version ranges for libraries that changed package, `three.js` r-versions). The file is
   * looked up as (1) prefix + file, (2) file, (3) for `x.min.js`/`x.min.css`, x.js/x.css minified, (4) the one
   * file of the package with the same basename — on a tie, the one under the prefix, then the shortest path,
   * then the first in code-point order. A library not in the mapping tries the npm package of the same name
   * (lower-cased) with the same lookup. A version the npm package never published is `not-found`; a file not
   * found by this lookup is `unavailable` (cdnjs may hold files npm does not).
   */
  private async cdnjsAnswer(url: URL, budget: CdnBudget): Promise<Body> {
    const m = /^\/ajax\/libs\/([^/]+)\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (!m) throw new UnsupportedError(`unsupported cdnjs URL form ${url.pathname}`);
    const lib = decodePath(m[1]!);
    const ver = decodePath(m[2]!);
    const file = decodePath(m[3]!);
    this.cdnjs ??= cdnjsMapping();
    const raw = this.cdnjs[lib] ?? Object.entries(this.cdnjs).find(([k]) => k.toLowerCase() === lib.toLowerCase())?.[1];
    let entry: CdnjsEntry | null = null;
    const npmVer0 = ver.replace(/^v(?=\d)/, '');
    if (raw) {
      const list = Array.isArray(raw) ? raw : [raw];
      entry = list.find((e) => !e.versions || (semver.valid(semver.coerce(npmVer0)) && semver.satisfies(semver.coerce(npmVer0)!, e.versions))) ?? list[0]!;
    } else {
      const guess = lib.toLowerCase();
      if (!validPackageName(guess)) throw new UnavailableError(`library ${lib} is not in the cdnjs mapping`);
      entry = { npm: guess, prefix: 'dist/' };
    }
    let npmVer = npmVer0;
    if (entry.version === 'three-r') {
      const r = /^r(\d+)$/.exec(ver);
      if (r) npmVer = `0.${r[1]}.0`;
    }
    const version = await this.packages.resolve(entry.npm, npmVer, budget);
    const pkg = await this.packages.open(entry.npm, version, budget);
    const cache = exactVersion(npmVer) ? IMMUTABLE : ONE_WEEK;
    const path = this.lookupMapped(pkg, entry.prefix ?? '', file);
    if (path) return this.fileBody(pkg, path, cache);
    const min = /^(.*)\.min\.(js|css)$/.exec(file);
    if (min) {
      const src = this.lookupMapped(pkg, entry.prefix ?? '', `${min[1]}.${min[2]}`, false);
      if (src) return this.minified(pkg, src, file, cache);
    }
    throw new UnavailableError(`${lib}/${ver}/${file} maps to ${entry.npm}@${version}, which has no ${entry.prefix ?? ''}${file} nor one file named ${file.slice(file.lastIndexOf('/') + 1)}${raw ? '' : ` (library ${lib} is not in the cdnjs mapping; tried the npm package of the same name)`}`);
  }

  /** The mapped-path lookup of cdnjs and /gh/ (see cdnjsAnswer). */
  private lookupMapped(pkg: Pkg, prefix: string, file: string, byBasename = true): string | null {
    if (pkg.has(prefix + file)) return prefix + file;
    if (pkg.has(file)) return file;
    if (!byBasename) return null;
    const base = file.slice(file.lastIndexOf('/') + 1);
    const matches = Object.keys(pkg.manifest.files).filter((f) => f === base || f.endsWith('/' + base));
    if (matches.length === 0) return null;
    matches.sort((a, b) => Number(b.startsWith(prefix)) - Number(a.startsWith(prefix)) || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
    return matches[0]!;
  }

  // ---- ES modules --------------------------------------------------------------------------------------

  /** Canonical URL of a module build of name@version[/subpath] for a flavour. */
  private moduleUrl(flavour: EsmFlavour, name: string, version: string, subpath: string | null, depsKey = ''): string {
    switch (flavour) {
      case 'jsdelivr':
        return `/npm/${name}@${version}${subpath ? '/' + subpath : ''}/+esm`;
      case 'esm.run':
        return `https://cdn.jsdelivr.net/npm/${name}@${version}${subpath ? '/' + subpath : ''}/+esm`;
      case 'unpkg':
        return `/${name}@${version}${subpath ? '/' + subpath : ''}?module`;
      case 'esm.sh':
        return `/${name}@${version}${depsKey ? `/X-${Buffer.from(depsKey).toString('base64url')}` : ''}/es2022/${esmShFile(name, subpath)}`;
      case 'skypack':
        return `/-/${name}@v${version}/dist=es2020,mode=imports/optimized/${subpath ? subpath.replace(/\.(m?js|cjs)$/, '') : lastSegment(name)}.js`;
    }
  }

  /**
   * A module request by range: an exact-version request of jsDelivr/unpkg answers the build itself; any
   * other (a range, or esm.sh/esm.run/Skypack, which always answer a small stub as esm.sh does) answers a stub
   * `export * from "<canonical>"` (+ `export { default }` when the build has one), so every import of the
   * same package version — by the page or by another build — is one module instance.
   */
  private async esmEntry(flavour: EsmFlavour, name: string, range: string | null, subpath: string | null, deps: Record<string, string>, url: URL, budget: CdnBudget): Promise<Body> {
    const version = await this.packages.resolve(name, range, budget);
    let sub = subpath ? decodePath(subpath).replace(/^\/+|\/+$/g, '') || null : null;
    // esm.sh and Skypack name builds without the .js of a subpath: one build for `x/y` and `x/y.js`
    if (sub && (flavour === 'esm.sh' || flavour === 'skypack')) sub = sub.replace(/\.(m?js|cjs)$/, '');
    const depsKey = Object.keys(deps).length ? Object.entries(deps).sort().map(([k, v]) => `${k}@${v}`).join(',') : '';
    const exact = range !== null && exactVersion(range) === version;
    if (exact && (flavour === 'jsdelivr' || flavour === 'unpkg')) return this.esmBuild(flavour, name, version, sub, deps, IMMUTABLE, budget);
    const target = this.moduleUrl(flavour, name, version, sub, depsKey);
    const built = await this.buildFor(flavour, name, version, sub, deps, budget);
    const lines = [`/* ${url.host}${url.pathname}${url.search} → ${name}@${version}${sub ? '/' + sub : ''} */`, `export * from ${JSON.stringify(target)};`];
    if (built.exports.includes('default')) lines.push(`export { default } from ${JSON.stringify(target)};`);
    const body = Buffer.from(lines.join('\n') + '\n');
    return { body, type: JS_TYPE, cache: exact ? IMMUTABLE : ONE_WEEK, package: name, version, file: `${flavour}-stub:${sub ?? '.'}` };
  }

  private async esmBuild(flavour: EsmFlavour, name: string, version: string, sub: string | null, deps: Record<string, string>, cache: string, budget: CdnBudget): Promise<Body> {
    const built = await this.buildFor(flavour, name, version, sub, deps, budget);
    return { body: built.body, type: JS_TYPE, cache, package: name, version, file: `${flavour === 'jsdelivr' ? '+esm' : flavour + '-module'}:${sub ?? '.'}` };
  }

  /** The (cached) build of name@version[/sub] for a flavour. */
  private buildFor(flavour: EsmFlavour, name: string, version: string, sub: string | null, deps: Record<string, string>, budget: CdnBudget): Promise<{ body: Buffer; exports: string[] }> {
    const depFlavour = flavour === 'esm.run' ? 'jsdelivr' : flavour; // builds live on cdn.jsdelivr.net
    const key = JSON.stringify({ kind: 'esm', b: BUILDER_VERSION, esbuild: ESBUILD_VERSION, flavour: depFlavour, name, version, sub, deps: Object.entries(deps).sort() });
    const hit = this.store.getBuild(key);
    if (hit) return Promise.resolve({ body: hit.body, exports: (hit.record.meta.exports as string[]) ?? [] });
    return shared(this.builds, key, budget, async () => {
      const pkg = await this.packages.open(name, version, budget);
      const tmpRoot = join(this.dir, 'tmp');
      mkdirSync(tmpRoot, { recursive: true });
      const r = await buildEsm({
        pkg,
        subpath: sub,
        deps,
        tmpRoot,
        depUrl: (n, v, s) => this.moduleUrl(depFlavour, n, v, s),
        resolveDep: async (n, range) => {
          const rr = /^(?:[\^~<>=*xX\d]|latest$|next$|[a-z]+$)/.test(range) && !range.includes(':') ? range : 'latest';
          try {
            return await this.packages.resolve(n, rr, budget);
          } catch (err) {
            // over the page's budget or the page gone: no build at all, rather than one cached for good without its dependency's version
            if (err instanceof BudgetError || err instanceof AbortedError) throw err;
            return null;
          }
        },
      });
      budget.addStored(`the ES module build of ${name}@${version}`, r.code.length);
      this.store.putBuild(key, r.code, { exports: r.exports, entry: r.entry, format: r.format });
      this.store.maybeEvict({ builds: [key] });
      return { body: r.code, exports: r.exports };
    });
  }

  /**
   * esm.sh: `/<pkg>@<range>[/<subpath>][?deps=a@1,b@2]` → stub; `/<pkg>@<ver>[/X-<deps>]/es2022/<file>.mjs` →
   * the build; a subpath with a non-JS extension (`.css`, `.json`, `.wasm`…) or `?raw` → the raw file. Leading
   * `/v<n>/` and `/stable/` are ignored, as is a `*` before the name (all dependencies are external anyway).
   * Query parameters other than `deps` (`target`, `dev`, `bundle`, `external`, `alias`…) are ignored (a note).
   */
  private async esmSh(url: URL, budget: CdnBudget): Promise<Body> {
    let p = url.pathname.replace(/^\/(?:v\d+|stable)(?=\/)/, '').slice(1);
    if (p.startsWith('*')) p = p.slice(1);
    if (p === '' || p.startsWith('gh/') || p.startsWith('jsr/') || p.startsWith('pr/')) throw new UnsupportedError(`unsupported esm.sh URL form ${url.pathname}`);
    const sp = splitPackagePath(p);
    if (!sp) throw new UnsupportedError(`unsupported esm.sh URL form ${url.pathname}`);
    const deps = parseDeps(url.searchParams.get('deps'));
    const notes = [...url.searchParams.keys()].filter((k) => k !== 'deps').map((k) => `?${k} is ignored`);
    const canon = sp.rest ? /^(?:X-([A-Za-z0-9_-]+)\/)?es2022\/(.+)\.mjs$/.exec(sp.rest) : null;
    if (canon && sp.range && exactVersion(sp.range)) {
      const version = await this.packages.resolve(sp.name, sp.range, budget);
      const d = canon[1] ? parseDeps(Buffer.from(canon[1], 'base64url').toString('utf8')) : {};
      const file = canon[2]!;
      const sub = file === lastSegment(sp.name) ? null : file;
      const b = await this.esmBuild('esm.sh', sp.name, version, sub, d, IMMUTABLE, budget);
      return { ...b, notes };
    }
    const rest = sp.rest ? decodePath(sp.rest) : null;
    if (rest && (url.searchParams.has('raw') || /\.(css|json|wasm|woff2?|ttf|otf|png|jpe?g|gif|svg|webp|txt|md|map|data|zip)$/i.test(rest))) {
      const b = await this.packageFile('unpkg', sp.name, sp.range, rest, budget);
      return { ...b, notes };
    }
    const b = await this.esmEntry('esm.sh', sp.name, sp.range, rest, deps, url, budget);
    return notes.length ? { ...b, notes } : b;
  }

  /** Skypack: `/<pkg>@<range>[/<subpath>]` → stub; `/-/<pkg>@v<ver>/dist=…/optimized/<file>.js` → the build. */
  private async skypack(url: URL, budget: CdnBudget): Promise<Body> {
    const p = url.pathname.slice(1);
    const canon = /^-\/((?:@[^/]+\/)?[^/@]+)@v([^/]+)\/dist=[^/]+\/optimized\/(.+)\.js$/.exec(p);
    if (canon) {
      const name = decodePath(canon[1]!);
      const version = await this.packages.resolve(name, canon[2]!, budget);
      const file = canon[3]!;
      const sub = file === lastSegment(name) ? null : file;
      return this.esmBuild('skypack', name, version, sub, {}, IMMUTABLE, budget);
    }
    if (p.startsWith('-/') || p === '') throw new UnsupportedError(`unsupported skypack URL form ${url.pathname}`);
    const sp = splitPackagePath(p);
    if (!sp) throw new UnsupportedError(`unsupported skypack URL form ${url.pathname}`);
    return this.esmEntry('skypack', sp.name, sp.range, sp.rest || null, {}, url, budget);
  }

  // ---- Google Fonts ------------------------------------------------------------------------------------

  private async fontsource(name: string, budget: CdnBudget): Promise<FontsourceData | null> {
    let version: string;
    try {
      version = await this.packages.resolve(name, 'latest', budget);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
    const pkg = await this.packages.open(name, version, budget);
    const metaRaw = await pkg.read('metadata.json');
    const uniRaw = await pkg.read('unicode.json');
    if (!metaRaw || !uniRaw) return null;
    const meta = JSON.parse(metaRaw.toString('utf8')) as { id: string; family: string; weights?: number[]; styles?: string[]; variable?: { wght?: { min: string; max: string } } | false };
    const uni = JSON.parse(uniRaw.toString('utf8')) as Record<string, string>;
    const w = meta.variable && meta.variable.wght ? ([Number(meta.variable.wght.min), Number(meta.variable.wght.max)] as [number, number]) : null;
    return {
      name,
      version,
      id: meta.id,
      family: meta.family,
      weights: meta.weights ?? [],
      styles: meta.styles ?? ['normal'],
      unicode: Object.entries(uni).map(([k, v]) => [k.replace(/^\[(\d+)\]$/, '$1'), v] as [string, string]),
      axis: w,
      has: (f) => pkg.has(f),
    };
  }

  /** Google Fonts CSS from Fontsource (see cdn/fonts.ts for the rules). */
  private async googleFonts(url: URL, budget: CdnBudget): Promise<Body> {
    const api = url.pathname.replace(/\/+$/, '');
    if (api !== '/css' && api !== '/css2') throw new UnsupportedError(`unsupported google-fonts URL form ${url.pathname}`);
    let q;
    try {
      q = parseGoogleFontsUrl(url);
    } catch (err) {
      throw new NotFoundError(`malformed font request: ${(err as Error).message}`);
    }
    if (q.families.length === 0) throw new NotFoundError('no family= in the request');
    const notes = [...q.notes];
    const parts: string[] = [];
    const used: string[] = [];
    const fileUrl = (pkg: FontsourceData, file: string) => `https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/${file}`;
    for (const fam of q.families) {
      const slug = fontSlug(fam.family);
      // the variable package only when the static one cannot serve every requested style (fewer downloads)
      const stat = await this.fontsource(`@fontsource/${slug}`, budget);
      const needsVariable = !stat || fam.styles.some((s) => Array.isArray(s.wght) || !stat.weights.includes(s.wght) || !stat.styles.includes(s.ital ? 'italic' : 'normal'));
      const variable = needsVariable ? await this.fontsource(`@fontsource-variable/${slug}`, budget) : null;
      if (!stat && !variable) {
        notes.push(`not-found: family "${fam.family}": no @fontsource/${slug} package`);
        continue;
      }
      const r = familyCss(fam, stat, variable, q.display, fileUrl);
      notes.push(...r.notes);
      if (r.css) {
        parts.push(r.css);
        for (const p of [stat, variable]) if (p && r.css.includes(`/${p.name}@`)) used.push(`${p.name}@${p.version}`);
      }
    }
    if (parts.length === 0) throw new NotFoundError(notes.filter((n) => n.startsWith('not-found') || n.includes('no ')).join('; ') || 'no font faces');
    const header = notes.length ? `/* webgrade cdn: ${notes.join('; ').replace(/\*\//g, '* /')} */\n` : '';
    const body = Buffer.from(header + parts.join('\n') + '\n');
    const first = used[0] ?? '';
    const at = first.lastIndexOf('@');
    return { body, type: CSS_TYPE, cache: ONE_DAY, package: first.slice(0, at), version: first.slice(at + 1), file: 'google-fonts-css', notes };
  }

  // ---- Font Awesome --------------------------------------------------------------------------------

  /** `use.fontawesome.com/releases/v<ver>/<file>` → `@fortawesome/fontawesome-free@<ver>/<file>` (css, js, webfonts, svgs). */
  private async fontAwesomeUse(url: URL, budget: CdnBudget): Promise<Body> {
    const m = /^\/releases\/v([^/]+)\/(.+)$/.exec(url.pathname);
    if (!m) {
      if (/^\/[0-9a-f]{6,}\.(js|css)$/i.test(url.pathname)) return this.fontAwesomeKit(url, budget);
      throw new UnsupportedError(`unsupported fontawesome URL form ${url.pathname}`);
    }
    const ver = m[1]!;
    const file = decodePath(m[2]!);
    const name = semver.coerce(ver) && semver.major(semver.coerce(ver)!) < 5 ? 'font-awesome' : '@fortawesome/fontawesome-free';
    const version = await this.packages.resolve(name, ver, budget);
    const pkg = await this.packages.open(name, version, budget);
    if (!pkg.has(file)) throw new NotFoundError(`${name}@${version} has no file ${file}`);
    return this.fileBody(pkg, file, exactVersion(ver) ? IMMUTABLE : ONE_WEEK);
  }

  /**
   * `kit.fontawesome.com/<id>.js`: kits are per account and their settings are not public; the best effort
   * is the free SVG+JS bundle `js/all.min.js` of the newest `@fortawesome/fontawesome-free` (pinned like any
   * resolution), which renders the free icons a kit would (Pro icons do not render).
   */
  private async fontAwesomeKit(url: URL, budget: CdnBudget): Promise<Body> {
    if (!/^\/[A-Za-z0-9]+\.(js|css)$/.test(url.pathname)) throw new UnsupportedError(`unsupported fontawesome-kit URL form ${url.pathname}`);
    const name = '@fortawesome/fontawesome-free';
    const version = await this.packages.resolve(name, 'latest', budget);
    const pkg = await this.packages.open(name, version, budget);
    const file = url.pathname.endsWith('.css') ? 'css/all.min.css' : 'js/all.min.js';
    const b = await this.fileBody(pkg, file, ONE_WEEK);
    return { ...b, notes: [`Font Awesome kit ${url.pathname.slice(1)} served as the free ${file} of ${name}@${version} (kits are per account)`] };
  }

  // ---- Tailwind Play CDN -------------------------------------------------------------------------------

  /**
   * `cdn.tailwindcss.com[/<version>][?plugins=a,b]` from npm `tailwindcss-cdn` (which republishes the Play CDN
   * scripts: `tailwindcss.js`, `tailwindcss-with-<plugin>.js`, `tailwindcss-with-all-plugins.js`, at its root
   * for its newest Tailwind and in `<tailwind version>/` folders). No version → the root files of the newest
   * `tailwindcss-cdn`; a version or range → the matching folder (highest match), else the package version of
   * that number. Plugins: none → `tailwindcss.js`; one with its own file → that file; several → `tailwindcss-with-all-plugins.js` (a superset: forms, typography,
   * aspect-ratio, container-queries; a note says so). `line-clamp` (in the core since 3.3) is dropped unless the folder has its own
   * line-clamp build. The page's `tailwind.config = {...}` is read by the Play
   * CDN script itself at run time, so it keeps working.
   */
  private async tailwind(url: URL, budget: CdnBudget): Promise<Body> {
    const m = /^\/(?:([^/]+)\/?)?$/.exec(url.pathname);
    if (!m) throw new UnsupportedError(`unsupported tailwind URL form ${url.pathname}`);
    const asked = m[1] ? decodePath(m[1]).replace(/^v(?=\d)/, '') : null;
    if (asked !== null && !semver.validRange(asked)) throw new NotFoundError(`"${asked}" is not a Tailwind version`);
    const name = 'tailwindcss-cdn';
    const latest = await this.packages.resolve(name, 'latest', budget);
    let pkg = await this.packages.open(name, latest, budget);
    let folder = '';
    let twVersion = pkg.json.version ?? latest;
    if (asked !== null) {
      const folders = [...new Set(Object.keys(pkg.manifest.files).map((f) => f.split('/')).filter((s) => s.length === 2 && semver.valid(s[0]!)).map((s) => s[0]!))];
      const best = semver.maxSatisfying(folders, asked);
      if (best) {
        folder = `${best}/`;
        twVersion = best;
      } else {
        let v: string | null = null;
        try {
          v = await this.packages.resolve(name, asked, budget);
        } catch {
          v = null;
        }
        if (!v) throw new UnavailableError(`no Play CDN build of Tailwind ${asked} in ${name}@${latest} (it has ${folders.sort(semver.compare).join(', ')})`);
        pkg = await this.packages.open(name, v, budget);
        twVersion = v;
      }
    }
    const notes: string[] = [];
    let plugins = (url.searchParams.get('plugins') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (plugins.includes('line-clamp') && !pkg.has(`${folder}tailwindcss-with-line-clamp.js`) && semver.gte(semver.coerce(twVersion) ?? '3.4.0', '3.3.0')) {
      plugins = plugins.filter((p) => p !== 'line-clamp');
      notes.push('line-clamp is part of Tailwind core since 3.3');
    }
    plugins = [...new Set(plugins)];
    let file = `${folder}tailwindcss.js`;
    if (plugins.length === 1 && pkg.has(`${folder}tailwindcss-with-${plugins[0]}.js`)) file = `${folder}tailwindcss-with-${plugins[0]}.js`;
    else if (plugins.length >= 1) {
      file = `${folder}tailwindcss-with-all-plugins.js`;
      const all = ['forms', 'typography', 'aspect-ratio', 'container-queries'];
      const unknown = plugins.filter((p) => !all.includes(p) && p !== 'line-clamp');
      if (unknown.length) notes.push(`plugins not in the Play CDN builds: ${unknown.join(', ')}`);
      if (plugins.length > 1 || !pkg.has(`${folder}tailwindcss-with-${plugins[0]}.js`)) notes.push(`plugins ${plugins.join(',')} served by the build with all plugins`);
    }
    if (!pkg.has(file)) throw new UnavailableError(`${name}@${pkg.version} has no ${file}`);
    const b = await this.fileBody(pkg, file, asked && exactVersion(asked) ? IMMUTABLE : ONE_WEEK);
    return notes.length ? { ...b, notes } : b;
  }
}

type EsmFlavour = 'jsdelivr' | 'esm.run' | 'unpkg' | 'esm.sh' | 'skypack';

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

function esmShFile(name: string, subpath: string | null): string {
  return `${subpath ? subpath.replace(/\.(m?js|cjs)$/, '') : lastSegment(name)}.mjs`;
}

/** `?deps=react@18.2.0,scheduler@0.23` → {react: '18.2.0', scheduler: '0.23'}. */
export function parseDeps(s: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!s) return out;
  for (const part of s.split(',')) {
    const t = part.trim();
    const at = t.lastIndexOf('@');
    if (at <= 0) continue;
    const n = t.slice(0, at);
    const v = t.slice(at + 1);
    if (validPackageName(n) && v && (semver.validRange(v) || /^[a-z][a-z0-9-]*$/i.test(v))) out[n] = v;
  }
  return out;
}

