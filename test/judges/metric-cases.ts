/** Evidence builders for judge metric tests: a judge answer as the gatherer would record it. */
import { gathered, missing, type Evidence, type Gathered, type JudgeAnswer } from '../../core/evidence.js';
import type { Requirement } from '../../core/requirements.js';

export function judgeEvidence(
  id: string,
  repeats: unknown[],
  opts: { requirement?: Requirement; context?: Record<string, unknown>; failed?: string[] } = {},
): Partial<Evidence> {
  const answer: JudgeAnswer = {
    model: 'judge-test',
    promptVersion: 'test/1',
    payload: { repeats, failedRepeats: opts.failed ?? [], context: opts.context ?? {} },
    usage: { calls: repeats.length, cacheHits: 0, promptTokens: 10, completionTokens: 5, costUsd: null },
  };
  const judges: Record<string, Gathered<JudgeAnswer>> = { [id]: gathered(answer) };
  return { judges, ...(opts.requirement ? { requirement: opts.requirement } : {}) };
}

export function judgeMissing(id: string, reason: string, requirement?: Requirement): Partial<Evidence> {
  return { judges: { [id]: missing(reason) }, ...(requirement ? { requirement } : {}) };
}

export function verdicts(
  prefix: string,
  passed: boolean[],
  excerpt = '',
): { verdicts: Array<{ item: string; passed: boolean; reason: string; excerpt: string }> } {
  return { verdicts: passed.map((p, i) => ({ item: `${prefix}${i + 1}`, passed: p, reason: p ? 'present' : 'absent', excerpt })) };
}
