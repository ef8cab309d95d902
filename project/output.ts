/**
 * Which folder a build produced. Frameworks' usual output folders are looked at in order: `dist` (Vite, Vue
 * CLI, Parcel, Angular), `build` (Create React App, Docusaurus), `out` (Next's static export), `public` only when
 * the build wrote it (Gatsby, Svelte's rollup template), then any other folder the build created; the output is
 * the first whose `index.html` is at its top or one or two folders down (Angular writes
 * `dist/<app>/browser/index.html`). A project names its own with `"webgrade": {"output": "<folder>"}` in
 * `package.json`; that folder is then the only one looked at.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import type { ProjectOutput } from '../core/project.js';

export const USUAL_OUTPUTS = ['dist', 'build', 'out'];

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** The folder (relative to `root`) under `folder` that holds index.html, at most two levels down. */
function withIndex(root: string, folder: string): string | null {
  const abs = join(root, folder);
  if (!isDir(abs)) return null;
  if (isFile(join(abs, 'index.html'))) return folder;
  const below = (rel: string, depth: number): string | null => {
    let names: string[];
    try {
      names = readdirSync(join(root, rel)).sort();
    } catch {
      return null;
    }
    for (const n of names) {
      const r = `${rel}/${n}`;
      if (!isDir(join(root, r))) continue;
      if (isFile(join(root, r, 'index.html'))) return r;
      if (depth > 1) {
        const deeper = below(r, depth - 1);
        if (deeper) return deeper;
      }
    }
    return null;
  };
  return below(folder, 2);
}

/**
 * The output folder of a build in `root`; `before` = the top-level names that existed before the build (so that
 * a `public/` of sources is not taken for an output). Null with the reason when there is none.
 */
export function findOutput(root: string, before: ReadonlySet<string>, named?: string): { folder: string } | { reason: string } {
  if (named !== undefined) {
    const n = normalize(named).replace(/\/+$/, '');
    if (n.startsWith('..') || n.startsWith(sep) || n === '.' || n === '')
      return { reason: `webgrade.output ${JSON.stringify(named)} is not a folder inside the project` };
    const f = withIndex(root, n);
    return f ? { folder: f } : { reason: `the build left no index.html in ${n}/ (the folder package.json names)` };
  }
  const created = readdirSync(root)
    .filter((n) => !before.has(n) && !n.startsWith('.') && n !== 'node_modules')
    .sort();
  const order = [...USUAL_OUTPUTS, ...created.filter((n) => !USUAL_OUTPUTS.includes(n))];
  for (const name of order) {
    const f = withIndex(root, name);
    if (f) return { folder: f };
  }
  const made = created.length ? ` (it made ${created.map((c) => c + '/').join(', ')})` : '';
  return { reason: `the build left no index.html in dist/, build/, out/ or another folder it made${made}` };
}

/** Sizes of an output folder: every file, and its JS and CSS (the bundle). */
export function outputSizes(root: string, folder: string): ProjectOutput {
  const out: ProjectOutput = { folder, files: 0, bytes: 0, jsBytes: 0, cssBytes: 0 };
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        out.files++;
        out.bytes += st.size;
        if (/\.(m?js|cjs)$/i.test(n)) out.jsBytes += st.size;
        else if (/\.css$/i.test(n)) out.cssBytes += st.size;
      }
    }
  };
  walk(join(root, folder));
  return out;
}
