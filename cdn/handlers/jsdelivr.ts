/**
 * jsDelivr (`cdn.jsdelivr.net` and its mirrors) and esm.run, which redirects to jsDelivr's `+esm` builds.
 */
import type { CdnBudget } from '../budget.js';
import { IMMUTABLE, ONE_WEEK } from '../mime.js';
import { exactVersion } from '../packages.js';
import { UnavailableError } from '../registry.js';
import { decodePath, loadJson, shipped, splitPackagePath, UnsupportedError, type Body, type CdnContext } from './context.js';
import { fileBody, lookupMapped, packageFile } from './files.js';
import { esmEntry } from './modules.js';

type GithubEntry = { npm: string; strip?: string; sample?: string };

/** The shipped GitHub repository → npm mapping for jsDelivr `/gh/` URLs (cdn/data/github.json). */
export function githubMapping(): Record<string, GithubEntry> {
  return loadJson<{ repositories: Record<string, GithubEntry> }>('github.json').repositories;
}

/**
 * `/npm/<pkg>@<range>/<file>`, `/npm/<pkg>@<range>` (default entry), `/npm/<pkg>@<range>[/<subpath>]/+esm`,
 * `/gh/<user>/<repo>@<ref>/<file>` (through cdn/data/github.json: the ref `master`/`main`/none means the
 * latest npm version, `v1.2.3` and ranges map to npm versions), `/pyodide/v<ver>/<dist>/<file>` (npm
 * `pyodide@<ver>`: the core files only — pyodide.js/.mjs/.asm.js/.asm.wasm, python_stdlib.zip, the lock
 * file; the Python packages of the full distribution are not on npm and are `unavailable`).
 * Directory listings and `/combine/` are `unavailable`.
 */
export function jsdelivr(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const path = url.pathname;
  if (path.startsWith('/npm/')) return jsdelivrNpm(ctx, url, budget);
  if (path.startsWith('/gh/')) return jsdelivrGithub(ctx, path.slice(4), budget);
  const py = /^\/pyodide\/v([^/]+)\/(full|debug|pyc)\/(.*)$/.exec(path);
  if (py) return pyodide(ctx, py[1]!, py[3]!, budget);
  throw new UnsupportedError(`unsupported jsdelivr URL form ${path}`);
}

async function jsdelivrNpm(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const path = url.pathname;
  const rest = path.slice(5);
  const esm = /^(.*?)\/\+esm$/.exec(rest);
  if (esm) {
    const sp = splitPackagePath(esm[1]!);
    if (!sp) throw new UnsupportedError(`unsupported jsdelivr URL form ${path}`);
    return esmEntry(ctx, 'jsdelivr', sp.name, sp.range, sp.rest, {}, url, budget);
  }
  const sp = splitPackagePath(rest);
  if (!sp) throw new UnsupportedError(`unsupported jsdelivr URL form ${path}`);
  if (sp.rest !== null && (sp.rest === '' || sp.rest.endsWith('/'))) {
    // a base URL (a library's baseURL/indexURL): the package is still fetched, so its files are cached
    const version = await ctx.packages.resolve(sp.name, sp.range, budget);
    await ctx.packages.open(sp.name, version, budget);
    throw new UnsupportedError(`directory listings are not served (${sp.name}@${version}/${sp.rest})`);
  }
  return packageFile(ctx, 'jsdelivr', sp.name, sp.range, sp.rest, budget);
}

async function pyodide(ctx: CdnContext, ver: string, file: string, budget: CdnBudget): Promise<Body> {
  const version = await ctx.packages.resolve('pyodide', ver, budget);
  const pkg = await ctx.packages.open('pyodide', version, budget);
  // the indexURL itself: not a file, but the package (pyodide's core) is now in the cache
  if (file === '') throw new UnsupportedError(`directory listings are not served (pyodide v${ver})`);
  const f = decodePath(file);
  if (!pkg.has(f))
    throw new UnavailableError(
      `pyodide v${ver}: ${f} is not in the npm package pyodide (only its core files are served; Python packages of the full distribution are not)`,
    );
  return fileBody(pkg, f, exactVersion(ver) ? IMMUTABLE : ONE_WEEK);
}

async function jsdelivrGithub(ctx: CdnContext, rest: string, budget: CdnBudget): Promise<Body> {
  const m = /^([^/]+)\/([^/@]+)(?:@([^/]*))?(?:\/(.*))?$/.exec(rest);
  if (!m) throw new UnsupportedError(`unsupported jsdelivr URL form /gh/${rest}`);
  const [, user, repo, ref, file] = m as unknown as [string, string, string, string | undefined, string | undefined];
  const github = shipped(ctx, 'github', githubMapping);
  const key = `${user}/${repo}`;
  const entry = github[key] ?? github[key.toLowerCase()];
  if (!entry) throw new UnavailableError(`GitHub repository ${key} has no npm mapping (files from GitHub are not served)`);
  const r = ref === undefined || ref === '' || /^(master|main|latest|HEAD|gh-pages)$/.test(ref) ? 'latest' : ref.replace(/^v(?=\d)/, '');
  if (!file) throw new UnsupportedError(`directory listings are not served (/gh/${rest})`);
  const version = await ctx.packages.resolve(entry.npm, r, budget);
  const pkg = await ctx.packages.open(entry.npm, version, budget);
  const f = decodePath(file);
  const stripped = entry.strip && f.startsWith(entry.strip) ? f.slice(entry.strip.length) : f;
  const path = lookupMapped(pkg, '', stripped);
  if (!path) throw new UnavailableError(`/gh/${key}@${ref ?? ''}/${f} maps to ${entry.npm}@${version}, which has no ${stripped}`);
  return fileBody(pkg, path, exactVersion(r) ? IMMUTABLE : ONE_WEEK);
}

/** `esm.run/<pkg>[@<range>][/<subpath>]` → a stub importing jsDelivr's `+esm` build. */
export function esmRun(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const sp = splitPackagePath(url.pathname.slice(1));
  if (!sp || !sp.name) throw new UnsupportedError(`unsupported esm.run URL form ${url.pathname}`);
  return esmEntry(ctx, 'esm.run', sp.name, sp.range, sp.rest || null, {}, url, budget);
}
