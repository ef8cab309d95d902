/**
 * The remote-check gatherer: provides the `network` need by checking the distinct remote URLs the artifact
 * references (lib/js-urls.ts `remoteUrls`) and filling `evidence.remote`.
 *
 * Two sources, never the page itself:
 * - In network mode `cdn` (the default), URLs of well-known CDN hosts are checked through the CDN cache (cdn/):
 *   a URL whose package, version or file exists is valid (`via: 'cdn cache'`), one the registry says was never
 *   published is invalid (the page's defect: on the real CDN it is a 404 too), one the cache cannot serve (an
 *   unsupported URL form, the registry out of reach, over the page's download budget of cdn/budget.ts) is
 *   unverified with that reason. The same HEAD answer the sandbox gives the page; after the visit the cache is
 *   warm for everything the page requested.
 * - With `--check-network`, every other remote URL is requested over the internet (below).
 *
 * `--check-network` choices:
 * - Each URL: HEAD first; when HEAD fails or answers an error status (many servers reject HEAD with 403/405/501),
 *   one GET whose body is discarded as soon as the headers arrive. Redirects are followed one hop at a time
 *   (at most MAX_REDIRECTS, fetch's 20). ok = the final status is 2xx.
 * - Only public internet destinations are contacted (destination.ts): every hop's host is resolved and each of
 *   its addresses checked before connecting, and the connection goes to exactly those addresses. A URL that
 *   leads to a loopback, private, link-local ... address is not requested and is recorded as *unverified*
 *   ("not checked: private/loopback destination"): not the page's defect, and not for the page to probe.
 * - Each request has REQUEST_TIMEOUT_MS (8 s, or less when the artifact's time budget is lower); at most
 *   CONCURRENCY (8) requests run at once (p-queue). URLs not started before the budget ran out are recorded as
 *   not ok with error "not checked: time budget exhausted".
 * - Only http(s) URLs are requested; anything else is recorded as not ok ("unsupported scheme").
 * - The requests are made by Node, not by the page: the page itself still reaches nothing but its own server.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import PQueue from 'p-queue';
import { gathered, type RemoteCheck } from '../core/evidence.js';
import type { GatherContext, Gatherer, GatheredParts, GathererOptions } from '../core/gatherer.js';
import { errorMessage } from '../core/errors.js';
import { remoteUrls } from '../lib/js-urls.js';
import { DEFAULT_NETWORK_MODE, type NetworkSettings } from '../core/network.js';
import { CdnCache, isCdnHost, type CdnOptions } from '../cdn/index.js';
import { checkDestination, PRIVATE_DESTINATION, PUBLIC_ONLY, type DestinationPolicy, type ResolvedAddress } from './destination.js';

/** Is this remote URL on a well-known CDN host (answered by the CDN cache)? */
function isCdnUrl(url: string): boolean {
  try {
    return isCdnHost(new URL(url.startsWith('//') ? `https:${url}` : url).host);
  } catch {
    return false;
  }
}

export const REQUEST_TIMEOUT_MS = 8_000;
export const CONCURRENCY = 8;

export interface RemoteCheckSettings {
  timeoutMs?: number;
  /** Where requests may go (default: public addresses only; see destination.ts). */
  policy?: DestinationPolicy;
  concurrency?: number;
  /** Overall deadline for all checks, in ms. */
  budgetMs?: number;
}

function describeError(err: unknown): string {
  const e = err as Error & { code?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timed out';
  if (e?.code) return `${e.code}${e.message ? ` (${e.message})` : ''}`;
  return errorMessage(err);
}

/** Redirects followed per request, as fetch does. */
export const MAX_REDIRECTS = 20;

type Answer = { status: number } | { error: string } | { refused: true };

/** One request to one checked destination; the answer's body is discarded as soon as the headers arrive. */
function requestOnce(
  url: URL,
  method: 'HEAD' | 'GET',
  addresses: readonly ResolvedAddress[],
  signal: AbortSignal,
): Promise<{ status: number; location?: string }> {
  // The connection goes to the addresses checked before, never to a second DNS answer. With `all` (asked by
  // net's happy-eyeballs connect) the callback takes the whole list, which @types/node's signature leaves out.
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all)
      (callback as unknown as (err: null, all: LookupAddress[]) => void)(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method, signal, lookup, headers: { accept: '*/*', 'user-agent': 'node' } }, (res) => {
      res.destroy();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request that follows redirects itself, checking the destination of every hop before contacting it. */
async function request(url: string, method: 'HEAD' | 'GET', timeoutMs: number, policy: DestinationPolicy): Promise<Answer> {
  const signal = AbortSignal.timeout(timeoutMs);
  // The timeout bounds the name resolution too (a resolver can take far longer than the request may).
  const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  aborted.catch(() => undefined);
  let current = new URL(url);
  try {
    for (let hop = 0; ; hop++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') return { error: `redirected to an unsupported scheme (${current.protocol})` };
      const destination = await Promise.race([checkDestination(current, policy), aborted]);
      if (!destination.ok) return destination.error ? { error: destination.error } : { refused: true };
      const res = await requestOnce(current, method, destination.addresses, signal);
      if (!REDIRECTS.has(res.status) || !res.location) return { status: res.status };
      if (hop === MAX_REDIRECTS) return { error: `more than ${MAX_REDIRECTS} redirects` };
      current = new URL(res.location, current);
    }
  } catch (err) {
    return { error: describeError(signal.aborted ? signal.reason : err) };
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const refusedCheck = (url: string): RemoteCheck => ({ url, ok: false, unverified: PRIVATE_DESTINATION });

/**
 * Check one URL: HEAD, then GET when HEAD did not give a 2xx. `policy` says where requests may go: public
 * addresses only, unless a test says otherwise.
 */
export async function checkUrl(url: string, timeoutMs = REQUEST_TIMEOUT_MS, policy: DestinationPolicy = PUBLIC_ONLY): Promise<RemoteCheck> {
  if (!/^https?:\/\//i.test(url)) return { url, ok: false, error: 'unsupported scheme' };
  try {
    new URL(url);
  } catch {
    return { url, ok: false, error: 'not a valid URL' };
  }
  const head = await request(url, 'HEAD', timeoutMs, policy);
  if ('refused' in head) return refusedCheck(url);
  if ('status' in head && head.status >= 200 && head.status < 300) return { url, ok: true, status: head.status };
  // A timed-out HEAD is not retried: a GET would only wait as long again.
  if ('error' in head && head.error === 'timed out') return { url, ok: false, error: 'timed out' };
  const get = await request(url, 'GET', timeoutMs, policy);
  if ('refused' in get) return refusedCheck(url);
  if ('status' in get) return { url, ok: get.status >= 200 && get.status < 300, status: get.status };
  return { url, ok: false, error: get.error };
}

/** Check many URLs with a concurrency limit and an overall deadline. */
export async function checkUrls(urls: readonly string[], settings: RemoteCheckSettings = {}): Promise<Record<string, RemoteCheck>> {
  const deadline = Date.now() + (settings.budgetMs ?? Number.POSITIVE_INFINITY);
  const timeout = settings.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const queue = new PQueue({ concurrency: settings.concurrency ?? CONCURRENCY });
  const out: Record<string, RemoteCheck> = {};
  await Promise.all(
    urls.map((url) =>
      queue.add(async () => {
        const left = deadline - Date.now();
        if (left <= 50) {
          out[url] = { url, ok: false, error: 'not checked: time budget exhausted' };
          return;
        }
        out[url] = await checkUrl(url, Math.min(timeout, left), settings.policy);
      }),
    ),
  );
  return out;
}

/** Check CDN URLs through the CDN cache (HEAD; see the module comment). */
export async function checkCdnUrls(urls: readonly string[], cache: CdnCache, budgetMs: number): Promise<Record<string, RemoteCheck>> {
  const deadline = Date.now() + budgetMs;
  // the same per-page budget as the visit's (cdn/budget.ts), and downloads stop when the time is up: what is over
  // it is unverified with the reason, never counted against the page
  const budget = cache.pageBudget(AbortSignal.timeout(Math.min(Math.max(1, Math.ceil(budgetMs)), 2 ** 31 - 1))); // (an integer within Node's timer limit)
  const out: Record<string, RemoteCheck> = {};
  const queue = new PQueue({ concurrency: CONCURRENCY });
  await Promise.all(
    urls.map((url) =>
      queue.add(async () => {
        if (Date.now() > deadline - 50) {
          out[url] = { url, ok: false, via: 'cdn cache', unverified: 'not checked: time budget exhausted' };
          return;
        }
        let u: URL;
        try {
          u = new URL(url.startsWith('//') ? `https:${url}` : url);
        } catch {
          out[url] = { url, ok: false, via: 'cdn cache', error: 'not a valid URL' };
          return;
        }
        try {
          const a = await cache.answer(u, { method: 'HEAD', headers: {}, budget });
          if (a.kind === 'served') out[url] = { url, ok: true, status: a.status, via: 'cdn cache' };
          else if (a.kind === 'not-found') out[url] = { url, ok: false, status: 404, error: a.reason, via: 'cdn cache' };
          else out[url] = { url, ok: false, via: 'cdn cache', unverified: a.reason };
        } catch (err) {
          out[url] = { url, ok: false, via: 'cdn cache', unverified: `the CDN cache failed: ${errorMessage(err)}` };
        }
      }),
    ),
  );
  return out;
}

/**
 * `destinations` is for tests only (to reach a local test server); nothing on the command line or in a page sets
 * it, so scoring always uses `PUBLIC_ONLY`.
 */
export function remoteCheckGathererFactory(
  options: GathererOptions & { network?: NetworkSettings; cdn?: CdnOptions; destinations?: DestinationPolicy },
): Gatherer[] {
  const mode = options.network?.mode ?? DEFAULT_NETWORK_MODE;
  let cache: CdnCache | undefined;
  return [
    {
      meta: { id: 'remote-check', provides: ['network'], fills: ['remote'] },
      async gather(ctx: GatherContext): Promise<GatheredParts> {
        const { evidence } = ctx;
        const urls = remoteUrls(evidence.artifact);
        const cdnUrls = mode === 'cdn' ? urls.filter((u) => isCdnUrl(u)) : [];
        const others = options.checkNetwork ? urls.filter((u) => !cdnUrls.includes(u)) : [];
        if (cdnUrls.length === 0 && others.length === 0) return options.checkNetwork ? { remote: gathered({}) } : {};
        const left = () => Math.max(0, Math.floor(ctx.deadline - performance.now()));
        cache ??= new CdnCache(options.cdn ?? (options.network?.cdnCache ? { dir: options.network.cdnCache } : {}));
        const viaCdn = cdnUrls.length ? await checkCdnUrls(cdnUrls, cache, left()) : {};
        const viaNet = others.length ? await checkUrls(others, { budgetMs: left(), policy: options.destinations }) : {};
        for (const c of Object.values(viaNet)) c.via = 'network';
        return { remote: gathered({ ...viaCdn, ...viaNet }) };
      },
      async close(): Promise<void> {
        /* nothing held between artifacts */
      },
    },
  ];
}
