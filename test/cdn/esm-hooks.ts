/**
 * Node module hooks for the ES module tests: `https:` imports (and URLs relative to them) are answered by a
 * CdnCache, so a child process can evaluate a CDN import graph exactly as a browser would link it.
 */
import type { CdnCache } from '../../cdn/index.js';

let cdn: CdnCache;

export async function initialize(data: { dir: string; registry: string }): Promise<void> {
  const { CdnCache } = await import('../../cdn/index.js');
  cdn = new CdnCache({ dir: data.dir, registry: data.registry, timeoutMs: 5000 });
}

type Next<T> = (s: string, c: unknown) => Promise<T>;

export async function resolve(spec: string, ctx: { parentURL?: string }, next: Next<unknown>): Promise<unknown> {
  if (/^https:\/\//.test(spec)) return { url: spec, shortCircuit: true };
  if (ctx.parentURL?.startsWith('https:')) return { url: new URL(spec, ctx.parentURL).href, shortCircuit: true };
  return next(spec, ctx);
}

export async function load(url: string, ctx: unknown, next: Next<unknown>): Promise<unknown> {
  if (!url.startsWith('https:')) return next(url, ctx);
  const a = await cdn.answer(new URL(url), { method: 'GET', headers: {} });
  if (a.kind !== 'served') throw new Error(`${url}: ${a.kind}: ${a.reason}`);
  return { format: 'module', source: a.body.toString('utf8'), shortCircuit: true };
}
