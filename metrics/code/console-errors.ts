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
 * - Not counted, but listed in details: "Failed to load resource" lines for requests the sandbox refused or
 *   withheld (anything but the artifact's own files and, in network mode `cdn`, the CDN files it serves: those
 *   errors are caused by our isolation, not by the page; resource-validity judges those URLs), and the browser's
 *   own favicon probe (`/favicon.ico` requested by Chrome when the page declares no icon).
 * - Errors caused by a library webgrade withheld (network mode `offline`, or a CDN file the cache could not
 *   serve) are not the page's defect either: when the visit withheld a script, uncaught exceptions and unhandled
 *   rejections of the kinds a missing library causes (`X is not defined`, `X is not a function` / `not a
 *   constructor`, reading a property of undefined or null, a module or dynamic import that failed to load) are
 *   listed apart (`notCounted.withheldLibrary`) and not counted. A heuristic, documented: such an error could in
 *   rare cases be the page's own; without a withheld script nothing is excused. A CDN URL that does not exist on
 *   the registry (a version or file never published) is the page's defect: it is served as a 404, as the real CDN
 *   would, and what breaks because of it counts.
 * - Counted: 404s of the artifact's own missing files, Chrome's security errors (e.g. "Not allowed to load
 *   local resource" for file:// URLs), CSP errors, and everything the page logs with console.error.
 * - Warnings, logs and info messages never count.
 * - "Load and a short settle" = the `load` event plus SETTLE_MS (300 ms, gather/time.ts); errors
 *   after that (e.g. on a timer 5 s later) are not seen.
 * - Unscorable when the browser session failed, or when the page never finished loading (the errors of the
 *   rest of the load were never observed; the faults are in the reason).
 * - A page that loaded but then stopped responding (its main thread busy: the visit's responsiveness probe timed
 *   out) has its console observed only partly, and how far depends on the machine's speed: with errors seen, they
 *   are scored (a lower bound, said in the summary); with none seen, the metric is unscorable rather than 100
 *   (a page that hangs after load is not an error-free page; measured: one corpus page scored 0 with 29 errors
 *   on a quiet machine and 100 with none when a second worker slowed it into the probe's timeout).
 */
import { densityPenalty, round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { ConsoleEntry, NetworkEntry } from '../../core/browser-evidence.js';
import { present } from '../../core/evidence.js';
import { MISSING_LIBRARY_ERROR } from '../lib/console.js';

export const COUNTED_LEVELS = new Set(['error', 'assert']);

/** Did the visit withhold a script (offline mode, or a CDN script the cache could not serve)? */
export function withheldScripts(network: readonly NetworkEntry[]): string[] {
  return network
    .filter((e) => e.phase === 'visit' && e.withheld && (e.destination === 'script' || e.destination === 'unknown' || e.destination === 'empty'))
    .map((e) => e.url);
}

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
    const b = present(browser, 'the browser evidence');
    if (b.loaded === false) return unscorable(`the page did not finish loading: ${b.faults.join('; ') || 'load timeout'}`, { faults: b.faults });
    const { counted, blocked, browserMade } = classifyConsole(b.console);
    const withheld = withheldScripts(b.network ?? []);
    const excused = withheld.length ? b.pageErrors.filter((e) => MISSING_LIBRARY_ERROR.test(e.message)) : [];
    const own = b.pageErrors.filter((e) => !excused.includes(e));
    const exceptions = own.filter((e) => e.kind === 'exception');
    const rejections = own.filter((e) => e.kind === 'unhandled-rejection');
    const E = counted.length + own.length;
    const L = artifact.physicalLines;
    const hung = b.unavailable?.domHtml;
    if (hung && E === 0)
      return unscorable(`no errors seen before the page stopped responding (${hung}): its console was observed only partly`, { faults: b.faults });
    const score = densityPenalty(E, L);
    const cut = (s: string) => (s.length > 300 ? s.slice(0, 300) + '…' : s);
    return scored(
      score,
      (E === 0 ? `no errors in ${L} lines` : `${E} error${E === 1 ? '' : 's'} in ${L} lines (${round2((1000 * E) / L)} per 1000 lines)`) +
        (hung ? ', seen before the page stopped responding (at least this many)' : '') +
        (excused.length ? `; ${excused.length} not counted: caused by ${withheld.length} CDN script${withheld.length === 1 ? '' : 's'} webgrade withheld` : ''),
      {
        errors: E,
        lines: L,
        consoleErrors: counted.slice(0, 50).map((e) => ({ text: cut(e.text), url: e.url, line: e.line })),
        exceptions: exceptions.slice(0, 50).map((e) => cut(e.message)),
        unhandledRejections: rejections.slice(0, 50).map((e) => cut(e.message)),
        notCounted: {
          blockedByWebgrade: blocked.map((e) => e.url ?? cut(e.text)),
          browserMade: browserMade.map((e) => e.url ?? cut(e.text)),
          withheldLibrary: excused.slice(0, 50).map((e) => cut(e.message)),
        },
        withheldScripts: withheld.slice(0, 20),
        faults: b.faults,
      },
    );
  },
};

export default consoleErrors;
