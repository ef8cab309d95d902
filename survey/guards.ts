/**
 * What the survey server trusts, and what it does not (survey/server.ts):
 *
 * - **Host.** A web page elsewhere can point its own host name at 127.0.0.1 (DNS rebinding) and then read and post
 *   to the survey as same-origin. Requests are answered only when their `Host` header names the server itself:
 *   `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`, or a host given with `--allow-host` (with its port, or
 *   without one for the bound port); anything else is answered 421.
 * - **Rate.** Submissions (`POST /responses`, well-formed or not) are limited per remote address by a token
 *   bucket: `RATE_LIMIT` (10 at once, then one more every 30 s); over it the answer is 429 with `Retry-After`.
 *   Everyone behind one address (a reverse proxy, a NAT) shares one bucket.
 * - **Time.** The time a respondent took is measured on the server: each page load gets a survey token (a random
 *   id and the issue time, HMAC-SHA-256-signed with a key made at start, so nothing is kept per page load), and
 *   `seconds` is the server's clock between issue and submission, rounded down. A token is accepted once, and
 *   for at most `TOKEN_MAX_AGE_MS` (24 h); tokens of an earlier server run are not accepted (the respondent
 *   reloads the page).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Submissions per remote address: `burst` at once, then one per `refillSeconds`. */
export interface RateLimit {
  burst: number;
  refillSeconds: number;
}

export const RATE_LIMIT: RateLimit = { burst: 10, refillSeconds: 30 };
export const TOKEN_MAX_AGE_MS = 24 * 3600 * 1000;

/** The `Host` values that name this server (see the module comment); `allowHosts` entries may omit the port. */
export function allowedHosts(port: number, allowHosts: readonly string[] = []): Set<string> {
  const out = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  for (const raw of allowHosts) {
    const h = raw.trim().toLowerCase();
    if (!h) continue;
    out.add(/:\d+$/.test(h) ? h : `${h}:${port}`);
  }
  return out;
}

/** Does this request's `Host` header name the server? A missing header does not. */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>, port: number): boolean {
  if (!host) return false;
  const h = host.trim().toLowerCase();
  // A browser leaves out the port when it is the scheme's default.
  return allowed.has(h) || (port === 80 && allowed.has(`${h}:80`));
}

/** A token bucket per remote address. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit = RATE_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  /** Take one token for `client`: 0 when allowed, else the whole seconds to wait before the next one. */
  take(client: string): number {
    const now = this.now();
    const perMs = 1 / (this.limit.refillSeconds * 1000);
    const b = this.buckets.get(client) ?? { tokens: this.limit.burst, at: now };
    b.tokens = Math.min(this.limit.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    this.buckets.set(client, b);
    this.forgetFull(now, perMs);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
  }

  /** Buckets that have refilled completely hold nothing worth keeping (bounds the map under many addresses). */
  private forgetFull(now: number, perMs: number): void {
    if (this.buckets.size < 1000) return;
    for (const [client, b] of this.buckets) if (b.tokens + (now - b.at) * perMs >= this.limit.burst) this.buckets.delete(client);
  }
}

export type Verified = { ok: true; id: string; issuedAt: number; seconds: number } | { ok: false; error: string };

/** Signed survey tokens: issued with the page, redeemed once with the submission (see the module comment). */
export class SurveyTokens {
  private readonly key = randomBytes(32);
  /** Ids already redeemed, with their issue time (forgotten once the token would have expired anyway). */
  private readonly used = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  private sign(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }

  issue(): string {
    const payload = `${randomBytes(16).toString('base64url')}.${this.now()}`;
    return `${payload}.${this.sign(payload).toString('base64url')}`;
  }

  /**
   * Is `token` genuine, unexpired and unused? With the server-measured seconds since it was issued. Does not use
   * it up: `redeem` does, once the submission it came with is accepted (a refused one may be corrected and sent
   * again from the same page).
   */
  verify(token: unknown): Verified {
    const bad = (error: string): Verified => ({ ok: false, error });
    if (typeof token !== 'string') return bad('no survey token: reload the survey page and submit again');
    const parts = token.split('.');
    if (parts.length !== 3) return bad('not a survey token: reload the survey page and submit again');
    const [id, issued, mac] = parts as [string, string, string];
    const given = Buffer.from(mac, 'base64url');
    const expected = this.sign(`${id}.${issued}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return bad('survey token not issued by this server (it may have restarted): reload the survey page and submit again');
    }
    const issuedAt = Number(issued);
    const now = this.now();
    this.forgetExpired(now);
    if (now - issuedAt > TOKEN_MAX_AGE_MS) return bad('survey token expired: reload the survey page and submit again');
    if (this.used.has(id)) return bad('this page was already submitted: reload the survey page to answer again');
    return { ok: true, id, issuedAt, seconds: Math.max(0, Math.floor((now - issuedAt) / 1000)) };
  }

  /** Use up a verified token; false when it was used meanwhile. */
  redeem(token: { id: string; issuedAt: number }): boolean {
    if (this.used.has(token.id)) return false;
    this.used.set(token.id, token.issuedAt);
    return true;
  }

  private forgetExpired(now: number): void {
    for (const [id, issuedAt] of this.used) if (now - issuedAt > TOKEN_MAX_AGE_MS) this.used.delete(id);
  }
}
