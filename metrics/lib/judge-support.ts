/**
 * Shared scoring of the judge metrics: reading a judge answer out of the evidence, the per-repeat scores and their
 * spread, and alignment scoring. Pure functions of the evidence.
 *
 * Repeats (`--judge-repeats N`): every valid repeat is scored on its own; the metric's score is the mean of those
 * scores; `details.repeats` lists them in repeat order and `details.spread` gives min, max, range and the sample
 * standard deviation (0 for one repeat). Failed repeats are reported in `details.failedRepeats` and left out.
 */
import { present, type Evidence, type JudgeAnswer } from '../../core/evidence.js';
import { round2 } from './formula.js';
import { scored, unscorable, type MetricOutcome, type UnscorableOutcome } from '../../core/metric.js';
import { isAlignmentStance, type AlignmentKind, type JudgePayload, type VerdictsAnswer } from '../../core/judge-answer.js';

export interface Spread {
  min: number;
  max: number;
  range: number;
  sd: number;
}

export function spreadOf(xs: readonly number[]): Spread {
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { min: round2(min), max: round2(max), range: round2(max - min), sd: round2(sd) };
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The judge answer of `id`, or the unscorable outcome that explains its absence. */
export function judgeAnswer<T>(evidence: Evidence, id: string): { answer: JudgeAnswer; payload: JudgePayload<T> } | UnscorableOutcome {
  const g = { value: present(evidence.judges?.[id], `the judge answer of ${id}`) };
  const payload = g.value.payload as JudgePayload<T> | undefined;
  if (!payload || !Array.isArray(payload.repeats) || payload.repeats.length === 0) return unscorable('the judge answer holds no rating');
  return { answer: g.value, payload };
}

export function isUnscorable(x: unknown): x is UnscorableOutcome {
  return !!x && typeof x === 'object' && (x as { score?: unknown }).score === null;
}

/** The details every judge metric reports. */
export function judgeDetails(answer: JudgeAnswer, payload: JudgePayload, repeatScores: number[]): Record<string, unknown> {
  return {
    model: answer.model,
    promptVersion: answer.promptVersion,
    repeats: repeatScores.map(round2),
    spread: spreadOf(repeatScores),
    failedRepeats: payload.failedRepeats,
    usage: answer.usage ?? {},
    ...(answer.pin ? { pin: answer.pin } : {}),
    prompt: payload.context,
  };
}

function normaliseWs(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Whether a judge's code excerpt really occurs in the artifact (whitespace and case ignored; an excerpt the judge
 * shortened with "..." or "…" matches when each piece of 12+ characters occurs). Reported, not scored: it lets a
 * reader spot verdicts resting on invented code.
 */
export function excerptFound(excerpt: string, haystack: string): boolean | null {
  const pieces = excerpt
    .split(/\.\.\.|…/)
    .map(normaliseWs)
    .filter((p) => p.length >= 12);
  if (pieces.length === 0) return null;
  return pieces.every((p) => haystack.includes(p));
}

export function artifactText(evidence: Evidence): string {
  return normaliseWs(evidence.artifact.files.map((f) => f.text ?? '').join('\n'));
}

/**
 * Score an alignment metric: 100 × passed / items per repeat, averaged over repeats. The summary and
 * `details.stance` name the stance the judge was asked under (`study`: items "addressed"; `strict`: items "met").
 */
export function scoreAlignment(evidence: Evidence, id: string, kind: AlignmentKind): MetricOutcome {
  const items = evidence.requirement!.checklist![kind]!;
  const got = judgeAnswer<VerdictsAnswer>(evidence, id);
  if (isUnscorable(got)) return got;
  const { answer, payload } = got;
  const repeats = payload.repeats;
  for (const r of repeats) {
    if (r.verdicts.length !== items.length) return unscorable(`the judge answer has ${r.verdicts.length} verdicts for ${items.length} checklist items`);
  }
  const repeatScores = repeats.map((r) => (100 * r.verdicts.filter((v) => v.passed).length) / items.length);
  const score = mean(repeatScores);
  const text = artifactText(evidence);
  const first = repeats[0]!;
  const itemDetails = items.map((itemText, i) => {
    const v = first.verdicts[i]!;
    return {
      id: v.item,
      item: itemText,
      passed: v.passed,
      passedInRepeats: `${repeats.filter((r) => r.verdicts[i]!.passed).length}/${repeats.length}`,
      reason: v.reason,
      excerpt: v.excerpt,
      excerptFound: excerptFound(v.excerpt, text),
    };
  });
  const passed = first.verdicts.filter((v) => v.passed).length;
  const sourceOnly = payload.context.sourceOnly === true;
  const failedIds = itemDetails.filter((d) => !d.passed).map((d) => d.id);
  // The stance the judge was asked under (core/judge-answer.ts); answers recorded without one are "unknown".
  const stance = isAlignmentStance(payload.context.stance) ? payload.context.stance : 'unknown';
  const met = stance === 'study' ? 'addressed' : 'met';
  const summary =
    (repeats.length > 1
      ? `${round2(score)}% of ${items.length} ${kind} items ${met} on average over ${repeats.length} judge runs`
      : `${passed} of ${items.length} ${kind} items ${met}`) +
    (failedIds.length ? `; not ${met}: ${failedIds.slice(0, 6).join(', ')}${failedIds.length > 6 ? ', …' : ''}` : '') +
    (sourceOnly ? ' (judged from source alone: no screenshot)' : '') +
    ` [stance: ${stance}]`;
  return scored(score, summary, { ...judgeDetails(answer, payload, repeatScores), stance, items: itemDetails, ...(kind === 'visual' ? { sourceOnly } : {}) });
}
