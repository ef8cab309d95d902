/**
 * The pending-evidence folder of a batch (`<results>.pending/`): what an artifact waiting for its judges needs,
 * so that an interrupted run (even by SIGKILL) redoes only its judges, from the saved evidence, not its browser
 * work.
 *
 * Per artifact (file names from a hash of model, requirement and repeat, or of the queue job's id when there is
 * one: a queue may hold two jobs of one model, requirement and repeat, and one worker both at once): `<key>.png`, the desktop screenshot the
 * browser worker saved, and `<key>.json`, written (atomically: temporary file, then rename) when the worker
 * reported: the score document with the judge metrics still unscored, and the screenshot's file and size or why
 * there is none. Both are removed once the row is written. A `.json` without its row means "judges only"; a
 * `.png` without a `.json` is a page whose browser work was cut short: it is scored again from scratch.
 * Queue workers, which have no results file, use a temporary folder removed when their pool closes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScoreDocument } from '../core/results.js';
import type { SavedShot } from './judge-stage.js';

export interface PendingRecord {
  version: 1;
  model: string;
  requirement: string;
  repeat: number;
  /** The queue job's id (absent in a batch). */
  id?: string;
  /** The artifact's path (a record for another path is not this artifact's). */
  path: string;
  doc: ScoreDocument;
  shot: SavedShot;
  /** Milliseconds the browser work took (added to the row's `ms`). */
  browserMs: number;
}

export interface PendingKey {
  model: string;
  requirement: string;
  repeat?: number;
  /** The queue job's id: the key when present (see the module comment). */
  id?: string;
  path: string;
}

export class PendingEvidence {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  private base(k: PendingKey): string {
    const key = k.id !== undefined ? `job\u0000${k.id}` : `${k.model}\u0000${k.requirement}\u0000${k.repeat ?? 1}`;
    const h = createHash('sha256').update(key).digest('hex').slice(0, 24);
    return join(this.dir, h);
  }

  /** Where the worker saves this artifact's screenshot. */
  shotPath(k: PendingKey): string {
    return `${this.base(k)}.png`;
  }

  save(rec: PendingRecord): void {
    const target = `${this.base(rec)}.json`;
    const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, JSON.stringify(rec));
    renameSync(tmp, target);
  }

  /** The saved record of this artifact, when a complete one exists. */
  load(k: PendingKey): PendingRecord | null {
    try {
      const rec = JSON.parse(readFileSync(`${this.base(k)}.json`, 'utf8')) as PendingRecord;
      const same =
        rec.version === 1 &&
        rec.model === k.model &&
        rec.requirement === k.requirement &&
        rec.repeat === (k.repeat ?? 1) &&
        rec.id === k.id &&
        rec.path === k.path;
      return same && rec.doc && Array.isArray(rec.doc.metrics) && rec.shot ? rec : null;
    } catch {
      return null;
    }
  }

  remove(k: PendingKey): void {
    rmSync(`${this.base(k)}.json`, { force: true });
    rmSync(`${this.base(k)}.png`, { force: true });
  }

  /** Remove the folder (a temporary one, or a batch's once its run is complete and the folder is empty). */
  removeAll(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
