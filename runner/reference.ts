/**
 * Resolving what the user gave as a reference (`--reference`, a requirement's `reference`, `--references <dir>`)
 * into a ReferenceInput (core/fidelity.ts), with one-line InputErrors for bad input.
 *
 * - an `.html`/`.htm` file, or a folder with `index.html`: an artifact (served and rendered like the page);
 * - a `.png` file (checked by its signature): a picture;
 * - anything else is bad input.
 * `--references <dir>` holds one reference per requirement id: `<id>.html`, `<id>/index.html` or `<id>.png`
 * (looked for in that order).
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import type { ReferenceInput } from '../core/fidelity.js';
import { imageFormat } from '../lib/image-signature.js';

function isPng(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(8);
    readSync(fd, b, 0, 8, 0);
    return imageFormat(b) === 'png';
  } finally {
    closeSync(fd);
  }
}

/** The reference at `path`; `what` names the option in error messages. */
export function resolveReference(path: string, what = '--reference'): ReferenceInput {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new InputError(`${what} ${path}: no such file or folder`);
  const st = statSync(abs);
  if (st.isDirectory()) {
    if (!existsSync(join(abs, 'index.html'))) throw new InputError(`${what} ${path}: a folder reference needs an index.html`);
    return { path: abs, kind: 'artifact' };
  }
  if (!st.isFile() || st.size === 0) throw new InputError(`${what} ${path}: not a regular, non-empty file`);
  if (/\.png$/i.test(abs)) {
    if (!isPng(abs)) throw new InputError(`${what} ${path}: not a PNG picture`);
    return { path: abs, kind: 'image' };
  }
  if (/\.html?$/i.test(abs)) return { path: abs, kind: 'artifact' };
  throw new InputError(`${what} ${path}: expected an .html file, a folder with index.html, or a .png picture`);
}

/** The reference of requirement `id` in a `--references` folder, or undefined when it has none. */
export function findReference(dir: string, id: string): ReferenceInput | undefined {
  for (const rel of [`${id}.html`, join(id, 'index.html'), `${id}.png`]) {
    const p = join(dir, rel);
    if (existsSync(p)) return resolveReference(rel.endsWith('index.html') ? join(dir, id) : p, `--references ${dir}:`);
  }
  return undefined;
}

/** Check a `--references` folder. */
export function checkReferencesDir(dir: string): string {
  const abs = resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new InputError(`--references ${dir}: no such folder`);
  return abs;
}
