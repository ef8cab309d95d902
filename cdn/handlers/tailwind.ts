/** Tailwind's v3 Play CDN (`cdn.tailwindcss.com`) from the npm package `tailwindcss-cdn`. */
import semver from 'semver';
import type { CdnBudget } from '../budget.js';
import { IMMUTABLE, ONE_WEEK } from '../mime.js';
import { exactVersion, type Pkg } from '../packages.js';
import { NotFoundError, UnavailableError } from '../registry.js';
import { decodePath, UnsupportedError, type Body, type CdnContext } from './context.js';
import { fileBody } from './files.js';

const NAME = 'tailwindcss-cdn';
/** The plugins of the Play CDN's build with all plugins. */
const ALL_PLUGINS = ['forms', 'typography', 'aspect-ratio', 'container-queries'];

/**
 * `cdn.tailwindcss.com[/<version>][?plugins=a,b]` from npm `tailwindcss-cdn` (which republishes the Play CDN
 * scripts: `tailwindcss.js`, `tailwindcss-with-<plugin>.js`, `tailwindcss-with-all-plugins.js`, at its root
 * for its newest Tailwind and in `<tailwind version>/` folders). No version → the root files of the newest
 * `tailwindcss-cdn`; a version or range → the matching folder (highest match), else the package version of
 * that number. Plugins: none → `tailwindcss.js`; one with its own file → that file; several → `tailwindcss-with-all-plugins.js` (a superset: forms, typography,
 * aspect-ratio, container-queries; a note says so). `line-clamp` (in the core since 3.3) is dropped unless the folder has its own
 * line-clamp build. The page's `tailwind.config = {...}` is read by the Play
 * CDN script itself at run time, so it keeps working.
 */
export async function tailwind(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const m = /^\/(?:([^/]+)\/?)?$/.exec(url.pathname);
  if (!m) throw new UnsupportedError(`unsupported tailwind URL form ${url.pathname}`);
  const asked = m[1] ? decodePath(m[1]).replace(/^v(?=\d)/, '') : null;
  if (asked !== null && !semver.validRange(asked)) throw new NotFoundError(`"${asked}" is not a Tailwind version`);
  const { pkg, folder, twVersion } = await playBuilds(ctx, asked, budget);
  const notes: string[] = [];
  const file = pluginFile(pkg, folder, twVersion, url.searchParams.get('plugins'), notes);
  if (!pkg.has(file)) throw new UnavailableError(`${NAME}@${pkg.version} has no ${file}`);
  const b = await fileBody(pkg, file, asked && exactVersion(asked) ? IMMUTABLE : ONE_WEEK);
  return notes.length ? { ...b, notes } : b;
}

/** Where the Play CDN builds of the asked Tailwind version are: a folder of the newest package, or an older package. */
async function playBuilds(ctx: CdnContext, asked: string | null, budget: CdnBudget): Promise<{ pkg: Pkg; folder: string; twVersion: string }> {
  const latest = await ctx.packages.resolve(NAME, 'latest', budget);
  const pkg = await ctx.packages.open(NAME, latest, budget);
  if (asked === null) return { pkg, folder: '', twVersion: pkg.json.version ?? latest };
  const folders = [
    ...new Set(
      Object.keys(pkg.manifest.files)
        .map((f) => f.split('/'))
        .filter((s) => s.length === 2 && semver.valid(s[0]!))
        .map((s) => s[0]!),
    ),
  ];
  const best = semver.maxSatisfying(folders, asked);
  if (best) return { pkg, folder: `${best}/`, twVersion: best };
  let v: string | null = null;
  try {
    v = await ctx.packages.resolve(NAME, asked, budget);
  } catch {
    v = null;
  }
  if (!v) throw new UnavailableError(`no Play CDN build of Tailwind ${asked} in ${NAME}@${latest} (it has ${folders.sort(semver.compare).join(', ')})`);
  return { pkg: await ctx.packages.open(NAME, v, budget), folder: '', twVersion: v };
}

/** The build file for `?plugins=` (see tailwind), with notes on what was approximated. */
function pluginFile(pkg: Pkg, folder: string, twVersion: string, param: string | null, notes: string[]): string {
  let plugins = (param ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (plugins.includes('line-clamp') && !pkg.has(`${folder}tailwindcss-with-line-clamp.js`) && semver.gte(semver.coerce(twVersion) ?? '3.4.0', '3.3.0')) {
    plugins = plugins.filter((p) => p !== 'line-clamp');
    notes.push('line-clamp is part of Tailwind core since 3.3');
  }
  plugins = [...new Set(plugins)];
  if (plugins.length === 1 && pkg.has(`${folder}tailwindcss-with-${plugins[0]}.js`)) return `${folder}tailwindcss-with-${plugins[0]}.js`;
  if (plugins.length === 0) return `${folder}tailwindcss.js`;
  const unknown = plugins.filter((p) => !ALL_PLUGINS.includes(p) && p !== 'line-clamp');
  if (unknown.length) notes.push(`plugins not in the Play CDN builds: ${unknown.join(', ')}`);
  if (plugins.length > 1 || !pkg.has(`${folder}tailwindcss-with-${plugins[0]}.js`))
    notes.push(`plugins ${plugins.join(',')} served by the build with all plugins`);
  return `${folder}tailwindcss-with-all-plugins.js`;
}
