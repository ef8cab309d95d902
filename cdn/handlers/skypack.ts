/** Skypack (`cdn.skypack.dev`): ES module stubs and their optimized builds. */
import type { CdnBudget } from '../budget.js';
import { IMMUTABLE } from '../mime.js';
import { decodePath, splitPackagePath, UnsupportedError, type Body, type CdnContext } from './context.js';
import { esmBuild, esmEntry, lastSegment } from './modules.js';

/** Skypack: `/<pkg>@<range>[/<subpath>]` → stub; `/-/<pkg>@v<ver>/dist=…/optimized/<file>.js` → the build. */
export async function skypack(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const p = url.pathname.slice(1);
  const canon = /^-\/((?:@[^/]+\/)?[^/@]+)@v([^/]+)\/dist=[^/]+\/optimized\/(.+)\.js$/.exec(p);
  if (canon) {
    const name = decodePath(canon[1]!);
    const version = await ctx.packages.resolve(name, canon[2]!, budget);
    const file = canon[3]!;
    const sub = file === lastSegment(name) ? null : file;
    return esmBuild(ctx, 'skypack', name, version, sub, {}, IMMUTABLE, budget);
  }
  if (p.startsWith('-/') || p === '') throw new UnsupportedError(`unsupported skypack URL form ${url.pathname}`);
  const sp = splitPackagePath(p);
  if (!sp) throw new UnsupportedError(`unsupported skypack URL form ${url.pathname}`);
  return esmEntry(ctx, 'skypack', sp.name, sp.range, sp.rest || null, {}, url, budget);
}
