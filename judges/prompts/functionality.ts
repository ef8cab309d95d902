/**
 * functionality-correctness prompt (SPEC #1): ten code criteria rated 0–10 against the requirement.
 *
 * Interpretations:
 * - The criteria are the study's ten, in our words, each with an id the answer must use.
 * - Scale anchors: 0 absent or broken, 5 works on the main path only, 10 complete and robust.
 * - A criterion with nothing to apply to (no asynchronous work at all, and the requirement implies none) is rated
 *   10 with the reason "not applicable": the app lacks nothing there. Absent-but-needed behaviour is rated low.
 */
import type { Artifact } from '../../runner/artifact.js';
import type { Requirement } from '../../runner/requirements.js';
import { validateCriteria, type CriteriaAnswer } from '../parse.js';
import { dataBlock, sourceView } from '../untrusted.js';
import { systemMessage, type PromptSpec } from './common.js';

export const FUNCTIONALITY_PROMPT_VERSION = 'functionality-correctness/1';

export const CRITERIA: ReadonlyArray<{ id: string; title: string; question: string }> = [
  { id: 'completeness', title: 'Completeness and business logic', question: 'Is every feature the requirement asks for present, and is its logic right (rules, calculations, state transitions)?' },
  { id: 'output-validation', title: 'Output validation', question: 'Are results shown to the user checked and formatted correctly (numbers, units, rounding, dates, empty results, NaN/undefined never shown)?' },
  { id: 'forms-flows', title: 'Forms and critical flows', question: 'Do forms validate their input and give feedback, and do the main flows (submit, confirm, cancel, navigate, reset) complete without dead buttons or dead ends?' },
  { id: 'data-plausibility', title: 'Data and domain plausibility', question: 'Are sample data, formulas and facts (scientific, financial, geographic, ...) plausible and correct for the domain?' },
  { id: 'list-states', title: 'List and card states', question: 'Do lists, cards and tables handle their empty, loading, error, single-item and overflowing states?' },
  { id: 'boundary-conditions', title: 'Boundary conditions', question: 'Are zero, negative, very large, empty, duplicate and malformed inputs handled without breaking the app?' },
  { id: 'security', title: 'Security', question: 'Is user input kept out of innerHTML/eval/document.write unless escaped, are there no secrets in the code, and are external links and embeds safe?' },
  { id: 'branch-state-coverage', title: 'Branch and state coverage', question: 'Is every UI state and mode reachable and consistent (toggles, tabs, modes, game over/restart, reset), with no branch left unimplemented?' },
  { id: 'data-flow', title: 'Data-flow consistency', question: 'Do the app state, storage and what is displayed stay in sync after every action (add, edit, delete, reload)?' },
  { id: 'async-errors', title: 'Asynchronous error handling', question: 'Do fetches, timers and promises handle failure and slowness (catch, timeout, retry or message to the user)?' },
];

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
  const code = dataBlock('PAGE CODE', view.text);
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
    `The generated code (${view.files.length} file(s)${view.notes.length ? `; ${view.notes.join('; ')}` : ''}):`,
    code.text,
    '',
    'Answer format: {"criteria": [{"id": "<criterion id>", "score": <0-10>, "reason": "<one or two sentences>"}, ...]}',
    `with exactly ten entries, one per criterion id, in the order listed.`,
  ].join('\n');
  return {
    task: 'functionality-correctness',
    promptVersion: FUNCTIONALITY_PROMPT_VERSION,
    messages: [systemMessage('You are a strict senior front-end engineer reviewing generated web applications for functional correctness.'), { role: 'user', content: user }],
    schema: { name: 'functionality_ratings', schema: SCHEMA },
    validate: (v) => validateCriteria(v, CRITERIA_IDS),
    context: { sourceChars: view.originalChars, promptSourceChars: view.keptChars, truncation: view.notes },
  };
}
