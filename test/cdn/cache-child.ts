/**
 * Child process of the cache tests. `answer <dir> <registry> <urls.json>`: answers the URLs with a CdnCache on
 * that folder and prints {url: {kind, version, sha256}}. `pins <dir> <label> <n>`: races to pin n keys, each to
 * a version naming this process, and prints the pins it got back.
 */
import { createHash } from 'node:crypto';
import { CdnCache } from '../../cdn/index.js';
import { CacheStore } from '../../cdn/store.js';

const [mode, dir, a, b] = process.argv.slice(2) as [string, string, string, string];
if (mode === 'answer') {
  const cdn = new CdnCache({ dir, registry: a, timeoutMs: 10_000 });
  const out: Record<string, unknown> = {};
  const urls = JSON.parse(b) as string[];
  await Promise.all(
    urls.map(async (u) => {
      const r = await cdn.answer(new URL(u));
      out[u] =
        r.kind === 'served'
          ? { kind: r.kind, version: r.version, sha256: createHash('sha256').update(r.body).digest('hex') }
          : { kind: r.kind, reason: r.reason };
    }),
  );
  process.stdout.write(JSON.stringify(out));
} else if (mode === 'pins') {
  const store = new CacheStore(dir, 1e12);
  const got: string[] = [];
  for (let i = 0; i < Number(b); i++) {
    const p = store.putPin({ name: `race-${i}`, range: '^1', version: `1.0.0-${a}`, at: 'x' });
    got.push('version' in p ? p.version : 'none');
  }
  process.stdout.write(JSON.stringify(got));
}
