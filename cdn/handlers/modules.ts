/**
 * ES module builds of npm packages as jsDelivr `+esm`, esm.run, unpkg `?module`, esm.sh and Skypack serve them:
 * each flavour's canonical URL of a build, the stub a range request answers, and the (cached) build itself.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { AbortedError, BudgetError, shared, type CdnBudget } from '../budget.js';
import { buildEsm, BUILDER_VERSION, ESBUILD_VERSION } from '../esm-build.js';
import { IMMUTABLE, JS_TYPE, ONE_WEEK } from '../mime.js';
import { exactVersion } from '../packages.js';
import { validPackageName } from '../registry.js';
import { decodePath, type Body, type CdnContext } from './context.js';

export type EsmFlavour = 'jsdelivr' | 'esm.run' | 'unpkg' | 'esm.sh' | 'skypack';

export function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

function esmShFile(name: string, subpath: string | null): string {
  return `${subpath ? subpath.replace(/\.(m?js|cjs)$/, '') : lastSegment(name)}.mjs`;
}

/** `?deps=react@18.2.0,scheduler@0.23` → {react: '18.2.0', scheduler: '0.23'}. */
export function parseDeps(s: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!s) return out;
  for (const part of s.split(',')) {
    const t = part.trim();
    const at = t.lastIndexOf('@');
    if (at <= 0) continue;
    const n = t.slice(0, at);
    const v = t.slice(at + 1);
    if (validPackageName(n) && v && (semver.validRange(v) || /^[a-z][a-z0-9-]*$/i.test(v))) out[n] = v;
  }
  return out;
}

/** Canonical URL of a module build of name@version[/subpath] for a flavour. */
function moduleUrl(flavour: EsmFlavour, name: string, version: string, subpath: string | null, depsKey = ''): string {
  switch (flavour) {
    case 'jsdelivr':
      return `/npm/${name}@${version}${subpath ? '/' + subpath : ''}/+esm`;
    case 'esm.run':
      return `https://cdn.jsdelivr.net/npm/${name}@${version}${subpath ? '/' + subpath : ''}/+esm`;
    case 'unpkg':
      return `/${name}@${version}${subpath ? '/' + subpath : ''}?module`;
    case 'esm.sh':
      return `/${name}@${version}${depsKey ? `/X-${Buffer.from(depsKey).toString('base64url')}` : ''}/es2022/${esmShFile(name, subpath)}`;
    case 'skypack':
      return `/-/${name}@v${version}/dist=es2020,mode=imports/optimized/${subpath ? subpath.replace(/\.(m?js|cjs)$/, '') : lastSegment(name)}.js`;
  }
}

/**
 * A module request by range: an exact-version request of jsDelivr/unpkg answers the build itself; any
 * other (a range, or esm.sh/esm.run/Skypack, which always answer a small stub as esm.sh does) answers a stub
 * `export * from "<canonical>"` (+ `export { default }` when the build has one), so every import of the
 * same package version — by the page or by another build — is one module instance.
 */
export async function esmEntry(
  ctx: CdnContext,
  flavour: EsmFlavour,
  name: string,
  range: string | null,
  subpath: string | null,
  deps: Record<string, string>,
  url: URL,
  budget: CdnBudget,
): Promise<Body> {
  const version = await ctx.packages.resolve(name, range, budget);
  let sub = subpath ? decodePath(subpath).replace(/^\/+|\/+$/g, '') || null : null;
  // esm.sh and Skypack name builds without the .js of a subpath: one build for `x/y` and `x/y.js`
  if (sub && (flavour === 'esm.sh' || flavour === 'skypack')) sub = sub.replace(/\.(m?js|cjs)$/, '');
  const depsKey = Object.keys(deps).length
    ? Object.entries(deps)
        .sort()
        .map(([k, v]) => `${k}@${v}`)
        .join(',')
    : '';
  const exact = range !== null && exactVersion(range) === version;
  if (exact && (flavour === 'jsdelivr' || flavour === 'unpkg')) return esmBuild(ctx, flavour, name, version, sub, deps, IMMUTABLE, budget);
  const target = moduleUrl(flavour, name, version, sub, depsKey);
  const built = await buildFor(ctx, flavour, name, version, sub, deps, budget);
  const lines = [`/* ${url.host}${url.pathname}${url.search} → ${name}@${version}${sub ? '/' + sub : ''} */`, `export * from ${JSON.stringify(target)};`];
  if (built.exports.includes('default')) lines.push(`export { default } from ${JSON.stringify(target)};`);
  const body = Buffer.from(lines.join('\n') + '\n');
  return { body, type: JS_TYPE, cache: exact ? IMMUTABLE : ONE_WEEK, package: name, version, file: `${flavour}-stub:${sub ?? '.'}` };
}

/** The build itself, as the answer to its canonical URL. */
export async function esmBuild(
  ctx: CdnContext,
  flavour: EsmFlavour,
  name: string,
  version: string,
  sub: string | null,
  deps: Record<string, string>,
  cache: string,
  budget: CdnBudget,
): Promise<Body> {
  const built = await buildFor(ctx, flavour, name, version, sub, deps, budget);
  return { body: built.body, type: JS_TYPE, cache, package: name, version, file: `${flavour === 'jsdelivr' ? '+esm' : flavour + '-module'}:${sub ?? '.'}` };
}

/** The (cached) build of name@version[/sub] for a flavour. */
function buildFor(
  ctx: CdnContext,
  flavour: EsmFlavour,
  name: string,
  version: string,
  sub: string | null,
  deps: Record<string, string>,
  budget: CdnBudget,
): Promise<{ body: Buffer; exports: string[] }> {
  const depFlavour = flavour === 'esm.run' ? 'jsdelivr' : flavour; // builds live on cdn.jsdelivr.net
  const key = JSON.stringify({
    kind: 'esm',
    b: BUILDER_VERSION,
    esbuild: ESBUILD_VERSION,
    flavour: depFlavour,
    name,
    version,
    sub,
    deps: Object.entries(deps).sort(),
  });
  const hit = ctx.store.getBuild(key);
  if (hit) return Promise.resolve({ body: hit.body, exports: (hit.record.meta.exports as string[]) ?? [] });
  return shared(ctx.builds, key, budget, async () => {
    const pkg = await ctx.packages.open(name, version, budget);
    const tmpRoot = join(ctx.dir, 'tmp');
    mkdirSync(tmpRoot, { recursive: true });
    const r = await buildEsm({
      pkg,
      subpath: sub,
      deps,
      tmpRoot,
      depUrl: (n, v, s) => moduleUrl(depFlavour, n, v, s),
      resolveDep: (n, range) => resolveDep(ctx, n, range, budget),
    });
    budget.addStored(`the ES module build of ${name}@${version}`, r.code.length);
    ctx.store.putBuild(key, r.code, { exports: r.exports, entry: r.entry, format: r.format });
    ctx.store.maybeEvict({ builds: [key] });
    return { body: r.code, exports: r.exports };
  });
}

/** The version a build's dependency import gets: its range when it is one, else the newest; null when none. */
async function resolveDep(ctx: CdnContext, name: string, range: string, budget: CdnBudget): Promise<string | null> {
  const rr = /^(?:[\^~<>=*xX\d]|latest$|next$|[a-z]+$)/.test(range) && !range.includes(':') ? range : 'latest';
  try {
    return await ctx.packages.resolve(name, rr, budget);
  } catch (err) {
    // over the page's budget or the page gone: no build at all, rather than one cached for good without its dependency's version
    if (err instanceof BudgetError || err instanceof AbortedError) throw err;
    return null;
  }
}
