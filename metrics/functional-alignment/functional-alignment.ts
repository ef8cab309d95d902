/**
 * functional-alignment (SPEC #22): an LLM judge marks each functional checklist item of the requirement as met or not;
 * score = 100 × passed / items.
 *
 * Interpretations:
 * - Items come from the requirement's `checklist.functional` (requirements JSONL, or `webgrade checklist` derives them).
 *   No requirement, or no functional items: unscorable with that reason (never 0).
 * - The judge must return exactly one verdict per item (ids F1…Fn); any other answer is retried, then the metric
 *   is unscorable (judges/parse.ts).
 * - What "met" means is the judge's stance (`--alignment`, judge config key `alignment`; core/judge-answer.ts):
 *   by default the study's, where an item counts when the app addresses it, at a high level, as for an early
 *   version: unfinished, simplified or mock-data implementations count (whether they work is
 *   functionality-correctness's question); with `--alignment strict`, partial, stubbed, placeholder or
 *   mock-data implementations count as not met. `details.stance` and the summary name the stance.
 * - With `--judge-repeats N`, the score is the mean of the N per-repeat scores; `details.repeats` and
 *   `details.spread` report them (metrics/lib/judge-support.ts).
 * - Each item's details carry the judge's reason, its code excerpt, and `excerptFound` (whether that excerpt
 *   really occurs in the artifact); excerptFound is reported, not scored.
 */
import { scoreAlignment } from '../lib/judge-support.js';
import type { MetricDefinition } from '../../core/metric.js';

const functionalAlignment: MetricDefinition = {
  number: 22,
  id: 'functional-alignment',
  perspective: 'functional-alignment',
  kind: 'judge',
  needs: ['source', 'checklist', 'judge'],
  title: 'Functional alignment',
  question: 'Does the app implement each function the user asked for?',
  suite: 'study',
  judge: { prompt: 'alignment', items: 'functional' },
  score: (evidence) => scoreAlignment(evidence, 'functional-alignment', 'functional'),
};

export default functionalAlignment;
