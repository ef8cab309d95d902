/**
 * The mutation-operator contract. An operator seeds one defect of one kind into a copy of a page, the kind of
 * defect some metrics exist to catch (its `targets`). Each operator is one object in a module under
 * `mutate/operators/`, listed once in `mutate/registry.ts`; the runner (mutate/run.ts) scores the original and
 * the mutant with the same settings and asks whether each target dropped.
 *
 * Rules every operator follows:
 * - Edits go through `Mutation` (mutate/page.ts): splices at offsets a parser gave (DOM node locations, acorn
 *   node ranges, postcss node offsets), never a search over the text. The rest of every file stays byte for byte.
 * - Minimal: the smallest edit that makes the defect real; inserted markup goes on an existing line (no new
 *   line breaks), so line counts (the L of console-errors and lint, comment-rate's lines) do not change.
 * - An operator with nothing to mutate on a page (no image, no try/catch) says so (`applied: false`, with the
 *   reason) instead of inventing something else.
 * - `collateral` names metrics that may rightly move too: they measure the same defect from another angle
 *   (a console error also fails Lighthouse's errors-in-console audit) or they read exactly what the edit
 *   changes (a stretched image is also resized for media-quality). A move there is reported but marked
 *   expected; every other non-target move is a false move.
 * - `inserts`: the edit adds the feature its targets measure together with its defect (an image, a risky call,
 *   icons), so it applies to a page that lacks the feature; there the target goes from unscorable (nothing to
 *   measure) to a score, and it detects when that score is below 100, since the seeded defect is then all it
 *   measures (mutate/run.ts).
 * - Targets may name metrics this build does not have (the interaction probe's metrics): the runner then skips
 *   the operator with "target metric not in this build".
 */
import type { Mutation, PageModel } from './page.js';

export type ApplyResult = { applied: true; edit: string } | { applied: false; reason: string };

export interface MutationOperator {
  /** Stable id (`webgrade mutate --operators <id>`). */
  id: string;
  /** Metric ids that must detect the defect (their score must drop). */
  targets: readonly string[];
  /** Metric ids that may rightly move as well (see module comment). */
  collateral?: readonly string[];
  /** The edit adds the measured feature with its defect (module comment): judged on a page without the feature too. */
  inserts?: boolean;
  /** One line: the defect and the edit. */
  description: string;
  apply(page: PageModel, edit: Mutation): ApplyResult | Promise<ApplyResult>;
}

export const applied = (edit: string): ApplyResult => ({ applied: true, edit });
export const notApplicable = (reason: string): ApplyResult => ({ applied: false, reason });

/** Text used by inserted code, so that a reader of a mutant sees what was seeded. */
export const MARK = 'webgrade mutant';
