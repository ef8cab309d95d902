/**
 * What the browser gatherers (gather/gatherers/) share: one Chrome kept alive across artifacts, the sandbox
 * thread that serves each artifact on a loopback site and is the browser's only way out (sandbox/), and the
 * Lighthouse worker thread. It is their `scope` (core/gatherer.ts): per artifact it opens the site when the
 * first of them asks, runs each one's work as this page's steps of the step gate (step-gate.ts: its own
 * Lighthouse thread's measurement never holds them, another page's does, within one bound per artifact), and
 * when the runner ends the artifact it closes the site and records what the sandbox saw into the evidence:
 * every phase's requests, the browser's own kept apart, the navigations away it blocked, the console lines about
 * requests it refused marked as webgrade's doing, the page loads per phase and the time the gate held.
 *
 * Faults: a context that cannot be closed in CLOSE_TIMEOUT_MS, or a Chrome that disconnected, gets Chrome
 * killed; the next artifact (or the next gatherer) starts a new one.
 */
import type { BrowserContext, Page } from 'puppeteer-core';
import pTimeout from 'p-timeout';
import type { Evidence } from '../core/evidence.js';
import type { GatherScope } from '../core/gatherer.js';
import type { BrowserEvidence } from '../core/browser-evidence.js';
import { DEFAULT_NETWORK_MODE, networkRecord, type NetworkEntry, type NetworkSettings, type SandboxPhase } from '../core/network.js';
import type { CdnOptions } from '../cdn/index.js';
import { LighthouseThread } from './lighthouse-thread.js';
import { ChromeProcess, sandboxContext } from './chrome-process.js';
import { SandboxThread, type SiteHandle } from './sandbox/sandbox-thread.js';
import { servedArtifact } from './server.js';
import { attributeRequests, type SeenRequests } from './page-requests.js';
import { gate } from './step-gate.js';
import { countLoads } from './loads.js';
import type { VisitClockMode } from '../core/visit-clock.js';

export const CLOSE_TIMEOUT_MS = 5_000;

/** The kit's settings: what pages may reach. */
export interface BrowserKitOptions {
  /** The network mode (default `cdn`). */
  network?: NetworkSettings;
  /** Options of the CDN cache that answers CDN requests in `cdn` mode (cdn/). */
  cdn?: CdnOptions;
  /** Hosts that count as CDNs instead of cdn/'s list (tests). */
  cdnHosts?: readonly string[];
  /** The visit's page clock (visit.ts VisitOptions `clock`; default `'real'`). */
  visitClock?: VisitClockMode;
}

/** One artifact's share of the kit while its gatherers run. */
interface ArtifactSite {
  site: Promise<SiteHandle>;
  /** The step gate's bound on this page's held time, shared by its gatherers. */
  gate: { heldMs: number };
  /** Per phase, the requests its pages' targets made (page-requests.ts). */
  seen: SeenRequests;
  /** Per phase, a context with a blank page opened ahead of its gatherer (`preopen`), not yet taken. */
  preopened: Map<SandboxPhase, Promise<PreopenedPage | undefined>>;
}

/** A browser context of a phase and a blank page in it, opened ahead of the gatherer that navigates it. */
export interface PreopenedPage {
  context: BrowserContext;
  page: Page;
}

export class BrowserKit implements GatherScope {
  readonly id = 'browser';
  readonly sandbox: SandboxThread;
  readonly chrome: ChromeProcess;
  readonly thread = new LighthouseThread();
  readonly network: NetworkSettings;
  /** The sandbox key the running Chrome accepts (a restarted sandbox thread has a new one). */
  private chromeSpki?: string;
  private readonly artifacts = new WeakMap<Evidence, ArtifactSite>();

  constructor(readonly options: BrowserKitOptions = {}) {
    this.network = options.network ?? { mode: DEFAULT_NETWORK_MODE };
    const cdn: CdnOptions | undefined = options.cdn ?? (this.network.cdnCache ? { dir: this.network.cdnCache } : undefined);
    this.sandbox = new SandboxThread({ network: this.network, ...(cdn ? { cdn } : {}), ...(options.cdnHosts ? { cdnHosts: options.cdnHosts } : {}) });
    this.chrome = new ChromeProcess({
      spki: async () => {
        this.chromeSpki = await this.sandbox.certificates();
        return this.chromeSpki;
      },
    });
  }

  private of(evidence: Evidence): ArtifactSite {
    let a = this.artifacts.get(evidence);
    if (!a) {
      const site = (async () => {
        const spki = await this.sandbox.certificates();
        if (this.chromeSpki && this.chromeSpki !== spki) await this.chrome.kill(); // the sandbox thread was restarted
        return this.sandbox.open(servedArtifact(evidence.artifact));
      })();
      site.catch(() => undefined);
      a = { site, gate: { heldMs: 0 }, seen: new Map(), preopened: new Map() };
      this.artifacts.set(evidence, a);
    }
    return a;
  }

  /** The artifact's loopback site (opened on first use; a failure to open is each asker's error). */
  site(evidence: Evidence): Promise<SiteHandle> {
    return this.of(evidence).site;
  }

  async within<T>(evidence: Evidence, work: () => Promise<T>): Promise<T> {
    const a = this.of(evidence);
    const held = a.gate.heldMs;
    try {
      return await gate.scope(() => this.thread.threadId, work, a.gate);
    } finally {
      const b = evidence.browser;
      if (b?.ok && a.gate.heldMs > held) b.value.timings.gateHeld = a.gate.heldMs;
    }
  }

  /** The set the requests of `phase` of this artifact's pages are recorded into. */
  requestsOf(evidence: Evidence, phase: SandboxPhase): Set<string> {
    const m = this.of(evidence).seen;
    let keys = m.get(phase);
    if (!keys) m.set(phase, (keys = new Set()));
    return keys;
  }

  /** A fresh browser context of `phase` whose only way out is this artifact's sandbox site. */
  async context(evidence: Evidence, phase: SandboxPhase): Promise<BrowserContext> {
    const browser = await this.chrome.browser();
    const site = await this.site(evidence);
    return sandboxContext(browser, await site.endpoint(phase), this.requestsOf(evidence, phase));
  }

  /**
   * Begin opening a context of `phase` and a blank page in it now, while another gatherer works, for the gatherer
   * that navigates it next (`takePreopened`): a new context's first page starts a renderer process, 0.3–0.7 s on a
   * two-core machine, which then overlaps the other gatherer's waits (the runtime watch's real-time window) instead of
   * adding to the artifact's chain. Never throws; a failure leaves nothing to take (the taker opens its own).
   */
  preopen(evidence: Evidence, phase: SandboxPhase): void {
    const a = this.of(evidence);
    if (a.preopened.has(phase)) return;
    const opening = (async () => {
      const context = await this.context(evidence, phase);
      try {
        return { context, page: await context.newPage() };
      } catch (err) {
        await this.closeContext(context);
        throw err;
      }
    })().catch(() => undefined);
    a.preopened.set(phase, opening);
  }

  /** The context and page `preopen` opened for `phase` of this artifact (undefined: none, or it failed); once. */
  async takePreopened(evidence: Evidence, phase: SandboxPhase): Promise<PreopenedPage | undefined> {
    const a = this.artifacts.get(evidence);
    const opening = a?.preopened.get(phase);
    if (!opening) return undefined;
    a!.preopened.delete(phase);
    return opening;
  }

  /** Close a context; one that does not close in CLOSE_TIMEOUT_MS gets Chrome killed. */
  async closeContext(context: { close(): Promise<void> }): Promise<void> {
    const closing = context.close().then(
      () => true,
      () => true,
    );
    if (!(await pTimeout(closing, { milliseconds: CLOSE_TIMEOUT_MS, fallback: () => false }))) await this.chrome.kill();
  }

  /** After a browser step threw: kill a Chrome that died (the next step starts a new one); whether it had died. */
  async afterFault(): Promise<boolean> {
    const dead = !this.chrome.alive;
    if (dead) await this.chrome.kill();
    return dead;
  }

  /**
   * Mark now, from the sandbox's log so far, the visit's console lines about requests it refused (the metrics
   * that need only the visit are scored before the site closes; `end` marks them again from the whole log).
   */
  async markConsoleSoFar(evidence: Evidence, b: BrowserEvidence): Promise<void> {
    const a = this.artifacts.get(evidence);
    if (!a) return;
    const site = await a.site.catch(() => undefined);
    if (!site) return;
    const { log } = await site.log().catch(() => ({ log: [] as NetworkEntry[] }));
    markWebgradeCaused(b, attributeRequests(log, a.seen, site.origin).page);
  }

  async end(evidence: Evidence): Promise<void> {
    const a = this.artifacts.get(evidence);
    if (!a) return;
    this.artifacts.delete(evidence);
    // Opened ahead for a gatherer that never took it (it did not run, or the artifact ended early): closed once open,
    // waited for at most CLOSE_TIMEOUT_MS.
    for (const opening of a.preopened.values()) {
      const closed = opening.then((left) => (left ? this.closeContext(left.context) : undefined));
      await pTimeout(closed, { milliseconds: CLOSE_TIMEOUT_MS, fallback: () => undefined });
    }
    const site = await a.site.catch(() => undefined);
    if (!site) return;
    const { log, dropped } = await site.close().catch(() => ({ log: [] as NetworkEntry[], dropped: 0 }));
    this.record(evidence, site, a.seen, log, dropped);
  }

  /**
   * The sandbox's log into the evidence: every phase's requests of the page (the browser's own kept apart, in
   * `browserNetwork`); faults for navigations away it kept; and a "Failed to load resource" console line about a
   * request the sandbox refused or withheld is marked as webgrade's doing (console-errors does not count it).
   */
  private record(evidence: Evidence, site: SiteHandle, seen: SeenRequests, all: NetworkEntry[], dropped: number): void {
    const { page: log, browser } = attributeRequests(all, seen, site.origin);
    evidence.network = networkRecord(this.network, log, browser.length);
    const loads = countLoads(all, site.origin);
    if (evidence.interaction?.ok) evidence.interaction.value.network = log.filter((e) => e.phase === 'interaction');
    const b = evidence.browser;
    if (!b?.ok) return;
    b.value.network = log;
    Object.assign(b.value.timings, loads);
    if (browser.length) b.value.browserNetwork = browser;
    const last = markWebgradeCaused(b.value, log);
    for (const e of last.values()) {
      if (!e.navigationKept) continue;
      const f = `navigation away to ${e.url.slice(0, 200)} blocked`;
      if (!b.value.faults.includes(f)) b.value.faults.push(f);
    }
    if (dropped) b.value.faults.push(`${dropped} more requests not logged (log full)`);
  }

  /** Chrome started (with the sandbox it trusts) and Lighthouse's thread importing Lighthouse. */
  async warm(): Promise<void> {
    this.thread.warm();
    await this.chrome.browser().then(
      () => undefined,
      () => undefined,
    );
  }

  async close(): Promise<void> {
    await this.thread.terminate();
    await this.chrome.kill();
    await this.sandbox.terminate();
  }
}

/**
 * The URL a browser-made console line about a failed request names: "Failed to load resource" lines carry it as
 * their source URL; Chrome's subresource-integrity and fetch refusals name it in their text (a withheld file is
 * answered with an error body, whose digest then fails the page's `integrity` check).
 */
export function failedRequestUrl(c: Pick<BrowserEvidence['console'][number], 'text' | 'url'>): string | undefined {
  if (c.url && /^Failed to load resource/.test(c.text)) return c.url;
  const m =
    /^Failed to find a valid digest in the 'integrity' attribute for resource '([^']+)'/.exec(c.text) ?? /^Fetch API cannot load (\S+?)\.? /.exec(c.text);
  return m?.[1];
}

/**
 * Mark the console lines about requests the sandbox refused or withheld during the visit ("Failed to load
 * resource", and the integrity and fetch refusals that follow a withheld file) as webgrade's doing
 * (console-errors does not count them). Returns the visit's last log entry per URL.
 */
function markWebgradeCaused(b: BrowserEvidence, log: readonly NetworkEntry[]): Map<string, NetworkEntry> {
  const last = new Map<string, NetworkEntry>();
  for (const e of log) if (e.phase === 'visit') last.set(e.url, e);
  for (const c of b.console) {
    const url = failedRequestUrl(c);
    if (!url) continue;
    const seen = last.get(url);
    if (seen?.disposition !== 'blocked') continue;
    c.webgradeCaused = true;
    delete c.browserMade;
    if (seen.withheld) c.withheld = true;
  }
  return last;
}
