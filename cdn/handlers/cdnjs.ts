/** cdnjs (`cdnjs.cloudflare.com/ajax/libs/`), through the shipped library → npm mapping (cdn/data/cdnjs.json). */
import semver from 'semver';
import type { CdnBudget } from '../budget.js';
import { IMMUTABLE, ONE_WEEK } from '../mime.js';
import { exactVersion } from '../packages.js';
import { UnavailableError, validPackageName } from '../registry.js';
import { decodePath, loadJson, shipped, UnsupportedError, type Body, type CdnContext } from './context.js';
import { fileBody, lookupMapped, minified } from './files.js';

interface CdnjsEntry {
  npm: string;
  prefix?: string;
  versions?: string;
  version?: 'three-r';
  sample?: string;
}

/** The shipped cdnjs → npm mapping (cdn/data/cdnjs.json). */
export function cdnjsMapping(): Record<string, CdnjsEntry | CdnjsEntry[]> {
  return loadJson<{ libraries: Record<string, CdnjsEntry | CdnjsEntry[]> }>('cdnjs.json').libraries;
}

/**
 * `/ajax/libs/<lib>/<ver>/<file>` through cdn/data/cdnjs.json (library → npm package, the folder cdnjs
 * flattens away, version ranges for libraries that changed package, `three.js` r-versions). The file is
 * looked up as (1) prefix + file, (2) file, (3) for `x.min.js`/`x.min.css`, x.js/x.css minified, (4) the one
 * file of the package with the same basename — on a tie, the one under the prefix, then the shortest path,
 * then the first in code-point order. A library not in the mapping tries the npm package of the same name
 * (lower-cased) with the same lookup. A version the npm package never published is `not-found`; a file not
 * found by this lookup is `unavailable` (cdnjs may hold files npm does not).
 */
export async function cdnjs(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const m = /^\/ajax\/libs\/([^/]+)\/([^/]+)\/(.+)$/.exec(url.pathname);
  if (!m) throw new UnsupportedError(`unsupported cdnjs URL form ${url.pathname}`);
  const lib = decodePath(m[1]!);
  const ver = decodePath(m[2]!);
  const file = decodePath(m[3]!);
  const { entry, mapped } = cdnjsEntry(ctx, lib, ver);
  let npmVer = ver.replace(/^v(?=\d)/, '');
  if (entry.version === 'three-r') {
    const r = /^r(\d+)$/.exec(ver);
    if (r) npmVer = `0.${r[1]}.0`;
  }
  const version = await ctx.packages.resolve(entry.npm, npmVer, budget);
  const pkg = await ctx.packages.open(entry.npm, version, budget);
  const cache = exactVersion(npmVer) ? IMMUTABLE : ONE_WEEK;
  const path = lookupMapped(pkg, entry.prefix ?? '', file);
  if (path) return fileBody(pkg, path, cache);
  const min = /^(.*)\.min\.(js|css)$/.exec(file);
  if (min) {
    const src = lookupMapped(pkg, entry.prefix ?? '', `${min[1]}.${min[2]}`, false);
    if (src) return minified(ctx, pkg, src, file, cache);
  }
  throw new UnavailableError(
    `${lib}/${ver}/${file} maps to ${entry.npm}@${version}, which has no ${entry.prefix ?? ''}${file} nor one file named ${file.slice(file.lastIndexOf('/') + 1)}${mapped ? '' : ` (library ${lib} is not in the cdnjs mapping; tried the npm package of the same name)`}`,
  );
}

/** The mapping entry of `lib` for version `ver`, else the npm package of the same name (`mapped` false). */
function cdnjsEntry(ctx: CdnContext, lib: string, ver: string): { entry: CdnjsEntry; mapped: boolean } {
  const mapping = shipped(ctx, 'cdnjs', cdnjsMapping);
  const raw = mapping[lib] ?? Object.entries(mapping).find(([k]) => k.toLowerCase() === lib.toLowerCase())?.[1];
  const npmVer0 = ver.replace(/^v(?=\d)/, '');
  if (raw) {
    const list = Array.isArray(raw) ? raw : [raw];
    const entry = list.find((e) => !e.versions || (semver.valid(semver.coerce(npmVer0)) && semver.satisfies(semver.coerce(npmVer0)!, e.versions))) ?? list[0]!;
    return { entry, mapped: true };
  }
  const guess = lib.toLowerCase();
  if (!validPackageName(guess)) throw new UnavailableError(`library ${lib} is not in the cdnjs mapping`);
  return { entry: { npm: guess, prefix: 'dist/' }, mapped: false };
}
