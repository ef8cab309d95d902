/**
 * What every CDN handler shares: the answer a handler returns, the state of the cache it reads and fills, and
 * the URL helpers the hosts have in common. A handler turns one URL of its host into a {@link Body} or throws
 * NotFoundError (404), {@link UnsupportedError} (501) or UnavailableError (503).
 */
import { readFileSync } from 'node:fs';
import type { CdnBudget } from '../budget.js';
import { IMMUTABLE, ONE_WEEK } from '../mime.js';
import { exactVersion, type Packages } from '../packages.js';
import { UnavailableError } from '../registry.js';
import type { CacheStore } from '../store.js';

/** An intermediate answer of a handler. */
export interface Body {
  body: Buffer;
  type: string;
  cache: string;
  package: string;
  version: string;
  file: string;
  notes?: string[];
}

/** A URL form this cache does not answer (501, where other unavailable answers are 503). */
export class UnsupportedError extends UnavailableError {}

/** The cache's state a handler uses; one per CdnCache. */
export interface CdnContext {
  readonly dir: string;
  readonly store: CacheStore;
  readonly packages: Packages;
  /** Module builds under way, shared by concurrent requests of one build. */
  readonly builds: Map<string, Promise<{ body: Buffer; exports: string[] }>>;
  /** Shipped mappings (cdn/data/*.json), read once per cache on first use. */
  readonly shipped: Map<string, unknown>;
}

/** Answers one URL of a CDN host. */
export type Handler = (ctx: CdnContext, url: URL, budget: CdnBudget) => Promise<Body>;

const DATA_DIR = new URL('../../../cdn/data/', import.meta.url);

/** A shipped data file of cdn/data/. */
export function loadJson<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, DATA_DIR), 'utf8')) as T;
}

/** `load()` once per cache, kept under `key`. */
export function shipped<T>(ctx: CdnContext, key: string, load: () => T): T {
  if (!ctx.shipped.has(key)) ctx.shipped.set(key, load());
  return ctx.shipped.get(key) as T;
}

/** Split `<pkg>[@<range>][/<rest>]` (scoped names included) from a path without its leading slash. */
export function splitPackagePath(path: string): { name: string; range: string | null; rest: string | null } | null {
  const m = /^((?:@[^/@]+\/)?[^/@]+)(?:@([^/]*))?(?:\/(.*))?$/.exec(path);
  if (!m) return null;
  let name: string;
  let range: string | null;
  try {
    name = decodeURIComponent(m[1]!);
    range = m[2] !== undefined ? decodeURIComponent(m[2]) : null;
  } catch {
    return null;
  }
  return { name, range: range === '' ? null : range, rest: m[3] ?? null };
}

export function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/** Immutable only when the URL named the exact version it got. */
export const cacheFor = (range: string | null, version: string) => (range !== null && exactVersion(range) === version ? IMMUTABLE : ONE_WEEK);
