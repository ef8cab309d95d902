/**
 * Requirement tests (SPEC "Requirement tests"): the `tests` of a requirement line, their validation, and the
 * shape of their results in the evidence (gather/interaction/tests/ runs them; the metric
 * `requirement-tests` reads the results).
 *
 * Interpretations of the format:
 * - A string locator is a text match (visible text, accessible name, label, placeholder, title or value), with
 *   `/re/flags` read as a regular expression (the `i` flag is always added: SPEC says case-insensitive).
 * - `nth` counts from 1 among the matches of the same rank (whole-text matches before contained ones, then
 *   document order).
 * - `press` without `hold` is one key press; `hold` keeps the key down that many page-clock milliseconds.
 * - `changed` compares with the state right after the restore, before the first step (the start state).
 * - `value.is` is an exact match after trimming; `value.matches` a regular expression (case-insensitive).
 * - A natural-language test (`task`, `expected`) may also carry `steps`/`expect`: those are ignored (the agent
 *   writes its own); `{"task", "expected_result"}` (WebGen-Bench's key) is accepted as `expected`.
 */

export type Locator = string | { text?: string; label?: string; placeholder?: string; role?: string; name?: string; css?: string; nth?: number };

export type TestStep =
  | { click: Locator }
  | { dblclick: Locator }
  | { hover: Locator }
  | { type: Locator; text: string }
  | { press: string; hold?: number }
  | { select: Locator; option: string }
  | { check: Locator }
  | { uncheck: Locator }
  | { drag: Locator; to: Locator | { dx: number; dy: number } }
  | { wait: number }
  | { reload: true };

export type Expectation =
  | { visible: string }
  | { hidden: string }
  | { count: Locator; min?: number; max?: number }
  | { value: Locator; is?: string; matches?: string }
  | { url: string }
  | { storage: string }
  | { changed: Locator | 'canvas' | 'page' }
  | { noErrors: true };

export interface ScriptedTest {
  id: string;
  title?: string;
  steps: TestStep[];
  expect: Expectation[];
}

export interface NaturalTest {
  id: string;
  task: string;
  expected: string;
}

export type RequirementTest = ScriptedTest | NaturalTest;

/** A drag's target given as an offset. */
export function isOffset(to: Locator | { dx: number; dy: number }): to is { dx: number; dy: number } {
  return typeof to === 'object' && 'dx' in to;
}

export function isNaturalTest(t: RequirementTest): t is NaturalTest {
  return 'task' in t;
}

/** Step kinds and the key each requires besides its own. */
const STEP_KINDS: Record<string, string[]> = {
  click: [],
  dblclick: [],
  hover: [],
  type: ['text'],
  press: [],
  select: ['option'],
  check: [],
  uncheck: [],
  drag: ['to'],
  wait: [],
  reload: [],
};
const EXPECT_KINDS = ['visible', 'hidden', 'count', 'value', 'url', 'storage', 'changed', 'noErrors'];
const LOCATOR_KEYS = ['text', 'label', 'placeholder', 'role', 'name', 'css', 'nth'];
/** Steps and expectations per test at most (a test is a few actions, not a crawl). */
export const MAX_STEPS = 50;

function checkLocator(v: unknown, where: string): void {
  if (typeof v === 'string') {
    if (v.trim() === '') throw new Error(`${where}: an empty locator`);
    if (/^\/.*\/[a-z]*$/.test(v)) regexOf(v, where);
    return;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new Error(`${where}: a locator is a string or {"text"|"label"|"placeholder"|"role"|"css", "nth"?}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!LOCATOR_KEYS.includes(k)) throw new Error(`${where}: unknown locator key "${k}"`);
  const ways = ['text', 'label', 'placeholder', 'role', 'css'].filter((k) => o[k] !== undefined);
  if (ways.length !== 1) throw new Error(`${where}: a locator names exactly one of text, label, placeholder, role, css`);
  for (const k of [...ways, ...(o.name !== undefined ? ['name'] : [])])
    if (typeof o[k] !== 'string' || (o[k] as string).trim() === '') throw new Error(`${where}: "${k}" must be a non-empty string`);
  if (o.name !== undefined && o.role === undefined) throw new Error(`${where}: "name" goes with "role"`);
  if (o.nth !== undefined && (typeof o.nth !== 'number' || !Number.isInteger(o.nth) || o.nth < 1))
    throw new Error(`${where}: "nth" must be a whole number ≥ 1`);
}

/** `/re/flags` → its source and flags (with `i`); throws on a bad pattern. */
export function regexOf(s: string, where = 'locator'): { source: string; flags: string } {
  const m = /^\/(.*)\/([a-z]*)$/.exec(s)!;
  const flags = [...new Set(`${m[2]}i`.replace(/[gy]/g, ''))].join('');
  try {
    new RegExp(m[1]!, flags);
  } catch {
    throw new Error(`${where}: ${s} is not a valid regular expression`);
  }
  return { source: m[1]!, flags };
}

function checkStep(v: unknown, where: string): TestStep {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: a step is an object such as {"click": "Add"}`);
  const o = v as Record<string, unknown>;
  const kind = Object.keys(o).find((k) => k in STEP_KINDS);
  if (!kind) throw new Error(`${where}: unknown step (one of ${Object.keys(STEP_KINDS).join(', ')})`);
  for (const k of Object.keys(o))
    if (k !== kind && !STEP_KINDS[kind]!.includes(k) && !(kind === 'press' && k === 'hold'))
      throw new Error(`${where}: unexpected key "${k}" in a ${kind} step`);
  for (const k of STEP_KINDS[kind]!) if (o[k] === undefined) throw new Error(`${where}: a ${kind} step needs "${k}"`);
  const ms = (x: unknown, name: string) => {
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0 || x > 600_000) throw new Error(`${where}: "${name}" must be milliseconds between 0 and 600000`);
  };
  switch (kind) {
    case 'press':
      if (typeof o.press !== 'string' || o.press === '') throw new Error(`${where}: "press" names a key, e.g. "Enter"`);
      if (o.hold !== undefined) ms(o.hold, 'hold');
      break;
    case 'wait':
      ms(o.wait, 'wait');
      break;
    case 'reload':
      if (o.reload !== true) throw new Error(`${where}: "reload" must be true`);
      break;
    case 'type':
    case 'select':
      checkLocator(o[kind], where);
      if (typeof o[kind === 'type' ? 'text' : 'option'] !== 'string') throw new Error(`${where}: "${kind === 'type' ? 'text' : 'option'}" must be a string`);
      break;
    case 'drag': {
      checkLocator(o.drag, where);
      const to = o.to as Record<string, unknown>;
      if (to && typeof to === 'object' && ('dx' in to || 'dy' in to)) {
        if (typeof to.dx !== 'number' || typeof to.dy !== 'number') throw new Error(`${where}: "to" offsets need numbers "dx" and "dy"`);
      } else checkLocator(o.to, where);
      break;
    }
    default:
      checkLocator(o[kind], where);
  }
  return o as TestStep;
}

function checkExpectation(v: unknown, where: string): Expectation {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: an expectation is an object such as {"visible": "Saved"}`);
  const o = v as Record<string, unknown>;
  const kind = Object.keys(o).find((k) => EXPECT_KINDS.includes(k));
  if (!kind) throw new Error(`${where}: unknown expectation (one of ${EXPECT_KINDS.join(', ')})`);
  const extra: Record<string, string[]> = { count: ['min', 'max'], value: ['is', 'matches'] };
  for (const k of Object.keys(o))
    if (k !== kind && !(extra[kind] ?? []).includes(k)) throw new Error(`${where}: unexpected key "${k}" in a ${kind} expectation`);
  const str = (x: unknown, name: string) => {
    if (typeof x !== 'string' || x.trim() === '') throw new Error(`${where}: "${name}" must be a non-empty string`);
  };
  switch (kind) {
    case 'visible':
    case 'hidden':
    case 'url':
    case 'storage':
      str(o[kind], kind);
      break;
    case 'noErrors':
      if (o.noErrors !== true) throw new Error(`${where}: "noErrors" must be true`);
      break;
    case 'changed':
      if (o.changed !== 'canvas' && o.changed !== 'page') checkLocator(o.changed, where);
      break;
    case 'count':
      checkLocator(o.count, where);
      for (const k of ['min', 'max'])
        if (o[k] !== undefined && (typeof o[k] !== 'number' || !Number.isInteger(o[k]) || (o[k] as number) < 0))
          throw new Error(`${where}: "${k}" must be a whole number ≥ 0`);
      if (o.min === undefined && o.max === undefined) throw new Error(`${where}: a count needs "min" or "max"`);
      break;
    case 'value':
      checkLocator(o.value, where);
      if ((o.is === undefined) === (o.matches === undefined)) throw new Error(`${where}: a value expectation needs "is" or "matches"`);
      if (o.is !== undefined && typeof o.is !== 'string') throw new Error(`${where}: "is" must be a string`);
      if (o.matches !== undefined) {
        str(o.matches, 'matches');
        regexOf(`/${o.matches as string}/`, where);
      }
      break;
  }
  return o as Expectation;
}

/** Validate one test; throws Error naming the test and the bad part. */
export function parseTest(v: unknown, i: number): RequirementTest {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`tests[${i}] must be an object`);
  const o = v as Record<string, unknown>;
  const id = o.id;
  if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`tests[${i}]: missing "id"`);
  const where = `test ${JSON.stringify(String(id))}`;
  if (o.task !== undefined) {
    const expected = o.expected ?? o.expected_result;
    if (typeof o.task !== 'string' || o.task.trim() === '') throw new Error(`${where}: "task" must be a non-empty string`);
    if (typeof expected !== 'string' || expected.trim() === '') throw new Error(`${where}: a natural-language test needs "expected"`);
    return { id: String(id), task: o.task, expected };
  }
  if (!Array.isArray(o.steps)) throw new Error(`${where}: needs "steps" (a list) or "task" and "expected"`);
  if (!Array.isArray(o.expect) || o.expect.length === 0) throw new Error(`${where}: needs "expect" (a non-empty list)`);
  if (o.steps.length > MAX_STEPS || o.expect.length > MAX_STEPS) throw new Error(`${where}: at most ${MAX_STEPS} steps and ${MAX_STEPS} expectations`);
  if (o.title !== undefined && typeof o.title !== 'string') throw new Error(`${where}: "title" must be a string`);
  const steps = o.steps.map((s, k) => checkStep(s, `${where} step ${k + 1}`));
  const expect = o.expect.map((e, k) => checkExpectation(e, `${where} expectation ${k + 1}`));
  return { id: String(id), ...(typeof o.title === 'string' ? { title: o.title } : {}), steps, expect };
}

/** Validate a requirement's `tests` list (ids unique). */
export function parseTests(v: unknown): RequirementTest[] {
  if (!Array.isArray(v)) throw new Error('"tests" must be a list');
  const seen = new Set<string>();
  return v.map((t, i) => {
    const test = parseTest(t, i);
    if (seen.has(test.id)) throw new Error(`tests: duplicate id ${JSON.stringify(test.id)}`);
    seen.add(test.id);
    return test;
  });
}

/** A locator as a person reads it: `"Add"`, `label "Email"`, `role button "Save" #2`. */
export function describeLocator(l: Locator): string {
  if (typeof l === 'string') return JSON.stringify(l);
  const way = (['text', 'label', 'placeholder', 'role', 'css'] as const).find((k) => l[k] !== undefined)!;
  return `${way} ${JSON.stringify(l[way])}${l.name ? ` ${JSON.stringify(l.name)}` : ''}${l.nth ? ` #${l.nth}` : ''}`;
}

/** A step as a person reads it: `click "Add"`, `type "milk" into label "Item"`. */
export function describeStep(s: TestStep): string {
  if ('type' in s) return `type ${JSON.stringify(s.text)} into ${describeLocator(s.type)}`;
  if ('select' in s) return `select ${JSON.stringify(s.option)} in ${describeLocator(s.select)}`;
  if ('drag' in s) return `drag ${describeLocator(s.drag)} to ${isOffset(s.to) ? `(${s.to.dx}, ${s.to.dy})` : describeLocator(s.to)}`;
  if ('press' in s) return `press ${s.press}${s.hold ? ` for ${s.hold} ms` : ''}`;
  if ('wait' in s) return `wait ${s.wait} ms`;
  if ('reload' in s) return 'reload';
  const kind = Object.keys(s)[0] as 'click' | 'dblclick' | 'hover' | 'check' | 'uncheck';
  return `${kind} ${describeLocator((s as Record<string, Locator>)[kind]!)}`;
}

/** An expectation as a person reads it. */
export function describeExpectation(e: Expectation): string {
  if ('visible' in e) return `${JSON.stringify(e.visible)} visible`;
  if ('hidden' in e) return `${JSON.stringify(e.hidden)} hidden`;
  if ('count' in e)
    return `count of ${describeLocator(e.count)} ${e.min !== undefined && e.max !== undefined ? `in ${e.min}–${e.max}` : e.min !== undefined ? `≥ ${e.min}` : `≤ ${e.max}`}`;
  if ('value' in e) return `value of ${describeLocator(e.value)} ${e.is !== undefined ? `is ${JSON.stringify(e.is)}` : `matches /${e.matches}/`}`;
  if ('url' in e) return `address contains ${JSON.stringify(e.url)}`;
  if ('storage' in e) return `storage has ${JSON.stringify(e.storage)}`;
  if ('changed' in e)
    return `${typeof e.changed === 'string' && (e.changed === 'canvas' || e.changed === 'page') ? e.changed : describeLocator(e.changed)} changed`;
  return 'no uncaught errors';
}

/** A box on the after-screenshot (CSS pixels of the page, scroll included). */
export interface TestBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One test's result (SPEC "Requirement tests"). */
export interface RequirementTestResult {
  id: string;
  title?: string;
  /** `scripted`: written by a person; `agent`: the agent's recorded run; `replay`: a recorded run replayed. */
  source: 'scripted' | 'agent' | 'replay';
  /** null: not run (no judge for a natural-language test, the budget, an agent that gave no usable answer). */
  passed: boolean | null;
  /** Why it failed or was not run: the failing step or expectation. */
  reason?: string;
  /** Each step with what it did or why it failed. */
  steps: Array<{ step: string; ok: boolean; note?: string }>;
  /**
   * Each expectation checked, with what was found; `heldAtStart` (an agent's verdict only): it already held on the
   * restored start state, so it does not count as evidence of a pass (gather/interaction/tests/agent.ts).
   */
  expectations: Array<{ expect: string; ok: boolean; found?: string; heldAtStart?: boolean }>;
  /** The recorded script of an agent run (for natural-language tests), as a scripted test. */
  recorded?: ScriptedTest & { verdict: boolean; evidence: string };
  /** Where the acted-on elements were, on the after-screenshot. */
  boxes?: TestBox[];
  /** The viewport after the test (PNG), for the report and `--explain --out`. */
  screenshot?: { png: Buffer; width: number; height: number };
  /** Agent accounting (calls, tokens, cost), merged like the judges' usage. */
  usage?: Record<string, unknown>;
  ms: number;
}

export interface RequirementTestsEvidence {
  results: RequirementTestResult[];
  /** Why some tests were not run (budget). */
  faults: string[];
  timings: Record<string, number>;
}
