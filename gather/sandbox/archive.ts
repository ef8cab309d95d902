/**
 * The record/replay archive of the `record:<dir>` and `replay:<dir>` network modes (core/network.ts): every
 * response the sandbox let through from the internet, so that the same page scores the same on another day and
 * another machine.
 *
 * Layout: one pair of files per (method, URL): `<key>.json` (URL, method, status, headers, when recorded, body
 * size and SHA-256) and `<key>.body`, where key = SHA-256 of `method URL`. Written as a temporary file and
 * renamed into place, so several batch workers can record into one directory at once; the first complete
 * recording of a URL wins (a later one of the same URL is not written again: the archive keeps one answer per
 * URL, and a replay is byte-identical to it). A body whose hash does not match its metadata is not replayed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ArchivedResponse {
  url: string;
  method: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Meta {
  url: string;
  method: string;
  status: number;
  headers: Record<string, string>;
  recordedAt: string;
  bytes: number;
  sha256: string;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export class ResponseArchive {
  constructor(readonly dir: string) {}

  private key(method: string, url: string): string {
    return sha256(`${method.toUpperCase()} ${url}`);
  }

  /** Record a response (no-op when this URL is already recorded). */
  write(r: ArchivedResponse): void {
    mkdirSync(this.dir, { recursive: true });
    const key = this.key(r.method, r.url);
    const metaPath = join(this.dir, `${key}.json`);
    if (existsSync(metaPath)) return;
    const tmp = randomBytes(6).toString('hex');
    const bodyTmp = join(this.dir, `.${key}.${tmp}.body`);
    const metaTmp = join(this.dir, `.${key}.${tmp}.json`);
    const meta: Meta = {
      url: r.url,
      method: r.method.toUpperCase(),
      status: r.status,
      headers: r.headers,
      recordedAt: new Date().toISOString(),
      bytes: r.body.length,
      sha256: sha256(r.body),
    };
    try {
      writeFileSync(bodyTmp, r.body);
      writeFileSync(metaTmp, JSON.stringify(meta, null, 1));
      renameSync(bodyTmp, join(this.dir, `${key}.body`));
      renameSync(metaTmp, metaPath);
    } finally {
      rmSync(bodyTmp, { force: true });
      rmSync(metaTmp, { force: true });
    }
  }

  /** The recorded response of (method, URL), or null. */
  read(method: string, url: string): ArchivedResponse | null {
    const key = this.key(method, url);
    let meta: Meta;
    let body: Buffer;
    try {
      meta = JSON.parse(readFileSync(join(this.dir, `${key}.json`), 'utf8')) as Meta;
      body = readFileSync(join(this.dir, `${key}.body`));
    } catch {
      return null;
    }
    if (meta.url !== url || sha256(body) !== meta.sha256) return null;
    return { url, method: meta.method, status: meta.status, headers: meta.headers, body };
  }
}
