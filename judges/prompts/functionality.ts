/**
 * functionality-correctness prompt (SPEC #1): ten code criteria rated 0–10 against the requirement.
 *
 * Interpretations:
 * - The criteria are the study's ten, in our words, each with an id the answer must use.
 * - Scale anchors: 0 absent or broken, 5 works on the main path only, 10 complete and robust.
 * - A criterion with nothing to apply to (no asynchronous work at all, and the requirement implies none) is rated
 *   10 with the reason "not applicable": the app lacks nothing there. Absent-but-needed behaviour is rated low.
 */
import { FUNCTIONALITY_CRITERIA } from '../../core/judge-answer.js';
import type { Artifact } from '../../core/artifact/model.js';
import type { Requirement } from '../../core/requirements.js';
import { validateCriteria, type CriteriaAnswer } from '../parse.js';
import { codeBlock, codeIntro, dataBlock, sourceView } from '../untrusted.js';
import { systemMessage, type PromptSpec } from './common.js';

export const FUNCTIONALITY_PROMPT_VERSION = 'functionality-correctness/1';

export const CRITERIA = FUNCTIONALITY_CRITERIA;

export const CRITERIA_IDS = CRITERIA.map((c) => c.id);

const SCHEMA = {
  type: 'object',
  properties: {
    criteria: {
      type: 'array',
      minItems: CRITERIA.length,
      maxItems: CRITERIA.length,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', enum: CRITERIA_IDS },
          score: { type: 'integer', minimum: 0, maximum: 10 },
          reason: { type: 'string' },
        },
        required: ['id', 'score', 'reason'],
        additionalProperties: false,
      },
    },
  },
  required: ['criteria'],
  additionalProperties: false,
};

export function functionalityPrompt(artifact: Artifact, requirement: Requirement, maxSourceChars: number): PromptSpec<CriteriaAnswer> {
  const view = sourceView(artifact, maxSourceChars);
  const req = dataBlock('REQUIREMENT', requirement.requirement);
  const code = codeBlock(view);
  const criteria = CRITERIA.map((c, i) => `${i + 1}. "${c.id}" (${c.title}): ${c.question}`).join('\n');
  const user = [
    'A user asked a code generator for a web application. Review the generated code against the request and rate it on',
    'each of the ten criteria below, from 0 to 10 in whole numbers: 0 = absent or broken, 3 = attempted but mostly',
    'wrong, 5 = works on the main path only, 8 = works with minor gaps, 10 = complete and robust. If a criterion has',
    'nothing to apply to (for example the app does no asynchronous work and the request needs none), rate it 10 and say',
    '"not applicable". Read the code as a careful reviewer who cannot run it: trace what the event handlers really do.',
    '',
    'Criteria:',
    criteria,
    '',
    "The user's request:",
    req.text,
    '',
    codeIntro(view),
    code.text,
    '',
    'Answer format: {"criteria": [{"id": "<criterion id>", "score": <0-10>, "reason": "<one or two sentences>"}, ...]}',
    `with exactly ten entries, one per criterion id, in the order listed.`,
  ].join('\n');
  return {
    task: 'functionality-correctness',
    promptVersion: FUNCTIONALITY_PROMPT_VERSION,
    messages: [
      systemMessage('You are a strict senior front-end engineer reviewing generated web applications for functional correctness.'),
      { role: 'user', content: user },
    ],
    schema: { name: 'functionality_ratings', schema: SCHEMA },
    validate: (v) => validateCriteria(v, CRITERIA_IDS),
    context: { sourceChars: view.originalChars, promptSourceChars: view.keptChars, truncation: view.notes },
  };
}
