/**
 * Requirement tests (SPEC "Requirement tests"): the `tests` of a requirement line, their validation, and the
 * shape of their results in the evidence (gather/interaction/requirement-tests/ runs them; the metric `requirement-tests`
 * reads the results). The shapes are in requirement-tests-types.ts, the validation (with every interpretation of
 * the format) in requirement-tests-check.ts; this module adds the words a person reads in results and reports.
 */
import { isOffset, type Expectation, type Locator, type Point, type Region, type Target, type TestStep } from './requirement-tests-types.js';

export * from './requirement-tests-types.js';
export * from './requirement-tests-check.js';

/** A locator as a person reads it: `"Add"`, `label "Email"`, `role button "Save" #2`. */
export function describeLocator(l: Locator): string {
  if (typeof l === 'string') return JSON.stringify(l);
  const way = (['text', 'label', 'placeholder', 'role', 'css'] as const).find((k) => l[k] !== undefined)!;
  return `${way} ${JSON.stringify(l[way])}${l.name ? ` ${JSON.stringify(l.name)}` : ''}${l.nth ? ` #${l.nth}` : ''}`;
}

/** A target as a person reads it: `the screen`, `the canvas`, or the locator. */
export function describeTarget(t: Target): string {
  if (t === 'screen' || t === 'canvas' || t === 'page') return t;
  return describeLocator(t);
}

const point = (p: Point): string => ('fx' in p ? `(${p.fx}, ${p.fy} of it)` : `(${p.x}, ${p.y})`);
const region = (r: Region): string => ('fx' in r ? `[${r.fx}, ${r.fy} + ${r.fw}×${r.fh} of it]` : `[${r.x}, ${r.y} + ${r.width}×${r.height}]`);

/** The pointer words of a mouse step: ` (right button, Shift held, at (10, 4))`. */
function pointerWords(s: { button?: string; modifiers?: string[]; at?: Point; hold?: number }): string {
  const parts = [
    ...(s.button && s.button !== 'left' ? [`${s.button} button`] : []),
    ...(s.modifiers?.length ? [`${s.modifiers.join('+')} held`] : []),
    ...(s.at ? [`at ${point(s.at)}`] : []),
    ...(s.hold ? [`held ${s.hold} ms`] : []),
  ];
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** A step as a person reads it: `click "Add"`, `type "milk" into label "Item"`. */
export function describeStep(s: TestStep): string {
  const opt = s.optional ? ' (optional)' : '';
  return describeOne(s) + opt;
}

function describeOne(s: TestStep): string {
  if ('type' in s) return `type ${JSON.stringify(s.text)} into ${describeLocator(s.type)}`;
  if ('select' in s) return `select ${JSON.stringify(s.option)} in ${describeLocator(s.select)}`;
  if ('drag' in s) return `drag ${describeLocator(s.drag)} to ${isOffset(s.to) ? `(${s.to.dx}, ${s.to.dy})` : describeLocator(s.to)}${pointerWords(s)}`;
  if ('swipe' in s) return `swipe ${describeLocator(s.swipe)} by (${s.to.dx}, ${s.to.dy})${s.at ? ` from ${point(s.at)}` : ''}`;
  if ('touch' in s) return `touch ${describeLocator(s.touch)}${pointerWords(s)}`;
  if ('press' in s) return `press ${keyName(s.press)}${s.hold ? ` for ${s.hold} ms` : ''}`;
  if ('keys' in s) return `press ${s.keys.map(keyName).join('+')} together${s.hold ? ` for ${s.hold} ms` : ''}`;
  if ('mouse' in s)
    return `mouse ${s.mouse.map((m) => ('down' in m ? `down ${point(m.down)}` : 'move' in m ? `move ${point(m.move)}` : 'up' in m ? 'up' : `wait ${m.wait} ms`)).join(', ')}${s.on ? ` on ${describeLocator(s.on)}` : ''}${pointerWords(s)}`;
  if ('waitUntil' in s) return `wait until ${describeExpectation(s.waitUntil)} (at most ${s.within ?? 5000} ms)`;
  if ('wait' in s) return `wait ${s.wait} ms${s.real ? ' of real time' : ''}`;
  if ('reload' in s) return 'reload';
  if ('resize' in s) return `resize the window to ${s.resize.width}×${s.resize.height}`;
  if ('repeat' in s) return `repeat ${s.repeat}× [${s.steps.map(describeStep).join('; ')}]`;
  if ('try' in s) return `try [${s.try.map(describeStep).join('; ')}]`;
  if ('read' in s) return `read a number from ${describeTarget(s.read)}${s.ocr ? ' by OCR' : ''}${s.region ? ` ${region(s.region)}` : ''} as ${s.as}`;
  const kind = (['click', 'dblclick', 'hover', 'check', 'uncheck'] as const).find((k) => k in s)!;
  return `${kind} ${describeLocator((s as unknown as Record<string, Locator>)[kind]!)}${pointerWords(s as Parameters<typeof pointerWords>[0])}`;
}

/** A key as a person reads it: " " is Space (printed as is, the step would read "press  "). */
const keyName = (k: string): string => (k === ' ' ? 'Space' : k);

const ref = (v: number | string): string => (typeof v === 'number' ? String(v) : `the ${v} read`);

/** An expectation as a person reads it. */
export function describeExpectation(e: Expectation): string {
  if ('visible' in e) return `${JSON.stringify(e.visible)} visible`;
  if ('hidden' in e) return `${JSON.stringify(e.hidden)} hidden`;
  if ('count' in e)
    return `count of ${describeLocator(e.count)} ${e.min !== undefined && e.max !== undefined ? `in ${e.min}–${e.max}` : e.min !== undefined ? `≥ ${e.min}` : `≤ ${e.max}`}`;
  if ('value' in e) return `value of ${describeLocator(e.value)} ${e.is !== undefined ? `is ${JSON.stringify(e.is)}` : `matches /${e.matches}/`}`;
  if ('url' in e) return `address contains ${JSON.stringify(e.url)}`;
  if ('storage' in e) return `storage has ${JSON.stringify(e.storage)}`;
  if ('changed' in e) return `${describeTarget(e.changed)} changed${e.since ? ` since step "${e.since}"` : ''}`;
  if ('unchanged' in e) return `${describeTarget(e.unchanged)} unchanged${e.since ? ` since step "${e.since}"` : ''}`;
  if ('moving' in e) return `${describeTarget(e.moving)} moving (two samples ${e.over ?? 500} ms apart differ)`;
  if ('still' in e) return `${describeTarget(e.still)} still (two samples ${e.over ?? 500} ms apart are the same)`;
  if ('anyOf' in e) return `any of: ${e.anyOf.map(describeExpectation).join(' | ')}`;
  if ('box' in e) {
    const parts = [
      ...(e.inside ? ['inside the viewport'] : []),
      ...(e.covers !== undefined ? [`covering ≥ ${e.covers} of the viewport`] : []),
      ...(e.at ? [`at the ${e.at}`] : []),
    ];
    return `box of ${describeLocator(e.box)} ${parts.join(', ')}`;
  }
  if ('style' in e) return `${e.property} of ${describeLocator(e.style)} ${e.is !== undefined ? `is ${JSON.stringify(e.is)}` : `matches /${e.matches}/`}`;
  if ('pixels' in e) {
    const where = `${describeTarget(e.pixels)}${e.region ? ` ${region(e.region)}` : ''}`;
    if (e.dominant !== undefined) return `the main colour of ${where} is ${e.dominant}`;
    if (e.color !== undefined)
      return `${e.color} covers ${e.min !== undefined && e.max !== undefined ? `${e.min}–${e.max}` : e.min !== undefined ? `≥ ${e.min}` : `≤ ${e.max}`} of ${where}`;
    return `${where} differs from ${region(e.differs!)}`;
  }
  if ('number' in e) {
    const cmp = [
      ...(e.gt !== undefined ? [`> ${ref(e.gt)}`] : []),
      ...(e.lt !== undefined ? [`< ${ref(e.lt)}`] : []),
      ...(e.eq !== undefined ? [`= ${ref(e.eq)}`] : []),
      ...(e.approx !== undefined ? [`≈ ${ref(e.approx)}${e.tolerance !== undefined ? ` ± ${e.tolerance}` : ''}`] : []),
    ];
    return `the number in ${describeTarget(e.number)}${e.ocr ? ' (OCR)' : ''}${e.region ? ` ${region(e.region)}` : ''} ${cmp.join(' and ')}`;
  }
  if ('ocr' in e) return `${JSON.stringify(e.ocr)} drawn on ${e.in ? describeTarget(e.in) : 'the screen'}${e.region ? ` ${region(e.region)}` : ''} (OCR)`;
  return 'no uncaught errors (start-up included)';
}
