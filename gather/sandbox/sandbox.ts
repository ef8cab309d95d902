/**
 * The sandbox: the one enforcement point between a page under test and the world (SPEC "Behaviour users
 * expect"; core/network.ts has the modes and the log).
 *
 * Every browser context that loads an artifact (the visit, the phone-emulated fallback visit, Lighthouse's run,
 * the interaction probe, a reference page) is created with this proxy as its proxy server and an empty bypass
 * list (`<-loopback>`: loopback goes through the proxy too), and Chrome's default context points at a closed port
 * (chrome-process.ts). So every request Chrome makes for a page, from the page, its frames, workers, service
 * workers, WebSockets and fetches alike, in every phase, arrives here and nowhere else; WebRTC may not send
 * non-proxied UDP (a profile preference, chrome-process.ts). The proxy answers:
 *
 * - the artifact's own origin (`http://127.0.0.1:61080`, the same for every artifact: server.ts `ARTIFACT_ORIGIN`)
 *   from the artifact's files;
 * - well-known CDN hosts from the CDN cache in `cdn` mode (cdn/), as withheld in `offline` mode;
 * - in `live`/`record` mode, GET/HEAD requests to allow-listed hosts from the internet (recorded in `record`);
 * - in `replay` mode, exactly the recorded responses;
 * - nothing else: every other request is refused (403; a top-level navigation away is answered 204 No Content so
 *   that the page stays where it is, as the visit always did) and logged with the phase and the reason.
 *
 * HTTPS and tunnels: Chrome sends CONNECT host:port; the proxy accepts every tunnel. To port 443 it ends the TLS
 * itself, with a certificate for that host (certificates.ts); to another port it reads plain HTTP (a `ws://`
 * WebSocket). Either way the request inside is handled and logged like any other, so the log names the full URL
 * of every refused request, and WebSocket upgrades are always refused.
 *
 * One `SandboxSite` per artifact holds its log; each phase gets a listener of its own (`endpoint(phase)`), so
 * that every entry says which phase made it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { errorMessage } from '../../core/errors.js';
import { DEFAULT_NETWORK_MODE, describeNetwork, type NetworkEntry, type NetworkSettings, type SandboxPhase } from '../../core/network.js';
import { artifactResponse, artifactSite, type ArtifactSite, type ServedArtifact } from '../server.js';
import type { CdnAnswer, CdnBudget, CdnRequest } from '../../cdn/index.js';
import { ResponseArchive } from './archive.js';
import { SandboxCertificates } from './certificates.js';

/** What the CDN cache (cdn/ `CdnCache` with `isCdnHost`) offers the proxy. */
export interface CdnAnswerer {
  isCdnHost(host: string): boolean;
  answer(url: URL, req: CdnRequest): Promise<CdnAnswer>;
  /** A budget for one artifact's downloads (cdn/budget.ts), stopped by `signal` when its site closes. */
  budget?(signal: AbortSignal): CdnBudget;
}

export type { CdnAnswer };

export interface SandboxOptions {
  network: NetworkSettings;
  /** The CDN cache (required in `cdn` mode; also names the CDN hosts in the other modes). */
  cdn?: CdnAnswerer;
  /** Hosts that count as CDNs when no CDN cache is given (offline mode, tests). */
  cdnHosts?: readonly string[];
}

/** At most this many log entries per artifact (a request storm does not fill memory); the rest are counted. */
export const MAX_LOG_ENTRIES = 5000;
/** A tunnel that sends nothing for this long is closed. */
export const TUNNEL_IDLE_MS = 15_000;
/** Live requests (live/record modes) give up after this long. */
export const LIVE_TIMEOUT_MS = 15_000;
const MAX_URL_CHARS = 2000;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-encoding',
  'content-length',
]);

/** What the handler decided: an answer for the page, and the log entry. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  entry: Omit<NetworkEntry, 'phase' | 'method' | 'url' | 'destination'>;
}

function cut(url: string): string {
  return url.length > MAX_URL_CHARS ? url.slice(0, MAX_URL_CHARS) + '…' : url;
}

function blockedBody(reason: string): Buffer {
  return Buffer.from(`blocked by webgrade: ${reason}\n`);
}

export class Sandbox {
  private certs?: Promise<SandboxCertificates>;
  private readonly archive?: ResponseArchive;
  readonly network: NetworkSettings;

  constructor(readonly options: SandboxOptions) {
    this.network = options.network ?? { mode: DEFAULT_NETWORK_MODE };
    if ((this.network.mode === 'record' || this.network.mode === 'replay') && this.network.dir) this.archive = new ResponseArchive(this.network.dir);
  }

  /** The certificates (made once per process); their SPKI hash goes on Chrome's command line. */
  certificates(): Promise<SandboxCertificates> {
    this.certs ??= SandboxCertificates.create();
    return this.certs;
  }

  isCdnHost(host: string): boolean {
    const h = host.toLowerCase();
    return this.options.cdn ? this.options.cdn.isCdnHost(h) : (this.options.cdnHosts ?? []).includes(h);
  }

  /** Start serving one artifact: its origin, and a log shared by every phase. */
  async open(artifact: ServedArtifact): Promise<SandboxSite> {
    return new SandboxSite(this, artifact, artifactSite(artifact));
  }

  /** Decide and answer one request (see the module comment). */
  async decide(site: SandboxSite, url: URL, req: IncomingMessage): Promise<Answer> {
    const method = (req.method ?? 'GET').toUpperCase();
    const dest = String(req.headers['sec-fetch-dest'] ?? '');
    const navigation = dest === 'document' && req.headers['sec-fetch-mode'] === 'navigate';
    const mode = this.network.mode;
    const block = (reason: string, withheld = false): Answer => {
      if (navigation)
        return {
          status: 204,
          headers: {},
          body: Buffer.alloc(0),
          entry: { disposition: 'blocked', status: 204, reason, navigationKept: true, ...(withheld ? { withheld } : {}) },
        };
      return {
        status: 403,
        headers: {
          'Content-Type': 'text/plain; charset=utf-8',
          'Access-Control-Allow-Origin': '*',
          'X-Webgrade-Blocked': reason.replace(/[^\x20-\x7e]/g, '?'),
        },
        body: blockedBody(reason),
        entry: { disposition: 'blocked', status: 403, reason, ...(withheld ? { withheld } : {}) },
      };
    };
    if (url.protocol === 'http:' && url.host === site.host) {
      const r = artifactResponse(site.artifact, method, url.pathname + url.search);
      const entry: Answer['entry'] = { disposition: 'artifact', status: r.status };
      if (r.reason) entry.reason = r.reason;
      if (url.pathname === '/favicon.ico') entry.browserMade = true;
      return { status: r.status, headers: r.headers, body: r.body, entry };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return block(`${url.protocol} is not served`);
    const host = url.hostname.toLowerCase();
    const cdnHost = this.isCdnHost(host);
    if (mode === 'replay') {
      const rec = this.archive?.read(method === 'HEAD' ? 'GET' : method, url.href);
      if (!rec) return block(`not in the replay archive ${this.network.dir ?? ''}`.trim(), cdnHost);
      return {
        status: rec.status,
        headers: rec.headers,
        body: method === 'HEAD' ? Buffer.alloc(0) : rec.body,
        entry: { disposition: 'replay', status: rec.status },
      };
    }
    if (mode === 'live' || mode === 'record') {
      const allowed = this.network.allowHosts ? this.network.allowHosts.includes(host) : cdnHost;
      if (!allowed) return block(`${host} is not on the live allow-list`);
      if (method !== 'GET' && method !== 'HEAD') return block(`${method} requests are not let through (GET and HEAD only)`);
      return this.live(url, method, req);
    }
    if (cdnHost) {
      if (mode === 'offline') return block('CDN library withheld (network mode offline)', true);
      if (method === 'OPTIONS') {
        return {
          status: 204,
          headers: { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, HEAD', 'Access-Control-Allow-Headers': '*' },
          body: Buffer.alloc(0),
          entry: { disposition: 'cdn', status: 204 },
        };
      }
      if (method !== 'GET' && method !== 'HEAD') return block(`${method} to a CDN is not answered`);
      if (!this.options.cdn) return block('no CDN cache configured', true);
      let a: CdnAnswer;
      try {
        // one budget per artifact, shared by its phases: what the page may make the cache download
        site.cdnBudget ??= this.options.cdn.budget?.(site.closing);
        const budget = site.cdnBudget ? { budget: site.cdnBudget } : {};
        a = await this.options.cdn.answer(url, {
          method,
          headers: { accept: header(req, 'accept'), origin: header(req, 'origin'), 'user-agent': header(req, 'user-agent') },
          ...budget,
        });
      } catch (err) {
        return block(`the CDN cache failed: ${errorMessage(err)}`, true);
      }
      if (a.kind === 'served') {
        return {
          status: a.status,
          headers: a.headers,
          body: method === 'HEAD' ? Buffer.alloc(0) : a.body,
          entry: { disposition: 'cdn', status: a.status, library: `${a.package}@${a.version}` },
        };
      }
      if (a.kind === 'not-found') {
        // The registry says this package, version or file does not exist: the page's own defect, as on the real CDN.
        return {
          status: 404,
          headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Access-Control-Allow-Origin': '*' },
          body: Buffer.from(`not found: ${a.reason}\n`),
          entry: { disposition: 'cdn', status: 404, reason: a.reason },
        };
      }
      return block(`CDN file not available from the cache: ${a.reason}`, true);
    }
    return block(`${host} is not the artifact or a well-known CDN (network mode ${describeNetwork(this.network)})`);
  }

  private async live(url: URL, method: string, req: IncomingMessage): Promise<Answer> {
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const h of ['accept', 'accept-language', 'user-agent', 'range', 'origin']) {
      const v = header(req, h);
      if (v) headers[h] = v;
    }
    try {
      const res = await fetch(url, { method, headers, redirect: 'manual', signal: AbortSignal.timeout(LIVE_TIMEOUT_MS) });
      const body = Buffer.from(await res.arrayBuffer());
      const out: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        if (!HOP_BY_HOP.has(k)) out[k] = v;
      });
      if (this.network.mode === 'record' && method === 'GET' && res.status !== 206)
        this.archive?.write({ url: url.href, method: 'GET', status: res.status, headers: out, body });
      return { status: res.status, headers: out, body: method === 'HEAD' ? Buffer.alloc(0) : body, entry: { disposition: 'live', status: res.status } };
    } catch (err) {
      return {
        status: 502,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        body: Buffer.from(`webgrade: live request failed: ${errorMessage(err)}\n`),
        entry: { disposition: 'live', status: 502, reason: `live request failed: ${errorMessage(err)}` },
      };
    }
  }
}

/** What the request says about who asked for it (gather/page-requests.ts tells the page's from the browser's by it). */
function initiator(req: IncomingMessage): Pick<NetworkEntry, 'fetchSite' | 'referred'> {
  const site = header(req, 'sec-fetch-site');
  return { ...(site ? { fetchSite: site } : {}), ...(req.headers.origin || req.headers.referer ? { referred: true } : {}) };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** One artifact in the sandbox: its origin, its log, and one proxy listener per phase. */
export class SandboxSite {
  readonly origin: string;
  readonly entryUrl: string;
  /** `127.0.0.1:<port>` of the origin (the same for every artifact). */
  readonly host: string;
  readonly log: NetworkEntry[] = [];
  /** Entries not logged because the log was full. */
  dropped = 0;
  private readonly endpoints = new Map<SandboxPhase, { server: Server; inner: Server; url: string }>();
  private readonly sockets = new Set<Duplex>();
  private closed = false;
  private readonly closer = new AbortController();
  /** Aborted when the site closes: the CDN cache's downloads for this artifact stop then. */
  readonly closing: AbortSignal = this.closer.signal;
  /** What this artifact may still make the CDN cache download (set with its first CDN request). */
  cdnBudget?: CdnBudget;

  constructor(
    private readonly sandbox: Sandbox,
    readonly artifact: ServedArtifact,
    served: ArtifactSite,
  ) {
    this.origin = served.origin;
    this.entryUrl = served.entryUrl;
    this.host = new URL(served.origin).host;
  }

  /** Entries of one phase. */
  entries(phase: SandboxPhase): NetworkEntry[] {
    return this.log.filter((e) => e.phase === phase);
  }

  /** The entry of the last request for `url` (exact match), if any. */
  entryFor(url: string): NetworkEntry | undefined {
    for (let i = this.log.length - 1; i >= 0; i--) if (this.log[i]!.url === url) return this.log[i];
    return undefined;
  }

  private record(entry: NetworkEntry): void {
    if (this.log.length < MAX_LOG_ENTRIES) this.log.push(entry);
    else this.dropped++;
  }

  /** The proxy URL (`http://127.0.0.1:<port>`) for a browser context of `phase`. */
  async endpoint(phase: SandboxPhase): Promise<string> {
    const have = this.endpoints.get(phase);
    if (have) return have.url;
    const onRequest = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res, phase);
    const onUpgrade = (req: IncomingMessage, socket: Duplex) => this.refuseUpgrade(req, socket, phase);
    const inner = createServer(onRequest);
    inner.on('upgrade', onUpgrade);
    inner.on('clientError', (_err, socket) => {
      const target = (socket as unknown as { webgradeTarget?: string }).webgradeTarget ?? '';
      this.record({
        phase,
        method: 'CONNECT',
        url: cut(target),
        destination: 'tunnel',
        disposition: 'blocked',
        reason: 'not HTTP inside the tunnel (TLS to a port other than 443?)',
      });
      socket.destroy();
    });
    const server = createServer(onRequest);
    server.on('upgrade', onUpgrade);
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket as Socket, head, inner, phase));
    server.on('clientError', (_err, socket) => socket.destroy());
    server.on('connection', (s: Socket) => this.track(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.endpoints.set(phase, { server, inner, url });
    return url;
  }

  private track(s: Duplex): void {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
    if (this.closed) s.destroy();
  }

  private fullUrl(req: IncomingMessage): URL | null {
    const raw = req.url ?? '/';
    try {
      if (/^https?:\/\//i.test(raw)) return new URL(raw);
      const encrypted = req.socket instanceof TLSSocket;
      const host = header(req, 'host') ?? (req.socket as unknown as { webgradeTarget?: string }).webgradeTarget;
      if (!host) return null;
      return new URL(`${encrypted ? 'https' : 'http'}://${host}${raw.startsWith('/') ? raw : '/' + raw}`);
    } catch {
      return null;
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse, phase: SandboxPhase): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = this.fullUrl(req);
    const destination = String(req.headers['sec-fetch-dest'] ?? 'unknown');
    if (!url) {
      this.record({ phase, method, url: cut(req.url ?? ''), destination, disposition: 'blocked', status: 400, reason: 'not a valid URL' });
      res.writeHead(400).end();
      return;
    }
    let a: Answer;
    const t = performance.now();
    try {
      a = await this.sandbox.decide(this, url, req);
    } catch (err) {
      a = { status: 500, headers: {}, body: Buffer.alloc(0), entry: { disposition: 'blocked', status: 500, reason: `sandbox error: ${errorMessage(err)}` } };
    }
    this.record({ phase, method, url: cut(url.href), destination, ...initiator(req), ...a.entry, ms: Math.round((performance.now() - t) * 10) / 10 });
    if (res.destroyed) return;
    res.writeHead(a.status, { ...a.headers, 'Content-Length': String(a.status === 204 || a.status === 304 ? 0 : a.body.length) });
    res.end(method === 'HEAD' || a.status === 204 || a.status === 304 ? undefined : a.body);
  }

  private refuseUpgrade(req: IncomingMessage, socket: Duplex, phase: SandboxPhase): void {
    const url = this.fullUrl(req);
    const shown = url ? url.href.replace(/^http/, 'ws') : (req.url ?? '');
    this.record({
      phase,
      method: 'GET',
      url: cut(shown),
      destination: 'websocket',
      ...initiator(req),
      disposition: 'blocked',
      status: 403,
      reason: 'WebSocket connections are never let through',
    });
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  }

  /**
   * A CONNECT tunnel: accepted; to port 443 it carries TLS, which is ended here with a certificate for the host,
   * to any other port plain HTTP (a `ws://` WebSocket, say); the request inside is then handled like any other.
   * (Decided by port, before reading anything, so that no byte is read twice; TLS to another port fails to parse
   * and is logged as a refused tunnel.)
   */
  private async tunnel(req: IncomingMessage, socket: Socket, head: Buffer, inner: Server, phase: SandboxPhase): Promise<void> {
    this.track(socket);
    socket.on('error', () => undefined);
    const target = req.url ?? '';
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
    if (!m || head.length > 0) {
      this.record({
        phase,
        method: 'CONNECT',
        url: cut(target),
        destination: 'tunnel',
        disposition: 'blocked',
        reason: m ? 'data before the tunnel was set up' : 'not a host:port tunnel',
      });
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const [, host, port] = m;
    socket.setTimeout(TUNNEL_IDLE_MS, () => socket.destroy());
    const tagged = (s: Duplex) => Object.assign(s, { webgradeTarget: target, webgradePhase: phase });
    if (port === '443') {
      let ctx;
      try {
        ctx = await (await this.sandbox.certificates()).contextFor(host!);
      } catch (err) {
        this.record({
          phase,
          method: 'CONNECT',
          url: cut(`https://${target}/`),
          destination: 'tunnel',
          disposition: 'blocked',
          reason: `TLS set-up failed: ${errorMessage(err)}`,
        });
        socket.destroy();
        return;
      }
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const tls = tagged(new TLSSocket(socket, { isServer: true, secureContext: ctx, ALPNProtocols: ['http/1.1'] }));
      tls.on('error', () => socket.destroy());
      this.track(tls);
      inner.emit('connection', tls);
    } else {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      inner.emit('connection', tagged(socket));
    }
  }

  /** Stop every listener and connection of this artifact (its log stays readable). */
  async close(): Promise<void> {
    this.closed = true;
    this.closer.abort();
    for (const s of this.sockets) s.destroy();
    await Promise.all(
      [...this.endpoints.values()].map(
        ({ server }) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  }
}
