/**
 * The only registry a project's install talks to: a loopback HTTP server in front of the npm registry that counts
 * and caps what each install downloads, as the CDN cache caps what a page makes it download (cdn/budget.ts, whose
 * budget class it reuses). pnpm reaches the registry only through this server, and every other host is
 * made unreachable for it (install.ts), so nothing reaches pnpm that did not pass here (`open` says how).
 *
 * Per install (`ProjectInstallCaps`, the CDN's kinds of cap at a project's scale): registry bytes (packuments and
 * tarballs as downloaded), tarball downloads, bytes the tarballs inflate to (what the store grows by at most),
 * and per tarball the CDN's own caps: DEFAULT_MAX_PACKAGE_BYTES downloaded and DEFAULT_MAX_INFLATED_BYTES
 * inflated (a 2 MB tarball can inflate to gigabytes: the gzip stream is inflated and counted as it passes, and
 * cut past the cap). The install's time is capped by install.ts, which also aborts the budget. What is over a cap
 * is answered 403 and recorded as the install's refusal, with the reason; a package the registry does not have
 * is answered 404 and recorded (the project's defect). What the shared store already holds is never asked for,
 * so it costs nothing, as in the CDN cache.
 *
 * Packuments are passed on with their tarball URLs' `https:` made `http:`, so that pnpm fetches tarballs through
 * this server too; conditional requests are not passed on (pnpm's metadata cache then gets a full answer, never a 304).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createGunzip } from 'node:zlib';
import npmFetch from 'npm-registry-fetch';
import { CdnBudget } from '../cdn/budget.js';
import { DEFAULT_MAX_INFLATED_BYTES, configuredRegistry } from '../cdn/registry.js';
import { DEFAULT_MAX_PACKAGE_BYTES } from '../cdn/index.js';

const MiB = 1024 ** 2;

export interface ProjectInstallCaps {
  /** Registry bytes per install. */
  registryBytes: number;
  /** Tarball downloads per install. */
  packages: number;
  /** Bytes the downloaded tarballs inflate to, per install. */
  inflatedBytes: number;
  /** Per tarball: bytes downloaded, bytes inflated. */
  tarballBytes: number;
  tarballInflatedBytes: number;
  /** Wall time of the whole install (resolution, downloads, linking). */
  timeMs: number;
}

/**
 * A Vite app with React, Vue or Svelte downloads 19–40 tarballs (15–25 MB); an app with a component library and
 * TypeScript a few hundred. These leave room for that and stop a project that names thousands.
 */
export const DEFAULT_INSTALL_CAPS: ProjectInstallCaps = {
  registryBytes: 512 * MiB,
  packages: 1500,
  inflatedBytes: 2048 * MiB,
  tarballBytes: DEFAULT_MAX_PACKAGE_BYTES,
  tarballInflatedBytes: DEFAULT_MAX_INFLATED_BYTES,
  timeMs: 180_000,
};

/** What one install did through the proxy. */
export interface InstallTraffic {
  downloads: number;
  registryBytes: number;
  inflatedBytes: number;
  /** Why the proxy refused a request (over a cap): the install's refusal. */
  refusal?: string;
  /** Packages (or name@version) the registry does not have. */
  notFound: string[];
  /** The registry could not be reached. */
  unreachable?: string;
}

interface InstallState {
  budget: CdnBudget;
  caps: ProjectInstallCaps;
  traffic: InstallTraffic;
  inflated: number;
}

const mib = (n: number) => `${Math.round(n / MiB)} MiB`;

export class RegistryProxy {
  private server?: Server;
  private port = 0;
  private readonly installs = new Map<string, InstallState>();
  readonly upstream: string;

  constructor(upstream = configuredRegistry()) {
    this.upstream = upstream.endsWith('/') ? upstream : upstream + '/';
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => void this.handle(req, res));
    // HTTPS through this proxy would be a tunnel it cannot count: refused.
    server.on('connect', (_req, socket) => socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /**
   * The registry and proxy settings for one install, with its own budget; `end` it when the install is over.
   * pnpm is given the upstream registry's own address with `http:` (so that its metadata cache, keyed by the
   * registry's host, stays warm across runs and processes) and this server as its HTTP proxy, with the install's
   * token as the proxy's user name; its HTTPS proxy is this server too, which refuses every CONNECT.
   */
  open(caps: ProjectInstallCaps, signal: AbortSignal): { registry: string; proxy: string; traffic: InstallTraffic; end: () => void } {
    const token = randomBytes(12).toString('hex');
    const budget = new CdnBudget({ registryBytes: caps.registryBytes, packages: caps.packages, storedBytes: caps.inflatedBytes }, signal, 'the project');
    const traffic: InstallTraffic = { downloads: 0, registryBytes: 0, inflatedBytes: 0, notFound: [] };
    this.installs.set(token, { budget, caps, traffic, inflated: 0 });
    return { registry: this.plainRegistry, proxy: `http://${token}:x@127.0.0.1:${this.port}`, traffic, end: () => this.installs.delete(token) };
  }

  /** The upstream registry's address with `http:` (what pnpm is told; this server fetches over HTTPS). */
  get plainRegistry(): string {
    return this.upstream.replace(/^https:/, 'http:');
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = /^Basic\s+(\S+)$/i.exec(String(req.headers['proxy-authorization'] ?? ''));
    const user = auth ? Buffer.from(auth[1]!, 'base64').toString('utf8').split(':')[0]! : '';
    const state = this.installs.get(user);
    const url = req.url ?? '';
    if (!state || (req.method !== 'GET' && req.method !== 'HEAD') || !url.startsWith(this.plainRegistry)) return end(res, 403, 'not the npm registry');
    const path = url.slice(this.plainRegistry.length).split('?')[0]!;
    try {
      if (/\/-\/[^/]+\.tgz$/.test(path)) await this.tarball(path, state, res);
      else if (path && !path.startsWith('-/')) await this.packument(path, state, req, res);
      else end(res, 404, 'not served');
    } catch (err) {
      const msg = (err as Error).message;
      const cap = (err as Error).name === 'BudgetError' || (err as { cap?: boolean }).cap === true;
      if (cap) state.traffic.refusal ??= msg;
      else if (!state.budget.aborted) state.traffic.unreachable ??= msg;
      if (!res.headersSent) end(res, cap ? 403 : 502, msg);
      else res.destroy();
    }
  }

  private fetchOpts(state: InstallState): npmFetch.Options {
    return {
      registry: this.upstream,
      timeout: 60_000,
      retry: { retries: 1, minTimeout: 200, maxTimeout: 1000 },
      signal: state.budget.signal,
    } as npmFetch.Options;
  }

  private async packument(path: string, state: InstallState, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const name = decodeURIComponent(path);
    state.budget.check(`the packument of ${name}`);
    let up;
    try {
      up = await npmFetch(`/${name.startsWith('@') ? '@' + encodeURIComponent(name.slice(1)) : encodeURIComponent(name)}`, {
        ...this.fetchOpts(state),
        headers: { accept: req.headers.accept ?? 'application/json' },
      });
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) {
        state.traffic.notFound.push(name);
        return end(res, 404, `${name} is not in the npm registry`);
      }
      throw new Error(`the registry could not be reached for ${name} (${(err as { code?: string }).code ?? (err as Error).message})`);
    }
    const chunks: Buffer[] = [];
    for await (const c of up.body as AsyncIterable<Buffer>) {
      state.budget.addRegistryBytes(`the packument of ${name}`, c.length);
      state.traffic.registryBytes += c.length;
      chunks.push(c);
    }
    const text = Buffer.concat(chunks).toString('utf8').split(`"${this.upstream}`).join(`"${this.plainRegistry}`);
    res.writeHead(200, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  }

  private async tarball(path: string, state: InstallState, res: ServerResponse): Promise<void> {
    const key = decodeURIComponent(path);
    const { budget, caps, traffic } = state;
    budget.claimPackage(key);
    let up;
    try {
      up = await npmFetch(`/${path}`, this.fetchOpts(state));
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) {
        traffic.notFound.push(key);
        return end(res, 404, `${key} is not in the npm registry`);
      }
      throw new Error(`the registry could not be reached for ${key} (${(err as { code?: string }).code ?? (err as Error).message})`);
    }
    traffic.downloads++;
    const declared = Number(up.headers.get('content-length') ?? 0);
    if (declared > caps.tarballBytes) throw capError(`${key} not downloaded: ${mib(declared)} is over the cap of ${mib(caps.tarballBytes)} per package`);
    if (declared > 0) budget.expect(key, declared);
    res.writeHead(200, { 'content-type': 'application/octet-stream', ...(declared > 0 ? { 'content-length': String(declared) } : {}) });
    const gunzip = createGunzip();
    let inflated = 0;
    let inflateError: Error | undefined;
    gunzip.on('data', (d: Buffer) => {
      inflated += d.length;
      if (inflated > caps.tarballInflatedBytes && !inflateError)
        inflateError = capError(`${key} refused: it inflates past the cap of ${mib(caps.tarballInflatedBytes)} per package`);
    });
    gunzip.on('error', () => {
      /* not gzip: pnpm rejects it by its integrity */
    });
    let got = 0;
    for await (const c of up.body as AsyncIterable<Buffer>) {
      got += c.length;
      if (got > caps.tarballBytes) throw capError(`${key} not downloaded: over the cap of ${mib(caps.tarballBytes)} per package`);
      budget.addRegistryBytes(key, c.length);
      traffic.registryBytes += c.length;
      await new Promise<void>((r) => (gunzip.write(c) ? r() : gunzip.once('drain', r)));
      if (inflateError) throw inflateError;
      if (!res.write(c)) await new Promise<void>((r) => res.once('drain', r));
    }
    await new Promise<void>((r) => {
      gunzip.once('end', r);
      gunzip.once('error', () => r());
      gunzip.end();
    });
    if (inflateError) throw inflateError;
    budget.addStored(key, inflated);
    traffic.inflatedBytes += inflated;
    res.end();
  }
}

function capError(message: string): Error {
  return Object.assign(new Error(message), { cap: true });
}

function end(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: message }));
}
