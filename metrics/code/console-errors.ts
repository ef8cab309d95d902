/**
 * console-errors (SPEC #4): E = console messages of error level + uncaught exceptions + unhandled rejections
 * during load and a short settle; L = physical lines of all artifact source files; score = max(0, 100 − 20 ×
 * 1000 × E / L) (`densityPenalty`).
 *
 * Which messages count (interpretations):
 * - Console messages of level `error` or `assert` (a failed console.assert is printed as an error), from the
 *   desktop visit only (the phone-emulated load, inside the Lighthouse run or a separate mobile visit, loads
 *   the page again; its messages are not counted twice).
 * - Each uncaught exception counts once: Chrome reports it as an exception, not also as a console message, so
 *   there is nothing to deduplicate. Each unhandled promise rejection counts once; one that the page handles
 *   later (Chrome revokes it) does not count.
 * - Not counted, but listed in details: "Failed to load resource" lines for requests that webgrade blocked
 *   (anything outside the artifact's own loopback server: those errors are caused by our isolation, not by
 *   the page; resource-validity judges those URLs), and the browser's own favicon probe (`/favicon.ico`
 *   requested by Chrome when the page declares no icon).
 * - Counted: 404s of the artifact's own missing files, Chrome's security errors (e.g. "Not allowed to load
 *   local resource" for file:// URLs), CSP errors, and everything the page logs with console.error.
 * - Warnings, logs and info messages never count.
 * - "Load and a short settle" = the `load` event plus SETTLE_MS (300 ms, runner/gather/session.ts); errors
 *   after that (e.g. on a timer 5 s later) are not seen.
 * - Unscorable when the browser session failed, or when the page never finished loading (the errors of the
 *   rest of the load were never observed; the faults are in the reason).
 */
import { densityPenalty, round2 } from '../formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { ConsoleEntry } from '../../core/browser-evidence.js';

export const COUNTED_LEVELS = new Set(['error', 'assert']);

/** Split console entries into the page's own errors and the ones webgrade or the browser caused. */
export function classifyConsole(entries: readonly ConsoleEntry[]): { counted: ConsoleEntry[]; blocked: ConsoleEntry[]; browserMade: ConsoleEntry[] } {
  const counted: ConsoleEntry[] = [];
  const blocked: ConsoleEntry[] = [];
  const browserMade: ConsoleEntry[] = [];
  for (const e of entries) {
    if (!COUNTED_LEVELS.has(e.level)) continue;
    if (e.webgradeCaused) blocked.push(e);
    else if (e.browserMade) browserMade.push(e);
    else counted.push(e);
  }
  return { counted, blocked, browserMade };
}

const consoleErrors: MetricDefinition = {
  number: 4,
  id: 'console-errors',
  perspective: 'code',
  kind: 'rule',
  needs: ['source', 'browser'],
  title: 'Console errors',
  question: 'Does the page load without errors in the browser console?',
  suite: 'study',
  score({ artifact, browser }) {
    if (!browser) return unscorable('the browser session was not run');
    if (!browser.ok) return unscorable(browser.reason);
    const b = browser.value;
    if (b.loaded === false) return unscorable(`the page did not finish loading: ${b.faults.join('; ') || 'load timeout'}`, { faults: b.faults });
    const { counted, blocked, browserMade } = classifyConsole(b.console);
    const exceptions = b.pageErrors.filter((e) => e.kind === 'exception');
    const rejections = b.pageErrors.filter((e) => e.kind === 'unhandled-rejection');
    const E = counted.length + b.pageErrors.length;
    const L = artifact.physicalLines;
    const score = densityPenalty(E, L);
    const cut = (s: string) => (s.length > 300 ? s.slice(0, 300) + '…' : s);
    return scored(
      score,
      E === 0 ? `no errors in ${L} lines` : `${E} error${E === 1 ? '' : 's'} in ${L} lines (${round2((1000 * E) / L)} per 1000 lines)`,
      {
        errors: E,
        lines: L,
        consoleErrors: counted.slice(0, 50).map((e) => ({ text: cut(e.text), url: e.url, line: e.line })),
        exceptions: exceptions.slice(0, 50).map((e) => cut(e.message)),
        unhandledRejections: rejections.slice(0, 50).map((e) => cut(e.message)),
        notCounted: {
          blockedByWebgrade: blocked.map((e) => e.url ?? cut(e.text)),
          browserMade: browserMade.map((e) => e.url ?? cut(e.text)),
        },
        faults: b.faults,
      },
    );
  },
};

export default consoleErrors;
