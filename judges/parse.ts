/**
 * Tolerant parsing, strict validation of judge answers.
 *
 * Parsing (`extractJson`) accepts what chat models actually send: the bare JSON object; a ```json fenced block
 * (the first fenced block that parses wins); prose before or after the object; a `<think>…</think>` preamble.
 * It finds the first balanced `{…}` that parses as JSON, honouring strings and escapes while counting braces.
 *
 * Validation is strict: a validator either returns the typed value or one sentence saying what is wrong; the
 * caller turns that into a retry and finally into "unscorable". Nothing is ever guessed or clamped. (One
 * documented normalisation: visual ratings given with more than two decimals are rounded to two and the
 * rounding is recorded, see validateVisual.)
 */

import {
  VISUAL_ASPECTS,
  VISUAL_DECIMALS,
  type CriteriaAnswer,
  type CriterionRating,
  type Verdict,
  type VerdictsAnswer,
  type VisualAnswer,
} from '../core/judge-answer.js';

export { VISUAL_ASPECTS, type CriteriaAnswer, type CriterionRating, type Verdict, type VerdictsAnswer, type VisualAnswer };

export type Validation<T> = { ok: true; value: T } | { ok: false; error: string };

export function valid<T>(value: T): Validation<T> {
  return { ok: true, value };
}
export function invalid<T = never>(error: string): Validation<T> {
  return { ok: false, error };
}

/** Every balanced `{...}` substring of `text` in order of its opening brace, string-aware. */
function balancedObjects(text: string): string[] {
  const out: string[] = [];
  for (let start = text.indexOf('{'); start >= 0 && out.length < 20; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) {
          out.push(text.slice(start, i + 1));
          break;
        }
      }
    }
  }
  return out;
}

function tryParse(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

/** Pull one JSON object out of a model's answer text. */
export function extractJson(text: string): Validation<Record<string, unknown>> {
  if (typeof text !== 'string' || text.trim() === '') return invalid('the answer is empty');
  const cleaned = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const candidates: string[] = [cleaned];
  for (const m of cleaned.matchAll(/```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/g)) candidates.push(m[1]!.trim());
  candidates.push(...balancedObjects(cleaned));
  for (const c of candidates) {
    const r = tryParse(c);
    if (r.ok && r.value && typeof r.value === 'object' && !Array.isArray(r.value)) return valid(r.value as Record<string, unknown>);
  }
  return invalid('the answer holds no JSON object');
}

export function isNumberIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
}

function str(v: unknown, max = 2000): string | null {
  return typeof v === 'string' ? v.slice(0, max) : null;
}

// ---------------------------------------------------------------------------------------------------------------
// functionality-correctness: ten criteria, 0–10 each

/**
 * Exactly the criteria `ids`, each once, each with a number in [0, 10]. Accepts `{"criteria": [{id, score,
 * reason}]}` (the asked-for form) or `{"criteria": {"<id>": {score, reason} | number}}`. Returned in `ids` order.
 */
export function validateCriteria(value: Record<string, unknown>, ids: readonly string[]): Validation<CriteriaAnswer> {
  const raw = value.criteria;
  let entries: Array<{ id: unknown; score: unknown; reason: unknown }>;
  if (Array.isArray(raw)) {
    entries = raw.map((e) => (e && typeof e === 'object' ? (e as Record<string, unknown>) : {}) as { id: unknown; score: unknown; reason: unknown });
  } else if (raw && typeof raw === 'object') {
    entries = Object.entries(raw as Record<string, unknown>).map(([id, v]) =>
      v && typeof v === 'object'
        ? { id, score: (v as Record<string, unknown>).score, reason: (v as Record<string, unknown>).reason }
        : { id, score: v, reason: '' },
    );
  } else return invalid('"criteria" is missing');
  if (entries.length !== ids.length) return invalid(`expected ${ids.length} criteria, got ${entries.length}`);
  const byId = new Map<string, CriterionRating>();
  for (const e of entries) {
    if (typeof e.id !== 'string' || !ids.includes(e.id)) return invalid(`unknown criterion id ${JSON.stringify(e.id)}`);
    if (byId.has(e.id)) return invalid(`criterion ${e.id} rated twice`);
    if (!isNumberIn(e.score, 0, 10)) return invalid(`criterion ${e.id}: score ${JSON.stringify(e.score)} is not a number from 0 to 10`);
    byId.set(e.id, { id: e.id, score: e.score, reason: str(e.reason) ?? '' });
  }
  return valid({ criteria: ids.map((id) => byId.get(id)!) });
}

// ---------------------------------------------------------------------------------------------------------------
// visual-experience: one rating 0–4 plus four aspects

/**
 * A number with at most `decimals` decimals kept as given (3.25 stays 3.25); a longer one rounded to that many,
 * with the given value returned so the caller can say so. Decimal rounding of the shortest decimal form, so that
 * 2.675 (stored as 2.67499…) becomes 2.68 as written, not 2.67.
 */
export function roundDecimals(x: number, decimals: number): { kept: number; rounded: boolean } {
  const f = 10 ** decimals;
  const kept = Number(Math.round(Number(`${x}e${decimals}`)) + `e-${decimals}`);
  const exact = Math.abs(x * f - Math.round(x * f)) < 1e-9;
  return { kept: Number.isFinite(kept) ? kept : Math.round(x * f) / f, rounded: !exact };
}

/**
 * The visual rating: "score" and the four aspects, each a number in [0, 4]. The study's scale has two decimals:
 * a rating with at most two is kept exactly; one with more (3.14159) is rounded to two (3.14) and listed in
 * `rounded` (the metric reports it), rather than rejected: the rating itself is valid, and a retry would cost a
 * call for a difference below the scale's resolution. A value outside [0, 4] is rejected, never clamped.
 */
export function validateVisual(value: Record<string, unknown>): Validation<VisualAnswer> {
  if (!isNumberIn(value.score, 0, 4)) return invalid(`"score" ${JSON.stringify(value.score)} is not a number from 0 to 4`);
  const rounded: NonNullable<VisualAnswer['rounded']> = [];
  const keep = (field: string, x: number): number => {
    const r = roundDecimals(x, VISUAL_DECIMALS);
    if (r.rounded) rounded.push({ field, given: x, kept: r.kept });
    return r.kept;
  };
  const score = keep('score', value.score);
  const aspects = {} as VisualAnswer['aspects'];
  for (const a of VISUAL_ASPECTS) {
    if (!isNumberIn(value[a], 0, 4)) return invalid(`"${a}" ${JSON.stringify(value[a])} is not a number from 0 to 4`);
    aspects[a] = keep(a, value[a]);
  }
  const out: VisualAnswer = { score, aspects, reason: str(value.reason) ?? '' };
  if (rounded.length) out.rounded = rounded;
  return valid(out);
}

// ---------------------------------------------------------------------------------------------------------------
// alignment: exactly one verdict per checklist item

/**
 * Exactly one verdict per item id in `itemIds`, no unknown or repeated ids, `passed` a boolean. Returned in item
 * order. An answer that does not match the checklist is rejected whole: we never keep some verdicts and guess
 * the rest.
 */
export function validateVerdicts(value: Record<string, unknown>, itemIds: readonly string[]): Validation<VerdictsAnswer> {
  const raw = value.verdicts;
  if (!Array.isArray(raw)) return invalid('"verdicts" must be a list');
  if (raw.length !== itemIds.length) return invalid(`expected ${itemIds.length} verdicts (one per item), got ${raw.length}`);
  const byId = new Map<string, Verdict>();
  for (const e of raw) {
    if (!e || typeof e !== 'object') return invalid('every verdict must be an object');
    const o = e as Record<string, unknown>;
    const item = typeof o.item === 'number' ? String(o.item) : o.item;
    if (typeof item !== 'string' || !itemIds.includes(item)) return invalid(`verdict for unknown item ${JSON.stringify(o.item)}`);
    if (byId.has(item)) return invalid(`item ${item} has more than one verdict`);
    if (typeof o.passed !== 'boolean') return invalid(`item ${item}: "passed" must be true or false`);
    byId.set(item, { item, passed: o.passed, reason: str(o.reason) ?? '', excerpt: str(o.excerpt, 1000) ?? '' });
  }
  return valid({ verdicts: itemIds.map((id) => byId.get(id)!) });
}

// ---------------------------------------------------------------------------------------------------------------
// checklist derivation

export interface DerivedChecklist {
  functional: string[];
  visual: string[];
  content: string[];
}

export const MAX_ITEMS_PER_KIND = 12;

export function validateChecklist(value: Record<string, unknown>): Validation<DerivedChecklist> {
  const out: DerivedChecklist = { functional: [], visual: [], content: [] };
  for (const kind of ['functional', 'visual', 'content'] as const) {
    const v = value[kind];
    if (!Array.isArray(v)) return invalid(`"${kind}" must be a list of strings`);
    if (v.length > MAX_ITEMS_PER_KIND) return invalid(`"${kind}" has ${v.length} items; at most ${MAX_ITEMS_PER_KIND}`);
    for (const item of v) {
      if (typeof item !== 'string' || item.trim() === '') return invalid(`"${kind}" items must be non-empty strings`);
      if (item.length > 400) return invalid(`a "${kind}" item is longer than 400 characters`);
      out[kind].push(item.trim());
    }
  }
  if (out.functional.length + out.visual.length + out.content.length === 0) return invalid('the checklist has no items');
  return valid(out);
}
