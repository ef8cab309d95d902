/**
 * The prompt that writes natural-language requirement tests (`webgrade tests generate`): from a requirement and
 * its checklist, test cases in WebGen-Bench's shape (a task a user performs, and the result expected), each
 * checkable by an agent driving the page. The requirement and checklist are data blocks (../untrusted.ts).
 */
import type { Requirement } from '../../core/requirements.js';
import type { Validation } from '../parse.js';
import { dataBlock } from '../untrusted.js';
import { systemMessage, type PromptSpec } from './common.js';

export const TESTS_PROMPT_VERSION = 'req-tests/1';
export const MAX_GENERATED_TESTS = 8;

export type GeneratedTests = Array<{ task: string; expected: string }>;

const SCHEMA = {
  type: 'object',
  properties: {
    tests: {
      type: 'array',
      maxItems: MAX_GENERATED_TESTS,
      items: {
        type: 'object',
        properties: { task: { type: 'string' }, expected: { type: 'string' } },
        required: ['task', 'expected'],
        additionalProperties: false,
      },
    },
  },
  required: ['tests'],
  additionalProperties: false,
};

export function validateTests(v: Record<string, unknown>): Validation<GeneratedTests> {
  if (!Array.isArray(v.tests) || v.tests.length === 0) return { ok: false, error: '"tests" must be a non-empty list' };
  const out: GeneratedTests = [];
  for (const [i, t] of v.tests.slice(0, MAX_GENERATED_TESTS).entries()) {
    const o = t as Record<string, unknown>;
    if (!o || typeof o.task !== 'string' || !o.task.trim() || typeof o.expected !== 'string' || !o.expected.trim())
      return { ok: false, error: `tests[${i}] needs "task" and "expected" strings` };
    out.push({ task: o.task.trim().slice(0, 500), expected: o.expected.trim().slice(0, 500) });
  }
  return { ok: true, value: out };
}

export function testsPrompt(req: Requirement): PromptSpec<GeneratedTests> {
  const c = req.checklist;
  const items = c ? [...c.functional.map((x) => `functional: ${x}`), ...c.visual.map((x) => `visual: ${x}`), ...c.content.map((x) => `content: ${x}`)] : [];
  const text = [
    'Write acceptance tests for a web application built for the request below, to be run by a tester who uses the page',
    'in a browser (clicking, typing, selecting, pressing keys) and then looks at it.',
    'Rules:',
    '- One test per behaviour the user asked for, most important first; cover the checklist items that can be seen by using the page.',
    '- "task": what the tester does, concretely, in the words a user would use (no code, no selectors).',
    '- "expected": what the page must show afterwards, observable on the page.',
    '- Nothing the user did not ask for. No tests of code quality, speed or accessibility.',
    `- At most ${MAX_GENERATED_TESTS} tests.`,
    '',
    'The request:',
    dataBlock('REQUIREMENT', req.requirement).text,
    ...(items.length ? ['', 'Its checklist:', dataBlock('CHECKLIST', items.join('\n')).text] : []),
    '',
    'Answer format: {"tests": [{"task": "...", "expected": "..."}]}',
  ].join('\n');
  return {
    task: 'checklist',
    promptVersion: TESTS_PROMPT_VERSION,
    messages: [systemMessage('You are a QA engineer writing acceptance tests for web application requests.'), { role: 'user', content: text }],
    schema: { name: 'tests', schema: SCHEMA },
    validate: validateTests,
    context: {},
  };
}
