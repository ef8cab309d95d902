/**
 * Records keyed by data: model names, requirement ids, label names and values, metric ids read from a results
 * file. A plain object takes `__proto__` as its prototype (the write is lost, or the object changes) and answers
 * `constructor` or `toString` with Object's methods when the key is absent; a record without a prototype holds
 * only the keys written into it, and serialises to the same JSON.
 */

/** A record without a prototype, filled from `entries`. */
export function dict<T>(entries?: Iterable<readonly [string, T]>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  if (entries) for (const [k, v] of entries) out[k] = v;
  return out;
}

/** `record[key]` when `key` is the record's own (whatever its prototype: a parsed file's object has one), else undefined. */
export function own<T>(record: Readonly<Record<string, T>> | undefined | null, key: string): T | undefined {
  return record != null && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** A JSON object's shape. */
export type Obj = Record<string, unknown>;

/** A JSON object (not null, not a list). */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
