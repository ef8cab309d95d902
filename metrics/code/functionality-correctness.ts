/**
 * functionality-correctness (SPEC #1): an LLM judge reads the code and the requirement and rates ten criteria
 * 0–10 each (completeness & business logic; output validation; forms & critical flows; data/science
 * plausibility; list/card states; boundary conditions; security; branch & state coverage; data-flow consistency;
 * async error handling); score = their sum (0–100).
 *
 * Interpretations:
 * - The requirement text is part of the judge's input; without a requirement the metric is unscorable (a
 *   correctness judgement needs something to be correct against).
 * - The judge must rate exactly the ten criteria, each a number in [0, 10]; any other answer is retried, then
 *   unscorable (judges/parse.ts). A criterion with nothing to apply to is rated 10 ("not applicable"), see
 *   judges/prompts/functionality.ts.
 * - With `--judge-repeats N`, the score is the mean of the per-repeat sums; per-criterion means are in details.
 * - Page code longer than the prompt budget is truncated by the policy in judges/untrusted.ts; details.prompt
 *   says what was cut.
 */
import { judgeAnswer, judgeDetails, isUnscorable, mean } from '../lib/judge-support.js';
import { FUNCTIONALITY_CRITERIA as CRITERIA, type CriteriaAnswer } from '../../core/judge-answer.js';
import { round2 } from '../lib/formula.js';
import { scored, type MetricDefinition } from '../../core/metric.js';

const functionalityCorrectness: MetricDefinition = {
  number: 1,
  id: 'functionality-correctness',
  perspective: 'code',
  kind: 'judge',
  needs: ['source', 'requirement', 'judge'],
  title: 'Functionality correctness',
  question: 'Does the code actually do what was asked, including edge cases, validation, security and error paths?',
  suite: 'study',
  judge: { prompt: 'functionality' },
  score(evidence) {
    const got = judgeAnswer<CriteriaAnswer>(evidence, 'functionality-correctness');
    if (isUnscorable(got)) return got;
    const { answer, payload } = got;
    const sums = payload.repeats.map((r) => r.criteria.reduce((s, c) => s + c.score, 0));
    const criteria = CRITERIA.map((c, i) => ({
      id: c.id,
      title: c.title,
      score: round2(mean(payload.repeats.map((r) => r.criteria[i]!.score))),
      reason: payload.repeats[0]!.criteria[i]!.reason,
    }));
    const weakest = [...criteria]
      .sort((a, b) => a.score - b.score)
      .slice(0, 3)
      .filter((c) => c.score < 10);
    const score = mean(sums);
    const summary =
      `judge rates ${round2(score)}/100 over 10 criteria` +
      (payload.repeats.length > 1 ? ` (mean of ${payload.repeats.length} runs)` : '') +
      (weakest.length ? `; weakest: ${weakest.map((c) => `${c.id} ${c.score}`).join(', ')}` : '');
    return scored(score, summary, { ...judgeDetails(answer, payload, sums), criteria });
  },
};

export default functionalityCorrectness;
