/**
 * CdnCache: answers requests for well-known CDN URLs from a local content-addressed cache filled from the npm
 * registry. One instance per process (no global state); several processes may share one cache directory.
 *
 * URL forms answered (one handler per host family in cdn/handlers/, whose comments give the details):
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
import { CdnBudget, PAGE_LIMITS, type BudgetLimits } from './budget.js';
import { cdnOf, type CdnId } from './hosts.js';
import { responseHeaders } from './mime.js';
import { Packages } from './packages.js';
import { configuredRegistry, DEFAULT_MAX_INFLATED_BYTES, NotFoundError, RegistryClient, UnavailableError } from './registry.js';
import { CacheStore, defaultCacheDir } from './store.js';
import { cdnjs } from './handlers/cdnjs.js';
import { UnsupportedError, type Body, type CdnContext, type Handler } from './handlers/context.js';
import { esmSh } from './handlers/esm-sh.js';
import { fontAwesomeKit, fontAwesomeUse } from './handlers/fontawesome.js';
import { googleFontFiles, googleFonts } from './handlers/google-fonts.js';
import { esmRun, jsdelivr } from './handlers/jsdelivr.js';
import { skypack } from './handlers/skypack.js';
import { tailwind } from './handlers/tailwind.js';
import { unpkg } from './handlers/unpkg.js';

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

/** Which handler answers each CDN host family. */
const HANDLERS: Record<CdnId, Handler> = {
  jsdelivr,
  'esm.run': esmRun,
  unpkg,
  cdnjs,
  'esm.sh': esmSh,
  skypack,
  'google-fonts': googleFonts,
  'google-fonts-files': googleFontFiles,
  tailwind,
  fontawesome: fontAwesomeUse,
  'fontawesome-kit': fontAwesomeKit,
};

export class CdnCache {
  readonly dir: string;
  readonly registryUrl: string;
  readonly store: CacheStore;
  readonly registry: RegistryClient;
  readonly packages: Packages;
  private readonly registryAccess: boolean;
  private readonly pageLimits: BudgetLimits;
  private readonly context: CdnContext;

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
    this.context = { dir: this.dir, store: this.store, packages: this.packages, builds: new Map(), shipped: new Map() };
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
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return { kind: 'unavailable', status: 501, reason: `${cdn}: method ${String(req.method)} is not served` };
    let b: Body;
    try {
      b = await HANDLERS[cdn](this.context, url, req.budget ?? this.registry.unpaged);
    } catch (err) {
      return failed(cdn, err);
    }
    return served(b, req);
  }
}

/** A handler's body as the response to `req`: 304 for a matching If-None-Match, no body for HEAD. */
function served(b: Body, req: CdnRequest): CdnAnswer {
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

/** What a handler threw, as the answer: 404 for a defect of the page, 501 for an unsupported form, else 503. */
function failed(cdn: CdnId, err: unknown): CdnAnswer {
  if (err instanceof NotFoundError) return { kind: 'not-found', status: 404, reason: `${cdn}: ${err.message}` };
  if (err instanceof UnsupportedError) return { kind: 'unavailable', status: 501, reason: `${cdn}: ${err.message}` };
  if (err instanceof UnavailableError) return { kind: 'unavailable', status: 503, reason: `${cdn}: ${err.message}` };
  return { kind: 'unavailable', status: 503, reason: `${cdn}: internal error (${(err as Error).message ?? String(err)})` };
}
