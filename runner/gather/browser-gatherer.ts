/**
 * The browser gatherer: provides the evidence needs 'browser', 'screenshot' and 'lighthouse' from one Chrome
 * kept alive across artifacts. Per artifact: a loopback server rooted at the artifact, one visit in a fresh
 * browser context (session.ts), then — only when a selected metric needs it — one Lighthouse run on the same
 * Chrome (lighthouse.ts).
 *
 * Budget: the artifact's remaining budget is split so that a slow visit cannot starve Lighthouse: when
 * Lighthouse is needed the visit must end LIGHTHOUSE_RESERVE_MS (or 45% of the budget if less) before the
 * deadline; Lighthouse gets whatever is left. Lighthouse is not run when the visit showed that the page never
 * finished loading or stopped responding (it would only burn the budget): the Lighthouse metrics are then
 * unscorable with that reason.
 *
 * Faults: a context that cannot be closed in CLOSE_TIMEOUT_MS, a Lighthouse run over its time, or a Chrome that
 * disconnected gets Chrome killed; the next artifact starts a new one.
 */
import type { Evidence } from '../evidence.js';
import { gathered, missing } from '../evidence.js';
import { errorMessage } from '../errors.js';
import type { Gatherer, GatherRequest, GathererFactory, GathererOptions } from '../gatherers.js';
import type { BrowserEvidence } from '../browser-evidence.js';
import { ChromeProcess } from './chrome-process.js';
import { LighthouseTimeout, runLighthouse } from './lighthouse.js';
import { startArtifactServer } from './server.js';
import { visitArtifact } from './session.js';

export const LIGHTHOUSE_RESERVE_MS = 25_000;
export const CLOSE_TIMEOUT_MS = 5_000;

export class BrowserGatherer implements Gatherer {
  readonly name = 'browser';
  readonly provides = ['browser', 'screenshot', 'lighthouse'] as const;
  readonly chrome = new ChromeProcess();

  constructor(readonly options: Partial<GathererOptions> = {}) {}

  async gather(evidence: Evidence, request: GatherRequest): Promise<void> {
    const needsBrowser = request.needs.has('browser') || request.needs.has('screenshot');
    const needsLighthouse = request.needs.has('lighthouse');
    const start = performance.now();
    const deadline = start + request.budgetMs;
    const server = await startArtifactServer(evidence.artifact);
    try {
      if (needsBrowser) {
        const reserve = needsLighthouse ? Math.min(LIGHTHOUSE_RESERVE_MS, request.budgetMs * 0.45) : 0;
        evidence.browser = await this.visit(evidence, server.origin, server.entryUrl, deadline - reserve, request.needs.has('screenshot'));
      }
      if (needsLighthouse) evidence.lighthouse = await this.lighthouse(evidence, server.entryUrl, deadline);
    } finally {
      await server.close();
    }
  }

  private async visit(evidence: Evidence, origin: string, url: string, deadline: number, screenshots: boolean) {
    let browser;
    try {
      browser = await this.chrome.browser();
    } catch (err) {
      return missing<BrowserEvidence>(`could not start Chrome: ${errorMessage(err)}`);
    }
    let context;
    try {
      context = await browser.createBrowserContext();
      const ev = await visitArtifact(context, evidence.artifact, origin, url, { deadline, screenshots });
      return gathered(ev);
    } catch (err) {
      const dead = !this.chrome.alive;
      if (dead) await this.chrome.kill();
      return missing<BrowserEvidence>(dead ? `Chrome died during the visit (${errorMessage(err)}); it is restarted for the next artifact` : `browser session failed: ${errorMessage(err)}`);
    } finally {
      if (context) await this.closeContext(context);
    }
  }

  private async closeContext(context: { close(): Promise<void> }): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([
      context.close().then(() => true, () => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), CLOSE_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (!ok) await this.chrome.kill();
  }

  private async lighthouse(evidence: Evidence, url: string, deadline: number) {
    const b = evidence.browser;
    if (b?.ok) {
      if (b.value.loaded === false) return missing(`Lighthouse not run: the page did not finish loading in the browser session (${b.value.faults.join('; ')})`);
      if (b.value.unavailable?.domHtml) return missing(`Lighthouse not run: ${b.value.unavailable.domHtml}`);
    }
    const timeoutMs = deadline - performance.now();
    if (timeoutMs < 3000) return missing('Lighthouse not run: no time left in the artifact budget');
    let port: number;
    try {
      await this.chrome.browser();
      port = this.chrome.port!;
    } catch (err) {
      return missing(`could not start Chrome for Lighthouse: ${errorMessage(err)}`);
    }
    try {
      return gathered(await runLighthouse(url, { port, timeoutMs }));
    } catch (err) {
      if (err instanceof LighthouseTimeout || !this.chrome.alive) await this.chrome.kill();
      return missing(errorMessage(err));
    }
  }

  fail(evidence: Evidence, reason: string): void {
    evidence.browser ??= missing(reason);
    evidence.lighthouse ??= missing(reason);
  }

  async close(): Promise<void> {
    await this.chrome.kill();
  }
}

export const browserGathererFactory: GathererFactory = (options) => new BrowserGatherer(options);
