/**
 * `webgrade arena`'s server: node:http on one address (127.0.0.1 unless `--listen` says otherwise), with the
 * survey server's care (survey/server.ts, survey/guards.ts).
 *
 * - Every request must name the server in its `Host` (127.0.0.1, localhost, [::1] with its port, or an
 *   `--allow-host` name), else 421: a page elsewhere that points its own name at this address (DNS rebinding)
 *   gets nothing.
 * - Raters: each `--rater NAME` gets a random token for this run (128 bits) and a link `/?t=<token>`; every other
 *   route needs a live token too (403 otherwise). Tokens do not survive a restart (the votes do): a restart
 *   prints new links. Several raters vote at once, each on their own pair.
 * - Per remote address, page loads and votes are each limited by a token bucket (PAGE_LIMIT, VOTE_LIMIT: 429 with
 *   `Retry-After` beyond it); everyone behind one proxy or NAT shares an address.
 * - `GET /?t=` → the rater's current pair (a reload shows the same pair), or a new one chosen by arena/select.ts;
 *   its two pages are served on origins of their own (arena/frames.ts) until the pair is voted, undone or the
 *   server stops. `GET /shot/<pair>/<left|right>` → that page's kept screenshot. `GET /healthz` → 200.
 * - `POST /vote` `{t, pair, choice: left|right|tie|both-bad}` (JSON, at most 4 KiB; 415 for another type, 413
 *   over) → the vote is appended to the votes file (arena/votes.ts: synced before the answer) and the answer is
 *   201 `{ok, votes}`; a pair that is not the rater's current one is 409 (the page was stale). The client names
 *   neither models nor sides: the server knows which model it showed where.
 * - `POST /undo` `{t}` → the rater's last vote in the file is taken out and its pair (same sides) is shown again;
 *   409 when they have none.
 * - HTML answers carry the page's policy (arena/page.ts `arenaCsp`), `X-Frame-Options: DENY`, `Referrer-Policy:
 *   no-referrer` and `Cache-Control: no-store`; JSON answers `no-store`.
 *
 * On restart the votes file is read back (arena/votes.ts): every vote counts for the next pairs, and no rater is
 * shown a pair they judged before (by rater name).
 */
import { readBody } from '../lib/http-body.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readArtifactFile } from '../lib/artifact/load.js';
import { InputError, errorMessage } from '../core/errors.js';
import { allowedHosts, hostAllowed, RateLimiter, type RateLimit } from '../survey/guards.js';
import type { ArenaPage, Catalogue } from './catalogue.js';
import { FrameHost, hostnameOf, randomId, type CdnSource, type Frame } from './frames.js';
import { arenaCsp, donePage, pairPage } from './page.js';
import { PairChooser, pairKey, type ArenaWinner, type Side } from './select.js';
import { VotesFile, type VoteRecord } from './votes.js';

export const MAX_BODY_BYTES = 4096;
/** Page loads per address: a person loads one page per vote. */
export const PAGE_LIMIT: RateLimit = { burst: 120, refillSeconds: 1 };
/** Votes and undos per address: a quick person votes every few seconds; a team behind one NAT shares this. */
export const VOTE_LIMIT: RateLimit = { burst: 120, refillSeconds: 1 };
const CHOICES = ['left', 'right', 'tie', 'both-bad'] as const;
type Choice = (typeof CHOICES)[number];

export interface ArenaOptions {
  catalogue: Catalogue;
  /** The votes file (JSONL). */
  out: string;
  /** Rater names, each of which gets a token. */
  raters: readonly string[];
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  listen?: string;
  allowHosts?: readonly string[];
  /** The CDN cache; absent: CDN URLs are blocked (offline). */
  cdn?: CdnSource;
  /** Show a rater a pair they judged before (after every other). */
  repeatPairs?: boolean;
  /** Random numbers for the pair choice and sides (tests seed them); default Math.random. */
  rand?: () => number;
  pageLimit?: RateLimit;
  voteLimit?: RateLimit;
  now?: () => number;
  onLockLost?: (err: Error) => void;
}

interface Shown {
  id: string;
  rater: string;
  requirement: string;
  modelA: string;
  modelB: string;
  position: Side;
  left: { page: ArenaPage; frame: Frame };
  right: { page: ArenaPage; frame: Frame };
}

interface Rater {
  name: string;
  token: string;
  current?: Shown;
  /** The pair an undo gave back, to be shown next. */
  again?: Pick<Shown, 'requirement' | 'modelA' | 'modelB' | 'position'>;
  /** A choice under way (its frames are opening). */
  opening?: Promise<Shown | null>;
}

export interface ArenaServer {
  url: string;
  port: number;
  /** Rater name → their link. */
  links: Map<string, string>;
  /** Votes in the file (all raters), and notes from reading it back. */
  votes(): number;
  notes: string[];
  pairs: number;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(JSON.stringify(body));
}

class Arena {
  readonly raters = new Map<string, Rater>();
  readonly votes: VoteRecord[] = [];
  readonly pages = new Map<string, ArenaPage>();
  readonly chooser: PairChooser;
  readonly pageLimiter: RateLimiter;
  readonly voteLimiter: RateLimiter;
  /** Pairs whose artifacts could not be served this run (skipped for everyone). */
  readonly broken = new Set<string>();
  hosts = new Set<string>();
  port = 0;

  constructor(
    readonly opts: ArenaOptions,
    readonly file: VotesFile,
    readonly frames: FrameHost,
  ) {
    for (const p of opts.catalogue.pages) this.pages.set(`${p.requirement}\u0000${p.model}`, p);
    const rand = opts.rand ?? Math.random;
    this.chooser = new PairChooser(opts.catalogue.pages, { rand, features: opts.catalogue.features, ...(opts.repeatPairs ? { repeatPairs: true } : {}) });
    this.pageLimiter = new RateLimiter(opts.pageLimit ?? PAGE_LIMIT, opts.now);
    this.voteLimiter = new RateLimiter(opts.voteLimit ?? VOTE_LIMIT, opts.now);
    for (const name of opts.raters) {
      const token = randomId();
      this.raters.set(token, { name, token });
    }
  }

  private rand(): number {
    return (this.opts.rand ?? Math.random)();
  }

  count(rater: string): number {
    return this.votes.filter((v) => v.rater === rater).length;
  }

  adopt(v: VoteRecord): void {
    this.votes.push(v);
    this.chooser.add({ requirement: v.requirement, modelA: v.model_a, modelB: v.model_b, winner: v.winner, rater: v.rater });
  }

  /** The rater's pair to show: the current one, the one an undo gave back, or a new one; null when none is left. */
  pairFor(rater: Rater): Promise<Shown | null> {
    if (rater.current) return Promise.resolve(rater.current);
    // Two page loads at once (two tabs) share one choice, so that no pair's ports are left open unseen.
    rater.opening ??= this.choose(rater).finally(() => (rater.opening = undefined));
    return rater.opening;
  }

  private async choose(rater: Rater): Promise<Shown | null> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const pending = [...this.raters.values()].flatMap((r) => (r.current ? [r.current] : []));
      let pick = rater.again ?? null;
      rater.again = undefined;
      if (!pick) {
        const next = this.chooser.next(rater.name, pending, (r, a, b) => this.broken.has(pairKey(r, a, b)));
        pick = next && { requirement: next.requirement, modelA: next.modelA, modelB: next.modelB, position: next.position };
      }
      if (!pick) return null;
      const a = this.pages.get(`${pick.requirement}\u0000${pick.modelA}`);
      const b = this.pages.get(`${pick.requirement}\u0000${pick.modelB}`);
      if (!a || !b) {
        this.broken.add(pairKey(pick.requirement, pick.modelA, pick.modelB));
        continue;
      }
      const [leftPage, rightPage] = pick.position === 'left' ? [a, b] : [b, a];
      let left: Frame | undefined;
      try {
        left = await this.frames.open(leftPage.artifact);
        const right = await this.frames.open(rightPage.artifact);
        rater.current = { id: randomId(), rater: rater.name, ...pick, left: { page: leftPage, frame: left }, right: { page: rightPage, frame: right } };
        return rater.current;
      } catch (err) {
        await left?.close();
        if (!(err instanceof InputError)) throw err;
        this.broken.add(pairKey(pick.requirement, pick.modelA, pick.modelB));
      }
    }
    return null;
  }

  async drop(rater: Rater): Promise<void> {
    const s = rater.current;
    rater.current = undefined;
    if (s) await Promise.all([s.left.frame.close(), s.right.frame.close()]);
  }

  async vote(rater: Rater, pairId: unknown, choice: Choice): Promise<{ status: number; body: unknown }> {
    const s = rater.current;
    if (!s || s.id !== pairId) return { status: 409, body: { error: 'this pair is no longer shown to you (voted in another tab?): reload the page' } };
    const aSide: Side = s.position;
    const winner: ArenaWinner = choice === 'tie' || choice === 'both-bad' ? choice : choice === aSide ? 'a' : 'b';
    const record: VoteRecord = {
      requirement: s.requirement,
      model_a: s.modelA,
      model_b: s.modelB,
      winner,
      rater: rater.name,
      time: new Date((this.opts.now ?? Date.now)()).toISOString(),
      position: s.position,
      id: VotesFile.newId(),
    };
    rater.current = undefined; // a second click of the same vote finds no pair
    try {
      await this.file.append(record);
    } catch (err) {
      rater.current = s;
      return { status: 500, body: { error: `the vote was not saved: ${errorMessage(err)}` } };
    }
    this.adopt(record);
    await Promise.all([s.left.frame.close(), s.right.frame.close()]);
    return { status: 201, body: { ok: true, votes: this.count(rater.name) } };
  }

  async undo(rater: Rater): Promise<{ status: number; body: unknown }> {
    const i = this.votes.findLastIndex((v) => v.rater === rater.name);
    if (i < 0) return { status: 409, body: { error: 'you have no vote to take back' } };
    const v = this.votes[i]!;
    if (!(await this.file.remove(v.id))) return { status: 409, body: { error: 'that vote is no longer in the votes file' } };
    this.votes.splice(i, 1);
    this.chooser.remove({ requirement: v.requirement, modelA: v.model_a, modelB: v.model_b, winner: v.winner, rater: v.rater });
    await this.drop(rater);
    rater.again = { requirement: v.requirement, modelA: v.model_a, modelB: v.model_b, position: v.position };
    return { status: 200, body: { ok: true, votes: this.count(rater.name) } };
  }
}

function token(req: IncomingMessage): string | undefined {
  const q = (req.url ?? '').split('?')[1];
  return q ? (new URLSearchParams(q).get('t') ?? undefined) : undefined;
}

async function page(arena: Arena, req: IncomingMessage, res: ServerResponse, rater: Rater): Promise<void> {
  const hostname = hostnameOf(req.headers.host!);
  const s = await arena.pairFor(rater);
  const nonce = randomBytes(16).toString('base64');
  const counts = {
    rater: rater.name,
    token: rater.token,
    votes: arena.count(rater.name),
    judged: arena.chooser.judgedBy(rater.name),
    pairs: arena.chooser.pairCount(),
  };
  let html: string;
  let frameOrigins: string[] = [];
  if (!s) {
    const message =
      arena.chooser.pairCount() === 0
        ? 'The results hold no requirement with pages of two models: there is nothing to compare.'
        : 'You have judged every pair. Thank you!';
    html = donePage({ ...counts, message }, nonce);
  } else {
    frameOrigins = [s.left.frame.originFor(hostname), s.right.frame.originFor(hostname)];
    const side = (x: Shown['left'], name: Side) => ({
      src: x.frame.originFor(hostname) + x.frame.entryPath,
      ...(x.page.shot ? { shot: `/shot/${s.id}/${name}?t=${encodeURIComponent(rater.token)}` } : {}),
    });
    const text = arena.opts.catalogue.texts.get(s.requirement);
    html = pairPage(
      {
        ...counts,
        requirement: s.requirement,
        ...(text !== undefined ? { text } : {}),
        pairId: s.id,
        left: side(s.left, 'left'),
        right: side(s.right, 'right'),
      },
      nonce,
    );
  }
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': arenaCsp(nonce, frameOrigins),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
  });
  res.end(req.method === 'HEAD' ? undefined : html);
}

function shot(arena: Arena, res: ServerResponse, rater: Rater, pairId: string, side: string): void {
  const s = rater.current;
  const x = s && s.id === pairId ? (side === 'left' ? s.left : side === 'right' ? s.right : undefined) : undefined;
  if (!x?.page.shot) return sendJson(res, 404, { error: 'no such screenshot' });
  let body: Buffer;
  try {
    body = readArtifactFile({ absPath: x.page.shot });
  } catch {
    return sendJson(res, 404, { error: 'the screenshot cannot be read' });
  }
  res.writeHead(200, {
    'content-type': x.page.shotType!,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': String(body.length),
  });
  res.end(body);
}

async function post(arena: Arena, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const wait = arena.voteLimiter.take(req.socket.remoteAddress ?? '');
  if (wait > 0) {
    req.resume();
    return sendJson(res, 429, { error: `too many votes from this address; try again in ${wait} s` }, { 'retry-after': String(wait) });
  }
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    req.resume();
    return sendJson(res, 415, { error: 'send JSON (content-type: application/json)' });
  }
  const body = await readBody(req, MAX_BODY_BYTES);
  if (body === 'too-large') return sendJson(res, 413, { error: `body over ${MAX_BODY_BYTES} bytes` });
  let value: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    value = v as Record<string, unknown>;
  } catch {
    return sendJson(res, 400, { error: 'body is not a JSON object' });
  }
  const rater = typeof value.t === 'string' ? [...arena.raters.values()].find((r) => r.token === value.t) : undefined;
  if (!rater) return sendJson(res, 403, { error: 'not a rater of this arena (it may have restarted: ask for a new link)' });
  if (path === '/undo') {
    const r = await arena.undo(rater);
    return sendJson(res, r.status, r.body);
  }
  if (typeof value.choice !== 'string' || !(CHOICES as readonly string[]).includes(value.choice))
    return sendJson(res, 400, { error: `choice must be one of ${CHOICES.join(', ')}` });
  const r = await arena.vote(rater, value.pair, value.choice as Choice);
  sendJson(res, r.status, r.body);
}

async function handle(arena: Arena, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!hostAllowed(req.headers.host, arena.hosts, arena.port)) {
    req.resume();
    return sendJson(res, 421, { error: `this arena answers only as ${[...arena.hosts].join(', ')} (use --allow-host to add a name)` });
  }
  const path = (req.url ?? '/').split('?')[0]!;
  const method = req.method ?? 'GET';
  if (path === '/healthz') return sendJson(res, 200, { ok: true });
  if (path === '/vote' || path === '/undo') {
    if (method !== 'POST') return sendJson(res, 405, { error: 'use POST' }, { allow: 'POST' });
    return post(arena, req, res, path);
  }
  if (method !== 'GET' && method !== 'HEAD') return sendJson(res, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
  const t = token(req);
  const rater = t === undefined ? undefined : arena.raters.get(t);
  const m = /^\/shot\/([A-Za-z0-9_-]{1,64})\/(left|right)$/.exec(path);
  if (path !== '/' && !m) return sendJson(res, 404, { error: 'not found' });
  if (!rater) return sendJson(res, 403, { error: 'this link is not valid (the arena may have restarted: ask for a new link)' });
  if (m) return shot(arena, res, rater, m[1]!, m[2]!);
  const wait = arena.pageLimiter.take(req.socket.remoteAddress ?? '');
  if (wait > 0) return sendJson(res, 429, { error: `too many page loads from this address; try again in ${wait} s` }, { 'retry-after': String(wait) });
  return page(arena, req, res, rater);
}

export async function startArena(opts: ArenaOptions): Promise<ArenaServer> {
  if (opts.raters.length === 0) throw new InputError('arena: give at least one --rater');
  if (new Set(opts.raters).size !== opts.raters.length) throw new InputError('arena: a rater is named twice');
  const { file, votes, notes } = await VotesFile.open(opts.out, opts.onLockLost);
  const listen = opts.listen ?? '127.0.0.1';
  const frames = new FrameHost({ bind: listen, ...(opts.allowHosts ? { allowHosts: opts.allowHosts } : {}), ...(opts.cdn ? { cdn: opts.cdn } : {}) });
  const arena = new Arena(opts, file, frames);
  for (const v of votes) arena.adopt(v);
  const unknown = votes.filter((v) => !arena.pages.has(`${v.requirement}\u0000${v.model_a}`) || !arena.pages.has(`${v.requirement}\u0000${v.model_b}`)).length;
  if (unknown)
    notes.push(
      `${unknown} of the ${votes.length} votes read back name a page these results do not have: kept in the file, counted for the model strengths only`,
    );
  let server: Server;
  try {
    await frames.start();
    server = createServer((req, res) => void handle(arena, req, res).catch((err: unknown) => sendJson(res, 500, { error: errorMessage(err) })));
    server.on('clientError', (_e, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, listen, () => resolve());
    });
  } catch (err) {
    await frames.close();
    await file.close();
    throw new InputError(`arena: cannot listen on ${listen}:${opts.port ?? 0} (${errorMessage(err)})`);
  }
  arena.port = (server.address() as AddressInfo).port;
  arena.hosts = allowedHosts(arena.port, opts.allowHosts);
  frames.arenaPort = arena.port;
  const shownHost = listen === '127.0.0.1' || listen === '0.0.0.0' || listen === '::' ? '127.0.0.1' : listen.includes(':') ? `[${listen}]` : listen;
  const base =
    opts.allowHosts?.[0] && listen !== '127.0.0.1'
      ? `http://${/:\d+$/.test(opts.allowHosts[0]) ? opts.allowHosts[0] : `${opts.allowHosts[0]}:${arena.port}`}/`
      : `http://${shownHost}:${arena.port}/`;
  const links = new Map([...arena.raters.values()].map((r) => [r.name, `${base}?t=${encodeURIComponent(r.token)}`]));
  return {
    url: base,
    port: arena.port,
    links,
    votes: () => arena.votes.length,
    notes,
    pairs: arena.chooser.pairCount(),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await frames.close();
      await file.close();
    },
  };
}
