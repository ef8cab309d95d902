/** esm.sh (`esm.sh`, `cdn.esm.sh`): ES module stubs and builds, raw files for non-JS subpaths. */
import type { CdnBudget } from '../budget.js';
import { IMMUTABLE } from '../mime.js';
import { exactVersion } from '../packages.js';
import { decodePath, splitPackagePath, UnsupportedError, type Body, type CdnContext } from './context.js';
import { packageFile } from './files.js';
import { esmBuild, esmEntry, lastSegment, parseDeps } from './modules.js';

/** A subpath esm.sh serves as the raw file rather than as a module. */
const RAW_FILE = /\.(css|json|wasm|woff2?|ttf|otf|png|jpe?g|gif|svg|webp|txt|md|map|data|zip)$/i;

/**
 * esm.sh: `/<pkg>@<range>[/<subpath>][?deps=a@1,b@2]` → stub; `/<pkg>@<ver>[/X-<deps>]/es2022/<file>.mjs` →
 * the build; a subpath with a non-JS extension (`.css`, `.json`, `.wasm`…) or `?raw` → the raw file. Leading
 * `/v<n>/` and `/stable/` are ignored, as is a `*` before the name (all dependencies are external anyway).
 * Query parameters other than `deps` (`target`, `dev`, `bundle`, `external`, `alias`…) are ignored (a note).
 */
export async function esmSh(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  let p = url.pathname.replace(/^\/(?:v\d+|stable)(?=\/)/, '').slice(1);
  if (p.startsWith('*')) p = p.slice(1);
  if (p === '' || p.startsWith('gh/') || p.startsWith('jsr/') || p.startsWith('pr/')) throw new UnsupportedError(`unsupported esm.sh URL form ${url.pathname}`);
  const sp = splitPackagePath(p);
  if (!sp) throw new UnsupportedError(`unsupported esm.sh URL form ${url.pathname}`);
  const deps = parseDeps(url.searchParams.get('deps'));
  const notes = [...url.searchParams.keys()].filter((k) => k !== 'deps').map((k) => `?${k} is ignored`);
  const canon = sp.rest ? /^(?:X-([A-Za-z0-9_-]+)\/)?es2022\/(.+)\.mjs$/.exec(sp.rest) : null;
  if (canon && sp.range && exactVersion(sp.range)) {
    const version = await ctx.packages.resolve(sp.name, sp.range, budget);
    const d = canon[1] ? parseDeps(Buffer.from(canon[1], 'base64url').toString('utf8')) : {};
    const file = canon[2]!;
    const sub = file === lastSegment(sp.name) ? null : file;
    const b = await esmBuild(ctx, 'esm.sh', sp.name, version, sub, d, IMMUTABLE, budget);
    return { ...b, notes };
  }
  const rest = sp.rest ? decodePath(sp.rest) : null;
  if (rest && (url.searchParams.has('raw') || RAW_FILE.test(rest))) {
    const b = await packageFile(ctx, 'unpkg', sp.name, sp.range, rest, budget);
    return { ...b, notes };
  }
  const b = await esmEntry(ctx, 'esm.sh', sp.name, sp.range, rest, deps, url, budget);
  return notes.length ? { ...b, notes } : b;
}
