/**
 * visual-alignment (SPEC #23): an LLM judge marks each visual checklist item of the requirement as met or not;
 * score = 100 × passed / items.
 *
 * Interpretations:
 * - Items come from the requirement's `checklist.visual` (requirements JSONL, or `webgrade checklist` derives them).
 *   No requirement, or no visual items: unscorable with that reason (never 0).
 * - The judge must return exactly one verdict per item (ids V1…Vn); any other answer is retried, then the metric
 *   is unscorable (judges/parse.ts).
 * - What "met" means is the judge's stance (`--alignment`, judge config key `alignment`; core/judge-answer.ts):
 *   by default the study's, where an item counts when the app addresses it, at a high level, as for an early
 *   version: unfinished, simplified or mock-data implementations count (whether they work is
 *   functionality-correctness's question); with `--alignment strict`, partial, stubbed, placeholder or
 *   mock-data implementations count as not met. `details.stance` and the summary name the stance.
 * - When the browser gave a desktop screenshot, the judge sees it with the code; otherwise it judges from source
 *   alone, and the summary and `details.sourceOnly` say so.
 * - With `--judge-repeats N`, the score is the mean of the N per-repeat scores; `details.repeats` and
 *   `details.spread` report them (metrics/lib/judge-support.ts).
 * - Each item's details carry the judge's reason, its code excerpt, and `excerptFound` (whether that excerpt
 *   really occurs in the artifact); excerptFound is reported, not scored.
 */
import { scoreAlignment } from '../lib/judge-support.js';
import type { MetricDefinition } from '../../core/metric.js';

const visualAlignment: MetricDefinition = {
  number: 23,
  id: 'visual-alignment',
  perspective: 'visual-alignment',
  kind: 'judge',
  needs: ['source', 'checklist', 'judge'],
  optional: ['screenshot'],
  title: 'Visual alignment',
  question: 'Does the app look the way the user asked?',
  suite: 'study',
  judge: { prompt: 'alignment', items: 'visual' },
  score: (evidence) => scoreAlignment(evidence, 'visual-alignment', 'visual'),
};

export default visualAlignment;
