/**
 * Validation of requirement tests (SPEC "Requirement tests"; the full language in docs/requirement-tests.md and
 * core/requirement-tests.schema.json, which test/core/requirement-tests-schema.test.ts keeps in step with this
 * file). Every error is one line naming the test, the step or expectation and the bad part; `webgrade tests check`
 * adds the line number.
 *
 * Interpretations of the format:
 * - A string locator is a text match (visible text, accessible name, label, placeholder, title or value), with
 *   `/re/flags` read as a regular expression (the `i` flag is always added: SPEC says case-insensitive).
 * - `nth` counts from 1 among the matches of the same rank (whole-text matches before contained ones, then
 *   document order).
 * - `press` without `hold` is one key press; `hold` keeps the key down that many page-clock milliseconds.
 * - `changed` compares with the state right after the restore, before the first step (the start state), or with
 *   the state right after the step named by `since` (which must come earlier in the same test).
 * - `value.is` is an exact match after trimming; `value.matches` a regular expression (case-insensitive).
 * - A name compared by `number` (`gt: "score"`) must be given by a `read` step of the same test (`as`).
 * - `"canvas"`, `"page"` and `"screen"` are targets, not texts, wherever a target is allowed (`changed`,
 *   `unchanged`, `moving`, `still`, `pixels`, `ocr`'s `in`, `read`, `number`).
 * - A `css` locator must parse as a selector list (postcss-selector-parser); a page may still match nothing.
 * - A colour is any CSS colour (culori parses it): `#f80`, `rgb(255 136 0)`, `orange`.
 * - A natural-language test (`task`, `expected`) may also carry `steps`/`expect`: those are ignored (the agent
 *   writes its own); `{"task", "expected_result"}` (WebGen-Bench's key) is accepted as `expected`.
 */
import { parse as parseCssColour } from 'culori';
import selectorParser from 'postcss-selector-parser';
import type { Expectation, RequirementTest, TestStep } from './requirement-tests-types.js';

/** Steps and expectations per test at most (a test is a few actions, not a crawl). */
export const MAX_STEPS = 50;
/** A `repeat` runs its steps at most this many times. */
export const MAX_REPEAT = 100;
/** Page-clock milliseconds a `waitUntil` may wait by default, and at most. */
export const WAIT_UNTIL_DEFAULT_MS = 5000;
export const MAX_MS = 600_000;

/** Step kinds: the keys each requires and the keys it may carry besides its own (and `name`, `optional`). */
const STEP_KINDS: Record<string, { needs: string[]; may: string[] }> = {
  click: { needs: [], may: ['hold', 'button', 'modifiers', 'at'] },
  dblclick: { needs: [], may: ['button', 'modifiers', 'at'] },
  hover: { needs: [], may: ['at'] },
  type: { needs: ['text'], may: [] },
  press: { needs: [], may: ['hold'] },
  keys: { needs: [], may: ['hold'] },
  select: { needs: ['option'], may: [] },
  check: { needs: [], may: [] },
  uncheck: { needs: [], may: [] },
  drag: { needs: ['to'], may: ['button', 'modifiers', 'at'] },
  mouse: { needs: [], may: ['on', 'button', 'modifiers'] },
  touch: { needs: [], may: ['at', 'hold'] },
  swipe: { needs: ['to'], may: ['at'] },
  wait: { needs: [], may: ['real'] },
  waitUntil: { needs: [], may: ['within'] },
  reload: { needs: [], may: [] },
  resize: { needs: [], may: [] },
  repeat: { needs: ['steps'], may: [] },
  try: { needs: [], may: [] },
  read: { needs: ['as'], may: ['ocr', 'region'] },
};
/** Expectation kinds in the order a kind is recognised (`ocr` last: `number` may carry `ocr: true`). */
const EXPECT_KINDS: Record<string, { needs: string[]; may: string[] }> = {
  visible: { needs: [], may: [] },
  hidden: { needs: [], may: [] },
  count: { needs: [], may: ['min', 'max'] },
  value: { needs: [], may: ['is', 'matches'] },
  url: { needs: [], may: [] },
  storage: { needs: [], may: [] },
  changed: { needs: [], may: ['since'] },
  unchanged: { needs: [], may: ['since'] },
  moving: { needs: [], may: ['over'] },
  still: { needs: [], may: ['over'] },
  noErrors: { needs: [], may: [] },
  anyOf: { needs: [], may: [] },
  box: { needs: [], may: ['inside', 'covers', 'at'] },
  style: { needs: ['property'], may: ['is', 'matches'] },
  pixels: { needs: [], may: ['region', 'dominant', 'color', 'min', 'max', 'differs', 'tolerance'] },
  number: { needs: [], may: ['ocr', 'region', 'gt', 'lt', 'eq', 'approx', 'tolerance'] },
  ocr: { needs: [], may: ['in', 'region'] },
};
export const STEP_KIND_NAMES = Object.keys(STEP_KINDS);
export const EXPECT_KIND_NAMES = Object.keys(EXPECT_KINDS);
const LOCATOR_KEYS = ['text', 'label', 'placeholder', 'role', 'name', 'css', 'nth'];
const MODIFIERS = ['Shift', 'Control', 'Alt', 'Meta'];
const BUTTONS = ['left', 'right', 'middle'];
export const PLACES = ['top-left', 'top', 'top-right', 'left', 'center', 'right', 'bottom-left', 'bottom', 'bottom-right'];

/** What a test has named so far (steps for `since`, reads for `number`). */
interface Names {
  steps: Set<string>;
  reads: Set<string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** `/re/flags` → its source and flags (with `i`); throws on a bad pattern. */
export function regexOf(s: string, where = 'locator'): { source: string; flags: string } {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(s)!;
  const flags = [...new Set(`${m[2]}i`.replace(/[gy]/g, ''))].join('');
  try {
    new RegExp(m[1]!, flags);
  } catch {
    throw new Error(`${where}: ${s} is not a valid regular expression`);
  }
  return { source: m[1]!, flags };
}

/** A text to find: non-empty, and a valid pattern when written `/re/`. */
function checkText(v: unknown, name: string, where: string): void {
  if (typeof v !== 'string' || v.trim() === '') throw new Error(`${where}: "${name}" must be a non-empty string`);
  if (/^\/.*\/[a-z]*$/s.test(v)) regexOf(v, where);
}

function checkCss(sel: string, where: string): void {
  try {
    selectorParser().astSync(sel);
  } catch {
    throw new Error(`${where}: css ${JSON.stringify(sel)} is not a valid selector`);
  }
}

function checkLocator(v: unknown, where: string): void {
  if (typeof v === 'string') {
    if (v.trim() === '') throw new Error(`${where}: an empty locator`);
    if (/^\/.*\/[a-z]*$/s.test(v)) regexOf(v, where);
    return;
  }
  if (!isObject(v)) throw new Error(`${where}: a locator is a string or {"text"|"label"|"placeholder"|"role"|"css", "nth"?}`);
  for (const k of Object.keys(v)) if (!LOCATOR_KEYS.includes(k)) throw new Error(`${where}: unknown locator key "${k}"`);
  const ways = ['text', 'label', 'placeholder', 'role', 'css'].filter((k) => v[k] !== undefined);
  if (ways.length !== 1) throw new Error(`${where}: a locator names exactly one of text, label, placeholder, role, css`);
  for (const k of [...ways, ...(v.name !== undefined ? ['name'] : [])]) checkText(v[k], k, where);
  if (v.name !== undefined && v.role === undefined) throw new Error(`${where}: "name" goes with "role"`);
  if (v.css !== undefined) checkCss(v.css as string, where);
  if (v.nth !== undefined && (typeof v.nth !== 'number' || !Number.isInteger(v.nth) || v.nth < 1))
    throw new Error(`${where}: "nth" must be a whole number ≥ 1`);
}

/** A target: one of `allowed` special words, or a locator. */
function checkTarget(v: unknown, allowed: readonly string[], where: string): void {
  if (typeof v === 'string' && allowed.includes(v)) return;
  checkLocator(v, where);
}

function ms(x: unknown, name: string, where: string): void {
  if (!isNum(x) || x < 0 || x > MAX_MS) throw new Error(`${where}: "${name}" must be milliseconds between 0 and ${MAX_MS}`);
}

function fraction(x: unknown, name: string, where: string): void {
  if (!isNum(x) || x < 0 || x > 1) throw new Error(`${where}: "${name}" must be a number between 0 and 1`);
}

/** `{x, y}` in CSS pixels or `{fx, fy}` fractions. */
function checkPoint(v: unknown, name: string, where: string): void {
  if (isObject(v) && Object.keys(v).length === 2 && 'fx' in v && 'fy' in v) {
    fraction(v.fx, 'fx', where);
    fraction(v.fy, 'fy', where);
    return;
  }
  if (isObject(v) && Object.keys(v).length === 2 && isNum(v.x) && isNum(v.y)) return;
  throw new Error(`${where}: "${name}" is a point {"x", "y"} in CSS pixels or {"fx", "fy"} fractions of the element`);
}

/** `{x, y, width, height}` in CSS pixels or `{fx, fy, fw, fh}` fractions. */
function checkRegion(v: unknown, name: string, where: string): void {
  const keys = isObject(v) ? Object.keys(v).sort().join(',') : '';
  if (isObject(v) && keys === 'fh,fw,fx,fy') {
    for (const k of ['fx', 'fy', 'fw', 'fh']) fraction(v[k], k, where);
    if ((v.fw as number) <= 0 || (v.fh as number) <= 0) throw new Error(`${where}: "${name}" must have a size`);
    return;
  }
  if (isObject(v) && keys === 'height,width,x,y' && [v.x, v.y, v.width, v.height].every(isNum) && (v.width as number) > 0 && (v.height as number) > 0) return;
  throw new Error(`${where}: "${name}" is a region {"x", "y", "width", "height"} in CSS pixels or {"fx", "fy", "fw", "fh"} fractions`);
}

function checkColour(v: unknown, name: string, where: string): void {
  if (typeof v !== 'string' || !parseCssColour(v)) throw new Error(`${where}: "${name}" must be a CSS colour such as "#ff8800" or "orange"`);
}

function checkPointer(o: Record<string, unknown>, where: string): void {
  if (o.button !== undefined && !BUTTONS.includes(o.button as string)) throw new Error(`${where}: "button" is one of ${BUTTONS.join(', ')}`);
  if (o.modifiers !== undefined) {
    if (!Array.isArray(o.modifiers) || o.modifiers.some((m) => !MODIFIERS.includes(m as string)))
      throw new Error(`${where}: "modifiers" is a list of ${MODIFIERS.join(', ')}`);
  }
  if (o.at !== undefined) checkPoint(o.at, 'at', where);
  if (o.hold !== undefined) ms(o.hold, 'hold', where);
}

function checkOffset(v: unknown, where: string): boolean {
  if (isObject(v) && ('dx' in v || 'dy' in v)) {
    if (!isNum(v.dx) || !isNum(v.dy) || Object.keys(v).length !== 2) throw new Error(`${where}: "to" offsets need numbers "dx" and "dy"`);
    return true;
  }
  return false;
}

function checkKey(k: unknown, where: string): void {
  if (typeof k !== 'string' || k === '') throw new Error(`${where}: a key is named as in KeyboardEvent.key, e.g. "Enter", "ArrowLeft", " "`);
}

function checkMouseOps(v: unknown, where: string): void {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_STEPS) throw new Error(`${where}: "mouse" is a list of 1–${MAX_STEPS} moves`);
  for (const [i, op] of v.entries()) {
    const w = `${where} move ${i + 1}`;
    if (!isObject(op)) throw new Error(`${w}: a move is {"down"|"move"|"up": point} or {"wait": ms}`);
    const kind = ['down', 'move', 'up', 'wait'].find((k) => k in op);
    if (!kind) throw new Error(`${w}: a move is {"down"|"move"|"up": point} or {"wait": ms}`);
    for (const k of Object.keys(op)) if (k !== kind && !(kind === 'move' && k === 'steps')) throw new Error(`${w}: unexpected key "${k}"`);
    if (kind === 'wait') ms(op.wait, 'wait', w);
    else if (kind === 'up' && op.up === true) continue;
    else checkPoint(op[kind], kind, w);
    if (op.steps !== undefined && (!Number.isInteger(op.steps) || (op.steps as number) < 1 || (op.steps as number) > 100))
      throw new Error(`${w}: "steps" must be a whole number from 1 to 100`);
  }
}

function checkStepList(v: unknown, name: string, where: string, names: Names): TestStep[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_STEPS) throw new Error(`${where}: "${name}" is a list of 1–${MAX_STEPS} steps`);
  return v.map((s, k) => checkStep(s, `${where}.${k + 1}`, names));
}

function kindOf(o: Record<string, unknown>, kinds: Record<string, unknown>): string | undefined {
  return Object.keys(kinds).find((k) => k in o);
}

function checkStep(v: unknown, where: string, names: Names): TestStep {
  if (!isObject(v)) throw new Error(`${where}: a step is an object such as {"click": "Add"}`);
  const o = v;
  const kind = kindOf(o, STEP_KINDS);
  if (!kind) throw new Error(`${where}: unknown step (one of ${STEP_KIND_NAMES.join(', ')})`);
  const spec = STEP_KINDS[kind]!;
  for (const k of Object.keys(o))
    if (k !== kind && !spec.needs.includes(k) && !spec.may.includes(k) && k !== 'name' && k !== 'optional')
      throw new Error(`${where}: unexpected key "${k}" in a ${kind} step`);
  for (const k of spec.needs) if (o[k] === undefined) throw new Error(`${where}: a ${kind} step needs "${k}"`);
  if (o.optional !== undefined && typeof o.optional !== 'boolean') throw new Error(`${where}: "optional" must be true or false`);
  switch (kind) {
    case 'press':
      if (typeof o.press !== 'string' || o.press === '') throw new Error(`${where}: "press" names a key, e.g. "Enter"`);
      if (o.hold !== undefined) ms(o.hold, 'hold', where);
      break;
    case 'keys':
      if (!Array.isArray(o.keys) || o.keys.length < 1 || o.keys.length > 6) throw new Error(`${where}: "keys" is a list of 1–6 keys pressed together`);
      for (const k of o.keys) checkKey(k, where);
      if (o.hold !== undefined) ms(o.hold, 'hold', where);
      break;
    case 'wait':
      ms(o.wait, 'wait', where);
      if (o.real !== undefined && typeof o.real !== 'boolean') throw new Error(`${where}: "real" must be true or false`);
      break;
    case 'waitUntil':
      checkExpectation(o.waitUntil, `${where} waitUntil`, names);
      if (o.within !== undefined) ms(o.within, 'within', where);
      break;
    case 'reload':
      if (o.reload !== true) throw new Error(`${where}: "reload" must be true`);
      break;
    case 'resize': {
      const r = o.resize;
      if (
        !isObject(r) ||
        Object.keys(r).sort().join(',') !== 'height,width' ||
        ![r.width, r.height].every((x) => Number.isInteger(x) && (x as number) >= 200 && (x as number) <= 4000)
      )
        throw new Error(`${where}: "resize" is {"width", "height"}, whole CSS pixels from 200 to 4000`);
      break;
    }
    case 'repeat':
      if (!Number.isInteger(o.repeat) || (o.repeat as number) < 1 || (o.repeat as number) > MAX_REPEAT)
        throw new Error(`${where}: "repeat" must be a whole number from 1 to ${MAX_REPEAT}`);
      checkStepList(o.steps, 'steps', where, names);
      break;
    case 'try':
      checkStepList(o.try, 'try', where, names);
      break;
    case 'type':
    case 'select':
      checkLocator(o[kind], where);
      if (typeof o[kind === 'type' ? 'text' : 'option'] !== 'string') throw new Error(`${where}: "${kind === 'type' ? 'text' : 'option'}" must be a string`);
      break;
    case 'drag':
      checkLocator(o.drag, where);
      if (!checkOffset(o.to, where)) checkLocator(o.to, where);
      checkPointer(o, where);
      break;
    case 'swipe':
      checkLocator(o.swipe, where);
      if (!checkOffset(o.to, where)) throw new Error(`${where}: a swipe goes "to" an offset {"dx", "dy"}`);
      if (o.at !== undefined) checkPoint(o.at, 'at', where);
      break;
    case 'mouse':
      checkMouseOps(o.mouse, where);
      if (o.on !== undefined) checkLocator(o.on, where);
      checkPointer(o, where);
      break;
    case 'read':
      checkTarget(o.read, ['screen'], where);
      if (typeof o.as !== 'string' || !/^[A-Za-z_][\w-]{0,40}$/.test(o.as)) throw new Error(`${where}: "as" is a name such as "score"`);
      if (o.ocr !== undefined && typeof o.ocr !== 'boolean') throw new Error(`${where}: "ocr" must be true or false`);
      if (o.read === 'screen' && o.ocr !== true) throw new Error(`${where}: reading "screen" needs "ocr": true`);
      if (o.region !== undefined) checkRegion(o.region, 'region', where);
      names.reads.add(o.as);
      break;
    default:
      checkLocator(o[kind], where);
      checkPointer(o, where);
  }
  if (o.name !== undefined) {
    if (typeof o.name !== 'string' || o.name.trim() === '') throw new Error(`${where}: "name" must be a non-empty string`);
    if (names.steps.has(o.name)) throw new Error(`${where}: the step name ${JSON.stringify(o.name)} is used twice`);
    names.steps.add(o.name);
  }
  return o as unknown as TestStep;
}

function checkNumberRef(v: unknown, name: string, where: string, names: Names): void {
  if (isNum(v)) return;
  if (typeof v === 'string' && names.reads.has(v)) return;
  if (typeof v === 'string') throw new Error(`${where}: "${name}" names ${JSON.stringify(v)}, which no earlier read step gives ("as")`);
  throw new Error(`${where}: "${name}" is a number or the name of an earlier read`);
}

function checkExpectation(v: unknown, where: string, names: Names, depth = 0): Expectation {
  if (!isObject(v)) throw new Error(`${where}: an expectation is an object such as {"visible": "Saved"}`);
  const o = v;
  const kind = kindOf(o, EXPECT_KINDS);
  if (!kind) throw new Error(`${where}: unknown expectation (one of ${EXPECT_KIND_NAMES.join(', ')})`);
  const spec = EXPECT_KINDS[kind]!;
  for (const k of Object.keys(o))
    if (k !== kind && !spec.needs.includes(k) && !spec.may.includes(k)) throw new Error(`${where}: unexpected key "${k}" in a ${kind} expectation`);
  for (const k of spec.needs) if (o[k] === undefined) throw new Error(`${where}: a ${kind} expectation needs "${k}"`);
  const str = (x: unknown, name: string) => {
    if (typeof x !== 'string' || x.trim() === '') throw new Error(`${where}: "${name}" must be a non-empty string`);
  };
  switch (kind) {
    case 'visible':
    case 'hidden':
    case 'ocr':
      checkText(o[kind], kind, where);
      if (o.in !== undefined) checkTarget(o.in, ['screen'], where);
      if (o.region !== undefined) checkRegion(o.region, 'region', where);
      break;
    case 'url':
    case 'storage':
      str(o[kind], kind);
      break;
    case 'noErrors':
      if (o.noErrors !== true) throw new Error(`${where}: "noErrors" must be true`);
      break;
    case 'changed':
    case 'unchanged':
      checkTarget(o[kind], ['canvas', 'page', 'screen'], where);
      if (o.since !== undefined) {
        str(o.since, 'since');
        if (!names.steps.has(o.since as string)) throw new Error(`${where}: "since" names ${JSON.stringify(o.since)}, which no earlier step has as its "name"`);
      }
      break;
    case 'moving':
    case 'still':
      checkTarget(o[kind], ['canvas', 'screen'], where);
      if (o.over !== undefined) {
        ms(o.over, 'over', where);
        if ((o.over as number) < 16) throw new Error(`${where}: "over" must be at least 16 ms (one frame)`);
      }
      break;
    case 'anyOf':
      if (!Array.isArray(o.anyOf) || o.anyOf.length < 1 || o.anyOf.length > 10) throw new Error(`${where}: "anyOf" is a list of 1–10 expectations`);
      if (depth >= 2) throw new Error(`${where}: "anyOf" nests at most two deep`);
      o.anyOf.forEach((e, i) => checkExpectation(e, `${where}.${i + 1}`, names, depth + 1));
      break;
    case 'box':
      checkLocator(o.box, where);
      if (o.inside !== undefined && typeof o.inside !== 'boolean') throw new Error(`${where}: "inside" must be true or false`);
      if (o.covers !== undefined) fraction(o.covers, 'covers', where);
      if (o.at !== undefined && !PLACES.includes(o.at as string)) throw new Error(`${where}: "at" is one of ${PLACES.join(', ')}`);
      if (o.inside === undefined && o.covers === undefined && o.at === undefined)
        throw new Error(`${where}: a box expectation needs "inside", "covers" or "at"`);
      break;
    case 'style':
      checkLocator(o.style, where);
      if (typeof o.property !== 'string' || !/^(--)?[a-zA-Z-]+$/.test(o.property))
        throw new Error(`${where}: "property" is a CSS property name such as "opacity"`);
      checkIsOrMatches(o, where);
      break;
    case 'value':
      checkLocator(o.value, where);
      checkIsOrMatches(o, where);
      break;
    case 'count':
      checkLocator(o.count, where);
      for (const k of ['min', 'max'])
        if (o[k] !== undefined && (typeof o[k] !== 'number' || !Number.isInteger(o[k]) || (o[k] as number) < 0))
          throw new Error(`${where}: "${k}" must be a whole number ≥ 0`);
      if (o.min === undefined && o.max === undefined) throw new Error(`${where}: a count needs "min" or "max"`);
      break;
    case 'pixels':
      checkPixels(o, where);
      break;
    case 'number': {
      checkTarget(o.number, ['screen'], where);
      if (o.ocr !== undefined && typeof o.ocr !== 'boolean') throw new Error(`${where}: "ocr" must be true or false`);
      if (o.number === 'screen' && o.ocr !== true) throw new Error(`${where}: reading "screen" needs "ocr": true`);
      if (o.region !== undefined) checkRegion(o.region, 'region', where);
      const cmp = ['gt', 'lt', 'eq', 'approx'].filter((k) => o[k] !== undefined);
      if (cmp.length === 0) throw new Error(`${where}: a number expectation needs "gt", "lt", "eq" or "approx"`);
      for (const k of cmp) checkNumberRef(o[k], k, where, names);
      if (o.tolerance !== undefined && (!isNum(o.tolerance) || o.tolerance < 0)) throw new Error(`${where}: "tolerance" must be a number ≥ 0`);
      if (o.tolerance !== undefined && o.approx === undefined) throw new Error(`${where}: "tolerance" goes with "approx"`);
      break;
    }
  }
  return o as Expectation;
}

function checkIsOrMatches(o: Record<string, unknown>, where: string): void {
  if ((o.is === undefined) === (o.matches === undefined)) throw new Error(`${where}: needs "is" or "matches"`);
  if (o.is !== undefined && typeof o.is !== 'string') throw new Error(`${where}: "is" must be a string`);
  if (o.matches !== undefined) {
    if (typeof o.matches !== 'string' || o.matches.trim() === '') throw new Error(`${where}: "matches" must be a non-empty string`);
    regexOf(`/${o.matches}/`, where);
  }
}

function checkPixels(o: Record<string, unknown>, where: string): void {
  checkTarget(o.pixels, ['screen'], where);
  if (o.region !== undefined) checkRegion(o.region, 'region', where);
  const ways = ['dominant', 'color', 'differs'].filter((k) => o[k] !== undefined);
  if (ways.length !== 1) throw new Error(`${where}: a pixels expectation names exactly one of "dominant", "color" (with "min"/"max"), "differs"`);
  if (o.dominant !== undefined) checkColour(o.dominant, 'dominant', where);
  if (o.color !== undefined) {
    checkColour(o.color, 'color', where);
    if (o.min === undefined && o.max === undefined) throw new Error(`${where}: "color" needs "min" or "max" (a share of the region, 0–1)`);
  }
  for (const k of ['min', 'max'] as const) {
    if (o[k] === undefined) continue;
    if (o.color === undefined) throw new Error(`${where}: "${k}" goes with "color"`);
    fraction(o[k], k, where);
  }
  if (o.differs !== undefined) checkRegion(o.differs, 'differs', where);
  if (o.tolerance !== undefined && (!isNum(o.tolerance) || o.tolerance < 0 || o.tolerance > 441))
    throw new Error(`${where}: "tolerance" is a colour distance from 0 to 441`);
}

/** Validate one test; throws Error naming the test and the bad part. */
export function parseTest(v: unknown, i: number): RequirementTest {
  if (!isObject(v)) throw new Error(`tests[${i}] must be an object`);
  const o = v;
  const id = o.id;
  if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`tests[${i}]: missing "id"`);
  const where = `test ${JSON.stringify(String(id))}`;
  if (o.task !== undefined) {
    const expected = o.expected ?? o.expected_result;
    if (typeof o.task !== 'string' || o.task.trim() === '') throw new Error(`${where}: "task" must be a non-empty string`);
    if (typeof expected !== 'string' || expected.trim() === '') throw new Error(`${where}: a natural-language test needs "expected"`);
    return { id: String(id), task: o.task, expected };
  }
  for (const k of Object.keys(o))
    if (!['id', 'title', 'steps', 'expect', 'timeLimit', 'fresh'].includes(k)) throw new Error(`${where}: unexpected key "${k}" in a scripted test`);
  if (!Array.isArray(o.steps)) throw new Error(`${where}: needs "steps" (a list) or "task" and "expected"`);
  if (!Array.isArray(o.expect) || o.expect.length === 0) throw new Error(`${where}: needs "expect" (a non-empty list)`);
  if (o.steps.length > MAX_STEPS || o.expect.length > MAX_STEPS) throw new Error(`${where}: at most ${MAX_STEPS} steps and ${MAX_STEPS} expectations`);
  if (o.title !== undefined && typeof o.title !== 'string') throw new Error(`${where}: "title" must be a string`);
  if (o.timeLimit !== undefined && (!isNum(o.timeLimit) || o.timeLimit < 500 || o.timeLimit > 120_000))
    throw new Error(`${where}: "timeLimit" must be real milliseconds from 500 to 120000`);
  if (o.fresh !== undefined && typeof o.fresh !== 'boolean') throw new Error(`${where}: "fresh" must be true or false`);
  const names: Names = { steps: new Set(), reads: new Set() };
  const steps = o.steps.map((s, k) => checkStep(s, `${where} step ${k + 1}`, names));
  const expect = o.expect.map((e, k) => checkExpectation(e, `${where} expectation ${k + 1}`, names));
  return {
    id: String(id),
    ...(typeof o.title === 'string' ? { title: o.title } : {}),
    steps,
    expect,
    ...(typeof o.timeLimit === 'number' ? { timeLimit: o.timeLimit } : {}),
    ...(typeof o.fresh === 'boolean' ? { fresh: o.fresh } : {}),
  };
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

/** Every problem of a `tests` list, one line each (parseTests stops at the first; `tests check` wants them all). */
export function testProblems(v: unknown): string[] {
  if (!Array.isArray(v)) return ['"tests" must be a list'];
  const out: string[] = [];
  const seen = new Set<string>();
  v.forEach((t, i) => {
    try {
      const test = parseTest(t, i);
      if (seen.has(test.id)) out.push(`tests: duplicate id ${JSON.stringify(test.id)}`);
      seen.add(test.id);
    } catch (err) {
      out.push(err instanceof Error ? err.message : String(err));
    }
  });
  return out;
}
