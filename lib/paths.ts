/**
 * Path confinement, one copy: whether an absolute, normalised path is a folder itself or below it. Callers
 * resolve links first (realpath) when a link must not lead out.
 */
import { sep } from 'node:path';

/** True when the absolute, normalised `path` is `root` itself or below it. */
export function insideTree(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
