/**
 * The phone gatherer: provides `mobile` (the iPhone 12 Pro measurement, `browser.mobile`, and its screenshot)
 * when Lighthouse runs for the artifact: it takes the measurement from the Lighthouse run (gatherers/lighthouse.ts),
 * and when the run did not yield it (not run, failed, timed out) and the page was responsive, visits the page as
 * a phone in a fresh context (phase `mobile`, collectors/mobile-visit.ts), for at most MOBILE_FALLBACK_MS. When
 * Lighthouse does not run, the visit measures the phone itself (gatherers/visit.ts) and this gatherer is idle.
 *
 * It reserves MOBILE_FALLBACK_MS (or 15% of the budget if less): the Lighthouse run ends early enough for the
 * fallback visit, so the phone check does not ride on the run's fate. A page that never goes idle has it
 * measured in the run all the same: there its frames are held after the trace (lighthouse-mobile.ts), so it
 * costs nothing, while a mobile visit of such a page took 1.3–7.9 s before Lighthouse could measure (machine at
 * load 20).
 *
 * On the visit's page clock (`--visit-clock page`) the phone picture is the visit's (taken on that clock in a phone
 * page of its own, visit.ts `phone`); the Lighthouse run then takes none, and the fallback visit here runs on the
 * page clock and takes the picture only when the visit has none.
 */
import type { BrowserContext } from 'puppeteer-core';
import type { Evidence } from '../../core/evidence.js';
import type { EvidenceNeed } from '../../core/metric.js';
import { errorMessage } from '../../core/errors.js';
import type { GatherContext, Gatherer, GatheredParts } from '../../core/gatherer.js';
import { mobileResult } from '../mobile-measure.js';
import { PageFaults } from '../collectors/visit-collector.js';
import { mobileScreenshot, visitMobile } from '../collectors/mobile-visit.js';
import type { BrowserKit } from '../browser-kit.js';
import type { LighthouseGatherer } from './lighthouse.js';

/** At most this long for the fallback mobile visit (when the Lighthouse run did not measure mobile). */
export const MOBILE_FALLBACK_MS = 8_000;

export class PhoneGatherer implements Gatherer {
  readonly meta;

  constructor(
    private readonly kit: BrowserKit,
    private readonly lighthouse: LighthouseGatherer,
  ) {
    this.meta = {
      id: 'phone',
      provides: ['mobile'],
      fills: [],
      amends: ['browser'],
      reads: ['lighthouse'],
      reserve: { ms: MOBILE_FALLBACK_MS, share: 0.15 },
      scope: kit,
    } as const;
  }

  active(needs: ReadonlySet<EvidenceNeed>): boolean {
    return needs.has('mobile') && needs.has('lighthouse');
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence } = ctx;
    const b = evidence.browser;
    if (!b?.ok || b.value.mobile || b.value.unavailable?.mobile) return {};
    const ev = b.value;
    const screenshots = ctx.needs.has('screenshot');
    const mobile = this.lighthouse.mobile.get(evidence);
    this.lighthouse.mobile.delete(evidence);
    if (mobile?.ok) {
      ev.mobile = mobileResult(mobile.value.measure, 'lighthouse run');
      if (mobile.value.screenshotBase64 && !ev.screenshots.mobile)
        ev.screenshots.mobile = mobileScreenshot(Buffer.from(mobile.value.screenshotBase64, 'base64'));
      return {};
    }
    const why = mobile?.reason ?? 'the Lighthouse run did not measure it';
    // A page Lighthouse could not measure is often one that never finishes loading: cap the fallback visit.
    const end = Math.min(ctx.deadline, performance.now() + MOBILE_FALLBACK_MS);
    const left = () => end - performance.now();
    const faults = new PageFaults();
    if (left() < 3000) {
      faults.skip('mobile', `mobile emulation: ${why}, and no time is left in the budget for a mobile visit`);
    } else {
      let context: BrowserContext | undefined;
      const t = performance.now();
      try {
        const site = await this.kit.site(evidence);
        context = await this.kit.context(evidence, 'mobile');
        const mob = await visitMobile(context, site.entryUrl, faults, left, screenshots && !ev.screenshots.mobile, this.kit.options.visitClock);
        ev.mobile = mob.result;
        if (mob.screenshot) ev.screenshots.mobile = mob.screenshot;
      } catch (err) {
        faults.add(`mobile emulation: ${errorMessage(err)}`);
        faults.skip('mobile', `mobile emulation failed (${why}; the mobile visit: ${errorMessage(err)})`);
      } finally {
        if (context) await this.kit.closeContext(context);
        ev.timings.mobile = Math.round(performance.now() - t);
      }
    }
    for (const x of faults.faults) if (!ev.faults.includes(x)) ev.faults.push(x);
    if (Object.keys(faults.unavailable).length) ev.unavailable = { ...ev.unavailable, ...faults.unavailable };
    return {};
  }

  /** A throw leaves the phone check unmeasured with the reason (mobile-compat is then unscorable). */
  fail(evidence: Evidence, reason: string): void {
    const b = evidence.browser;
    if (b?.ok && !b.value.mobile) b.value.unavailable = { ...b.value.unavailable, mobile: reason };
  }

  async close(): Promise<void> {
    /* the kit is closed by its owner */
  }
}
