/**
 * The gatherers the product has, in the order the scorer runs them (the contract: core/gatherer.ts).
 */
import type { GathererFactory, GathererOptions } from '../core/gatherer.js';
import { judgeGathererFactory, type JudgeGathererOptions } from '../judges/gatherer.js';
import { browserGathererFactory, type BrowserGathererOptions } from '../gather/browser-gatherer.js';
import { remoteCheckGathererFactory } from '../gather/remote-check.js';
import { SavedEvidenceGatherer } from '../store/evidence-files.js';

import type { Gatherer } from '../core/gatherer.js';

export type { Gatherer, GatherRequest, GathererFactory } from '../core/gatherer.js';

/** What the scorer gives every gatherer: the common options plus each gatherer's own settings. */
export type ScorerGathererOptions = GathererOptions & JudgeGathererOptions & BrowserGathererOptions;

export const GATHERER_FACTORIES: GathererFactory<ScorerGathererOptions>[] = [
  browserGathererFactory, // keep first: browser session + Lighthouse (gather/)
  remoteCheckGathererFactory, // --check-network: remote URLs for resource-validity
  judgeGathererFactory, // keep last: judges read the browser's screenshots
];

/**
 * The gatherers for `--from-evidence <dir>`: the saved evidence instead of the browser gatherer, then every
 * other gatherer of the product as usual (judges, network checks). Fails early (InputError) on a bad dir.
 */
export function savedEvidenceGatherers(dir: string, options: ScorerGathererOptions): Gatherer[] {
  const saved = new SavedEvidenceGatherer(dir);
  saved.load();
  return [saved, ...GATHERER_FACTORIES.filter((f) => f !== browserGathererFactory).map((f) => f(options))];
}
