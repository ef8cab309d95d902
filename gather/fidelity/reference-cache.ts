/**
 * The cache of rendered references. A batch scores the same reference once per model, and the reference's views
 * (text blocks, components, screenshots at every viewport) do not depend on the model: they are rendered once
 * and kept, in memory (per process, the MEMORY_ENTRIES most recent) and on disk in the webgrade cache folder, so
 * that batch worker processes share them.
 *
 * Key: SHA-256 of the reference's content (every file's path and bytes), the viewport set, the network mode, the
 * browser version and the render settings (RENDER_VERSION, the settle time and the screen limit): a changed
 * reference, another viewport set, another network mode or another Chrome renders anew. Only renders without
 * faults are stored (a reference that timed out is rendered again next time).
 *
 * On disk: `<dir>/<key>/views.json` (format `webgrade-fidelity-reference`, version 1: the record without its
 * `cache` field and the views, each screenshot replaced by its file name) and one `<viewport>.png` per view.
 * Written into a temporary folder and renamed into place, so a reader never sees half an entry; when two workers
 * render the same reference at once, both do the work and the first rename wins. Default folder:
 * `$WEBGRADE_FIDELITY_CACHE`, else `$XDG_CACHE_HOME/webgrade/fidelity`, else `~/.cache/webgrade/fidelity`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Gathered } from '../../core/evidence.js';
import type { ReferenceRecord, RenderedView } from '../../core/fidelity.js';

/** Bump when the rendering or the collector changes what a view holds. */
export const RENDER_VERSION = 2;
export const MEMORY_ENTRIES = 32;

export interface CachedReference {
  record: Omit<ReferenceRecord, 'cache'>;
  views: Array<Gathered<RenderedView>>;
}

export function defaultFidelityCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEBGRADE_FIDELITY_CACHE) return env.WEBGRADE_FIDELITY_CACHE;
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'webgrade', 'fidelity');
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

export class ReferenceCache {
  private readonly memory = new Map<string, CachedReference>();

  /** `dir` false: memory only. */
  constructor(readonly dir: string | false = defaultFidelityCacheDir()) {}

  get(key: string): { entry: CachedReference; from: 'memory' | 'disk' } | undefined {
    const m = this.memory.get(key);
    if (m) {
      this.memory.delete(key);
      this.memory.set(key, m); // most recent last
      return { entry: m, from: 'memory' };
    }
    if (!this.dir) return undefined;
    const d = join(this.dir, key);
    try {
      if (!existsSync(join(d, 'views.json'))) return undefined;
      const doc = JSON.parse(readFileSync(join(d, 'views.json'), 'utf8')) as {
        format: string;
        version: number;
        record: CachedReference['record'];
        views: Array<Gathered<RenderedView & { screenshotFile?: string }>>;
      };
      if (doc.format !== 'webgrade-fidelity-reference' || doc.version !== 1) return undefined;
      const views = doc.views.map((g): Gathered<RenderedView> => {
        if (!g.ok) return g;
        const { screenshotFile, ...v } = g.value as RenderedView & { screenshotFile?: string; screenshot?: unknown };
        if (screenshotFile) {
          const meta = v.screenshot as Omit<NonNullable<RenderedView['screenshot']>, 'png'>;
          v.screenshot = { ...meta, png: readFileSync(join(d, screenshotFile)) };
        }
        return { ok: true, value: v };
      });
      const entry = { record: doc.record, views };
      this.remember(key, entry);
      return { entry, from: 'disk' };
    } catch {
      return undefined; // a damaged entry is rendered again (and rewritten)
    }
  }

  put(key: string, entry: CachedReference): void {
    this.remember(key, entry);
    if (!this.dir) return;
    let tmp: string | undefined;
    try {
      mkdirSync(this.dir, { recursive: true });
      const final = join(this.dir, key);
      if (existsSync(final)) return;
      tmp = mkdtempSync(join(this.dir, `.${key.slice(0, 12)}-`));
      const views = entry.views.map((g, i) => {
        if (!g.ok) return g;
        const { screenshot, ...v } = g.value;
        if (!screenshot) return { ok: true, value: v };
        const file = `${i}-${g.value.viewport.name.replace(/[^\w.-]/g, '_')}.png`;
        writeFileSync(join(tmp!, file), screenshot.png);
        const { png: _png, ...meta } = screenshot;
        return { ok: true, value: { ...v, screenshot: meta, screenshotFile: file } };
      });
      writeFileSync(join(tmp, 'views.json'), JSON.stringify({ format: 'webgrade-fidelity-reference', version: 1, record: entry.record, views }));
      renameSync(tmp, final);
      tmp = undefined;
    } catch {
      /* another worker won the rename, or the cache folder is not writable: the memory entry still serves */
    } finally {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    }
  }

  private remember(key: string, entry: CachedReference): void {
    this.memory.delete(key);
    this.memory.set(key, entry);
    while (this.memory.size > MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value!);
  }
}
