/**
 * Which folders are projects, and what of a project's `package.json` webgrade uses.
 *
 * A project (SPEC "Inputs") is a folder whose `package.json` is a JSON object with a non-empty string
 * `scripts.build`. A folder with a `package.json` without one (or one that is not valid JSON) is a static folder
 * as before, when it has an `index.html`; without one it is bad input, and the error names the manifest's
 * problem. Single files and static folders behave as they always did.
 *
 * What an install reads from the manifest: only `dependencies`, `devDependencies` and `optionalDependencies`
 * (names and specifiers). Everything else that would steer a package manager is left out on purpose:
 * `overrides`, `resolutions`, the `pnpm` field (its `overrides`, `patchedDependencies` and `packageExtensions` can
 * name files and other sources), workspaces, lifecycle scripts, `.npmrc`, `.pnpmfile.cjs` (code pnpm would run)
 * and `pnpm-workspace.yaml`: the install happens in a folder of ours holding a manifest we write (install.ts).
 *
 * Specifiers: a dependency must come from the npm registry: a semver version or range, a dist-tag, or an
 * `npm:<name>@<range>` alias. `file:`, `link:`, `portal:`, `workspace:`, `git`, GitHub shorthands (`user/repo`),
 * tarball URLs and paths are refused, naming the dependency (`dependencySpecProblem`).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import validateName from 'validate-npm-package-name';
import { InputError } from '../core/errors.js';

/** A manifest larger than this is not read (a real one is a few KiB). */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Direct dependencies at most (every kind together). */
export const MAX_DIRECT_DEPENDENCIES = 500;

export interface ProjectManifest {
  name?: string;
  /** `scripts.build`, as written. */
  build: string;
  /** The output folder the project names (`webgrade.output`), relative to the project. */
  output?: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
}

const DEP_KINDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

type Read = { manifest: ProjectManifest } | { problem: string } | null;

/** The folder's `package.json` as a project manifest; `problem` when it cannot be one; null without a manifest. */
export function readManifest(dir: string): Read {
  const path = join(dir, 'package.json');
  let st;
  try {
    st = statSync(path);
  } catch {
    return null;
  }
  if (!st.isFile()) return { problem: 'package.json is not a file' };
  if (st.size > MAX_MANIFEST_BYTES) return { problem: `package.json is larger than ${MAX_MANIFEST_BYTES / 1024} KiB` };
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return { problem: `package.json is not valid JSON (${(err as Error).message})` };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { problem: 'package.json is not a JSON object' };
  const o = doc as Record<string, unknown>;
  const scripts = o.scripts as Record<string, unknown> | undefined;
  const build = scripts && typeof scripts === 'object' ? scripts.build : undefined;
  if (typeof build !== 'string' || build.trim() === '') return { problem: 'package.json has no build script (scripts.build)' };
  const manifest: ProjectManifest = { build, dependencies: {}, devDependencies: {}, optionalDependencies: {} };
  if (typeof o.name === 'string') manifest.name = o.name;
  const wg = o.webgrade as Record<string, unknown> | undefined;
  if (wg && typeof wg === 'object' && typeof wg.output === 'string') manifest.output = wg.output;
  for (const kind of DEP_KINDS) {
    const deps = o[kind];
    if (deps === undefined) continue;
    if (!deps || typeof deps !== 'object' || Array.isArray(deps)) return { problem: `package.json: ${kind} is not an object` };
    for (const [name, spec] of Object.entries(deps as Record<string, unknown>)) {
      if (typeof spec !== 'string') return { problem: `package.json: ${kind}.${name} is not a string` };
      manifest[kind][name] = spec;
    }
  }
  return { manifest };
}

/** Is `dir` a project (a folder whose package.json has a build script)? */
export function isProjectFolder(dir: string): boolean {
  try {
    if (!statSync(dir).isDirectory()) return false;
  } catch {
    return false;
  }
  const r = readManifest(dir);
  return r !== null && 'manifest' in r;
}

/** The manifest of a project folder; InputError when it is not one (callers check `isProjectFolder` first). */
export function projectManifest(dir: string): ProjectManifest {
  const r = readManifest(dir);
  if (!r) throw new InputError(`${dir}: no package.json`);
  if ('problem' in r) throw new InputError(`${dir}: ${r.problem}`);
  return r.manifest;
}

/** Why a dependency cannot be installed from the npm registry, or null when it can (module comment). */
export function dependencySpecProblem(name: string, spec: string): string | null {
  const valid = validateName(name);
  if (!valid.validForOldPackages || /[\s%?#\\]/.test(name)) return `"${name}" is not an npm package name`;
  const s = spec.trim();
  if (s.startsWith('npm:')) {
    const rest = s.slice(4);
    const at = rest.lastIndexOf('@');
    const target = at > 0 ? rest.slice(0, at) : rest;
    const range = at > 0 ? rest.slice(at + 1) : '*';
    if (!validateName(target).validForOldPackages) return `${name}: alias ${JSON.stringify(spec)} names no npm package`;
    return rangeProblem(name, range);
  }
  if (/^(file|link|portal|workspace|patch|exec):/i.test(s))
    return `${name}: ${JSON.stringify(spec)} is not on the npm registry (a local or workspace specifier)`;
  if (/^[./~]/.test(s)) return `${name}: ${JSON.stringify(spec)} is not on the npm registry (a path)`;
  if (/^(git|git\+[a-z]+|github|gitlab|bitbucket|gist):/i.test(s) || /^[\w.-]+\/[\w.-]+(#.*)?$/.test(s))
    return `${name}: ${JSON.stringify(spec)} is not on the npm registry (a git repository)`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return `${name}: ${JSON.stringify(spec)} is not on the npm registry (a URL)`;
  return rangeProblem(name, s);
}

function rangeProblem(name: string, range: string): string | null {
  if (range === '' || range === '*' || range === 'latest') return null;
  if (semver.validRange(range, { loose: true }) !== null) return null;
  if (/^[a-z][a-z0-9._-]{0,63}$/i.test(range)) return null; // a dist-tag (`next`, `beta`)
  return `${name}: ${JSON.stringify(range)} is neither a version range nor a dist-tag`;
}

/** Every dependency's problem (in manifest order), and the count check. */
export function manifestProblems(m: ProjectManifest): string[] {
  const all = DEP_KINDS.flatMap((k) => Object.entries(m[k]));
  const out = all.map(([n, s]) => dependencySpecProblem(n, s)).filter((p): p is string => p !== null);
  if (all.length > MAX_DIRECT_DEPENDENCIES) out.push(`${all.length} direct dependencies (at most ${MAX_DIRECT_DEPENDENCIES})`);
  return out;
}

/** The manifest an install uses: name, version, private, the three dependency kinds; nothing else (module comment). */
export function installManifest(m: ProjectManifest): Record<string, unknown> {
  const out: Record<string, unknown> = { name: 'webgrade-project', version: '0.0.0', private: true };
  for (const k of DEP_KINDS) if (Object.keys(m[k]).length) out[k] = m[k];
  return out;
}
