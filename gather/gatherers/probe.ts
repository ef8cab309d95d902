/**
 * The interaction probe's gatherer: provides `interaction` (interaction/probe.ts) in a browser context of its
 * own (sandbox phase `interaction`). It reads the visit when there is one: a page the visit found unresponsive is
 * not probed (its evidence says so, and render-validity scores 0); a page whose load event never fired gets a
 * first load of at most PROBE_SHORT_LOAD_MS; the visit's desktop screenshot is read as the probe reads its first
 * view (the two must show the same page: render-validity warns when they do not).
 *
 * Placement: by default it runs before Lighthouse measures (Lighthouse, held, waits; the metrics that need only
 * the visit are scored meanwhile: the probe waits on Chrome, Node is mostly idle), within the part of the budget
 * Lighthouse leaves. `after-lighthouse` runs it after Lighthouse and the phone check instead (bench/interaction.ts
 * measures both); the default adds the same time per page and keeps the probe out of Lighthouse's shortened
 * budget.
 */
import type { BrowserContext } from 'puppeteer-core';
import type { Evidence } from '../../core/evidence.js';
import { gathered, missing } from '../../core/evidence.js';
import { errorMessage } from '../../core/errors.js';
import type { InteractionSettings } from '../../core/browser-evidence.js';
import type { GatherContext, Gatherer, GatheredParts } from '../../core/gatherer.js';
import type { EvidenceNeed } from '../../core/metric.js';
import { FIRST_LOAD_TIMEOUT_MS, probeInteraction, unresponsiveEvidence } from '../interaction/probe.js';
import { readScreen } from '../interaction/probe/screen.js';
import { VIEWPORT } from '../interaction/driver.js';
import type { BrowserKit } from '../browser-kit.js';

/** The probe's first load waits at most this long when the visit's load event never fired. */
export const PROBE_SHORT_LOAD_MS = 3_000;

/** Where the interaction probe runs: before Lighthouse measures (it waits), or after Lighthouse's run. */
export type InteractionPlacement = 'before-lighthouse' | 'after-lighthouse';
export const DEFAULT_INTERACTION_PLACEMENT: InteractionPlacement = 'before-lighthouse';

export interface ProbeGathererOptions {
  /** The interaction probe's settings (default interaction/probe.ts INTERACTION_DEFAULTS). */
  interaction?: Partial<Omit<InteractionSettings, 'restore'>>;
  /** Where the interaction probe runs (default DEFAULT_INTERACTION_PLACEMENT). */
  interactionPlacement?: InteractionPlacement;
}

export class ProbeGatherer implements Gatherer {
  readonly meta;

  constructor(
    private readonly kit: BrowserKit,
    private readonly options: ProbeGathererOptions = {},
  ) {
    const after = (options.interactionPlacement ?? DEFAULT_INTERACTION_PLACEMENT) === 'after-lighthouse' ? ['lighthouse', 'phone'] : ['runtime'];
    this.meta = { id: 'probe', provides: ['interaction'], fills: ['interaction'], amends: ['browser'], reads: ['browser'], after, scope: kit } as const;
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence, deadline } = ctx;
    const b = evidence.browser;
    if (b?.ok && b.value.unavailable?.domHtml) {
      return { interaction: gathered(unresponsiveEvidence(`the visit found the page unresponsive (${b.value.unavailable.domHtml}): the probe was not run`)) };
    }
    if (deadline - performance.now() < 3000) return { interaction: missing('the interaction probe was not run: no time left in the artifact budget') };
    const firstLoadMs = b?.ok && b.value.loaded === false ? PROBE_SHORT_LOAD_MS : FIRST_LOAD_TIMEOUT_MS;
    let context: BrowserContext | undefined;
    let t = performance.now();
    let out: GatheredParts;
    try {
      await this.kit.chrome.browser();
      // The probe's budget and time count from here: starting Chrome (once for many artifacts) is not the probe's.
      t = performance.now();
      const site = await this.kit.site(evidence);
      const pre = await this.kit.takePreopened(evidence, 'interaction');
      context = pre?.context ?? (await this.kit.context(evidence, 'interaction'));
      const ev = await probeInteraction(context, evidence.artifact, site.origin, site.entryUrl, {
        deadline,
        started: t,
        firstLoadMs,
        ...(pre ? { blank: pre.page } : {}),
        ...(this.options.interaction ? { settings: this.options.interaction } : {}),
      });
      out = { interaction: gathered(ev) };
      await readVisitView(evidence, out);
    } catch (err) {
      const dead = await this.kit.afterFault();
      out = {
        interaction: missing(
          dead
            ? `Chrome died during the interaction probe (${errorMessage(err)}); it is restarted for the next artifact`
            : `the interaction probe failed: ${errorMessage(err)}`,
        ),
      };
    } finally {
      if (context) await this.kit.closeContext(context);
    }
    const ms = Math.round(performance.now() - t);
    if (evidence.browser?.ok) evidence.browser.value.timings.interaction = ms;
    if (out.interaction?.ok) out.interaction.value.timings.withContext = ms;
    return out;
  }

  /**
   * Without a visit (no selected metric needs it), the probe's context and first page are opened at once, beside
   * the gatherers before it (BrowserKit.preopen); with one, when it is over (`ready`).
   */
  prepare(ctx: GatherContext): void {
    if (!ctx.active.has('visit') && !this.meta.after.includes('lighthouse')) this.kit.preopen(ctx.evidence, 'interaction');
  }

  /**
   * When the visit is over, the probe's context and its first page are opened (BrowserKit.preopen) while the
   * gatherers before it work (the runtime watch waits on real time): not during the visit, whose real-time settle
   * would share the cores with a renderer starting; not for a page the visit found unresponsive, which is not
   * probed; not when the probe runs after Lighthouse (an idle renderer beside its measurement).
   */
  ready(evidence: Evidence, done: readonly EvidenceNeed[]): void {
    if (!done.includes('browser') || this.meta.after.includes('lighthouse')) return;
    const b = evidence.browser;
    if (b?.ok && b.value.unavailable?.domHtml) return;
    this.kit.preopen(evidence, 'interaction');
  }

  async close(): Promise<void> {
    /* the kit is closed by its owner */
  }
}

/**
 * The visit's desktop screenshot read as the probe reads its first view (interaction/probe/screen.ts), into the
 * first view's evidence: the two must show the same page (render-validity warns when they do not).
 */
async function readVisitView(evidence: Evidence, out: GatheredParts): Promise<void> {
  const desktop = evidence.browser?.ok ? evidence.browser.value.screenshots.desktop : undefined;
  const fv = out.interaction?.ok ? out.interaction.value.firstView : undefined;
  if (!desktop || !fv?.screen) return;
  try {
    fv.visit = await readScreen(desktop.png, VIEWPORT, fv.visualBoxes ?? []);
  } catch {
    /* no reading: no comparison */
  }
}
