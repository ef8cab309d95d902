/**
 * A project's lockfile: which one it has, and whether everything it pins comes from the npm registry.
 *
 * The lockfile is respected: `pnpm-lock.yaml` is installed as it stands (`--frozen-lockfile`); an npm
 * (`package-lock.json`, `npm-shrinkwrap.json`) or Yarn (`yarn.lock`) lockfile is turned into one by `pnpm
 * import`, which keeps its versions; a lockfile that does not match `package.json` fails the install, as `npm ci`
 * would (the project's defect). One lockfile is used, in that order of preference.
 *
 * What is refused before anything is fetched (`lockfileProblems`), naming the first entries: an entry resolved
 * anywhere but the npm registry (another registry, a tarball URL, git, a local folder or link), since a
 * lockfile is written by the project and could otherwise make the install fetch from any host. Yarn's
 * `registry.yarnpkg.com` serves the npm registry's packages and counts as it. The check reads at most
 * MAX_LOCKFILE_BYTES.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export const LOCKFILES = ['pnpm-lock.yaml', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock'] as const;
export type LockfileName = (typeof LOCKFILES)[number];
export const MAX_LOCKFILE_BYTES = 16 * 1024 * 1024;

/** The lockfile the project has (module comment's order), or undefined. */
export function findLockfile(dir: string): LockfileName | undefined {
  for (const name of LOCKFILES) {
    try {
      if (statSync(join(dir, name)).isFile()) return name;
    } catch {
      /* absent */
    }
  }
  return undefined;
}

/** Hosts whose tarball URLs are the npm registry's own. */
function registryUrl(url: string, registry: string): boolean {
  return url.startsWith(registry) || url.startsWith('https://registry.npmjs.org/') || url.startsWith('https://registry.yarnpkg.com/');
}

const MAX_NAMED = 3;

function summarise(bad: string[]): string[] {
  if (bad.length <= MAX_NAMED) return bad;
  return [...bad.slice(0, MAX_NAMED), `and ${bad.length - MAX_NAMED} more`];
}

/** What in the lockfile is not from the npm registry (module comment); [] when all of it is. */
export function lockfileProblems(dir: string, name: LockfileName, registry: string): string[] {
  const path = join(dir, name);
  const size = statSync(path).size;
  if (size > MAX_LOCKFILE_BYTES) return [`${name} is larger than ${MAX_LOCKFILE_BYTES / 1024 / 1024} MiB`];
  const text = readFileSync(path, 'utf8');
  const bad: string[] = [];
  try {
    if (name === 'pnpm-lock.yaml') pnpmProblems(text, registry, bad);
    else if (name === 'yarn.lock') yarnProblems(text, registry, bad);
    else npmProblems(text, registry, bad);
  } catch (err) {
    return [`${name} cannot be read (${(err as Error).message.split('\n')[0]})`];
  }
  return summarise(bad).map((b) => `${name}: ${b}`);
}

function npmProblems(text: string, registry: string, bad: string[]): void {
  const doc = JSON.parse(text) as { packages?: Record<string, Record<string, unknown>>; dependencies?: Record<string, Record<string, unknown>> };
  const entries = Object.entries(doc.packages ?? {}).filter(([k]) => k !== '');
  // lockfileVersion 1 keeps a tree of `dependencies` instead.
  const walk = (deps: Record<string, Record<string, unknown>> | undefined, prefix: string) => {
    for (const [k, v] of Object.entries(deps ?? {})) {
      entries.push([`${prefix}${k}`, v]);
      walk(v.dependencies as Record<string, Record<string, unknown>> | undefined, `${prefix}${k} > `);
    }
  };
  if (!doc.packages) walk(doc.dependencies, '');
  for (const [key, e] of entries) {
    if (!e || typeof e !== 'object') continue;
    if (e.link === true) bad.push(`${key} is a link to a local folder`);
    else if (typeof e.resolved === 'string' && !registryUrl(e.resolved, registry)) bad.push(`${key} is resolved at ${e.resolved}`);
    else if (typeof e.version === 'string' && /^(file|link|git|git\+\w+|github|https?):/i.test(e.version)) bad.push(`${key} is ${e.version}`);
  }
}

function pnpmProblems(text: string, registry: string, bad: string[]): void {
  const doc = parseYaml(text, { maxAliasCount: 100 }) as {
    packages?: Record<string, { resolution?: Record<string, unknown> }>;
    importers?: Record<string, Record<string, Record<string, { version?: string }>>>;
  };
  for (const [key, e] of Object.entries(doc?.packages ?? {})) {
    const r = e?.resolution;
    if (!r) continue;
    if (typeof r.tarball === 'string' && !registryUrl(r.tarball, registry)) bad.push(`${key} is resolved at ${r.tarball}`);
    else if (r.type === 'git' || r.type === 'directory' || typeof r.repo === 'string' || typeof r.directory === 'string')
      bad.push(`${key} is resolved from ${r.type === 'git' || r.repo ? 'a git repository' : 'a local folder'}`);
  }
  for (const [importer, kinds] of Object.entries(doc?.importers ?? {})) {
    if (importer !== '.') bad.push(`the workspace package ${importer} (workspaces are not installed)`);
    for (const deps of Object.values(kinds ?? {}))
      for (const [n, d] of Object.entries(deps ?? {})) if (typeof d?.version === 'string' && /^(link|file):/.test(d.version)) bad.push(`${n} is ${d.version}`);
  }
}

function yarnProblems(text: string, registry: string, bad: string[]): void {
  let current = '';
  for (const line of text.split('\n')) {
    if (/^\S/.test(line) && line.endsWith(':')) current = line.slice(0, -1).replace(/"/g, '');
    const m = /^\s+(resolved|resolution)\s+"?([^"\s]+)"?/.exec(line);
    if (!m) continue;
    const value = m[2]!;
    if (m[1] === 'resolved' && !registryUrl(value, registry)) bad.push(`${current} is resolved at ${value}`);
    if (m[1] === 'resolution' && !/@npm:/.test(value)) bad.push(`${current} is resolved as ${value}`);
  }
}
