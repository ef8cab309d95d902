/**
 * Where the arena's artifacts live: every artifact shown gets an origin of its own (a fresh loopback port, for as
 * long as its pair is shown), and the CDN files pages load are answered from the CDN cache (cdn/) on one port
 * per CDN host. What a page may reach is what the scoring sandbox lets it reach (gather/sandbox/): its own files
 * and the CDN cache, nothing else.
 *
 * The person's own browser runs the pages, so nothing here can put a proxy in front of them (the scoring
 * sandbox does); the walls are the browser's own:
 * - the arena frames each artifact with `sandbox="allow-scripts"` (no same-origin, top navigation, popups,
 *   forms, modals or downloads): its document has an opaque origin, with no storage, cookies or script access
 *   shared with the arena or the other frame;
 * - every artifact response carries a Content-Security-Policy (`artifactCsp`): scripts, styles, pictures, fonts,
 *   media, workers and connections (fetch, XHR, WebSocket, EventSource, beacons) only from the artifact's own
 *   origin, the CDN ports, `data:` and `blob:`; no plugins, no form targets, `sandbox allow-scripts` again (so
 *   the page is sandboxed even when opened on its own) and `frame-ancestors` the arena;
 * - the arena page's own policy allows frames from exactly the two artifact origins of its pair
 *   (arena/page.ts), which Chrome also applies to the frames' own navigations: a page cannot take its frame to
 *   another site, another loopback port or the arena;
 * - every listener answers only requests whose `Host` names it (survey/guards.ts, as the survey and the arena
 *   do: DNS rebinding gets 421), and refuses requests another site made (an `Origin` other than `null` or the
 *   artifact's own, a `Referer` of another origin): while a pair is shown, a web page elsewhere in the same
 *   browser cannot read it or make the CDN cache download for it.
 *
 * Files: an artifact is listed again when its pair is served (core/artifact/load.ts `listArtifact`: regular
 * files whose real path lies inside the artifact's real folder) and answered by gather/server.ts
 * `artifactResponse` (exactly those files, read without following links); nothing else is ever served.
 *
 * CDN URLs: a page names `https://cdn.jsdelivr.net/...`, which the browser would fetch from the internet (and the
 * policy blocks). So the text the page gets (HTML, CSS, JavaScript, SVG, JSON; of the artifact and of CDN
 * files) has every `https://<CDN host>`, `http://<CDN host>` and `//<CDN host>` rewritten to that host's CDN
 * port; CDN files' own root-relative imports (`/npm/...`) then resolve against the same port, as on the real
 * CDN. Interpretations: only literal URLs are rewritten (a URL assembled at run time is blocked, as anything
 * else off the list); the replacement works on the bytes as Latin-1, so a file in any ASCII-compatible encoding
 * keeps every other byte; a CDN file whose text was rewritten no longer matches an `integrity` hash of the real
 * file (rare: the file must itself name a CDN URL). `--network offline` runs no CDN ports: CDN URLs stay as they
 * are and are blocked, as in the scoring sandbox's offline mode.
 *
 * Storage: an opaque origin's `localStorage`, `sessionStorage` and `document.cookie` throw, which breaks pages
 * that save state (a to-do list) although nothing is wrong with them, and people would vote against them. So
 * every HTML document gets a first script (`STORAGE_SHIM`) that gives it, only where the real ones throw,
 * in-memory ones that last as long as the document (never shared, never kept).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { listArtifact } from '../lib/artifact/load.js';
import { CDN_HOSTS, type CdnAnswer, type CdnRequest } from '../cdn/index.js';
import { artifactResponse, type ServedArtifact } from '../gather/server.js';
import { allowedHosts, hostAllowed } from '../survey/guards.js';

/** What the CDN cache offers the arena (cdn/ `CdnCache`). */
export interface CdnSource {
  answer(url: URL, req: CdnRequest): Promise<CdnAnswer>;
}

export interface FrameHostOptions {
  /** Address every listener binds (the arena's). */
  bind: string;
  /** Host names (with or without a port) the arena answers as besides loopback (`--allow-host`). */
  allowHosts?: readonly string[];
  /** The CDN cache; absent: offline (CDN URLs are left to the policy, which blocks them). */
  cdn?: CdnSource;
}

const TEXT_EXTENSIONS = new Set(['.html', '.htm', '.xhtml', '.css', '.js', '.mjs', '.cjs', '.svg', '.json', '.webmanifest', '.map']);
const MAX_REWRITE_BYTES = 20 * 1024 * 1024;

/** In-memory Web Storage and cookies for a document whose real ones throw (module comment). */
export const STORAGE_SHIM =
  '<script>(function(){function S(){var m=new Map();var s={getItem:function(k){k=String(k);return m.has(k)?m.get(k):null},' +
  'setItem:function(k,v){m.set(String(k),String(v))},removeItem:function(k){m.delete(String(k))},clear:function(){m.clear()},' +
  'key:function(i){var a=Array.from(m.keys());return i<a.length?a[i]:null}};Object.defineProperty(s,"length",{get:function(){return m.size}});return s}' +
  '["localStorage","sessionStorage"].forEach(function(n){try{window[n].length}catch(e){try{Object.defineProperty(window,n,{value:S(),configurable:true})}catch(e2){}}});' +
  'try{document.cookie}catch(e){var j={};try{Object.defineProperty(document,"cookie",{configurable:true,get:function(){return Object.keys(j).map(function(k){return k+"="+j[k]}).join("; ")},' +
  'set:function(v){var p=String(v).split(";")[0];var i=p.indexOf("=");if(i>0)j[p.slice(0,i).trim()]=p.slice(i+1).trim()}})}catch(e2){}}})();</script>';

/** Put the storage shim first in an HTML document (after `<head>`, else `<html>`, else the doctype, else at the start). */
export function withStorageShim(html: string): string {
  for (const re of [/<head\b[^>]*>/i, /<html\b[^>]*>/i, /<!doctype[^>]*>/i]) {
    const m = re.exec(html);
    if (m) return html.slice(0, m.index + m[0].length) + STORAGE_SHIM + html.slice(m.index + m[0].length);
  }
  return STORAGE_SHIM + html;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CDN_URL = new RegExp(
  `(?:https?:)?//(${[...CDN_HOSTS]
    .sort((a, b) => b.length - a.length)
    .map(escapeRe)
    .join('|')})(?::(?:443|80))?(?![\\w.-])`,
  'gi',
);

/** Every literal CDN URL of `text` pointed at that host's CDN port on `hostname` (module comment). */
export function rewriteCdnUrls(text: string, hostname: string, ports: ReadonlyMap<string, number>): string {
  return text.replace(CDN_URL, (whole, host: string) => {
    const port = ports.get(host.toLowerCase());
    return port ? `http://${hostname}:${port}` : whole;
  });
}

/** The Content-Security-Policy of an artifact response (module comment). */
export function artifactCsp(self: string, cdnOrigins: readonly string[], arenaOrigins: readonly string[]): string {
  const from = [self, ...cdnOrigins].join(' ');
  return [
    `default-src 'none'`,
    `script-src ${from} 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval' data: blob:`,
    `style-src ${from} 'unsafe-inline' data: blob:`,
    `img-src ${from} data: blob:`,
    `font-src ${from} data: blob:`,
    `media-src ${from} data: blob:`,
    `connect-src ${from} data: blob:`,
    `worker-src ${self} data: blob:`,
    `frame-src ${self} data: blob:`,
    `manifest-src ${self}`,
    `object-src 'none'`,
    `base-uri ${self}`,
    `form-action 'none'`,
    `frame-ancestors ${arenaOrigins.join(' ') || "'none'"}`,
    'sandbox allow-scripts',
  ].join('; ');
}

/** `host:port` → the host name part (`[::1]:80` → `[::1]`). */
export function hostnameOf(host: string): string {
  return host.replace(/:\d+$/, '');
}

/** Was this request made by another site (module comment)? `own`: the origins that may refer. */
export function foreignRequest(req: IncomingMessage, own: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null' && !own.has(origin)) return true;
  const referer = req.headers.referer;
  if (referer !== undefined) {
    try {
      if (!own.has(new URL(referer).origin)) return true;
    } catch {
      return true;
    }
  }
  return false;
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(text + '\n');
}

async function listen(server: Server, bind: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, bind, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** One artifact on an origin of its own (see the module comment). */
export interface Frame {
  /** The entry page's path and query (`/index.html`), to put after the origin the rater uses. */
  entryPath: string;
  port: number;
  /** The origin as seen through `hostname` (`http://<hostname>:<port>`). */
  originFor(hostname: string): string;
  close(): Promise<void>;
}

export class FrameHost {
  private readonly mirrors = new Map<string, { server: Server; port: number }>();
  private readonly frames = new Set<Frame>();
  /** The arena's own port (for `frame-ancestors` and the referrers the listeners accept). */
  arenaPort = 0;

  constructor(private readonly opts: FrameHostOptions) {}

  /** CDN host → its port (empty offline). */
  cdnPorts(): Map<string, number> {
    return new Map([...this.mirrors].map(([h, m]) => [h, m.port]));
  }

  /** The origins of the CDN ports as seen through `hostname`. */
  cdnOrigins(hostname: string): string[] {
    return [...this.mirrors.values()].map((m) => `http://${hostname}:${m.port}`);
  }

  /**
   * The origins the arena page has for a rater using `hostname`, and its other names. IPv6 literals are left
   * out: a policy's host sources cannot name them (Chrome ignores `http://[::1]:80`), and the arena listens on
   * IPv4 unless told otherwise.
   */
  arenaOrigins(hostname: string): string[] {
    const names = [...allowedHosts(this.arenaPort, this.opts.allowHosts)].filter((h) => !h.startsWith('['));
    return [...new Set([`http://${hostname}:${this.arenaPort}`, ...names.map((h) => `http://${h}`)])];
  }

  /** Start the CDN ports (none offline). */
  async start(): Promise<void> {
    if (!this.opts.cdn) return;
    for (const host of CDN_HOSTS) {
      const server = createServer((req, res) => void this.mirror(host, port, req, res).catch(() => plain(res, 500, 'CDN cache error')));
      server.on('clientError', (_e, socket) => socket.destroy());
      const port = await listen(server, this.opts.bind);
      this.mirrors.set(host, { server, port });
    }
  }

  private ownOrigins(port: number, hostname: string): Set<string> {
    return new Set([`http://${hostname}:${port}`, ...this.arenaOrigins(hostname)]);
  }

  private async mirror(host: string, port: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host, allowedHosts(port, this.opts.allowHosts), port)) return plain(res, 421, 'wrong host');
    const hostname = hostnameOf(req.headers.host!);
    if (req.headers.origin !== undefined && req.headers.origin !== 'null' && !this.isOurs(req.headers.origin, hostname))
      return plain(res, 403, 'not for other sites');
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD', 'access-control-allow-headers': '*' });
      return void res.end();
    }
    if (method !== 'GET' && method !== 'HEAD') return plain(res, 405, 'GET and HEAD only');
    // Only a path: a request target such as `@elsewhere/` would otherwise name another host.
    if (!(req.url ?? '').startsWith('/')) return plain(res, 400, 'bad URL');
    let url: URL;
    try {
      url = new URL(`https://${host}${req.url}`);
    } catch {
      return plain(res, 400, 'bad URL');
    }
    if (url.host !== host) return plain(res, 400, 'bad URL');
    const header = (k: string) => (typeof req.headers[k] === 'string' ? (req.headers[k] as string) : undefined);
    const a = await this.opts.cdn!.answer(url, {
      method,
      headers: { accept: header('accept'), origin: header('origin'), 'user-agent': header('user-agent'), 'if-none-match': header('if-none-match') },
    });
    if (a.kind !== 'served') return plain(res, a.status, a.reason);
    let body = a.body;
    const type = a.headers['content-type'] ?? '';
    if (a.status === 200 && /javascript|css|html|json|svg/i.test(type) && body.length <= MAX_REWRITE_BYTES) {
      const text = body.toString('latin1');
      const out = rewriteCdnUrls(text, hostname, this.cdnPorts());
      if (out !== text) body = Buffer.from(out, 'latin1');
    }
    const headers: Record<string, string> = { ...a.headers, 'content-length': String(body.length) };
    if (body !== a.body) delete headers.etag;
    headers['content-security-policy'] = "sandbox; default-src 'none'; frame-ancestors 'none'";
    res.writeHead(a.status, headers);
    res.end(method === 'HEAD' || a.status === 304 ? undefined : body);
  }

  private isOurs(origin: string, hostname: string): boolean {
    if (this.arenaOrigins(hostname).includes(origin)) return true;
    for (const f of this.frames) if (f.originFor(hostname) === origin) return true;
    return false;
  }

  /** Serve `artifact` on a fresh port (see the module comment); throws InputError when it can no longer be listed. */
  async open(artifact: string): Promise<Frame> {
    const listing = listArtifact(artifact);
    const served: ServedArtifact = { entry: listing.entry, refused: listing.refused, files: listing.files.map((f) => ({ path: f.rel, absPath: f.real })) };
    const server = createServer((req, res) => this.serve(served, port, req, res));
    server.on('clientError', (_e, socket) => socket.destroy());
    server.keepAliveTimeout = 2000;
    const port = await listen(server, this.opts.bind);
    const frame: Frame = {
      entryPath: `/${served.entry.split('/').map(encodeURIComponent).join('/')}`,
      port,
      originFor: (hostname) => `http://${hostname}:${port}`,
      close: async () => {
        this.frames.delete(frame);
        await closeServer(server);
      },
    };
    this.frames.add(frame);
    return frame;
  }

  private serve(served: ServedArtifact, port: number, req: IncomingMessage, res: ServerResponse): void {
    if (!hostAllowed(req.headers.host, allowedHosts(port, this.opts.allowHosts), port)) return plain(res, 421, 'wrong host');
    const hostname = hostnameOf(req.headers.host!);
    if (foreignRequest(req, this.ownOrigins(port, hostname))) return plain(res, 403, 'not for other sites');
    const method = (req.method ?? 'GET').toUpperCase();
    const r = artifactResponse(served, method, req.url ?? '/');
    let body = r.body;
    const ext = extname(r.path).toLowerCase();
    if (r.status === 200 && TEXT_EXTENSIONS.has(ext) && body.length <= MAX_REWRITE_BYTES) {
      let text = rewriteCdnUrls(body.toString('latin1'), hostname, this.cdnPorts());
      if (ext === '.html' || ext === '.htm' || ext === '.xhtml') text = withStorageShim(text);
      body = Buffer.from(text, 'latin1');
    }
    const self = `http://${hostname}:${port}`;
    res.writeHead(r.status, {
      ...r.headers,
      'content-length': String(body.length),
      'content-security-policy': artifactCsp(self, this.cdnOrigins(hostname), this.arenaOrigins(hostname)),
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'referrer-policy': 'no-referrer',
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  /** Close every artifact port and the CDN ports. */
  async close(): Promise<void> {
    await Promise.all([...this.frames].map((f) => f.close()));
    await Promise.all([...this.mirrors.values()].map((m) => closeServer(m.server)));
    this.mirrors.clear();
  }
}

/** A random id for URLs (pairs, tokens): 128 bits, URL-safe. */
export function randomId(): string {
  return randomBytes(16).toString('base64url');
}
