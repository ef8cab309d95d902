/**
 * The fidelity gatherer: provides `reference`, the page and its reference rendered at the fidelity viewports
 * (gather/fidelity/), when a reference was given. It runs after the visit, Lighthouse and the tests, so that
 * it competes with no measurement; the renders use the kit's Chrome and sandbox (phases `fidelity` and
 * `reference`), and the reference's renders are cached across artifacts.
 */
import type { Evidence } from '../../core/evidence.js';
import type { EvidenceNeed } from '../../core/metric.js';
import type { GatherContext, Gatherer, GatheredParts } from '../../core/gatherer.js';
import { FidelityRenderer, type FidelityOptions } from '../fidelity/gather.js';
import type { BrowserKit } from '../browser-kit.js';

export class FidelityGatherer implements Gatherer {
  readonly meta;
  /** Renders for the fidelity metrics, with the reference cache (made on first use). */
  private renderer?: FidelityRenderer;

  constructor(
    private readonly kit: BrowserKit,
    private readonly options: FidelityOptions = {},
  ) {
    this.meta = {
      id: 'fidelity',
      provides: ['reference'],
      fills: ['fidelity'],
      after: ['lighthouse', 'phone', 'probe', 'requirement-tests'],
      scope: kit,
    } as const;
  }

  active(needs: ReadonlySet<EvidenceNeed>, evidence: Evidence): boolean {
    return needs.has('reference') && !!evidence.reference;
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const { evidence } = ctx;
    this.renderer ??= new FidelityRenderer(this.options);
    return {
      fidelity: await this.renderer.gather(evidence, evidence.reference!, {
        chrome: this.kit.chrome,
        sandbox: this.kit.sandbox,
        site: await this.kit.site(evidence),
        network: this.kit.network,
        deadline: ctx.deadline,
        requests: this.kit.requestsOf(evidence, 'fidelity'),
      }),
    };
  }

  async close(): Promise<void> {
    /* the kit is closed by its owner; the reference cache holds nothing open */
  }
}
