/**
 * error-handling (SPEC #3): find the functions that need protection against failure, and check that they have
 * it (the analysis: `metrics/lib/error-handling/`). N = needing but unprotected, R = all needing; score = (1 − log2(1 + N/(R+1))) × 100; unscorable when the
 * artifact has no JavaScript or when R = 0.
 *
 * What is analysed (acorn tree of every JS block via `parseJs`, walked with acorn-walk):
 * - Units: every function (declaration, expression, arrow, class/object method, class-field arrow, callbacks
 *   passed to addEventListener/then/setTimeout/...), the top-level code of each `<script>`/JS file (it runs
 *   once at load, and an uncaught throw there stops the rest of the script), and each event-handler attribute
 *   (`onclick="..."`, one unit per attribute). Broken code is analysed on the acorn-loose tree (`recovered`).
 *   A block that cannot be parsed or walked at all (nesting deeper than the call stack) is left out and listed
 *   in `skippedBlocks`; when every block is, the metric is unscorable.
 * - Names: a declaration's id, the variable/property/assignment target it is assigned to
 *   (`window.onload`, `this.save`), `Class.method` for class members; callbacks are named after the call that
 *   receives them (`click listener`, `then callback`, `setTimeout callback`) and count as anonymous.
 *
 * A unit NEEDS protection when (reasons, all looked for directly in its body, never inside a nested function,
 * which is a unit of its own):
 * - it is `async` (or an async generator);
 * - it calls `fetch(...)`/`window.fetch(...)`, `axios(...)`/`axios.<verb>(...)`, creates
 *   `new XMLHttpRequest()`, calls `.open()/.send()` on a name that some code of the page assigns
 *   `new XMLHttpRequest()` to, or creates `new WebSocket(...)`/`new EventSource(...)`;
 * - it touches `localStorage`, `sessionStorage` (also through `window.`) or calls `indexedDB.open/deleteDatabase`;
 * - it calls `JSON.parse(...)`;
 * - it passes to `setTimeout`/`setInterval` a callback (inline, or a function name) that does one of the I/O
 *   operations above directly. Such a callback is also a unit of its own: a timer that runs unprotected I/O
 *   counts against both the code that schedules it and the callback (deliberate: the scheduler owns the retry /
 *   failure policy);
 * - its name says it does I/O: it starts with one of RISKY_NAME_PREFIXES (`load`, `fetch`, `save`, `upload`,
 *   `download`, `parse`, `import`, `sync`, `request`, `persist`, `restore`, `retrieve`, `connect`, `submit`,
 *   `send`), case-insensitive on the first letter, followed by the end of the name, an upper-case letter, a
 *   digit, `_` or `$` (so `loadData`, `load`, `fetch_users`, `SaveState`, but not `loader`, `ready`).
 *
 * A risky operation (a "site") is PROTECTED when, walking up from it to the boundary of its function:
 * - it lies in the `try` block of a try statement that has a `catch` clause (`try/finally` alone is not
 *   protection; a try in an outer function does not protect a nested callback);
 * - or it is (part of) the object of a promise chain that later calls `.catch(...)` or `.then(ok, err)` with two
 *   arguments (`fetch(u).then(r => r.json()).catch(show)`, `await fetch(u).catch(...)`), or it is inside the
 *   arguments of `Promise.allSettled(...)`;
 * - for XMLHttpRequest, WebSocket, EventSource and indexedDB requests: the object it is assigned to (by its
 *   source text, e.g. `xhr`, `this.ws`, `request`) gets an error callback anywhere in the page:
 *   `X.onerror = ...`, `X.ontimeout = ...`, `X.addEventListener('error' | 'timeout', ...)`.
 * An `await` in an async unit is a site too (protected by the same rules, or when what it awaits is itself
 * handled: `await p.catch(...)`, `await p.then(ok, err)`, `await Promise.allSettled(...)`), as is a timer whose callback does I/O
 * (protected when every I/O site inside the callback is protected, since no try around `setTimeout` can catch it).
 *
 * A unit is protected when:
 * - it has sites and all of them are protected ("own code"); or
 * - it has no site (only async without await, or only a risky name) and its body has a try/catch or a
 *   `.catch`/`.then(ok, err)` chain ("own code"); or
 * - its name is used somewhere in the page and every such use (recursive calls aside) is protected ("by its
 *   callers"): a call `name(...)`/`x.name(...)` inside try/catch or a `.catch` chain, `.then(name)` in a chain
 *   that is caught, or, transitively, a call whose failure flows to a caller that is itself protected by its
 *   callers (the call is awaited or returned, or the callee is not async). Passing the name as a listener or
 *   timer callback (`addEventListener('click', name)`, `el.onclick = name`, `setTimeout(name)`) is a use that
 *   is never protected. A callback given to `.then/.catch/.finally`, or to `.map` inside
 *   `Promise.all/allSettled/race/any`, fails into that promise: it is protected when that promise is (a later
 *   `.catch`, a surrounding try, `allSettled`), or when the promise is awaited/returned by a unit that is
 *   protected by its callers. Uses are matched by the last name segment only, across all JS blocks and attributes of
 *   the artifact; calls with a computed name (`obj[method]()`) cannot be matched. A callee's rejection is
 *   treated as caught by a surrounding try even if the call is not awaited (lenient).
 *
 * Files: every JS file is analysed, whatever bytes it holds (lib/artifact/load.ts); what loading found wrong
 * with a file (a NUL byte) is listed in `fileNotes` and does not change the score.
 */
import { fileNotes } from '../../core/artifact/model.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { logPenalty, round2 } from '../lib/formula.js';
import { analyseErrorHandling } from '../lib/error-handling/analyse.js';

/** What loading found wrong with the files read (a NUL byte in code: lib/artifact/load.ts), when anything. */
const notesOf = (artifact: Parameters<typeof fileNotes>[0]) => {
  const notes = fileNotes(artifact);
  return notes.length ? { fileNotes: notes } : {};
};

const errorHandling: MetricDefinition = {
  number: 3,
  id: 'error-handling',
  perspective: 'code',
  kind: 'rule',
  needs: ['source'],
  title: 'Error handling',
  question: 'Are risky operations such as network calls, storage and JSON parsing protected against failure?',
  suite: 'study',
  score({ artifact }) {
    const blocks = artifact.sources.filter((b) => b.language === 'js');
    if (blocks.length === 0) return unscorable('no JavaScript', { jsBlocks: 0, ...notesOf(artifact) });
    const a = analyseErrorHandling(blocks);
    const R = a.functions.length;
    const N = a.functions.filter((f) => !f.protected).length;
    const details = {
      needing: R,
      unprotected: N,
      unitsAnalysed: a.unitsAnalysed,
      jsBlocks: a.jsBlocks,
      recoveredBlocks: a.recoveredBlocks,
      skippedBlocks: a.skippedBlocks,
      functions: a.functions,
      ...notesOf(artifact),
    };
    if (a.skippedBlocks.length === blocks.length) return unscorable(`JavaScript could not be analysed: ${a.skippedBlocks[0]!.reason}`, details);
    if (R === 0) return unscorable('no function needs error handling', details);
    const score = logPenalty(N, R);
    return scored(score, `${N} of ${R} functions that need error handling lack it (${round2(score)})`, details);
  },
};

export default errorHandling;
