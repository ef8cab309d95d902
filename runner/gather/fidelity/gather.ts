/**
 * Gathering the fidelity evidence (core/fidelity.ts) of one candidate against its reference; called by the
 * browser gatherer's fidelity hook (browser-gatherer.ts) with its Chrome, its sandbox and the candidate's
 * sandbox site, after the visit and Lighthouse (nothing of this competes with a measurement).
 *
 * - The candidate is rendered at every viewport (render.ts) in a fresh context behind the sandbox, phase
 *   `fidelity` of its own site (so its requests are in the artifact's network log).
 * - An HTML reference (a file or a folder with index.html) is another artifact: opened in the sandbox as a site of
 *   its own and rendered by the same function in a fresh context, phase `reference`, with the same network mode
 *   and settle rules. Its views come from the reference cache (reference-cache.ts) when it was rendered before;
 *   otherwise it is rendered at the same time as the candidate (two contexts of the one Chrome).
 * - A picture reference (PNG) has no DOM and shows one window width: the candidate is rendered at one viewport,
 *   the requested viewport whose width equals the picture's, else a custom viewport of the picture's width and the
 *   height of the requested viewport nearest in width; the picture's top FIDELITY_SCREENS viewport heights are its
 *   view (`source: 'image'`). The other viewports are not compared (the metrics say so).
 *
 * Time: rendering gets the artifact's remaining budget (at least FIDELITY_MIN_MS are asked for, else both views
 * are missing with that reason). A context that cannot be closed gets Chrome killed (as the visit's).
 */
import sharp, { type Metadata } from 'sharp';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext } from 'puppeteer-core';
import { loadArtifact, readArtifactFile, type Artifact } from '../../../core/artifact.js';
import { errorMessage } from '../../../core/errors.js';
import { gathered, missing, type Evidence, type Gathered } from '../../../core/evidence.js';
import { DEFAULT_VIEWPORTS, FIDELITY_SCREENS, type FidelityEvidence, type ReferenceInput, type ReferenceRecord, type RenderedView, type ViewportSpec } from '../../../core/fidelity.js';
import { describeNetwork, type NetworkEntry, type NetworkSettings } from '../../../core/network.js';
import { ChromeProcess, sandboxContext } from '../chrome-process.js';
import type { SandboxThread, SiteHandle } from '../sandbox/sandbox-thread.js';
import { servedArtifact } from '../server.js';
import { SETTLE_MS } from '../session.js';
import { renderViews, type RenderOutcome } from './render.js';
import { RENDER_VERSION, ReferenceCache, sha256, type CachedReference } from './reference-cache.js';

/** Settings of the fidelity renders (ScorerOptions / BrowserGathererOptions). */
export interface FidelityOptions {
  /** The viewport set (default desktop, tablet, phone). */
  viewports?: readonly ViewportSpec[];
  /** The reference cache folder; false = memory only (default: reference-cache.ts). */
  fidelityCache?: string | false;
}

export const FIDELITY_MIN_MS = 3000;
export const CLOSE_TIMEOUT_MS = 5000;

export interface FidelityContext {
  chrome: ChromeProcess;
  sandbox: SandboxThread;
  /** The candidate's sandbox site. */
  site: SiteHandle;
  network: NetworkSettings;
  deadline: number;
}

/** SHA-256 of an artifact's content: every file's path and bytes, in path order, and the entry. */
export function artifactHash(a: Artifact): string {
  const h = sha256(
    Buffer.concat([
      Buffer.from(`entry:${a.entry}\0`),
      ...[...a.files].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)).flatMap((f) => [Buffer.from(`${f.path}\0${f.size}\0`), readArtifactFile(f)]),
    ]),
  );
  return h;
}

export class FidelityRenderer {
  readonly cache: ReferenceCache;
  readonly viewports: readonly ViewportSpec[];

  constructor(options: FidelityOptions = {}) {
    this.cache = new ReferenceCache(options.fidelityCache === undefined ? undefined : options.fidelityCache);
    this.viewports = options.viewports && options.viewports.length ? options.viewports : DEFAULT_VIEWPORTS;
  }

  /** The fidelity evidence of `evidence.artifact` against `ref`; never throws. */
  async gather(evidence: Evidence, ref: ReferenceInput, ctx: FidelityContext): Promise<Gathered<FidelityEvidence>> {
    const t0 = performance.now();
    try {
      if (ctx.deadline - performance.now() < FIDELITY_MIN_MS) return missing('no time left in the artifact budget to render the page and its reference');
      const out = ref.kind === 'image' ? await this.againstImage(ref, ctx) : await this.againstArtifact(ref, ctx);
      if (out.ok) out.value.timings.total = Math.round(performance.now() - t0);
      return out;
    } catch (err) {
      return missing(`rendering for the fidelity comparison failed: ${errorMessage(err)}`);
    }
  }

  private async againstArtifact(ref: ReferenceInput, ctx: FidelityContext): Promise<Gathered<FidelityEvidence>> {
    let refArtifact: Artifact;
    try {
      refArtifact = loadArtifact(ref.path);
    } catch (err) {
      return missing(`the reference ${ref.path} cannot be read: ${errorMessage(err)}`);
    }
    const browser = await ctx.chrome.browser();
    const viewports = this.viewports;
    const content = artifactHash(refArtifact);
    const key = sha256(JSON.stringify({ v: RENDER_VERSION, content, viewports, network: describeNetwork(ctx.network), chrome: await browser.version(), settle: SETTLE_MS, screens: FIDELITY_SCREENS }));
    const timings: Record<string, number> = {};
    const cached = this.cache.get(key);
    const tc = performance.now();
    const [candidate, reference] = await Promise.all([
      this.renderCandidate(browser, ctx, viewports),
      cached ? Promise.resolve(undefined) : this.renderReference(browser, ctx, refArtifact, ref, content, viewports),
    ]);
    timings.render = Math.round(performance.now() - tc);
    timings.candidate = candidate.timings.total ?? 0;
    let entry: CachedReference;
    let from: ReferenceRecord['cache'];
    if (cached) {
      entry = cached.entry;
      from = cached.from;
    } else {
      entry = reference!;
      from = 'rendered';
      timings.reference = reference!.timings;
      if (!entry.record.faults?.length && entry.views.every((v) => v.ok)) this.cache.put(key, { record: entry.record, views: entry.views });
    }
    const record: ReferenceRecord = { ...entry.record, input: ref.path, cache: from };
    return gathered({
      reference: record,
      method: 'resize',
      timings,
      pairs: viewports.map((viewport, i) => ({ viewport, candidate: candidate.views[i] ?? missing('not rendered'), reference: entry.views[i] ?? missing('not rendered') })),
    });
  }

  private async againstImage(ref: ReferenceInput, ctx: FidelityContext): Promise<Gathered<FidelityEvidence>> {
    let bytes: Buffer;
    let meta: Metadata;
    try {
      bytes = readFileSync(ref.path);
      meta = await sharp(bytes).metadata();
    } catch (err) {
      return missing(`the reference picture ${ref.path} cannot be read: ${errorMessage(err)}`);
    }
    const w = meta.width ?? 0;
    const h = meta.height ?? 0;
    if (w < 100 || h < 100) return missing(`the reference picture ${ref.path} is too small (${w}×${h} px)`);
    const viewport = pictureViewport(w, this.viewports);
    const height = Math.min(h, FIDELITY_SCREENS * viewport.height);
    const png = await sharp(bytes).extract({ left: 0, top: 0, width: w, height }).flatten({ background: '#ffffff' }).png({ compressionLevel: 1 }).toBuffer();
    const refView: RenderedView = { viewport, source: 'image', scrollWidth: w, scrollHeight: h, screenshot: { png, width: w, height, deviceScaleFactor: 1 } };
    const browser = await ctx.chrome.browser();
    const tc = performance.now();
    const candidate = await this.renderCandidate(browser, ctx, [viewport]);
    const record: ReferenceRecord = { input: ref.path, kind: 'image', sha256: sha256(bytes), viewports: [viewport.name], network: describeNetwork(ctx.network), cache: 'rendered' };
    return gathered({
      reference: record,
      method: 'resize',
      timings: { render: Math.round(performance.now() - tc), candidate: candidate.timings.total ?? 0 },
      pairs: [{ viewport, candidate: candidate.views[0] ?? missing('not rendered'), reference: gathered(refView) }],
    });
  }

  private async renderCandidate(browser: Browser, ctx: FidelityContext, viewports: readonly ViewportSpec[]): Promise<RenderOutcome> {
    return this.inContext(browser, await ctx.site.endpoint('fidelity'), ctx, (c) => renderViews(c, ctx.site.entryUrl, { viewports, deadline: ctx.deadline }), viewports.length);
  }

  private async renderReference(browser: Browser, ctx: FidelityContext, artifact: Artifact, ref: ReferenceInput, content: string, viewports: readonly ViewportSpec[]): Promise<CachedReference & { timings: number }> {
    const site = await ctx.sandbox.open(servedArtifact(artifact));
    let out: RenderOutcome;
    let log: NetworkEntry[] = [];
    try {
      out = await this.inContext(browser, await site.endpoint('reference'), ctx, (c) => renderViews(c, site.entryUrl, { viewports, deadline: ctx.deadline }), viewports.length);
    } finally {
      log = (await site.close().catch(() => ({ log: [] as NetworkEntry[] }))).log;
    }
    const blocked = log.filter((e) => e.disposition === 'blocked').length;
    const record: Omit<ReferenceRecord, 'cache'> = { input: ref.path, kind: 'artifact', sha256: content, viewports: viewports.map((v) => v.name), network: describeNetwork(ctx.network) };
    if (blocked) record.blocked = blocked;
    if (out.faults.length) record.faults = out.faults;
    return { record, views: out.views, timings: out.timings.total ?? 0 };
  }

  private async inContext(browser: Browser, proxy: string, ctx: FidelityContext, fn: (c: BrowserContext) => Promise<RenderOutcome>, n: number): Promise<RenderOutcome> {
    let context: BrowserContext | undefined;
    try {
      context = await sandboxContext(browser, proxy);
      return await fn(context);
    } catch (err) {
      const why = `rendering failed: ${errorMessage(err)}`;
      return { views: Array.from({ length: n }, () => missing<RenderedView>(why)), faults: [why], loaded: false, timings: {} };
    } finally {
      if (context) {
        let timer: NodeJS.Timeout | undefined;
        const closed = await Promise.race([context.close().then(() => true, () => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), CLOSE_TIMEOUT_MS)))]);
        clearTimeout(timer);
        if (!closed) await ctx.chrome.kill();
      }
    }
  }
}

/** The viewport a picture of width `w` shows (see the module comment). */
export function pictureViewport(w: number, viewports: readonly ViewportSpec[]): ViewportSpec {
  const same = viewports.find((v) => v.width === w);
  if (same) return { ...same };
  const nearest = [...(viewports.length ? viewports : DEFAULT_VIEWPORTS)].sort((a, b) => Math.abs(a.width - w) - Math.abs(b.width - w))[0]!;
  return { name: `${w}x${nearest.height}`, width: w, height: nearest.height };
}
