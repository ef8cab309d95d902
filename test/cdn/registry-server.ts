/**
 * A local HTTP server that speaks the npm registry protocol for the CDN tests: packuments (`GET /<name>`, scoped
 * names as `@scope%2fname`) with versions, dist-tags and `dist.tarball` + `integrity`, and the tarballs
 * (`GET /<name>/-/<base>-<version>.tgz`), built in the test from small fixture package trees with `tar`.
 * Bound to 127.0.0.1 on a random port; every request is logged so tests can check what was (not) asked.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import * as tar from 'tar';

export interface FixturePackage {
  name: string;
  version: string;
  /** Files of the package (package.json is generated from `json` unless given here). */
  files?: Record<string, string | Buffer>;
  /** package.json fields besides name and version. */
  json?: Record<string, unknown>;
  /** A ready tarball (hand-made, e.g. malicious); replaces files. */
  tarball?: Buffer;
  /** Override dist fields in the packument (e.g. a foreign tarball host, a wrong integrity). */
  dist?: Record<string, unknown>;
}

export interface TestRegistry {
  url: string;
  /** Paths requested so far. */
  log: string[];
  publish(p: FixturePackage): Promise<void>;
  setTag(name: string, tag: string, version: string): void;
  /** Answer this path's headers and first half at once, the rest after `ms` (a slow download). */
  slow(path: string, ms: number): void;
  close(): Promise<void>;
}

/** A gzipped tarball of a package tree, made with `tar` from files written to a temp folder. */
export async function packTree(name: string, version: string, files: Record<string, string | Buffer>, json: Record<string, unknown> = {}): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'webgrade-pack-'));
  try {
    const all: Record<string, string | Buffer> = { 'package.json': JSON.stringify({ name, version, ...json }, null, 2), ...files };
    for (const [p, c] of Object.entries(all)) {
      const dest = join(dir, 'package', p);
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, c);
    }
    const chunks: Buffer[] = [];
    const stream = tar.c({ gzip: true, cwd: dir, portable: true, mtime: new Date('1985-10-26T08:15:00Z') }, ['package']);
    for await (const c of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
    return Buffer.concat(chunks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A hand-made tarball from raw entries (any path, links), for the tests of unsafe archives. */
export function rawTarball(entries: Array<{ path: string; type?: 'File' | 'SymbolicLink' | 'Link' | 'Directory'; body?: string; linkpath?: string }>): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const type = e.type ?? 'File';
    const h = new tar.Header({
      path: e.path,
      mode: type === 'Directory' ? 0o755 : 0o644,
      size: type === 'File' ? body.length : 0,
      type,
      linkpath: e.linkpath ?? '',
      mtime: new Date('1985-10-26T08:15:00Z'),
      uid: 0,
      gid: 0,
    } as never);
    const block = Buffer.alloc(512);
    h.encode(block, 0);
    blocks.push(block);
    if (type === 'File' && body.length) {
      blocks.push(body);
      const pad = (512 - (body.length % 512)) % 512;
      if (pad) blocks.push(Buffer.alloc(pad));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/**
 * A zip-bomb-like tarball: a small package, then one entry of `bytes` zeros at `path` (by default a path that is
 * refused, so no per-file cap applies to it), gzipped at level 9 (about 1000:1). Streamed, so making it holds
 * only the compressed output.
 */
export async function bombTarball(bytes: number, path = 'package/../skipped.bin'): Promise<Buffer> {
  const header = (p: string, size: number) => {
    const block = Buffer.alloc(512);
    new tar.Header({ path: p, mode: 0o644, size, type: 'File', mtime: new Date('1985-10-26T08:15:00Z'), uid: 0, gid: 0 } as never).encode(block, 0);
    return block;
  };
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const ended = once(gz, 'end');
  const write = async (b: Buffer) => {
    if (!gz.write(b)) await once(gz, 'drain');
  };
  const json = Buffer.from('{"name":"bomb","version":"1.0.0","main":"index.js"}');
  await write(header('package/package.json', json.length));
  await write(Buffer.concat([json, Buffer.alloc(512 - json.length)]));
  await write(header(path, bytes));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= zeros.length) await write(left >= zeros.length ? zeros : zeros.subarray(0, left));
  await write(Buffer.alloc(((512 - (bytes % 512)) % 512) + 1024));
  gz.end();
  await ended;
  return Buffer.concat(out);
}

/**
 * A well-formed package (package.json and index.js) whose archive ends with its two zero blocks, followed by
 * `tail` bytes of `x` (a tail that is not part of the archive), gzipped at level 9: a 64 MiB tail weighs ~64 KiB.
 */
export async function tailTarball(tail: number): Promise<Buffer> {
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const ended = once(gz, 'end');
  const write = async (b: Buffer) => {
    if (!gz.write(b)) await once(gz, 'drain');
  };
  const tarred = gunzipSync(
    rawTarball([
      { path: 'package/package.json', body: '{"name":"tail","version":"1.0.0","main":"index.js"}' },
      { path: 'package/index.js', body: '/* tail */' },
    ]),
  );
  await write(tarred); // its entries, then the end-of-archive marker
  const filler = Buffer.alloc(1024 * 1024, 'x');
  for (let left = tail; left > 0; left -= filler.length) await write(left >= filler.length ? filler : filler.subarray(0, left));
  gz.end();
  await ended;
  return Buffer.concat(out);
}

const integrityOf = (b: Buffer) => `sha512-${createHash('sha512').update(b).digest('base64')}`;

export async function startTestRegistry(initial: FixturePackage[] = []): Promise<TestRegistry> {
  const docs = new Map<string, { name: string; 'dist-tags': Record<string, string>; versions: Record<string, unknown> }>();
  const tarballs = new Map<string, Buffer>();
  const log: string[] = [];
  const delays = new Map<string, number>();
  let base = '';

  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    log.push(path);
    const tgz = tarballs.get(path);
    if (tgz) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': tgz.length });
      const delay = delays.get(path);
      if (delay) {
        const half = tgz.length >> 1;
        res.write(tgz.subarray(0, half));
        const t = setTimeout(() => res.end(tgz.subarray(half)), delay);
        res.on('close', () => clearTimeout(t));
        return;
      }
      res.end(tgz);
      return;
    }
    const name = decodeURIComponent(path.slice(1));
    const doc = docs.get(name);
    if (!doc) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"Not found"}');
      return;
    }
    const body = JSON.stringify(doc);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${addr.port}`;

  const publish = async (p: FixturePackage) => {
    const tgz = p.tarball ?? (await packTree(p.name, p.version, p.files ?? {}, p.json ?? {}));
    const file = `/${p.name}/-/${p.name.split('/').pop()}-${p.version}.tgz`;
    tarballs.set(file, tgz);
    let doc = docs.get(p.name);
    if (!doc) {
      doc = { name: p.name, 'dist-tags': {}, versions: {} };
      docs.set(p.name, doc);
    }
    doc.versions[p.version] = {
      name: p.name,
      version: p.version,
      ...(p.json ?? {}),
      dist: { tarball: `${base}${file}`, integrity: integrityOf(tgz), ...(p.dist ?? {}) },
    };
    const latest = doc['dist-tags'].latest;
    if (!latest || compare(p.version, latest) > 0) {
      if (!/-/.test(p.version)) doc['dist-tags'].latest = p.version;
    }
  };
  for (const p of initial) await publish(p);

  return {
    url: base + '/',
    log,
    publish,
    setTag(name, tag, version) {
      docs.get(name)!['dist-tags'][tag] = version;
    },
    slow(path, ms) {
      delays.set(path, ms);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}

function compare(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}
