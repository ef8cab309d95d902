/**
 * visual-experience (SPEC #6): a vision judge rates the first screen (the desktop screenshot of the browser
 * session) from 0 to 4 with up to two decimals, overall and on aesthetics, hierarchy, consistency and fit to
 * purpose (the aspects are reported only). The scale and its bands are the study's (our wording, in
 * judges/prompts/visual-experience.ts): below 1 broken, 1–2 poor, about 2–2.5 acceptable, 2.5–3 good, 3–4
 * outstanding.
 *
 * Decimals: a rating is used exactly as the judge gave it when it has at most two decimals (3.25 stays 3.25 and
 * maps to 92.11); a rating with more decimals is rounded to two by the answer validator (judges/parse.ts), and
 * `details.rounded` lists what was given and what was kept, the summary says "rounded". Ratings outside 0–4 are
 * rejected (retry, then unscorable), never clamped.
 *
 * Mapping (SPEC: the `min(√s·10 + 20, 100)` family, not saturating in the top half of the scale):
 *   score = min(√(16·s)·10 + 20, 100) = 40·√s + 20, with s the 0–4 rating.
 *   rating:  0    1    2      2.5    3      3.25   3.5    4
 *   score:   20   60   76.57  83.25  89.28  92.11  94.83  100
 * Why 16: scaling s by k gives √(k·s)·10 + 20; the cap is reached at s = 64/k. k = 16 is the largest scale that
 * reaches 100 only at the best rating, and it uses the family's whole range 20…100. Checked against the rule
 * "must not saturate in the top half": the top half of the scale (2–4) spans 76.57–100, strictly rising, with a
 * slope of at least 10 points per rating unit (2.5 points per quarter point at the very top), so the study's
 * three upper bands stay apart: acceptable 76.6–83.2, good 83.2–89.3, outstanding 89.3–100. The reading that
 * puts s on 0–100 (k = 25, i.e. s × 25) would be 50·√s + 20 and saturate at 2.56: "good" and "outstanding"
 * would both score 100; that is the mapping SPEC rules out. Like the family, ours rewards the first steps up from
 * a broken screen more than the last ones; z-scores over a population undo the scale, not the order.
 * A rating of 0 (blank or broken screen) scores 20, the family's floor.
 *
 * Interpretations:
 * - No screenshot (browser did not run, failed, or took none): the judge is not asked, and the metric is unscorable
 *   with the judge gatherer's reason (the screenshot is optional evidence: the metric reads only the answer).
 * - Each repeat (`--judge-repeats`) is mapped, and the score is the mean of the mapped repeats; `details.ratings`
 *   are the ratings as kept.
 */
import { judgeAnswer, judgeDetails, isUnscorable, mean } from '../lib/judge-support.js';
import { VISUAL_ASPECTS, type VisualAnswer } from '../../core/judge-answer.js';
import { round2 } from '../lib/formula.js';
import { scored, type MetricDefinition } from '../../core/metric.js';

/** The documented 0–4 → 0–100 mapping. */
export function visualRatingToScore(s: number): number {
  if (!(s >= 0 && s <= 4)) throw new Error(`visual rating ${s} outside 0–4`);
  return Math.min(Math.sqrt(16 * s) * 10 + 20, 100);
}

const visualExperience: MetricDefinition = {
  number: 6,
  id: 'visual-experience',
  perspective: 'visual',
  kind: 'judge',
  needs: ['judge'],
  optional: ['screenshot'],
  title: 'Visual experience',
  question: 'Does the first screen look good, with a clear hierarchy and a consistent style that fits its purpose?',
  suite: 'study',
  judge: { prompt: 'visual-experience' },
  score(evidence) {
    const got = judgeAnswer<VisualAnswer>(evidence, 'visual-experience');
    if (isUnscorable(got)) return got;
    const { answer, payload } = got;
    const ratings = payload.repeats.map((r) => r.score);
    const scores = ratings.map(visualRatingToScore);
    const first = payload.repeats[0]!;
    const aspects = Object.fromEntries(VISUAL_ASPECTS.map((a) => [a, round2(mean(payload.repeats.map((r) => r.aspects[a])))]));
    const r = round2(mean(ratings));
    const rounded = payload.repeats.flatMap((x, i) => (x.rounded ?? []).map((q) => ({ repeat: i + 1, ...q })));
    const summary =
      `judge rates the first screen ${r}/4` +
      (ratings.length > 1 ? ` (mean of ${ratings.length} runs)` : '') +
      ` (${VISUAL_ASPECTS.map((a) => `${a} ${aspects[a]}`).join(', ')})` +
      (rounded.length ? `; ${rounded.length} rating${rounded.length > 1 ? 's' : ''} given with more than two decimals, rounded to two` : '');
    return scored(mean(scores), summary, {
      ...judgeDetails(answer, payload, scores),
      scale: '0–4, two decimals (bands: <1 broken, 1–2 poor, 2–2.5 acceptable, 2.5–3 good, 3–4 outstanding)',
      ratings,
      ...(rounded.length ? { rounded } : {}),
      aspects,
      reason: first.reason,
    });
  },
};

export default visualExperience;
