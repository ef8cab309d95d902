/**
 * Which requests in the sandbox's log are the page's, and which the browser made on its own (issue: a newer
 * Chromium asks `https://www.google.com/async/folae` from every browser context, and each Chromium release may
 * add another such request). Every request of a browser context reaches the sandbox proxy, the browser's own
 * included, so the proxy alone cannot tell them apart; where a request comes from can:
 *
 * 1. **The page's targets.** While a phase runs, a CDP session on every target of its browser context (the page,
 *    popups, frames in other processes, dedicated and service workers) records the requests Chrome
 *    reports for it (`Network.requestWillBeSent`, `Network.webSocketCreated`). Lighthouse's phase uses its own
 *    DevTools log, which holds the same events for every target of its tab. A request one of them made is the
 *    page's.
 * 2. **Its initiator.** A request that carries an initiator, a `Sec-Fetch-Site` other than `none` (Fetch
 *    Metadata: a document or worker of some origin asked for it), an `Origin` or a `Referer`, was made by a page
 *    (a service worker's own script, which no target reports, is one). So is every request to the artifact's own
 *    origin (the browser's services do not call it), except the favicon probe. A tunnel whose request the sandbox
 *    never read is the page's when the page's targets asked its host and port.
 * 3. **Everything else is the browser's**: no target of the page made it and nothing initiated it (components,
 *    safe browsing, "folae", variations), and so is the favicon probe the browser sends for every document.
 *
 * The browser's requests are still refused (the sandbox's promise holds); they are logged apart with the reason
 * (`BrowserEvidence.browserNetwork`) and never reach a metric, a count or a printed reason.
 */
import { BrowserContextEvent, type BrowserContext, type CDPSession, type Target } from 'puppeteer-core';
import type { NetworkEntry, SandboxPhase } from '../core/network.js';

/** The key a request is matched by: method and URL, cut as the sandbox cuts it. */
export function requestKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url.length > 2000 ? url.slice(0, 2000) + '…' : url}`;
}

/** The requests Chrome reported for the page's targets, per phase (a phase absent: none were recorded). */
export type SeenRequests = Map<SandboxPhase, Set<string>>;

/** Why a request is counted as the browser's own, said in the evidence. */
export const BROWSER_MADE_REASON = 'made by the browser itself: no frame or worker of the page made it, and nothing initiated it';
export const FAVICON_REASON = 'the favicon probe the browser sends for every document';

/** The request carried an initiator (rule 2 of the module comment). */
function initiated(e: NetworkEntry): boolean {
  return (e.fetchSite !== undefined && e.fetchSite !== 'none') || e.referred === true;
}

/**
 * Splits the sandbox's log into the page's requests and the browser's own (see the module comment). `origin` is
 * the artifact's (`http://127.0.0.1:61080`, server.ts `ARTIFACT_ORIGIN`); a tunnel (a CONNECT the sandbox could not look inside) is the page's.
 */
export function attributeRequests(log: readonly NetworkEntry[], seen: SeenRequests, origin: string): { page: NetworkEntry[]; browser: NetworkEntry[] } {
  const page: NetworkEntry[] = [];
  const browser: NetworkEntry[] = [];
  for (const e of log) {
    if (e.browserMade) {
      browser.push({ ...e, browserReason: e.browserReason ?? FAVICON_REASON });
      continue;
    }
    const keys = seen.get(e.phase);
    const own =
      e.destination === 'tunnel'
        ? tunnelOfPage(e.url, keys)
        : e.url.startsWith(origin + '/') || initiated(e) || keys?.has(requestKey(e.method, e.url)) === true;
    if (own) page.push(e);
    else browser.push({ ...e, browserMade: true, browserReason: BROWSER_MADE_REASON });
  }
  return { page, browser };
}

/**
 * A tunnel the sandbox could not look inside (`host:port`; its request was never read) is the page's when one of
 * the page's targets asked that host and port in the same phase; the browser's own (an aborted "folae") otherwise.
 */
function tunnelOfPage(target: string, keys: ReadonlySet<string> | undefined): boolean {
  if (!keys) return false;
  for (const k of keys) {
    try {
      const u = new URL(k.slice(k.indexOf(' ') + 1));
      const port = u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? '443' : '80');
      if (`${u.hostname}:${port}` === target || `[${u.hostname}]:${port}` === target) return true;
    } catch {
      // Not a URL with an authority (data:, blob:): not a tunnel's.
    }
  }
  return false;
}

/** Request keys in a Lighthouse DevTools log (every target of its tab). */
export function requestKeysFromDevtoolsLog(log: unknown): string[] {
  if (!Array.isArray(log)) return [];
  const keys = new Set<string>();
  for (const m of log as Array<{ method?: string; params?: { request?: { method?: string; url?: string }; url?: string } }>) {
    if (m.method === 'Network.requestWillBeSent' && m.params?.request?.url) keys.add(requestKey(m.params.request.method ?? 'GET', m.params.request.url));
    else if (m.method === 'Network.webSocketCreated' && m.params?.url) keys.add(requestKey('GET', m.params.url));
  }
  return [...keys];
}

/**
 * Target types whose requests are recorded (`tab` and `browser` make none of the page's). Not shared workers: a
 * second session on one made Lighthouse's next run in another context fail ("Target.setAutoAttach: Target
 * closed", Chromium 150, every time); their requests carry an initiator, which counts them as the page's.
 */
const WATCHED = new Set(['page', 'other', 'iframe', 'worker', 'service_worker', 'webview', 'background_page']);

/**
 * Records every request the targets of one browser context report, from when it is made until `stop()`. A target
 * is attached when it appears (a request in its first milliseconds can be missed; rule 2 of the module comment
 * still counts it as the page's when it had an initiator).
 */
export class RequestWatch {
  private readonly sessions: CDPSession[] = [];
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;
  private readonly onTarget = (t: Target) => this.track(this.attach(t));

  constructor(
    private readonly context: BrowserContext,
    readonly keys: Set<string> = new Set(),
  ) {
    context.on(BrowserContextEvent.TargetCreated, this.onTarget);
    for (const t of context.targets()) this.track(this.attach(t));
  }

  /** Resolves when every target seen so far is being recorded. */
  async ready(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /** Stop recording (the sessions end with the context). */
  stop(): Set<string> {
    this.stopped = true;
    this.context.off(BrowserContextEvent.TargetCreated, this.onTarget);
    for (const s of this.sessions) void s.detach().catch(() => undefined);
    return this.keys;
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async attach(target: Target): Promise<void> {
    if (this.stopped || !WATCHED.has(target.type())) return;
    try {
      const s = await target.createCDPSession();
      if (this.stopped) return void s.detach().catch(() => undefined);
      this.sessions.push(s);
      s.on('Network.requestWillBeSent', (e: { request: { method: string; url: string } }) => this.keys.add(requestKey(e.request.method, e.request.url)));
      s.on('Network.webSocketCreated', (e: { url: string }) => this.keys.add(requestKey('GET', e.url)));
      await s.send('Network.enable');
    } catch {
      // A target that closed before it could be attached made no request we could have seen.
    }
  }
}
