/**
 * The gatherers the product has, in the order the scorer runs them (the contract: core/gatherer.ts).
 */
import type { GathererFactory, GathererOptions } from '../core/gatherer.js';
import { judgeGathererFactory, type JudgeGathererOptions } from '../judges/gatherer.js';
import { browserGathererFactory, type BrowserGathererOptions } from '../gather/browser-gatherer.js';
import { remoteCheckGathererFactory } from '../gather/remote-check.js';

export type { Gatherer, GatherRequest, GathererFactory } from '../core/gatherer.js';

/** What the scorer gives every gatherer: the common options plus each gatherer's own settings. */
export type ScorerGathererOptions = GathererOptions & JudgeGathererOptions & BrowserGathererOptions;

export const GATHERER_FACTORIES: GathererFactory<ScorerGathererOptions>[] = [
  browserGathererFactory, // keep first: browser session + Lighthouse (gather/)
  remoteCheckGathererFactory, // --check-network: remote URLs for resource-validity
  judgeGathererFactory, // keep last: judges read the browser's screenshots
];
