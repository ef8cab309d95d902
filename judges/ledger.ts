/**
 * The judge ledger: what a run's judge calls cost, shared by every judge call of one process (a batch's judge
 * stage, a `score`), and the judge budget (`--judge-budget <usd>`).
 *
 * Interpretations:
 * - Money is counted only for models with a price in the config's `prices` table (USD per million tokens); a
 *   budget therefore needs a price for every judge model, which the caller checks before anything starts.
 * - The budget stops new calls, not calls in flight: a call is refused when the money already spent reaches the
 *   budget, so a run may end a few calls' cost above it (at most the judge concurrency's worth). Cached answers
 *   cost nothing and are still served.
 * - Tokens of every answered call are counted, priced or not.
 */
export interface LedgerTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD of the priced calls. */
  costUsd: number;
  /** Answered calls whose model has no price (their money is unknown). */
  unpricedCalls: number;
  /** Calls refused because the budget was reached. */
  refusedCalls: number;
}

export class JudgeLedger {
  readonly totals: LedgerTotals = { calls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, unpricedCalls: 0, refusedCalls: 0 };

  /** `budgetUsd`: stop issuing calls once this much is spent (absent: no budget). */
  constructor(readonly budgetUsd?: number) {}

  /** The reason a new call may not be made, or null when it may. */
  refusal(): string | null {
    if (this.budgetUsd === undefined || this.totals.costUsd < this.budgetUsd) return null;
    this.totals.refusedCalls++;
    return `judge budget of $${this.budgetUsd} reached ($${this.totals.costUsd.toFixed(4)} spent): no new judge calls`;
  }

  get budgetReached(): boolean {
    return this.budgetUsd !== undefined && this.totals.costUsd >= this.budgetUsd;
  }

  /** Count one answered call (`costUsd` null: the model has no price). */
  record(promptTokens: number, completionTokens: number, costUsd: number | null): void {
    const t = this.totals;
    t.calls++;
    t.promptTokens += promptTokens;
    t.completionTokens += completionTokens;
    if (costUsd === null) t.unpricedCalls++;
    else t.costUsd += costUsd;
  }
}
