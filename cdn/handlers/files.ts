/**
 * Plain files of a package, as jsDelivr, unpkg, cdnjs and the other file hosts serve them: the default entry,
 * a named file, a mapped path, or a `.min` file minified from its source when the package ships none.
 */
import * as esbuild from 'esbuild';
import type { CdnBudget } from '../budget.js';
import { BUILDER_VERSION, ESBUILD_VERSION } from '../esm-build.js';
import { contentType } from '../mime.js';
import { findFile, type Pkg } from '../packages.js';
import { NotFoundError } from '../registry.js';
import { cacheFor, decodePath, UnsupportedError, type Body, type CdnContext } from './context.js';

/**
 * A file of a package as jsDelivr/unpkg serve it: `file` null → the default entry. jsDelivr picks the
 * `jsdelivr` field, then `browser` when a string, then `main`, then `index.js`, and serves the `.min` sibling
 * of a .js/.css entry when the package has one; unpkg picks `unpkg`, then `browser` (string), then `main`.
 * A missing `x.min.js`/`x.min.css` whose unminified file exists is minified with esbuild (jsDelivr does the
 * same with its own minifier; the bytes differ from jsDelivr's, the behaviour does not).
 */
export async function packageFile(
  ctx: CdnContext,
  cdn: 'jsdelivr' | 'unpkg',
  name: string,
  range: string | null,
  file: string | null,
  budget: CdnBudget,
): Promise<Body> {
  const version = await ctx.packages.resolve(name, range, budget);
  const pkg = await ctx.packages.open(name, version, budget);
  const cache = cacheFor(range, version);
  if (file === null || file === '') return fileBody(pkg, defaultEntry(cdn, pkg, `${name}@${version}`), cache);
  const f = decodePath(file).replace(/^\/+/, '');
  if (f.endsWith('/') || isDirectory(pkg, f)) throw new UnsupportedError(`directory listings are not served (${name}@${version}/${f})`);
  const probed = cdn === 'unpkg' ? findFile(pkg, f) : null;
  if (pkg.has(f)) return fileBody(pkg, f, cache);
  if (probed) return fileBody(pkg, probed, cache);
  const min = /^(.*)\.min\.(js|css)$/.exec(f);
  if (cdn === 'jsdelivr' && min && pkg.has(`${min[1]}.${min[2]}`)) return minified(ctx, pkg, `${min[1]}.${min[2]}`, f, cache);
  throw new NotFoundError(`${name}@${version} has no file ${f}`);
}

/** The file a URL without a file names (see packageFile). */
function defaultEntry(cdn: 'jsdelivr' | 'unpkg', pkg: Pkg, label: string): string {
  const fields = cdn === 'jsdelivr' ? ['jsdelivr', 'browser', 'main'] : ['unpkg', 'browser', 'main'];
  let path: string | null = null;
  for (const f of fields) {
    const v = pkg.json[f];
    if (typeof v === 'string' && v.trim()) {
      path = findFile(pkg, v);
      if (path) break;
    }
  }
  path ??= findFile(pkg, 'index.js');
  if (!path) throw new NotFoundError(`${label} has no default file (no ${fields.join(', ')} field, no index.js)`);
  const min = /^(.*?)(?<!\.min)\.(js|css)$/.exec(path);
  if (cdn === 'jsdelivr' && min && pkg.has(`${min[1]}.min.${min[2]}`)) path = `${min[1]}.min.${min[2]}`;
  return path;
}

function isDirectory(pkg: Pkg, path: string): boolean {
  const prefix = path.replace(/\/+$/, '') + '/';
  return !pkg.has(path) && Object.keys(pkg.manifest.files).some((f) => f.startsWith(prefix));
}

export async function fileBody(pkg: Pkg, path: string, cache: string): Promise<Body> {
  const body = await pkg.read(path);
  if (!body) throw new NotFoundError(`${pkg.name}@${pkg.version} has no file ${path}`);
  return { body, type: contentType(path), cache, package: pkg.name, version: pkg.version, file: path };
}

/** `x.min.js` generated from `x.js` (esbuild minify; cached as a build). */
export async function minified(ctx: CdnContext, pkg: Pkg, source: string, asked: string, cache: string): Promise<Body> {
  const key = JSON.stringify({ kind: 'minify', b: BUILDER_VERSION, esbuild: ESBUILD_VERSION, name: pkg.name, version: pkg.version, source });
  const hit = ctx.store.getBuild(key);
  let body: Buffer;
  if (hit) body = hit.body;
  else {
    const src = (await pkg.read(source))!;
    const loader = source.endsWith('.css') ? 'css' : 'js';
    try {
      const r = await esbuild.transform(src.toString('utf8'), { loader, minify: true, legalComments: 'inline', charset: 'utf8', logLevel: 'silent' });
      body = Buffer.from(r.code);
    } catch {
      body = src; // not parseable by esbuild: serve it as published
    }
    ctx.store.putBuild(key, body, { source });
    ctx.store.maybeEvict({ builds: [key] });
  }
  return { body, type: contentType(asked), cache, package: pkg.name, version: pkg.version, file: asked, notes: [`${asked} minified from ${source}`] };
}

/**
 * The mapped-path lookup of cdnjs and /gh/: prefix + file, file, then (with `byBasename`) the one file of the
 * package with the same basename — on a tie, the one under the prefix, then the shortest, then code-point order.
 */
export function lookupMapped(pkg: Pkg, prefix: string, file: string, byBasename = true): string | null {
  if (pkg.has(prefix + file)) return prefix + file;
  if (pkg.has(file)) return file;
  if (!byBasename) return null;
  const base = file.slice(file.lastIndexOf('/') + 1);
  const matches = Object.keys(pkg.manifest.files).filter((f) => f === base || f.endsWith('/' + base));
  if (matches.length === 0) return null;
  matches.sort((a, b) => Number(b.startsWith(prefix)) - Number(a.startsWith(prefix)) || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return matches[0]!;
}
