/**
 * The requirement tests' part of the browser gatherer (need `requirement-tests`): the requirement's tests in a
 * browser context of their own (sandbox phase `interaction`, the probe's rules), after Lighthouse's measurement.
 *
 * Budget: scripted tests run within the artifact's budget; each natural-language test run by the agent adds its
 * own time cap (`agent.timeSeconds`) to it, because the agent's time is the judge's (as the judges' own deadline
 * is independent of the page's budget), not the page's. Without a requirement, or one without tests, the evidence
 * is missing with that reason (the metric is unscorable).
 */
import type { BrowserContext } from 'puppeteer-core';
import { artifactContentHash } from '../../../lib/artifact/hash.js';
import { gathered, missing, type Evidence } from '../../../core/evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { isNaturalTest } from '../../../core/requirement-tests.js';
import { JudgeCache } from '../../../judges/cache.js';
import { JudgeClient } from '../../../judges/client.js';
import { AGENT_TASK, modelFor, notConfiguredReason, resolveJudgeSettings, type JudgeSettings } from '../../../judges/settings.js';
import { runAgentTest, type AgentContext } from './agent.js';
import { runRequirementTests, type TestRunOptions } from './run.js';
import { usesOcr, warmOcr } from './ocr.js';
import { withTimeout } from '../../time.js';

/** Why the tests cannot run on this artifact, or null. */
export function noTestsReason(evidence: Evidence): string | null {
  if (!evidence.requirement) return 'no requirement given (--requirement <file#id>, or batch --requirements)';
  if (!evidence.requirement.tests?.length) return `requirement ${evidence.requirement.id} has no tests`;
  return null;
}

/** The agent for this artifact, or why there is none. */
async function agentFor(evidence: Evidence, judge: JudgeSettings | undefined): Promise<Pick<TestRunOptions, 'agent' | 'noAgent'> & { timeMs?: number }> {
  let settings: JudgeSettings;
  try {
    settings = judge ?? resolveJudgeSettings({}, process.env);
  } catch (err) {
    return { noAgent: errorMessage(err) };
  }
  const nc = notConfiguredReason(settings, AGENT_TASK);
  if (nc) return { noAgent: nc };
  const ctx: AgentContext = {
    client: new JudgeClient(settings),
    settings,
    model: modelFor(settings, AGENT_TASK)!,
    cache: new JudgeCache(settings.cacheDir),
    artifactHash: await artifactContentHash(evidence.artifact),
  };
  return { agent: (run, test) => runAgentTest(run, test, ctx), timeMs: settings.agent.timeMs };
}

/** Fill `evidence.requirementTests`, using `newContext` for the tests' browser context; never throws. */
export async function gatherRequirementTests(
  evidence: Evidence,
  site: { origin: string; entryUrl: string },
  deadline: number,
  newContext: () => Promise<BrowserContext>,
  close: (c: BrowserContext) => Promise<void>,
  judge?: JudgeSettings,
): Promise<void> {
  const why = noTestsReason(evidence);
  if (why) {
    evidence.requirementTests = missing(why);
    return;
  }
  const tests = evidence.requirement!.tests!;
  const naturals = tests.filter(isNaturalTest).length;
  const agent = naturals ? await agentFor(evidence, judge) : {};
  const extra = agent.agent ? naturals * (agent.timeMs ?? 0) : 0;
  if (deadline + extra - performance.now() < 3000) {
    evidence.requirementTests = missing('the requirement tests were not run: no time left in the artifact budget');
    return;
  }
  let context: BrowserContext | undefined;
  try {
    // The OCR engine starts beside the context, before the first test's time limit runs.
    const ocr = usesOcr(tests) ? warmOcr() : undefined;
    context = await newContext();
    if (ocr) await withTimeout(ocr, Math.max(0, deadline + extra - performance.now() - 3000), 'OCR start').catch(() => undefined);
    evidence.requirementTests = gathered(
      await runRequirementTests(context, evidence.artifact, site.origin, site.entryUrl, tests, {
        deadline: deadline + extra,
        ...(agent.agent ? { agent: agent.agent } : {}),
        ...(agent.noAgent ? { noAgent: agent.noAgent } : {}),
      }),
    );
  } catch (err) {
    evidence.requirementTests = missing(`the requirement tests failed: ${errorMessage(err)}`);
  } finally {
    if (context) await close(context);
  }
}
