/**
 * visual-experience (SPEC #6): a vision judge rates the first screen (the desktop screenshot of the browser
 * session) 0–4 overall, and 0–4 on aesthetics, hierarchy, consistency and fit to purpose (reported only).
 *
 * Mapping (SPEC: the `min(√s·10 + 20, 100)` family, not saturating in the top half of the scale):
 *   score = min(√(16·s)·10 + 20, 100) = 40·√s + 20, with s the 0–4 rating:
 *   0 → 20, 1 → 60, 2 → 76.57, 3 → 89.28, 4 → 100.
 * Why 16: scaling s by k gives √(k·s)·10 + 20; the cap is reached at s = 64/k. k = 16 is the largest scale that
 * reaches 100 only at the best rating (k = 25, i.e. s on 0–100, would already saturate at 2.56, so 3 and 4 would
 * both score 100), and it uses the family's whole range 20…100. Like the family, it rewards the first steps up
 * from a broken screen more than the last ones. A rating of 0 (blank or broken screen) scores 20, the family's floor.
 *
 * Interpretations:
 * - No screenshot (browser did not run, failed, or took none): unscorable with that reason.
 * - The judge's overall rating may be fractional if the judge gives one (validated to lie in [0, 4]); each repeat
 *   is mapped, and the score is the mean of the mapped repeats.
 */
import { judgeAnswer, judgeDetails, isUnscorable, mean } from '../judge-support.js';
import { VISUAL_ASPECTS, type VisualAnswer } from '../../core/judge-answer.js';
import { round2 } from '../formula.js';
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
  needs: ['screenshot', 'judge'],
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
    const summary =
      `judge rates the first screen ${r}/4` +
      (ratings.length > 1 ? ` (mean of ${ratings.length} runs)` : '') +
      ` (${VISUAL_ASPECTS.map((a) => `${a} ${aspects[a]}`).join(', ')})`;
    return scored(mean(scores), summary, { ...judgeDetails(answer, payload, scores), ratings, aspects, reason: first.reason });
  },
};

export default visualExperience;
