/**
 * Gathering the fidelity evidence (core/fidelity.ts) of one candidate against its reference; called by the
 * fidelity gatherer (gatherers/fidelity.ts) with the browser kit's Chrome, its sandbox and the candidate's
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
 *   view (`source: 'image'`, taken as 1 px per CSS px), and the candidate's screenshot is taken at full scale too. The other viewports are not compared (the metrics say so).
 *
 * Time: rendering gets the artifact's remaining budget (at least FIDELITY_MIN_MS are asked for, else both views
 * are missing with that reason). A context that cannot be closed gets Chrome killed (as the visit's).
 */
import sharp, { type Metadata } from 'sharp';
import type { Browser, BrowserContext } from 'puppeteer-core';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { loadArtifact } from '../../lib/artifact/load.js';
import type { Artifact } from '../../core/artifact/model.js';
import { errorMessage } from '../../core/errors.js';
import { gathered, missing, type Evidence, type Gathered } from '../../core/evidence.js';
import {
  DEFAULT_VIEWPORTS,
  FIDELITY_SCREENS,
  type FidelityEvidence,
  type ReferenceInput,
  type ReferenceRecord,
  type RenderedView,
  type ViewportSpec,
} from '../../core/fidelity.js';
import { describeNetwork, type NetworkEntry, type NetworkSettings } from '../../core/network.js';
import { ChromeProcess, sandboxContext } from '../chrome-process.js';
import { attributeRequests } from '../page-requests.js';
import type { SandboxThread, SiteHandle } from '../sandbox/sandbox-thread.js';
import { servedArtifact } from '../server.js';
import { SETTLE_MS } from '../time.js';
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
  /** Where the requests of the candidate's pages are recorded (page-requests.ts). */
  requests?: Set<string>;
}

/**
 * SHA-256 of a reference's content without loading it (no HTML parse: the key is computed for every page scored
 * against it): a file's name and bytes; a folder's files (hidden entries and node_modules left out, as the artifact
 * model does) by relative path and bytes, in path order. Links are followed only to files inside the folder.
 */
export function referenceHash(path: string): string {
  const h = createHash('sha256');
  const root = realpathSync(path);
  if (statSync(root).isFile()) {
    h.update(`file:${basename(root)}\0`).update(readFileSync(root));
    return h.digest('hex');
  }
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const p = join(dir, name);
      let real: string;
      try {
        real = realpathSync(p);
      } catch {
        continue;
      }
      if (real !== root && !real.startsWith(root + sep)) continue;
      const st = statSync(real);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) files.push(p);
      if (files.length > 5000) return;
    }
  };
  walk(root);
  for (const f of files.sort())
    h.update(`${relative(root, f)}\0`)
      .update(readFileSync(f))
      .update('\0');
  return h.digest('hex');
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
    let content: string;
    try {
      content = referenceHash(ref.path);
    } catch (err) {
      return missing(`the reference ${ref.path} cannot be read: ${errorMessage(err)}`);
    }
    const browser = await ctx.chrome.browser();
    const viewports = this.viewports;
    const key = sha256(
      JSON.stringify({
        v: RENDER_VERSION,
        content,
        viewports,
        network: describeNetwork(ctx.network),
        chrome: await browser.version(),
        settle: SETTLE_MS,
        screens: FIDELITY_SCREENS,
      }),
    );
    const cached = this.cache.get(key);
    let refArtifact: Artifact | undefined;
    if (!cached) {
      try {
        refArtifact = loadArtifact(ref.path);
      } catch (err) {
        return missing(`the reference ${ref.path} cannot be read: ${errorMessage(err)}`);
      }
    }
    const timings: Record<string, number> = {};
    const tc = performance.now();
    const [candidate, reference] = await Promise.all([
      this.renderCandidate(browser, ctx, viewports),
      cached || !refArtifact ? Promise.resolve(undefined) : this.renderReference(browser, ctx, refArtifact, ref, content, viewports),
    ]);
    timings.render = Math.round(performance.now() - tc);
    timings.candidate = candidate.timings.total ?? 0;
    let entry: CachedReference;
    let from: ReferenceRecord['cache'];
    if (cached) {
      entry = cached.entry;
      from = cached.from;
    } else if (!reference) {
      return missing(`the reference ${ref.path} was not rendered`);
    } else {
      entry = reference;
      from = 'rendered';
      timings.reference = reference.timings;
      if (!entry.record.faults?.length && entry.views.every((v) => v.ok)) this.cache.put(key, { record: entry.record, views: entry.views });
    }
    const record: ReferenceRecord = { ...entry.record, input: ref.path, cache: from };
    return gathered({
      reference: record,
      method: 'resize',
      timings,
      pairs: viewports.map((viewport, i) => ({
        viewport,
        candidate: candidate.views[i] ?? missing('not rendered'),
        reference: entry.views[i] ?? missing('not rendered'),
      })),
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
    const candidate = await this.renderCandidate(browser, ctx, [viewport], 1); // full size, as the picture
    const record: ReferenceRecord = {
      input: ref.path,
      kind: 'image',
      sha256: sha256(bytes),
      viewports: [viewport.name],
      network: describeNetwork(ctx.network),
      cache: 'rendered',
    };
    return gathered({
      reference: record,
      method: 'resize',
      timings: { render: Math.round(performance.now() - tc), candidate: candidate.timings.total ?? 0 },
      pairs: [{ viewport, candidate: candidate.views[0] ?? missing('not rendered'), reference: gathered(refView) }],
    });
  }

  private async renderCandidate(browser: Browser, ctx: FidelityContext, viewports: readonly ViewportSpec[], shotScale?: number): Promise<RenderOutcome> {
    return this.inContext(
      browser,
      await ctx.site.endpoint('fidelity'),
      ctx,
      (c) => renderViews(c, ctx.site.entryUrl, { viewports, deadline: ctx.deadline, ...(shotScale ? { shotScale } : {}) }),
      viewports.length,
      ctx.requests,
    );
  }

  private async renderReference(
    browser: Browser,
    ctx: FidelityContext,
    artifact: Artifact,
    ref: ReferenceInput,
    content: string,
    viewports: readonly ViewportSpec[],
  ): Promise<CachedReference & { timings: number }> {
    const site = await ctx.sandbox.open(servedArtifact(artifact));
    let out: RenderOutcome;
    let log: NetworkEntry[] = [];
    const requests = new Set<string>();
    try {
      out = await this.inContext(
        browser,
        await site.endpoint('reference'),
        ctx,
        (c) => renderViews(c, site.entryUrl, { viewports, deadline: ctx.deadline }),
        viewports.length,
        requests,
      );
    } finally {
      log = (await site.close().catch(() => ({ log: [] as NetworkEntry[] }))).log;
    }
    // The browser's own requests are refused too, but they are not the reference's.
    const blocked = attributeRequests(log, new Map([['reference', requests]]), site.origin).page.filter((e) => e.disposition === 'blocked').length;
    const record: Omit<ReferenceRecord, 'cache'> = {
      input: ref.path,
      kind: 'artifact',
      sha256: content,
      viewports: viewports.map((v) => v.name),
      network: describeNetwork(ctx.network),
    };
    if (blocked) record.blocked = blocked;
    if (out.faults.length) record.faults = out.faults;
    return { record, views: out.views, timings: out.timings.total ?? 0 };
  }

  private async inContext(
    browser: Browser,
    proxy: string,
    ctx: FidelityContext,
    fn: (c: BrowserContext) => Promise<RenderOutcome>,
    n: number,
    requests?: Set<string>,
  ): Promise<RenderOutcome> {
    let context: BrowserContext | undefined;
    try {
      context = await sandboxContext(browser, proxy, requests);
      return await fn(context);
    } catch (err) {
      const why = `rendering failed: ${errorMessage(err)}`;
      return { views: Array.from({ length: n }, () => missing<RenderedView>(why)), faults: [why], loaded: false, timings: {} };
    } finally {
      if (context) {
        let timer: NodeJS.Timeout | undefined;
        const closed = await Promise.race([
          context.close().then(
            () => true,
            () => true,
          ),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(false), CLOSE_TIMEOUT_MS))),
        ]);
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
