/**
 * The visit gatherer: provides `browser` and `screenshot` (and `mobile` when Lighthouse does not run) from one
 * visit of the artifact in a fresh browser context (sandbox phase `visit`; the steps are visit.ts's). When
 * Lighthouse runs for the artifact, the phone measurement is left to its run (gatherers/phone.ts takes it from
 * there or visits the page as a phone itself); otherwise the visit loads the page once more under iPhone
 * emulation in a context of its own (phase `mobile`), when a selected metric needs the measurement (`mobile`) or
 * the pictures (`screenshot`: the phone picture is kept with the others); with neither (`--only console-errors`)
 * there is no phone load, which on a heavy fixture took 2.5–5 s.
 *
 * Before it returns it marks the console lines about requests the sandbox refused, from the sandbox's log so
 * far: the metrics that need only the visit are scored while the next gatherers run, before the site closes.
 */
import type { BrowserContext } from 'puppeteer-core';
import { gathered, missing } from '../../core/evidence.js';
import { errorMessage } from '../../core/errors.js';
import type { BrowserEvidence } from '../../core/browser-evidence.js';
import type { GatherContext, Gatherer, GatheredParts } from '../../core/gatherer.js';
import { visitArtifact } from '../visit.js';
import type { BrowserKit } from '../browser-kit.js';

export class VisitGatherer implements Gatherer {
  readonly meta;

  constructor(private readonly kit: BrowserKit) {
    this.meta = { id: 'visit', provides: ['browser', 'screenshot', 'mobile'], fills: ['browser'], scope: kit } as const;
  }

  active(needs: ReadonlySet<string>): boolean {
    return needs.has('browser') || needs.has('screenshot') || needs.has('mobile');
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence } = ctx;
    const kit = this.kit;
    try {
      await kit.chrome.browser();
    } catch (err) {
      return { browser: missing<BrowserEvidence>(`could not start Chrome: ${errorMessage(err)}`) };
    }
    let context: BrowserContext | undefined;
    let mobileContext: BrowserContext | undefined;
    try {
      const site = await kit.site(evidence);
      context = await kit.context(evidence, 'visit');
      const ev = await visitArtifact(context, evidence.artifact, site.origin, site.entryUrl, {
        deadline: ctx.deadline,
        screenshots: ctx.needs.has('screenshot'),
        mobile: ctx.active.has('lighthouse') ? 'lighthouse' : ctx.needs.has('mobile') || ctx.needs.has('screenshot') ? 'visit' : 'none',
        mobileContext: async () => (mobileContext = await kit.context(evidence, 'mobile')),
        ...(kit.options.visitClock ? { clock: kit.options.visitClock } : {}),
      });
      await kit.markConsoleSoFar(evidence, ev);
      return { browser: gathered(ev) };
    } catch (err) {
      const dead = await kit.afterFault();
      return {
        browser: missing<BrowserEvidence>(
          dead ? `Chrome died during the visit (${errorMessage(err)}); it is restarted for the next artifact` : `browser session failed: ${errorMessage(err)}`,
        ),
      };
    } finally {
      if (context) await kit.closeContext(context);
      if (mobileContext) await kit.closeContext(mobileContext);
    }
  }

  async close(): Promise<void> {
    /* the kit is closed by its owner (browserGatherers) */
  }
}
