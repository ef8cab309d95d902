/**
 * The only code that talks to the outside: packuments and tarballs from ONE configured npm registry, through
 * npm-registry-fetch (retries, timeouts, proxies as npm does them), with every package name and version
 * validated before any request so that no page can make webgrade fetch an arbitrary URL.
 *
 * - Names: `validate-npm-package-name` (old-style names with capitals are accepted, as the registry still serves
 *   them), plus a length cap; `../../x`, `evil.com/x`, `a?b` never reach the network.
 * - Tarballs: only from the registry's origin. A packument whose `dist.tarball` names another host is refused,
 *   except `registry.npmjs.org`, which is rewritten onto the configured registry (what npm itself does for
 *   mirrors). Size capped while downloading (`maxPackageBytes`, also applied to the unpacked total), and the
 *   bytes checked against `dist.integrity` (else `dist.shasum`) with ssri before anything is extracted.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import npmFetch from 'npm-registry-fetch';
import semver from 'semver';
import ssri from 'ssri';
import validateName from 'validate-npm-package-name';
import { NotFoundError, UnavailableError } from './errors.js';
import { AbortedError, CdnBudget, DEFAULT_RUN_REGISTRY_BYTES, NO_LIMITS, shared } from './budget.js';

/** See cdn/tarball.ts (defined here, where the other limits of a download live, to avoid an import cycle). */
export const DEFAULT_MAX_INFLATED_BYTES = 256 * 1024 ** 2;

export const NPMJS_REGISTRY = 'https://registry.npmjs.org/';

export { NotFoundError, UnavailableError };

/**
 * The registry npm is configured with: `npm_config_registry` in the environment (set by npm scripts), else the
 * `registry=` line of the user's npmrc (`$NPM_CONFIG_USERCONFIG` or `~/.npmrc`; no other key is read), else
 * the public registry.
 */
export function configuredRegistry(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY;
  if (fromEnv) return withSlash(fromEnv);
  try {
    const rc = readFileSync(env.NPM_CONFIG_USERCONFIG ?? env.npm_config_userconfig ?? join(homedir(), '.npmrc'), 'utf8');
    const m = /^\s*registry\s*=\s*(\S+)\s*$/m.exec(rc);
    if (m && /^https?:\/\//.test(m[1]!)) return withSlash(m[1]!);
  } catch {
    /* no npmrc */
  }
  return NPMJS_REGISTRY;
}

const withSlash = (u: string) => (u.endsWith('/') ? u : u + '/');

/** Is this a package name the registry could hold? (checked before any request) */
export function validPackageName(name: string): boolean {
  if (!name || name.length > 214) return false;
  const r = validateName(name);
  return r.validForOldPackages === true && !/[\s%?#\\]/.test(name);
}

export function validVersion(v: string): boolean {
  return semver.valid(v) === v;
}

export interface Packument {
  name: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, { version: string; dist?: { tarball?: string; integrity?: string; shasum?: string; unpackedSize?: number } }>;
}

export interface RegistryOptions {
  registry: string;
  timeoutMs: number;
  maxPackageBytes: number;
  /** Inflated bytes read from one tarball at most (cdn/tarball.ts); default DEFAULT_MAX_INFLATED_BYTES. */
  maxInflatedBytes?: number;
  /** Registry bytes this client may download in its life (cdn/budget.ts); default DEFAULT_RUN_REGISTRY_BYTES. */
  maxRunBytes?: number;
}

/** Packuments kept in memory at most (bytes as downloaded); abbreviated packuments are mostly well under 1 MiB. */
export const PACKUMENT_CACHE_BYTES = 64 * 1024 ** 2;
/** A packument kept in memory is asked again after this long (a new release, a package created since). */
export const PACKUMENT_TTL_MS = 10 * 60_000;

export class RegistryClient {
  readonly registry: string;
  private readonly origin: string;
  private readonly timeoutMs: number;
  readonly maxPackageBytes: number;
  readonly maxInflatedBytes: number;
  /** Every registry byte this client downloads is charged here (the run's cap, cdn/budget.ts). */
  readonly run: CdnBudget;
  /** The budget of a caller that gives none (`webgrade cdn prefetch`, benchmarks): no page limits, the run's cap. */
  readonly unpaged: CdnBudget;
  /**
   * Packuments fetched by this process (resolutions are pinned on disk, so this only saves repeated requests):
   * bounded by count and bytes, and kept {@link PACKUMENT_TTL_MS} so that a long-running worker sees new releases.
   */
  private packuments = new LRUCache<string, { doc: Packument | null; bytes: number }>({
    max: 256,
    maxSize: PACKUMENT_CACHE_BYTES,
    sizeCalculation: (v) => Math.max(1, v.bytes),
    ttl: PACKUMENT_TTL_MS,
  });
  /** Packument requests in flight (one per name at a time). */
  private pending = new Map<string, Promise<Packument | null>>();
  /** Requests made (for tests and the benchmark). */
  requests = 0;

  constructor(opts: RegistryOptions) {
    this.registry = withSlash(opts.registry);
    this.origin = new URL(this.registry).origin;
    this.timeoutMs = opts.timeoutMs;
    this.maxPackageBytes = opts.maxPackageBytes;
    this.maxInflatedBytes = opts.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES;
    this.run = new CdnBudget({ ...NO_LIMITS, registryBytes: opts.maxRunBytes ?? DEFAULT_RUN_REGISTRY_BYTES }, undefined, 'the run');
    this.unpaged = new CdnBudget(NO_LIMITS, undefined, 'the caller', this.run);
  }

  private fetchOpts(budget: CdnBudget): npmFetch.Options {
    return {
      registry: this.registry,
      timeout: this.timeoutMs,
      retry: { retries: 1, minTimeout: 200, maxTimeout: 1000 },
      // no on-disk HTTP cache: our own cache keeps what matters
      cache: undefined,
      // the page's site closing stops the request (cdn/budget.ts)
      signal: budget.signal,
    } as npmFetch.Options;
  }

  /** Packuments held in memory now (for tests). */
  get cachedPackuments(): number {
    return this.packuments.size;
  }

  /** The packument, or null when the registry says the package does not exist (404). */
  async packument(name: string, budget: CdnBudget = this.unpaged): Promise<Packument | null> {
    if (!validPackageName(name)) throw new NotFoundError(`"${name}" is not a valid npm package name`);
    const hit = this.packuments.get(name);
    if (hit) return hit.doc;
    return shared(this.pending, name, budget, async () => {
      const r = await this.fetchPackument(name, budget);
      this.packuments.set(name, r);
      return r.doc;
    });
  }

  private async fetchPackument(name: string, budget: CdnBudget): Promise<{ doc: Packument | null; bytes: number }> {
    const what = `the packument of ${name}`;
    budget.check(what);
    const path = '/' + (name.startsWith('@') ? '@' + encodeURIComponent(name.slice(1)) : encodeURIComponent(name));
    this.requests++;
    let res;
    try {
      res = await npmFetch(path, {
        ...this.fetchOpts(budget),
        headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*' },
      });
    } catch (err) {
      if (budget.aborted) throw new AbortedError(`${what}: stopped, ${budget.who} is closed or out of time`);
      const e = err as { statusCode?: number; code?: string; message?: string };
      if (e.statusCode === 404 || e.code === 'E404') return { doc: null, bytes: 0 };
      throw new UnavailableError(`registry unreachable for ${name} (${e.code ?? e.statusCode ?? e.message ?? 'error'})`);
    }
    const body = await this.readBody(res, what, budget, Infinity);
    let doc: Packument;
    try {
      doc = JSON.parse(body.toString('utf8')) as Packument;
    } catch {
      throw new UnavailableError(`registry: malformed packument for ${name}`);
    }
    if (!doc || typeof doc !== 'object' || !doc.versions || typeof doc.versions !== 'object')
      throw new UnavailableError(`registry: malformed packument for ${name}`);
    if (!doc['dist-tags'] || typeof doc['dist-tags'] !== 'object') doc['dist-tags'] = {};
    return { doc, bytes: body.length };
  }

  /**
   * A response body, charged to the budget chunk by chunk and capped at `cap`; a budget or cap passed stops the
   * download at once.
   */
  private async readBody(
    res: Awaited<ReturnType<typeof npmFetch>>,
    what: string,
    budget: CdnBudget,
    cap: number,
    overCapMessage?: (n: number) => string,
  ): Promise<Buffer> {
    const declared = Number(res.headers.get('content-length') ?? 0);
    const stop = () => (res.body as unknown as { destroy?: () => void }).destroy?.();
    try {
      if (declared > cap) throw new UnavailableError(overCapMessage ? overCapMessage(declared) : `${what} is over its cap`);
      if (declared > 0) budget.expect(what, declared);
    } catch (err) {
      stop();
      throw err;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const c of res.body as AsyncIterable<Buffer>) {
        total += c.length;
        if (total > cap) throw new UnavailableError(overCapMessage ? overCapMessage(total) : `${what} is over its cap`);
        budget.addRegistryBytes(what, c.length);
        chunks.push(c);
      }
    } catch (err) {
      stop();
      if (err instanceof UnavailableError) throw err;
      if (budget.aborted) throw new AbortedError(`${what}: stopped, ${budget.who} is closed or out of time`);
      throw new UnavailableError(`registry: download of ${what} failed (${(err as Error).message})`);
    }
    return Buffer.concat(chunks);
  }

  /** The tarball URL we may fetch for this version: on the registry's origin only. */
  tarballUrl(name: string, version: string, dist: { tarball?: string }): string {
    if (!dist.tarball) throw new UnavailableError(`registry: ${name}@${version} has no dist.tarball`);
    let u: URL;
    try {
      u = new URL(dist.tarball, this.registry);
    } catch {
      throw new UnavailableError(`registry: ${name}@${version} has an unparseable dist.tarball`);
    }
    if (u.origin === this.origin) return u.href;
    if (u.hostname === 'registry.npmjs.org') {
      // npm's own rule for mirrors: the public registry's tarball paths live under the configured registry
      return new URL(u.pathname.replace(/^\//, ''), this.registry).href;
    }
    throw new UnavailableError(`registry: ${name}@${version} tarball is on ${u.host}, not on the configured registry ${new URL(this.registry).host}`);
  }

  /** The verified tarball bytes of an exact version, charged to `budget` (a package download, and its bytes). */
  async tarball(name: string, version: string, dist: NonNullable<Packument['versions'][string]['dist']>, budget: CdnBudget = this.unpaged): Promise<Buffer> {
    if (!validPackageName(name) || !validVersion(version)) throw new NotFoundError(`invalid package ${name}@${version}`);
    const integrity =
      typeof dist.integrity === 'string'
        ? dist.integrity
        : typeof dist.shasum === 'string'
          ? `sha1-${Buffer.from(dist.shasum, 'hex').toString('base64')}`
          : null;
    if (!integrity) throw new UnavailableError(`registry: ${name}@${version} has no integrity or shasum`);
    if (typeof dist.unpackedSize === 'number' && dist.unpackedSize > this.maxPackageBytes)
      throw new UnavailableError(overCap(name, version, dist.unpackedSize, this.maxPackageBytes));
    const url = this.tarballUrl(name, version, dist);
    budget.claimPackage(`${name}@${version}`);
    this.requests++;
    let res;
    try {
      res = await npmFetch(url, { ...this.fetchOpts(budget) });
    } catch (err) {
      if (budget.aborted) throw new AbortedError(`the tarball of ${name}@${version}: stopped, ${budget.who} is closed or out of time`);
      const e = err as { statusCode?: number; code?: string; message?: string };
      if (e.statusCode === 404) throw new NotFoundError(`registry: tarball of ${name}@${version} is missing (404)`);
      throw new UnavailableError(`registry unreachable for the tarball of ${name}@${version} (${e.code ?? e.statusCode ?? e.message})`);
    }
    const buf = await this.readBody(res, `${name}@${version}`, budget, this.maxPackageBytes, (n) => overCap(name, version, n, this.maxPackageBytes));
    if (!ssri.checkData(buf, integrity)) throw new UnavailableError(`registry: ${name}@${version} tarball fails its integrity check`);
    return buf;
  }
}

export function overCap(name: string, version: string, bytes: number, cap: number): string {
  return `${name}@${version} is ${(bytes / 1048576).toFixed(1)} MiB, over the per-package cap of ${(cap / 1048576).toFixed(0)} MiB`;
}
