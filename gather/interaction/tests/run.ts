/**
 * Requirement tests in the browser (SPEC "Requirement tests"): each test runs from the probe's restored start
 * state (storage cleared, the entry page loaded again, the page clock settled: probe/run.ts `restore`), on the
 * probe's page clock and in its sandbox context, and ends with a full-page screenshot on which the elements it
 * acted on are boxed by `--explain requirement-tests --out`.
 *
 * A scripted test: the steps in order (steps.ts); the first step that fails ends the test (failed, naming the
 * locator and the nearest texts); then OBSERVE page-clock ms pass and the network goes quiet, and every
 * expectation is checked (all of them, so that the details say which hold). `changed` compares a fingerprint
 * taken right after the restore with one taken at the end; `noErrors` counts the uncaught exceptions and
 * rejections recorded from the restore to the end (console messages are not errors here).
 *
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
  describeExpectation,
  describeStep,
  isNaturalTest,
  type Expectation,
  type RequirementTest,
  type RequirementTestResult,
  type RequirementTestsEvidence,
  type ScriptedTest,
  type TestBox,
} from '../../../core/requirement-tests.js';
import { withTimeout } from '../../time.js';
import { EVAL_MS, MAX_HANGS, SCREENSHOT_CAP_PX } from '../probe/limits.js';
import { OutOfBudget, ProbeRun } from '../probe/run.js';
import { runStep } from './steps.js';

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

type ChangedTarget = Extract<Expectation, { changed: unknown }>['changed'];

/** A test in progress: what its expectations compare with. */
export interface TestState {
  t0: number;
  /** Fingerprints after the restore, per `changed` expectation index. */
  before: Map<number, string>;
  /** With `baseline`: whether each expectation already held on the restored start state, before any step. */
  atStart?: boolean[];
  steps: RequirementTestResult['steps'];
  boxes: TestBox[];
}

/**
 * Restore the start state and take what `changed` compares with; with `baseline`, also check each expectation on
 * that start state (an agent's verdict counts only the expectations that did not already hold there: agent.ts).
 */
export async function startTest(run: ProbeRun, expect: readonly Expectation[], opts: { baseline?: boolean } = {}): Promise<TestState> {
  const t0 = performance.now();
  await run.restore();
  run.d.startWindow();
  const before = new Map<number, string>();
  for (const [k, e] of expect.entries()) if ('changed' in e) before.set(k, await run.call<string>('tests.fingerprint', [e.changed as ChangedTarget, `c${k}`]));
  const st: TestState = { t0, before, steps: [], boxes: [] };
  if (opts.baseline) st.atStart = (await checkExpectations(run, st, expect)).map((e) => e.ok);
  return st;
}

/** Run steps in order until one fails; returns the failing step's note, or undefined when all ran. */
export async function runSteps(run: ProbeRun, st: TestState, steps: ScriptedTest['steps']): Promise<string | undefined> {
  for (const [k, step] of steps.entries()) {
    const docs = run.d.win.documents.length;
    const o = await runStep(run, step);
    st.steps.push({ step: describeStep(step), ok: o.ok, ...(o.note ? { note: o.note } : {}) });
    if (o.box) st.boxes.push(o.box);
    if (!o.ok) return `step ${k + 1} (${describeStep(step)}): ${o.note}`;
    // A step that loaded another document: wait for it and settle its clock before the next step.
    if (run.d.win.documents.length > docs) await run.afterNavigation(run.d.win);
  }
  return undefined;
}

/** Check every expectation on the page as it is now. */
export async function checkExpectations(run: ProbeRun, st: TestState, expect: readonly Expectation[]): Promise<RequirementTestResult['expectations']> {
  const out: RequirementTestResult['expectations'] = [];
  for (const [k, e] of expect.entries()) {
    let r: { ok: boolean; found: string };
    if ('noErrors' in e) {
      const errs = run.d.win.errors.filter((x) => x.kind !== 'console');
      r = {
        ok: errs.length === 0,
        found: errs.length
          ? errs
              .slice(0, 3)
              .map((x) => x.message.slice(0, 120))
              .join('; ')
          : 'none',
      };
    } else if ('changed' in e) {
      const now = await run.call<string>('tests.fingerprint', [e.changed as ChangedTarget, `c${k}`]);
      const was = st.before.get(k);
      r = { ok: now !== was, found: now === was ? 'unchanged' : now === 'absent' ? 'gone' : was === 'absent' ? 'appeared' : 'changed' };
    } else r = await run.call<{ ok: boolean; found: string }>('tests.expect', [e]);
    out.push({ expect: describeExpectation(e), ok: r.ok, found: r.found });
  }
  return out;
}

/** Let the page finish what the last step started (OBSERVE on the page clock, then a quiet network). */
export async function observe(run: ProbeRun): Promise<void> {
  await run.agent('advance', [OBSERVE_MS]);
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

async function scripted(run: ProbeRun, test: ScriptedTest): Promise<RequirementTestResult> {
  const st = await startTest(run, test.expect);
  const failed = await runSteps(run, st, test.steps);
  const expectations = failed ? [] : (await observe(run), await checkExpectations(run, st, test.expect));
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
async function one(run: ProbeRun, test: RequirementTest, opts: TestRunOptions): Promise<RequirementTestResult> {
  if (isNaturalTest(test)) {
    if (!opts.agent) return notRun(test, `natural-language test not run: ${opts.noAgent ?? 'no judge configured'}`);
    return opts.agent(run, test);
  }
  return scripted(run, test);
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
  const run = new ProbeRun(context, artifact, origin, entryUrl, {
    deadline: opts.deadline,
    started: t0,
    settings: { budgetMs: Math.max(1, opts.deadline - t0) },
  });
  const ev: RequirementTestsEvidence = { results: [], faults: [], timings: {} };
  await run.openPage();
  let hangs = 0;
  try {
    for (const test of tests) {
      if (run.left() <= 0 || hangs >= MAX_HANGS) {
        ev.results.push(
          notRun(test, hangs >= MAX_HANGS ? `not run: the page stopped responding in ${hangs} tests` : "not run: the tests' time budget ran out"),
        );
        continue;
      }
      const t = performance.now();
      try {
        ev.results.push(await one(run, test, opts));
      } catch (err) {
        if (err instanceof OutOfBudget) {
          ev.results.push(notRun(test, "not run to the end: the tests' time budget ran out"));
          continue;
        }
        ev.results.push({
          ...notRun(test, `the page stopped responding during the test (${errorMessage(err)})`),
          passed: false,
          ms: Math.round(performance.now() - t),
        });
        // As the probe does with a hung page: its script stopped, then a new page.
        hangs++;
        await withTimeout(run.d.cdp.send('Runtime.terminateExecution'), 300, 'terminate').catch(() => undefined);
        await run.d.close().catch(() => undefined);
        await run.openPage();
      }
    }
  } finally {
    await run.d.close().catch((err) => ev.faults.push(errorMessage(err)));
  }
  ev.timings.total = Math.round(performance.now() - t0);
  return ev;
}
