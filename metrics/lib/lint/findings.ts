/** What the linters of the `lint` metric report, and how a finding in a synthetic text maps back to its file. */

export type LintTool = 'eslint' | 'stylelint' | 'htmlhint';

export interface LintFinding {
  tool: LintTool;
  rule: string;
  file: string;
  line: number;
  column: number;
  message: string;
}

/** A block or file a linter threw on (e.g. nesting deeper than the call stack): not linted, listed. */
export interface Skipped {
  tool: LintTool;
  file: string;
  line: number;
  column?: number;
  reason: string;
}

/**
 * The last of `entries` (in increasing `start` order) whose start is at most `line`, or the first entry: a
 * binary search, so that mapping every finding of a file with 50 000 style attributes stays linear.
 */
export function lastEntryFrom<T extends { start: number }>(entries: readonly T[], line: number): T {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (entries[mid]!.start <= line) lo = mid;
    else hi = mid - 1;
  }
  return entries[lo]!;
}
