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
import npmFetch from 'npm-registry-fetch';
import semver from 'semver';
import ssri from 'ssri';
import validateName from 'validate-npm-package-name';

/** See cdn/tarball.ts (defined here, where the other limits of a download live, to avoid an import cycle). */
export const DEFAULT_MAX_INFLATED_BYTES = 256 * 1024 ** 2;

export const NPMJS_REGISTRY = 'https://registry.npmjs.org/';

/** Our limitation (registry unreachable, over a cap, refused URL): the CDN answer is `unavailable`. */
export class UnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnavailableError';
  }
}

/** The registry says it does not exist: a defect of the page; the CDN answer is `not-found`. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

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
}

export class RegistryClient {
  readonly registry: string;
  private readonly origin: string;
  private readonly timeoutMs: number;
  readonly maxPackageBytes: number;
  readonly maxInflatedBytes: number;
  /** Packuments fetched by this process (resolutions are pinned on disk, so this only saves repeated requests). */
  private packuments = new Map<string, Promise<Packument | null>>();
  /** Requests made (for tests and the benchmark). */
  requests = 0;

  constructor(opts: RegistryOptions) {
    this.registry = withSlash(opts.registry);
    this.origin = new URL(this.registry).origin;
    this.timeoutMs = opts.timeoutMs;
    this.maxPackageBytes = opts.maxPackageBytes;
    this.maxInflatedBytes = opts.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES;
  }

  private fetchOpts(): npmFetch.Options {
    return {
      registry: this.registry,
      timeout: this.timeoutMs,
      retry: { retries: 1, minTimeout: 200, maxTimeout: 1000 },
      // no on-disk HTTP cache: our own cache keeps what matters
      cache: undefined,
    } as npmFetch.Options;
  }

  /** The packument, or null when the registry says the package does not exist (404). */
  packument(name: string): Promise<Packument | null> {
    if (!validPackageName(name)) return Promise.reject(new NotFoundError(`"${name}" is not a valid npm package name`));
    let p = this.packuments.get(name);
    if (!p) {
      p = this.fetchPackument(name);
      this.packuments.set(name, p);
      p.catch(() => this.packuments.delete(name));
    }
    return p;
  }

  private async fetchPackument(name: string): Promise<Packument | null> {
    const path = '/' + (name.startsWith('@') ? '@' + encodeURIComponent(name.slice(1)) : encodeURIComponent(name));
    this.requests++;
    try {
      const doc = (await npmFetch.json(path, {
        ...this.fetchOpts(),
        headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*' },
      })) as unknown as Packument;
      if (!doc || typeof doc !== 'object' || typeof doc.versions !== 'object') throw new UnavailableError(`registry: malformed packument for ${name}`);
      doc['dist-tags'] ??= {};
      return doc;
    } catch (err) {
      if (err instanceof UnavailableError) throw err;
      const e = err as { statusCode?: number; code?: string; message?: string };
      if (e.statusCode === 404 || e.code === 'E404') return null;
      throw new UnavailableError(`registry unreachable for ${name} (${e.code ?? e.statusCode ?? e.message ?? 'error'})`);
    }
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

  /** The verified tarball bytes of an exact version. */
  async tarball(name: string, version: string, dist: NonNullable<Packument['versions'][string]['dist']>): Promise<Buffer> {
    if (!validPackageName(name) || !validVersion(version)) throw new NotFoundError(`invalid package ${name}@${version}`);
    const integrity = dist.integrity ?? (dist.shasum ? `sha1-${Buffer.from(dist.shasum, 'hex').toString('base64')}` : null);
    if (!integrity) throw new UnavailableError(`registry: ${name}@${version} has no integrity or shasum`);
    if (dist.unpackedSize && dist.unpackedSize > this.maxPackageBytes) throw new UnavailableError(overCap(name, version, dist.unpackedSize, this.maxPackageBytes));
    const url = this.tarballUrl(name, version, dist);
    this.requests++;
    let res;
    try {
      res = await npmFetch(url, { ...this.fetchOpts() });
    } catch (err) {
      const e = err as { statusCode?: number; code?: string; message?: string };
      if (e.statusCode === 404) throw new NotFoundError(`registry: tarball of ${name}@${version} is missing (404)`);
      throw new UnavailableError(`registry unreachable for the tarball of ${name}@${version} (${e.code ?? e.statusCode ?? e.message})`);
    }
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > this.maxPackageBytes) throw new UnavailableError(overCap(name, version, declared, this.maxPackageBytes));
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const c of res.body as AsyncIterable<Buffer>) {
        total += c.length;
        if (total > this.maxPackageBytes) {
          (res.body as unknown as { destroy?: () => void }).destroy?.();
          throw new UnavailableError(overCap(name, version, total, this.maxPackageBytes));
        }
        chunks.push(c);
      }
    } catch (err) {
      if (err instanceof UnavailableError) throw err;
      throw new UnavailableError(`registry: download of ${name}@${version} failed (${(err as Error).message})`);
    }
    const buf = Buffer.concat(chunks);
    if (!ssri.checkData(buf, integrity)) throw new UnavailableError(`registry: ${name}@${version} tarball fails its integrity check`);
    return buf;
  }
}

export function overCap(name: string, version: string, bytes: number, cap: number): string {
  return `${name}@${version} is ${(bytes / 1048576).toFixed(1)} MiB, over the per-package cap of ${(cap / 1048576).toFixed(0)} MiB`;
}
