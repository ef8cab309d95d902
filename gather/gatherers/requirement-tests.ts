/**
 * The requirement tests' gatherer: provides `requirement-tests`, the requirement's tests run in the browser
 * (interaction/requirement-tests/), in contexts of their own (sandbox phase `interaction`), after Lighthouse's measurement
 * and the probe so that nothing of theirs competes with either. Natural-language tests ask the agent configured
 * in the judge settings (resolved from the environment when absent).
 */
import type { GatherContext, Gatherer, GatheredParts } from '../../core/gatherer.js';
import type { JudgeSettings } from '../../judges/settings.js';
import { gatherRequirementTests } from '../interaction/requirement-tests/gather.js';
import { closeOcr } from '../interaction/requirement-tests/ocr.js';
import type { BrowserKit } from '../browser-kit.js';

export class RequirementTestsGatherer implements Gatherer {
  readonly meta;

  constructor(
    private readonly kit: BrowserKit,
    private readonly judge?: JudgeSettings,
  ) {
    this.meta = {
      id: 'requirement-tests',
      provides: ['requirement-tests'],
      fills: ['requirementTests'],
      after: ['lighthouse', 'phone', 'probe'],
      scope: kit,
    } as const;
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence } = ctx;
    const site = await this.kit.site(evidence);
    await gatherRequirementTests(
      evidence,
      site,
      ctx.deadline,
      () => this.kit.context(evidence, 'interaction'),
      (c) => this.kit.closeContext(c),
      this.judge,
    );
    return { requirementTests: evidence.requirementTests };
  }

  async close(): Promise<void> {
    await closeOcr(); // the tests' OCR worker, when one was started (the kit is closed by its owner)
  }
}
