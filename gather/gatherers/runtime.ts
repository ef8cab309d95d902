/**
 * The runtime watch's gatherer: provides `runtime`, the page watched while it runs and is used, on real time
 * (gather/runtime/: frame cost, dropped frames, responsiveness to inputs, memory), in a fresh context of its own
 * (sandbox phase `runtime`): the visit's clock is paused after its settle, the probe's pages run on its virtual
 * clock, and the watch's inputs would change the visit's screenshots. It reads nothing of the visit. It runs
 * before the probe and before Lighthouse measures (Lighthouse is held meanwhile: Chrome keeps one trace at a
 * time), within the part of the budget Lighthouse leaves. It is not `exclusive`: it measures the page's CPU
 * time per frame and per input, which our scoring beside it does not inflate (the wall-time figures it also
 * records are details, not scores), and waiting for the static metrics' scoring would delay every page.
 */
import type { BrowserContext } from 'puppeteer-core';
import { gathered, missing } from '../../core/evidence.js';
import { errorMessage } from '../../core/errors.js';
import type { GatherContext, Gatherer, GatheredParts } from '../../core/gatherer.js';
import { watchRuntimeIn } from '../runtime/index.js';
import { gate } from '../step-gate.js';
import type { BrowserKit } from '../browser-kit.js';

/** Below this much time left, the page is not watched. */
export const RUNTIME_MIN_MS = 4_000;

export class RuntimeGatherer implements Gatherer {
  readonly meta;

  constructor(private readonly kit: BrowserKit) {
    this.meta = { id: 'runtime', provides: ['runtime'], fills: ['runtime'], after: ['visit'], scope: kit } as const;
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence, deadline } = ctx;
    if (deadline - performance.now() < RUNTIME_MIN_MS)
      return { runtime: missing('the page was not watched while it runs: no time left in the artifact budget') };
    let context: BrowserContext | undefined;
    try {
      await gate.step('runtime watch');
      const site = await this.kit.site(evidence);
      context = await this.kit.context(evidence, 'runtime');
      return { runtime: gathered(await watchRuntimeIn(context, site.entryUrl, { deadline })) };
    } catch (err) {
      await this.kit.afterFault();
      return { runtime: missing(`the runtime watch failed: ${errorMessage(err)}`) };
    } finally {
      if (context) await this.kit.closeContext(context);
    }
  }

  async close(): Promise<void> {
    /* the kit is closed by its owner */
  }
}
