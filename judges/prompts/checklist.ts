/**
 * Checklist derivation prompt (the study's checklist step): from a requirement text, the minimal testable items
 * of what the user asked for, split into functional, visual and content items. Nothing the user did not ask for
 * (explicitly, or as the unavoidable core of what they named): no generic quality items such as "responsive" or
 * "accessible" unless requested.
 */
import type { Requirement } from '../../core/requirements.js';
import { MAX_ITEMS_PER_KIND, validateChecklist, type DerivedChecklist } from '../parse.js';
import { dataBlock } from '../untrusted.js';
import { systemMessage, type PromptSpec } from './common.js';

export const CHECKLIST_PROMPT_VERSION = 'checklist/1';

const list = { type: 'array', maxItems: MAX_ITEMS_PER_KIND, items: { type: 'string' } };
const SCHEMA = {
  type: 'object',
  properties: { functional: list, visual: list, content: list },
  required: ['functional', 'visual', 'content'],
  additionalProperties: false,
};

export function checklistPrompt(requirement: Requirement): PromptSpec<DerivedChecklist> {
  const text = [
    'Turn the request below into a checklist that a reviewer can use to test a web application built for it.',
    'Rules:',
    '- Only what the user asked for, explicitly or as the unavoidable core of what they named. Add nothing else: no',
    '  generic quality items (responsive, accessible, fast, well commented) unless the request asks for them.',
    '- Minimal: one item per requirement; merge items that would always pass or fail together.',
    '- Testable: each item is one concrete statement that can be checked as met or not met by reading the code or',
    '  looking at the page, e.g. "Clicking Add appends the typed task to the list".',
    '- Sort each item into exactly one kind: "functional" (behaviour and interaction), "visual" (layout, colour,',
    '  typography, styling, animation), "content" (texts, data, sections, images and media that must be present).',
    `- At most ${MAX_ITEMS_PER_KIND} items per kind; an empty list when the request asks nothing of that kind.`,
    '',
    'The request:',
    dataBlock('REQUIREMENT', requirement.requirement).text,
    '',
    'Answer format: {"functional": ["..."], "visual": ["..."], "content": ["..."]}',
  ].join('\n');
  return {
    task: 'checklist',
    promptVersion: CHECKLIST_PROMPT_VERSION,
    messages: [systemMessage('You are a product manager writing acceptance checklists for web application requests.'), { role: 'user', content: text }],
    schema: { name: 'checklist', schema: SCHEMA },
    validate: validateChecklist,
    context: {},
  };
}
