/**
 * requirement-tests (extended suite, interaction; SPEC "Suites" and "Requirement tests"): the requirement's own
 * tests run in the browser. score = 100 × passed / tests run.
 *
 * Interpretations:
 * - Tests run = those with a verdict (passed or failed). A natural-language test without a judge, one whose
 *   agent gave no usable answer (malformed JSON after retries, a failed call, its token or time cap) and one the
 *   budget did not reach are not run: listed with the reason, never counted as failures.
 * - A test whose page stopped responding counts as failed (the page's fault, as in interaction-errors).
 * - Unscorable when no requirement is given, it has no tests, or none could be run.
 * - Details per test: pass/fail, the failing step or expectation, where it came from (`scripted`, `agent` for
 *   an agent's session, `replay` for its recording replayed), the steps and expectations with what was found,
 *   the agent's recorded script and its usage; `usage` sums the agent's calls, tokens and cost over the tests
 *   (the judges' accounting fields; a replay costs no call).
 *
 * `--explain requirement-tests --out <dir>` writes each test's after-screenshot with the elements it acted on
 * boxed (green when the test passed, red when it failed); a box the page returned that is not four finite numbers
 * is left out of the picture, and the others are clamped to it.
 */
import { scored, unscorable, type MetricDefinition, type MetricPicture } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import type { RequirementTestResult } from '../../core/requirement-tests.js';
import { boxInImage, overlay, svgLabel, svgRect } from '../lib/image-tools.js';
import { plural } from './probe-evidence.js';

/** The agent's calls over every test, summed like a judge's usage (the judges' accounting fields). */
function totalUsage(results: readonly RequirementTestResult[]): Record<string, unknown> | undefined {
  const used = results.map((t) => t.usage).filter((u): u is Record<string, unknown> => !!u);
  if (!used.length) return undefined;
  const out: Record<string, number | null> = { calls: 0, invalidAnswers: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, callMs: 0 };
  for (const u of used) {
    for (const k of Object.keys(out)) {
      const v = u[k];
      if (k === 'costUsd' && (v === null || out.costUsd === null)) out.costUsd = null;
      else if (typeof v === 'number') out[k] = (out[k] as number) + v;
    }
  }
  return out;
}

function resultsOf(evidence: Evidence): { value: RequirementTestResult[] } | { reason: string } {
  const g = evidence.requirementTests;
  if (!g) return { reason: 'the requirement tests were not run' };
  if (!g.ok) return { reason: g.reason };
  return { value: g.value.results };
}

/** A file-name-safe form of a test id. */
export const pictureName = (id: string): string => `test-${id.replace(/[^\w.-]+/g, '_').slice(0, 60)}`;

async function pictures(evidence: Evidence): Promise<MetricPicture[]> {
  const r = resultsOf(evidence);
  if ('reason' in r) return [];
  const out: MetricPicture[] = [];
  for (const t of r.value) {
    const shot = t.screenshot;
    if (!shot || t.passed === null) continue;
    const colour = t.passed ? '#1a9d3c' : '#d00';
    let body = '';
    // The boxes are the page's answers: one that is not four finite numbers, or lies outside the picture, is left
    // out (the others keep their step numbers).
    (Array.isArray(t.boxes) ? t.boxes : []).forEach((raw, i) => {
      const b = boxInImage(raw, shot.width, shot.height);
      if (!b) return;
      const box = { x: b.x - 3, y: b.y - 3, width: b.width + 6, height: b.height + 6 };
      body += svgRect(box, colour, 3) + svgLabel(box.x, Math.max(14, box.y - 4), `${i + 1}`, colour, 13);
    });
    out.push({
      name: pictureName(t.id),
      png: await overlay(shot.png, shot.width, shot.height, body),
      caption: `test ${t.id} ${t.passed ? 'passed' : `failed: ${t.reason ?? ''}`}; the ${plural(t.boxes?.length ?? 0, 'element')} acted on boxed in step order`,
    });
  }
  return out;
}

const requirementTests: MetricDefinition = {
  number: 32,
  id: 'requirement-tests',
  perspective: 'interaction',
  kind: 'rule',
  needs: ['requirement-tests'],
  title: 'Requirement tests',
  question: 'Does the page pass the tests written for its requirement, run in the browser?',
  suite: 'extended',
  illustrate(evidence) {
    return pictures(evidence);
  },
  score(evidence) {
    const r = resultsOf(evidence);
    if ('reason' in r) return unscorable(r.reason);
    const ran = r.value.filter((t) => t.passed !== null);
    const notRun = r.value.filter((t) => t.passed === null).map((t) => ({ id: t.id, reason: t.reason ?? 'not run' }));
    const tests = r.value.map((t) => ({
      id: t.id,
      ...(t.title ? { title: t.title } : {}),
      source: t.source,
      passed: t.passed,
      ...(t.reason ? { reason: t.reason } : {}),
      steps: t.steps,
      expectations: t.expectations,
      ...(t.screenshot && t.passed !== null ? { screenshot: `requirement-tests-${pictureName(t.id)}.png` } : {}),
      ...(t.recorded ? { recorded: t.recorded } : {}),
      ...(t.usage ? { usage: t.usage } : {}),
      ms: t.ms,
    }));
    const usage = totalUsage(r.value);
    if (ran.length === 0)
      return unscorable(`none of the ${plural(r.value.length, 'test')} could be run: ${notRun[0]?.reason ?? 'no reason'}`, {
        tests,
        notRun,
        ...(usage ? { usage } : {}),
      });
    const passed = ran.filter((t) => t.passed).length;
    const failed = ran.filter((t) => !t.passed);
    const summary =
      failed.length === 0
        ? `all ${plural(ran.length, 'test')} passed`
        : `${passed} of ${plural(ran.length, 'test')} passed; ${failed[0]!.id}: ${(failed[0]!.reason ?? '').slice(0, 100)}${failed.length > 1 ? ' …' : ''}`;
    return scored((100 * passed) / ran.length, summary + (notRun.length ? ` (${notRun.length} not run)` : ''), {
      run: ran.length,
      passed,
      failed: failed.map((t) => t.id),
      notRun,
      tests,
      ...(usage ? { usage } : {}),
    });
  },
};

export default requirementTests;
