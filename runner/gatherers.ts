/**
 * The gatherers the product has (the contract: core/gatherer.ts). The order here only breaks ties: the runner
 * (gathering.ts) orders them from their declarations. Adding a gatherer is its own module and one line here.
 */
import type { Gatherer, GathererFactory, GathererOptions, GatherScope } from '../core/gatherer.js';
import { judgeGathererFactory, type JudgeGathererOptions } from '../judges/gatherer.js';
import { browserGathererFactory, type BrowserGathererOptions } from '../gather/browser-gatherers.js';
import { remoteCheckGathererFactory } from '../gather/remote-check.js';
import { SavedEvidenceGatherer } from '../store/evidence-files.js';

export type { Gatherer, GathererFactory } from '../core/gatherer.js';

/** What the scorer gives every gatherer: the common options plus each gatherer's own settings. */
export type ScorerGathererOptions = GathererOptions & JudgeGathererOptions & BrowserGathererOptions;

export const GATHERER_FACTORIES: GathererFactory<ScorerGathererOptions>[] = [browserGathererFactory, remoteCheckGathererFactory, judgeGathererFactory];

/** Every gatherer of the product for `options`. */
export function productGatherers(options: ScorerGathererOptions): Gatherer[] {
  return GATHERER_FACTORIES.flatMap((f) => f(options));
}

/**
 * The gatherers for `--from-evidence <dir>`: the saved evidence instead of the browser gatherers, then every
 * other gatherer of the product as usual (judges, network checks). Fails early (InputError) on a bad dir.
 */
export function savedEvidenceGatherers(dir: string, options: ScorerGathererOptions): Gatherer[] {
  const saved = new SavedEvidenceGatherer(dir);
  saved.load();
  return [saved, ...GATHERER_FACTORIES.filter((f) => f !== browserGathererFactory).flatMap((f) => f(options))];
}

/** Close gatherers and the scopes they share (each once). */
export async function closeGatherers(gatherers: readonly Gatherer[]): Promise<void> {
  const scopes = new Set<GatherScope>();
  for (const g of gatherers) if (g.meta.scope) scopes.add(g.meta.scope);
  await Promise.allSettled(gatherers.map((g) => g.close()));
  await Promise.allSettled([...scopes].map((s) => s.close()));
}
