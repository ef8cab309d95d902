/**
 * The shared store every project's install uses: pnpm's content-addressed store (one copy of each file of each
 * package version, hard-linked into the projects), pnpm's metadata cache and an empty npmrc, in one folder:
 * `$WEBGRADE_PROJECT_STORE`, else `$XDG_CACHE_HOME/webgrade/projects` (else `~/.cache/webgrade/projects`),
 * beside the CDN cache. Several batch workers may share it: pnpm writes its store atomically, file by file.
 *
 * Size: at most MAX_STORE_BYTES (the CDN cache's 4 GiB), checked when a scorer opens the store: a store over it
 * is emptied (pnpm has no least-recently-used eviction; a store that large is rare, and emptying it costs only
 * the next installs' downloads). Emptying while another process installs from it would fail that install, so
 * it is only done when a process starts.
 */
import { mkdirSync, readdirSync, lstatSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const MAX_STORE_BYTES = 4 * 1024 ** 3;

export interface ProjectStore {
  dir: string;
  storeDir: string;
  cacheDir: string;
  stateDir: string;
  home: string;
  npmrc: string;
}

export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEBGRADE_PROJECT_STORE) return resolve(env.WEBGRADE_PROJECT_STORE);
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'webgrade', 'projects');
}

/** Bytes under `dir` (regular files; links not followed), stopping early past `stopAt`. */
export function folderBytes(dir: string, stopAt = Infinity): number {
  let total = 0;
  const stack = [dir];
  while (stack.length && total <= stopAt) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      const p = join(d, n);
      try {
        const st = lstatSync(p);
        if (st.isDirectory()) stack.push(p);
        else if (st.isFile()) total += st.size;
      } catch {
        /* gone */
      }
    }
  }
  return total;
}

/** Open (and make) the store folder; empty it when it is over `maxBytes` (module comment). */
export function openStore(dir = defaultStoreDir(), maxBytes = MAX_STORE_BYTES): ProjectStore {
  const store: ProjectStore = {
    dir,
    storeDir: join(dir, 'store'),
    cacheDir: join(dir, 'cache'),
    stateDir: join(dir, 'state'),
    home: join(dir, 'home'),
    npmrc: join(dir, 'npmrc'),
  };
  for (const d of [store.storeDir, store.cacheDir, store.stateDir, store.home]) mkdirSync(d, { recursive: true });
  if (!existsSync(store.npmrc)) writeFileSync(store.npmrc, '');
  if (folderBytes(store.storeDir, maxBytes) > maxBytes) {
    rmSync(store.storeDir, { recursive: true, force: true });
    mkdirSync(store.storeDir, { recursive: true });
  }
  return store;
}
