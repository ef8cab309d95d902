/** Font Awesome: `use.fontawesome.com` releases from npm, `kit.fontawesome.com` kits as the free bundle. */
import semver from 'semver';
import type { CdnBudget } from '../budget.js';
import { IMMUTABLE, ONE_WEEK } from '../mime.js';
import { exactVersion } from '../packages.js';
import { NotFoundError } from '../registry.js';
import { decodePath, UnsupportedError, type Body, type CdnContext } from './context.js';
import { fileBody } from './files.js';

/** `use.fontawesome.com/releases/v<ver>/<file>` → `@fortawesome/fontawesome-free@<ver>/<file>` (css, js, webfonts, svgs). */
export async function fontAwesomeUse(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const m = /^\/releases\/v([^/]+)\/(.+)$/.exec(url.pathname);
  if (!m) {
    if (/^\/[0-9a-f]{6,}\.(js|css)$/i.test(url.pathname)) return fontAwesomeKit(ctx, url, budget);
    throw new UnsupportedError(`unsupported fontawesome URL form ${url.pathname}`);
  }
  const ver = m[1]!;
  const file = decodePath(m[2]!);
  const name = semver.coerce(ver) && semver.major(semver.coerce(ver)!) < 5 ? 'font-awesome' : '@fortawesome/fontawesome-free';
  const version = await ctx.packages.resolve(name, ver, budget);
  const pkg = await ctx.packages.open(name, version, budget);
  if (!pkg.has(file)) throw new NotFoundError(`${name}@${version} has no file ${file}`);
  return fileBody(pkg, file, exactVersion(ver) ? IMMUTABLE : ONE_WEEK);
}

/**
 * `kit.fontawesome.com/<id>.js`: kits are per account and their settings are not public; the best effort
 * is the free SVG+JS bundle `js/all.min.js` of the newest `@fortawesome/fontawesome-free` (pinned like any
 * resolution), which renders the free icons a kit would (Pro icons do not render).
 */
export async function fontAwesomeKit(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  if (!/^\/[A-Za-z0-9]+\.(js|css)$/.test(url.pathname)) throw new UnsupportedError(`unsupported fontawesome-kit URL form ${url.pathname}`);
  const name = '@fortawesome/fontawesome-free';
  const version = await ctx.packages.resolve(name, 'latest', budget);
  const pkg = await ctx.packages.open(name, version, budget);
  const file = url.pathname.endsWith('.css') ? 'css/all.min.css' : 'js/all.min.js';
  const b = await fileBody(pkg, file, ONE_WEEK);
  return { ...b, notes: [`Font Awesome kit ${url.pathname.slice(1)} served as the free ${file} of ${name}@${version} (kits are per account)`] };
}
