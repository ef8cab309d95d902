/**
 * The agent that runs a natural-language requirement test (`{"id", "task", "expected"}`): through the judge
 * client (OpenAI-compatible), one step at a time from the restored start state, it sees the page (the probe's
 * control list with texts, the visible text, and with `agent.vision` a screenshot), picks one step of the
 * scripted vocabulary (judges/prompts/agent.ts), and finally answers whether the expected result holds, with
 * its evidence and expectations the runner checks on the page.
 *
 * Recording and replay: the steps that ran and the verdict's expectations are recorded as a scripted test for
 * that artifact, cached by (model, prompt version, artifact hash, test) in the judges' cache folder, the artifact
 * hash taken over every file's path and bytes (lib/artifact/hash.ts); a rerun replays the steps and checks the
 * expectations without any call (deterministic and free). A recorded "failed" replays to failed when the steps
 * still run.
 *
 * Outcomes: passed only with a "passed" verdict whose expectations all hold on the page and at least one of which
 * did not already hold on the restored start state; failed on a "failed" verdict, a "passed" one whose
 * expectations do not hold or all already held at the start (or that names none), or the step cap reached without
 * a verdict (the agent could not get the expected result within its steps; that is recorded too).
 *
 * Vacuous verdicts. An expectation that holds before any step and after the steps shows nothing the page did:
 * `count` of `body` at least 1, `url` containing "http", `hidden` of a text the page never had hold on an empty
 * page, and a model talked into "passed" by the page would otherwise take it from 0 to 100 (and the recording
 * would replay the pass). So each expectation of a "passed" verdict is also checked on the restored start state
 * (`startTest` with `baseline`: a replay does it before its steps; a live session, whose expectations come only
 * with its verdict, restores the start state after its screenshot and checks them there); those that held there
 * are marked `heldAtStart` and do not count, and a pass with no expectation left is not accepted: the test
 * fails, with a reason that says so. Recordings replay under the same rule. Consequence: a test whose expected
 * result is already on the start screen ("the page shows a title") cannot be passed by the agent, whatever its
 * steps; such a check belongs in a scripted test, whose expectations are the test author's and count as written.
 *
 * Not run (null, with the reason, not recorded): no judge, a call that failed, malformed JSON after the client's
 * retries (`invalidRetries`), the token cap or the time cap. A step whose locator finds nothing is told to the
 * agent, not counted as a failure; it is not recorded. Cost: the calls' usage in the judges' accounting shape (judges/run.ts `JudgeUsage`).
 */
import { createHash } from 'node:crypto';
import { describeStep, type Expectation, type NaturalTest, type RequirementTestResult, type ScriptedTest } from '../../../core/requirement-tests.js';
import { JudgeCache } from '../../../judges/cache.js';
import { JudgeCallError, costUsd, type JudgeClient } from '../../../judges/client.js';
import {
  agentMessages,
  validateAgentAnswer,
  AGENT_PROMPT_VERSION,
  type AgentAnswer,
  type AgentObservation,
  type AgentTurn,
} from '../../../judges/prompts/agent.js';
import { checkAnswer, emptyUsage, type JudgeUsage } from '../../../judges/run.js';
import type { JudgeSettings } from '../../../judges/settings.js';
import { EVAL_MS } from '../probe/limits.js';
import type { ProbeRun } from '../probe/run.js';
import { afterShot, checkExpectations, observe, runSteps, startTest, type TestState } from './run.js';

export interface AgentContext {
  client: JudgeClient;
  settings: JudgeSettings;
  model: string;
  /** The recordings' cache (null folder: no cache). */
  cache: JudgeCache;
  /** Every file's path and bytes (lib/artifact/hash.ts), so that a recording never crosses artifacts. */
  artifactHash: string;
}

/** What is recorded for one (model, prompt version, artifact, test). */
export type Recording = ScriptedTest & { verdict: boolean; evidence: string };

export function recordingKey(model: string, artifactHashHex: string, test: NaturalTest): string {
  return createHash('sha256')
    .update(
      JSON.stringify({
        model,
        promptVersion: AGENT_PROMPT_VERSION,
        artifact: artifactHashHex,
        test: { id: test.id, task: test.task, expected: test.expected },
      }),
    )
    .digest('hex');
}

class GaveUp extends Error {}

/** One call with invalid-answer retries (the rejected answer and why are shown to the model). */
async function ask(ctx: AgentContext, messages: AgentMessages, usage: JudgeUsage, signal: AbortSignal): Promise<AgentAnswer> {
  let msgs = messages;
  let last = '';
  const attempts = ctx.settings.invalidRetries + 1;
  for (let a = 0; a < attempts; a++) {
    const r = await ctx.client.chat({ model: ctx.model, messages: msgs, signal });
    usage.calls++;
    usage.promptTokens += r.usage.promptTokens;
    usage.completionTokens += r.usage.completionTokens;
    usage.callMs += r.ms;
    const c = costUsd(ctx.settings, ctx.model, r.usage);
    usage.costUsd = c === null || usage.costUsd === null ? null : usage.costUsd + c;
    if (!usage.responseFormats.includes(r.responseFormat)) usage.responseFormats.push(r.responseFormat);
    const v = checkAnswer({ validate: validateAgentAnswer }, r.text);
    if (v.ok) return v.value;
    usage.invalidAnswers++;
    last = v.error;
    msgs = [
      ...messages,
      { role: 'assistant', content: r.text.slice(0, 4000) },
      { role: 'user', content: `That answer was rejected: ${last}. Answer again with only the JSON object in the requested format.` },
    ];
  }
  throw new GaveUp(`the agent's answer was invalid after ${attempts} attempt${attempts > 1 ? 's' : ''}: ${last}`);
}
type AgentMessages = ReturnType<typeof agentMessages>;

async function look(run: ProbeRun, vision: boolean): Promise<AgentObservation> {
  await run.d.listeners(run.bound(EVAL_MS)).catch(() => undefined);
  const controls = await run.enumerate();
  const text = await run.call<string>('tests.text', [4000]);
  const url = await run.call<string>('href', [], 1000);
  const shot = vision ? await run.d.screenshot(1600, run.bound(EVAL_MS)).catch(() => undefined) : undefined;
  return { controls: controls.map((c) => ({ kind: c.kind, text: c.text, selector: c.selector })), text, url, ...(shot ? { screenshot: shot.png } : {}) };
}

/** The result of checking a verdict's expectations (or a recorded "failed"). */
async function conclude(
  run: ProbeRun,
  st: TestState,
  test: NaturalTest,
  rec: Recording,
  source: RequirementTestResult['source'],
  usage?: JudgeUsage,
): Promise<RequirementTestResult> {
  await observe(run);
  const checked = rec.verdict ? await checkExpectations(run, st, rec.expect) : [];
  const bad = checked.find((e) => !e.ok);
  const shot = await afterShot(run);
  // A replay checked the start state before its steps; a live session knows its expectations only now, so the
  // start state is restored and checked after the screenshot (the page's state is no longer needed).
  const atStart = rec.verdict && !bad ? (st.atStart ?? (await startTest(run, rec.expect, { baseline: true })).atStart!) : [];
  const expectations = checked.map((e, i) => (atStart[i] ? { ...e, heldAtStart: true } : e));
  const passed = rec.verdict && !bad && expectations.some((e) => !e.heldAtStart);
  const reason = passed
    ? undefined
    : !rec.verdict
      ? `the agent found the expected result does not hold: ${rec.evidence || 'no evidence given'}`
      : bad
        ? `the agent said passed, but ${bad.expect} does not hold (found ${bad.found})`
        : vacuous(expectations);
  return {
    id: test.id,
    title: test.task,
    source,
    passed,
    ...(reason ? { reason } : {}),
    steps: st.steps,
    expectations,
    recorded: rec,
    boxes: st.boxes,
    ...(shot ? { screenshot: shot } : {}),
    ...(usage ? { usage: { ...usage } } : {}),
    ms: Math.round(performance.now() - st.t0),
  };
}

/** Why a "passed" verdict whose expectations all hold is not accepted: none of them shows a change. */
function vacuous(expectations: RequirementTestResult['expectations']): string {
  if (expectations.length === 0) return 'the agent said passed without naming an expectation to check it on the page';
  const named = expectations.map((e) => e.expect).join('; ');
  return `the agent said passed, but every expectation it named already held on the start state, before any step, so none shows the expected result (${named.length > 300 ? `${named.slice(0, 300)}…` : named})`;
}

/** Replay a recording: the start state checked, its steps, then its expectations; no call. */
export async function replay(run: ProbeRun, test: NaturalTest, rec: Recording): Promise<RequirementTestResult> {
  const st = await startTest(run, rec.expect, { baseline: rec.verdict });
  const failed = await runSteps(run, st, rec.steps);
  if (failed)
    return {
      id: test.id,
      title: test.task,
      source: 'replay',
      passed: false,
      reason: `the recorded ${failed} in the replay`,
      steps: st.steps,
      expectations: [],
      recorded: rec,
      boxes: st.boxes,
      ms: Math.round(performance.now() - st.t0),
    };
  return conclude(run, st, test, rec, 'replay');
}

/** Run a natural-language test: replay its recording when there is one, else the agent's session. */
export async function runAgentTest(run: ProbeRun, test: NaturalTest, ctx: AgentContext): Promise<RequirementTestResult> {
  const key = recordingKey(ctx.model, ctx.artifactHash, test);
  const hit = ctx.cache.get(key);
  if (hit) {
    try {
      return await replay(run, test, JSON.parse(hit.text) as Recording);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
    }
  }
  const caps = ctx.settings.agent;
  const usage = emptyUsage();
  const t0 = performance.now();
  const signal = AbortSignal.timeout(caps.timeMs);
  const st = await startTest(run, []);
  const history: AgentTurn[] = [];
  const steps: ScriptedTest['steps'] = [];
  const unrun = (reason: string): RequirementTestResult => ({
    id: test.id,
    title: test.task,
    source: 'agent',
    passed: null,
    reason,
    steps: st.steps,
    expectations: [],
    usage: { ...usage },
    ms: Math.round(performance.now() - t0),
  });
  try {
    // The agent's steps, recorded as a scripted test for this artifact: a rerun replays them without a call.
    const keep = (rec: Recording): void =>
      ctx.cache.put({
        version: 1,
        key,
        model: ctx.model,
        promptVersion: AGENT_PROMPT_VERSION,
        repeat: 0,
        createdAt: new Date().toISOString(),
        text: JSON.stringify(rec),
        usage: { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens },
      });
    for (let n = 0; ; n++) {
      const obs = await look(run, caps.vision);
      const answer = await ask(ctx, agentMessages(test, history, obs, caps.maxSteps - n), usage, signal);
      if (usage.promptTokens + usage.completionTokens > caps.maxTokens)
        return unrun(`not run to the end: the agent used ${usage.promptTokens + usage.completionTokens} tokens, over its cap of ${caps.maxTokens}`);
      if (answer.kind === 'verdict') {
        const rec: Recording = { id: test.id, steps, expect: answer.expect as Expectation[], verdict: answer.passed, evidence: answer.evidence };
        const out = await conclude(run, st, test, rec, 'agent', usage);
        keep(rec);
        return out;
      }
      if (n >= caps.maxSteps) {
        const rec: Recording = { id: test.id, steps, expect: [], verdict: false, evidence: `gave up at the step cap (${caps.maxSteps} steps)` };
        keep(rec);
        const out = await conclude(run, st, test, rec, 'agent', usage);
        return { ...out, reason: `the agent reached its step cap (${caps.maxSteps} steps) without establishing the expected result` };
      }
      const before = st.steps.length;
      const failed = await runSteps(run, st, [answer.step]);
      if (failed)
        st.steps.splice(before); // a step that found nothing changed nothing: not recorded
      else steps.push(answer.step);
      history.push({ step: describeStep(answer.step), outcome: failed ? `failed: ${failed.replace(/^step \d+ \([^)]*\): /, '')}` : 'done' });
    }
  } catch (err) {
    if (err instanceof GaveUp) return unrun(`not run: ${err.message}`);
    if (err instanceof JudgeCallError) return unrun(`not run: ${signal.aborted ? `the agent's time cap of ${caps.timeMs / 1000} s was reached` : err.message}`);
    throw err;
  }
}
