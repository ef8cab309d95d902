/**
 * The browser gatherers, built around one browser kit (browser-kit.ts: one Chrome kept alive across artifacts,
 * the sandbox thread, the Lighthouse thread), in the order the registry lists them: the visit (`browser`,
 * `screenshot`), the interaction probe, Lighthouse, the phone check, the requirement tests, fidelity. The
 * runner (runner/gathering.ts) orders them from their `meta` (gatherers/*.ts), runs only those a selected
 * metric needs, and gives each its share of the artifact's budget.
 */
import type { GathererFactory, GathererOptions, Gatherer } from '../core/gatherer.js';
import type { JudgeSettings } from '../judges/settings.js';
import { BrowserKit, type BrowserKitOptions } from './browser-kit.js';
import type { FidelityOptions } from './fidelity/gather.js';
import { VisitGatherer } from './gatherers/visit.js';
import { ProbeGatherer, type ProbeGathererOptions } from './gatherers/probe.js';
import { LighthouseGatherer } from './gatherers/lighthouse.js';
import { PhoneGatherer } from './gatherers/phone.js';
import { RequirementTestsGatherer } from './gatherers/requirement-tests.js';
import { FidelityGatherer } from './gatherers/fidelity.js';

export { DEFAULT_LIGHTHOUSE_RUNS, LIGHTHOUSE_RESERVE_MS } from './gatherers/lighthouse.js';
export { DEFAULT_INTERACTION_PLACEMENT, type InteractionPlacement } from './gatherers/probe.js';

/** The browser gatherers' settings (GathererOptions extended). */
export interface BrowserGathererOptions extends BrowserKitOptions, FidelityOptions, ProbeGathererOptions {
  /** Lighthouse runs per artifact; the performance score is their median (default DEFAULT_LIGHTHOUSE_RUNS). */
  lighthouseRuns?: number;
  /** The judge settings (the requirement tests' agent); resolved from the environment when absent. */
  judge?: JudgeSettings;
}

/** The browser gatherers sharing one new kit (closed with the scope: the scorer closes each scope once). */
export function browserGatherers(options: Partial<GathererOptions> & BrowserGathererOptions = {}): Gatherer[] {
  const kit = new BrowserKit(options);
  const lighthouse = new LighthouseGatherer(kit, options.lighthouseRuns ? { lighthouseRuns: options.lighthouseRuns } : {});
  return [
    new VisitGatherer(kit),
    new ProbeGatherer(kit, options),
    lighthouse,
    new PhoneGatherer(kit, lighthouse),
    new RequirementTestsGatherer(kit, options.judge),
    new FidelityGatherer(kit, options),
  ];
}

export const browserGathererFactory: GathererFactory<GathererOptions & BrowserGathererOptions> = (options) => browserGatherers(options);
