/**
 * On-disk cache of judge answers, so that a rerun costs nothing and gives the same scores.
 *
 * Key: sha256 of the canonical JSON of {model, promptVersion, messages (the full input, images included as their
 * base64 data URLs), temperature, maxTokens, repeat}. The repeat index is part of the key so that
 * `--judge-repeats N` asks N times on a cold cache and reuses all N answers on a warm one. The endpoint URL is not
 * part of the key (the same model name behind another server is taken to be the same model).
 *
 * Layout: `<dir>/<first 2 hex>/<key>.json`, one entry per answer, holding the raw answer text (re-validated on
 * every read: an entry that no longer validates is treated as a miss) and its token usage. Writes are atomic
 * (temporary file in the same folder, then rename), so concurrent runs never read half an entry. The cache is
 * best-effort: an unwritable folder costs the cache, never the score.
 *
 * Folder: `$WEBGRADE_CACHE_DIR/judges`, else `~/.cache/webgrade/judges` (see settings.ts); `--no-judge-cache`
 * or `"cache": false` disables it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from './prompts/common.js';

export interface CacheKeyParts {
  model: string;
  promptVersion: string;
  messages: readonly ChatMessage[];
  temperature: number;
  maxTokens: number;
  repeat: number;
}

export interface CacheEntry {
  version: 1;
  key: string;
  model: string;
  promptVersion: string;
  repeat: number;
  createdAt: string;
  text: string;
  usage: { promptTokens: number; completionTokens: number };
  /** The model the provider said answered (absent in entries written before it was kept). */
  servedModel?: string;
  systemFingerprint?: string;
}

export function cacheKey(parts: CacheKeyParts): string {
  const canonical = JSON.stringify({
    model: parts.model,
    promptVersion: parts.promptVersion,
    temperature: parts.temperature,
    maxTokens: parts.maxTokens,
    repeat: parts.repeat,
    messages: parts.messages,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

export class JudgeCache {
  /** Problems met while writing (reported in details, never fatal). */
  readonly writeErrors: string[] = [];

  constructor(readonly dir: string | null) {}

  private path(key: string): string {
    return join(this.dir!, key.slice(0, 2), `${key}.json`);
  }

  get(key: string): CacheEntry | undefined {
    if (!this.dir) return undefined;
    try {
      const e = JSON.parse(readFileSync(this.path(key), 'utf8')) as CacheEntry;
      if (e && e.version === 1 && e.key === key && typeof e.text === 'string') return e;
    } catch {
      /* a miss */
    }
    return undefined;
  }

  put(entry: CacheEntry): void {
    if (!this.dir) return;
    const target = this.path(entry.key);
    const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      mkdirSync(join(this.dir, entry.key.slice(0, 2)), { recursive: true });
      writeFileSync(tmp, JSON.stringify(entry));
      renameSync(tmp, target);
    } catch (err) {
      rmSync(tmp, { force: true });
      if (this.writeErrors.length < 5) this.writeErrors.push(err instanceof Error ? err.message : String(err));
    }
  }
}
