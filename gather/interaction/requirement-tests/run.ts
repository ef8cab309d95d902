/**
 * Requirement tests in the browser (SPEC "Requirement tests"): each test runs from the probe's restored start
 * state (storage cleared, the entry page loaded again, the page clock settled: probe/run.ts `restore`), on the
 * probe's page clock and in its sandbox context, and ends with a full-page screenshot on which the elements it
 * acted on are boxed by `--explain requirement-tests --out`.
 *
 * A scripted test: the steps in order (steps.ts); the first step that fails ends the test (failed, naming the
 * locator and the nearest texts); then OBSERVE page-clock ms pass and the network goes quiet, and every
 * expectation is checked (all of them, so that the details say which hold: expect.ts). Without the OBSERVE
 * (`needsObserve`): a test whose last step is a wait (its author chose the time the page gets), and a test
 * without steps whose expectations compare with nothing earlier (no `changed`/`unchanged`: it asks about the
 * page as it starts).
 *
 * What a page's tests cost (issue: six tests on a heavy page took most of its budget):
 * - Observing tests share one restore: a test whose steps only wait or read (no input, reload or resize; not
 *   `fresh`) changes nothing a person did, so the observing tests of a page run first, in file order, one after
 *   another from one restored start state, each starting where the one before left the page (its page clock
 *   later, its `changed` samples taken at its own start; `sharedWith` names the test whose restore it shares).
 *   Every other test starts from a restore of its own. Results are reported in file order.
 * - On a heavy page (the first restore's settle costs more than the probe's frame-cost target) animation frames
 *   come further apart from MEASURE_MS into that settle on, as in the probe, and on a page whose one frame costs
 *   more CPU time than the probe's widest interval, as far apart as a frame costs: the page clock at about real
 *   speed (ProbeRun.adaptFrames with `paced`).
 * - Each test has a time limit (`timeLimit`, real ms, default TEST_TIME_LIMIT_MS): past it the test is not run to
 *   the end (null, with the reason, never a failure: a slow machine is not the page's fault), and the next test
 *   restores.
 *
 * A page's start-up work off the page clock (a WebAssembly runtime compiling) holds its main thread: a restore's
 * first move of the clock waits START_UP_MS for it, not the 3 s of other calls.
 * A page that stops answering during a test (a step over the probe's per-action time, 4 s) fails that test, and
 * the runner stops its script and opens a new page for the next one; after MAX_HANGS such tests the rest are not
 * run. When the budget runs out, the tests not run are listed, not failed.
 * A natural-language test is run by the agent (agent.ts) when a judge is configured, else it is not run (null,
 * with the reason).
 */
import type { BrowserContext } from 'puppeteer-core';
import type { Artifact } from '../../../core/artifact/model.js';
import { errorMessage } from '../../../core/errors.js';
import {
  isNaturalTest,
  type Expectation,
  type RequirementTest,
  type RequirementTestResult,
  type RequirementTestsEvidence,
  type ScriptedTest,
  type TestStep,
} from '../../../core/requirement-tests.js';
import { withTimeout } from '../../time.js';
import { VIEWPORT } from '../driver.js';
import { EVAL_MS, MAX_HANGS, SCREENSHOT_CAP_PX } from '../probe/limits.js';
import { OutOfBudget, ProbeRun } from '../probe/run.js';
import { checkExpectations as checkAll, takeSamples, type TestState } from './expect.js';
import { runSteps as runAll } from './steps.js';

export type { TestState } from './expect.js';

/** What the runner needs besides the page: the agent for natural-language tests (agent.ts), when configured. */
export interface TestRunOptions {
  /** performance.now() by which every test must be over. */
  deadline: number;
  /** Runs a natural-language test, or says why it cannot be run. */
  agent?: (run: ProbeRun, test: Extract<RequirementTest, { task: string }>) => Promise<RequirementTestResult>;
  /** Why natural-language tests are not run (no judge configured). */
  noAgent?: string;
}

/** Page-clock milliseconds observed after the last step, before the expectations are checked. */
export const OBSERVE_MS = 1000;
/** Real milliseconds a scripted test may take by default (its `timeLimit` overrides it). */
export const TEST_TIME_LIMIT_MS = 8000;

/** A step that only lets time pass or reads (an observing test's steps: the page is as no person touched it). */
function observing(s: TestStep): boolean {
  if ('repeat' in s) return s.steps.every(observing);
  if ('try' in s) return s.try.every(observing);
  return 'wait' in s || 'waitUntil' in s || 'read' in s;
}

/** A test that can share the restore of the observing tests before it (module comment). */
export function isObserving(t: RequirementTest): boolean {
  return !isNaturalTest(t) && !t.fresh && t.steps.every(observing);
}

/** A new test's state; `errors` is the window's live list (start-up included when the window began before the load). */
let serial = 0;
function newState(run: ProbeRun, t0: number): TestState {
  return { t0, key: `t${++serial}`, before: new Map(), values: new Map(), errors: run.d.win.errors, steps: [], boxes: [] };
}

/**
 * Restore the start state (the window of errors opened before the load, so that start-up errors count) and take
 * what `changed` compares with; with `baseline`, also check each expectation on that start state (an agent's
 * verdict counts only the expectations that did not already hold there: agent.ts). With `shared`, no restore: the
 * test starts where the page is.
 */
export async function startTest(run: ProbeRun, expect: readonly Expectation[], opts: { baseline?: boolean; shared?: boolean } = {}): Promise<TestState> {
  const t0 = performance.now();
  if (!opts.shared) {
    if (run.d.viewport.width !== VIEWPORT.width || run.d.viewport.height !== VIEWPORT.height)
      await run.d.resize(VIEWPORT.width, VIEWPORT.height, run.bound(3000));
    run.d.startWindow();
    await run.restore();
  }
  const st = newState(run, t0);
  await takeSamples(run, st, expect, undefined);
  if (opts.baseline) st.atStart = (await checkAll(run, st, expect)).map((e) => e.ok);
  return st;
}

/** Run steps in order until one fails; returns the failing step's note, or undefined when all ran. */
export function runSteps(run: ProbeRun, st: TestState, steps: ScriptedTest['steps'], expect: readonly Expectation[] = []): Promise<string | undefined> {
  return runAll(run, st, steps, expect);
}

/** Check every expectation on the page as it is now. */
export function checkExpectations(run: ProbeRun, st: TestState, expect: readonly Expectation[]): Promise<RequirementTestResult['expectations']> {
  return checkAll(run, st, expect);
}

/** Let the page finish what the last step started (OBSERVE on the page clock, then a quiet network). */
export async function observe(run: ProbeRun, st?: TestState): Promise<void> {
  await run.advance(OBSERVE_MS, false);
  if (st) st.shot = undefined;
  await run.quiet();
}

/** The full-page screenshot after a test (none when it fails: the result says so in its note). */
export async function afterShot(run: ProbeRun): Promise<RequirementTestResult['screenshot'] | undefined> {
  try {
    const s = await run.d.screenshot(SCREENSHOT_CAP_PX, run.bound(EVAL_MS));
    return { png: s.png, width: s.width, height: s.height };
  } catch (err) {
    if (err instanceof OutOfBudget) throw err;
    return undefined;
  }
}

/** An expectation that compares with a sample taken earlier: time must pass between the two. */
function compares(e: Expectation): boolean {
  return 'changed' in e || 'unchanged' in e || ('anyOf' in e && e.anyOf.some(compares));
}

/** A step that ends by letting page time pass: a `wait`, a `waitUntil`, or a `repeat`/`try` whose last step does. */
function givesTime(s: TestStep | undefined): boolean {
  if (!s) return false;
  if ('wait' in s) return s.wait > 0;
  if ('waitUntil' in s) return true;
  if ('repeat' in s) return givesTime(s.steps[s.steps.length - 1]);
  if ('try' in s) return givesTime(s.try[s.try.length - 1]);
  return false;
}

/**
 * Whether the page is observed (OBSERVE) after the test's steps: when the last step is an action (its effect
 * needs time to land), or when a test without steps compares with its start. A test whose last step is a wait
 * has given the page the time its author chose, and a test of the page as it starts (no steps; what it shows,
 * its errors, its motion, which samples its own time) needs none: both are checked at once.
 */
export function needsObserve(test: ScriptedTest): boolean {
  if (!test.steps.length) return test.expect.some(compares);
  return !givesTime(test.steps[test.steps.length - 1]);
}

async function scripted(run: ProbeRun, test: ScriptedTest, shared?: string): Promise<RequirementTestResult> {
  const st = await startTest(run, test.expect, { shared: shared !== undefined });
  const failed = await runSteps(run, st, test.steps, test.expect);
  if (!failed && needsObserve(test)) await observe(run, st);
  const expectations = failed ? [] : await checkExpectations(run, st, test.expect);
  const bad = expectations.find((e) => !e.ok);
  const shot = await afterShot(run);
  return {
    id: test.id,
    ...(test.title ? { title: test.title } : {}),
    source: 'scripted',
    passed: !failed && !bad,
    ...(failed ? { reason: failed } : bad ? { reason: `expected ${bad.expect}; found ${bad.found}` } : {}),
    steps: st.steps,
    expectations,
    boxes: st.boxes,
    ...(shot ? { screenshot: shot } : {}),
    ...(shared !== undefined ? { sharedWith: shared } : {}),
    ms: Math.round(performance.now() - st.t0),
  };
}

const notRun = (test: RequirementTest, reason: string): RequirementTestResult => ({
  id: test.id,
  source: isNaturalTest(test) ? 'agent' : 'scripted',
  passed: null,
  reason,
  steps: [],
  expectations: [],
  ms: 0,
});

/** Run one test; a page that stops answering fails it, and a new page is opened for the next. */
async function one(run: ProbeRun, test: RequirementTest, opts: TestRunOptions, shared?: string): Promise<RequirementTestResult> {
  if (isNaturalTest(test)) {
    if (!opts.agent) return notRun(test, `natural-language test not run: ${opts.noAgent ?? 'no judge configured'}`);
    return opts.agent(run, test);
  }
  return scripted(run, test, shared);
}

/** The order tests run in: observing tests first (they share a restore), then the others; each with its file index. */
export function runOrder(tests: readonly RequirementTest[]): number[] {
  const idx = tests.map((_, i) => i);
  return [...idx.filter((i) => isObserving(tests[i]!)), ...idx.filter((i) => !isObserving(tests[i]!))];
}

/** Run `tests` on the artifact served at `entryUrl`, in `context` (sandbox phase `interaction`). */
export async function runRequirementTests(
  context: BrowserContext,
  artifact: Artifact,
  origin: string,
  entryUrl: string,
  tests: readonly RequirementTest[],
  opts: TestRunOptions,
): Promise<RequirementTestsEvidence> {
  const t0 = performance.now();
  const ev: RequirementTestsEvidence = { results: [], faults: [], timings: {} };
  const run = new ProbeRun(context, artifact, origin, entryUrl, {
    deadline: opts.deadline,
    started: t0,
    settings: { budgetMs: Math.max(1, opts.deadline - t0) },
    coverage: false, // nothing here reads it, and its counters slow the page's own code
    // A heavy page: frames further apart from the first settle on (this document and every later load), at the
    // page's own pace (ProbeRun.adaptEarly).
    onCostKnown: async (r) => {
      if (await r.adaptEarly()) ev.faults.push(`heavy page: animation frames every ${r.frameMs} page-clock ms in the tests`);
    },
  });
  const results = new Map<number, RequirementTestResult>();
  await run.openPage();
  let hangs = 0;
  /** The observing test whose restore the next observing test may share (none after any other test). */
  let sharing: string | undefined;
  try {
    for (const i of runOrder(tests)) {
      const test = tests[i]!;
      if (run.left() <= 0 || hangs >= MAX_HANGS) {
        results.set(i, notRun(test, hangs >= MAX_HANGS ? `not run: the page stopped responding in ${hangs} tests` : "not run: the tests' time budget ran out"));
        continue;
      }
      const t = performance.now();
      const limitMs = isNaturalTest(test) ? undefined : (test.timeLimit ?? TEST_TIME_LIMIT_MS);
      const shared = isObserving(test) ? sharing : undefined;
      run.limit = limitMs !== undefined ? t + limitMs : undefined;
      try {
        const r = await one(run, test, opts, shared);
        results.set(i, r);
        sharing = isObserving(test) && r.passed !== null ? (shared ?? test.id) : undefined;
      } catch (err) {
        sharing = undefined;
        // A call cut short because the test's time ran out is its time limit, not a hung page.
        const overLimit = run.limit !== undefined && performance.now() >= run.limit - 50 && performance.now() < run.deadline;
        if (err instanceof OutOfBudget || overLimit) {
          results.set(
            i,
            notRun(test, overLimit ? `not run to the end: over its time limit of ${limitMs! / 1000} s` : "not run to the end: the tests' time budget ran out"),
          );
          continue;
        }
        results.set(i, {
          ...notRun(test, `the page stopped responding during the test (${errorMessage(err)})`),
          passed: false,
          ms: Math.round(performance.now() - t),
        });
        // As the probe does with a hung page: its script stopped, then a new page.
        hangs++;
        await withTimeout(run.d.cdp.send('Runtime.terminateExecution'), 300, 'terminate').catch(() => undefined);
        await run.d.close().catch(() => undefined);
        await run.openPage();
      } finally {
        run.limit = undefined;
      }
    }
  } finally {
    await run.d.close().catch((err) => ev.faults.push(errorMessage(err)));
  }
  ev.results = tests.map((_, i) => results.get(i)!);
  ev.timings.total = Math.round(performance.now() - t0);
  return ev;
}
