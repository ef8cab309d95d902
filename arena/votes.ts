/**
 * The votes file of `webgrade arena`: SPEC's pairwise preferences, one JSON object per line, as `analyse --pairs`
 * and `weights fit --pairs` read them (weights/pairs.ts):
 *   {"requirement", "model_a", "model_b", "winner": "a" | "b" | "tie" | "both-bad", "rater", "time": ISO 8601,
 *    "position": "left" | "right" (the side model_a was shown on), "id": a random id}
 * `id` is ours (the readers pass it by): undo names the vote it takes back by it.
 *
 * Durability: each vote is one `write` of one whole line to a file opened for appending, then `fdatasync`d
 * before the rater hears it was kept, so a vote the page counted survives a crash of the process or of the
 * machine. Writes go through one queue (p-queue, concurrency 1). A crash can leave at most a torn last line:
 * opening the file cuts it (a last line without its newline that starts an object and does not parse), and the
 * readers leave it out meanwhile. Any other line that is not a vote makes the file refused: `--out` naming the
 * wrong file must not add votes to it, or lose its lines on an undo.
 *
 * Undo takes a vote out of the file (the format has no retractions, and a file with one would not be read "as it
 * is" by other tools): the file is rewritten without that line into a temporary file beside it, synced, and
 * renamed over it (atomic on POSIX; the folder is synced too), so a crash leaves either the old or the new file.
 *
 * One arena per votes file: a lock (proper-lockfile, `<file>.lock`) is held while the server runs; a second
 * arena on the same file is refused. Another process may read the file at any time.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import PQueue from 'p-queue';
import lockfile from 'proper-lockfile';
import { InputError, errorMessage } from '../core/errors.js';
import type { ArenaWinner, Side } from './select.js';

export interface VoteRecord {
  requirement: string;
  model_a: string;
  model_b: string;
  winner: ArenaWinner;
  rater: string;
  time: string;
  position: Side;
  id: string;
}

const WINNERS: readonly string[] = ['a', 'b', 'tie', 'both-bad'];

/** A line of a votes file as a vote, or null. */
export function asVote(value: unknown): VoteRecord | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const text = (k: string) => typeof o[k] === 'string' && (o[k] as string).length > 0;
  if (!text('requirement') || !text('model_a') || !text('model_b') || o.model_a === o.model_b) return null;
  if (typeof o.winner !== 'string' || !WINNERS.includes(o.winner)) return null;
  if (!text('rater') || !text('time') || !text('id') || (o.position !== 'left' && o.position !== 'right')) return null;
  return {
    requirement: o.requirement as string,
    model_a: o.model_a as string,
    model_b: o.model_b as string,
    winner: o.winner as ArenaWinner,
    rater: o.rater as string,
    time: o.time as string,
    position: o.position as Side,
    id: o.id as string,
  };
}

/** The votes of a votes file's bytes, the length of its good part, and whether its last line was torn. */
export function parseVotes(buf: Buffer, path: string): { votes: VoteRecord[]; goodBytes: number; torn: boolean } {
  const votes: VoteRecord[] = [];
  let pos = 0;
  let line = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    line++;
    const text = buf.subarray(pos, nl < 0 ? buf.length : nl).toString('utf8');
    let parsed: unknown;
    let parses = true;
    try {
      parsed = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      parses = false;
    }
    if (nl < 0 && !parses && text.trimStart().startsWith('{')) return { votes, goodBytes: pos, torn: true };
    if (text.trim() !== '') {
      const v = asVote(parsed);
      if (!v) throw new InputError(`${path}: line ${line} is not a vote of webgrade arena: refusing to add votes to this file (give another --out)`);
      votes.push(v);
    }
    if (nl < 0) return { votes, goodBytes: buf.length, torn: false };
    pos = nl + 1;
  }
  return { votes, goodBytes: pos, torn: false };
}

/**
 * A lock whose holder has not refreshed it (every 10 s) for this long is taken over: the arena that held it crashed
 * or was killed, and a restart on the same file then waits at most this long.
 */
export const LOCK_STALE_MS = 30_000;

export class VotesFile {
  private fd: number;
  private readonly queue = new PQueue({ concurrency: 1 });

  private constructor(
    readonly path: string,
    fd: number,
    private readonly release: () => Promise<void>,
  ) {
    this.fd = fd;
  }

  /**
   * Open (or create) the votes file for appending, holding its lock: the votes already in it, and notes on what
   * was mended (a torn last line cut, a missing final newline added).
   */
  static async open(path: string, onLockLost: (err: Error) => void = () => undefined): Promise<{ file: VotesFile; votes: VoteRecord[]; notes: string[] }> {
    const abs = resolve(path);
    let fd: number;
    try {
      mkdirSync(dirname(abs), { recursive: true });
      fd = openSync(abs, 'a+');
    } catch (err) {
      throw new InputError(`--out ${path}: cannot append votes (${errorMessage(err)})`);
    }
    let release: () => Promise<void>;
    try {
      // A lock lost while running (its folder removed by hand, a frozen process) is said, not thrown from a timer.
      release = await lockfile.lock(abs, { stale: LOCK_STALE_MS, update: 10_000, realpath: false, onCompromised: onLockLost });
    } catch (err) {
      closeSync(fd);
      const held = (err as { code?: string }).code === 'ELOCKED';
      throw new InputError(
        `--out ${path}: ${held ? `another webgrade arena is writing this file (one that crashed leaves its lock for ${LOCK_STALE_MS / 1000} s at most)` : `cannot lock it (${errorMessage(err)})`}`,
      );
    }
    const notes: string[] = [];
    try {
      const buf = readFileSync(abs);
      const read = parseVotes(buf, path);
      if (read.torn) {
        ftruncateSync(fd, read.goodBytes);
        notes.push(`${path}: cut a torn last line (a crash mid-write); ${read.votes.length} votes kept`);
      } else if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) {
        writeSync(fd, '\n');
      }
      return { file: new VotesFile(abs, fd, release), votes: read.votes, notes };
    } catch (err) {
      closeSync(fd);
      await release();
      throw err;
    }
  }

  /** A new vote's id. */
  static newId(): string {
    return randomUUID();
  }

  /** Append one vote (module comment); resolves once it is on disk. */
  append(v: VoteRecord): Promise<void> {
    return this.queue.add(() => {
      const buf = Buffer.from(JSON.stringify(v) + '\n', 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
      fdatasyncSync(this.fd);
    });
  }

  /** Take the vote `id` out of the file (module comment); false when the file has no such vote. */
  remove(id: string): Promise<boolean> {
    return this.queue.add(() => {
      const buf = readFileSync(this.path);
      const lines = buf.toString('utf8').split('\n');
      let at = -1;
      for (let i = lines.length - 1; i >= 0 && at < 0; i--) {
        try {
          if (asVote(JSON.parse(lines[i]!))?.id === id) at = i;
        } catch {
          /* not a vote line (the empty last one) */
        }
      }
      if (at < 0) return false;
      lines.splice(at, 1);
      const tmp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.tmp`);
      const tfd = openSync(tmp, 'w', 0o644);
      try {
        const out = Buffer.from(lines.join('\n'), 'utf8');
        let off = 0;
        while (off < out.length) off += writeSync(tfd, out, off, out.length - off);
        fsyncSync(tfd);
      } finally {
        closeSync(tfd);
      }
      renameSync(tmp, this.path);
      syncFolder(dirname(this.path));
      closeSync(this.fd);
      this.fd = openSync(this.path, 'a');
      return true;
    });
  }

  async close(): Promise<void> {
    await this.queue.onIdle();
    closeSync(this.fd);
    await this.release();
  }
}

function syncFolder(dir: string): void {
  try {
    const d = openSync(dir, 'r');
    try {
      fsyncSync(d);
    } finally {
      closeSync(d);
    }
  } catch {
    /* some file systems cannot sync a folder; the rename itself is atomic */
  }
}
