/**
 * End-to-end against the real npm registry (the configured one). Skips, saying why, when it is unreachable.
 * The check of every shipped mapping sample (cdn/data/cdnjs.json, github.json: ~140 packages, ~1 GB) runs only
 * with WEBGRADE_CDN_VERIFY_MAPPINGS=1.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CdnCache, configuredRegistry } from '../../cdn/index.js';
import { cdnjsMapping } from '../../cdn/handlers/cdnjs.js';
import { githubMapping } from '../../cdn/handlers/jsdelivr.js';
import { RegistryClient } from '../../cdn/registry.js';
import { served } from './fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
const registry = configuredRegistry();
let unreachable: string | null = null;
let dir = '';

before(async () => {
  try {
    const doc = await new RegistryClient({ registry, timeoutMs: 8000, maxPackageBytes: 1e6 }).packument('is-number');
    if (!doc) unreachable = `${registry} has no is-number`;
  } catch (err) {
    unreachable = `${registry} unreachable (${(err as Error).message})`;
  }
  if (unreachable) process.stderr.write(`real-registry tests skipped: ${unreachable}\n`);
  dir = mkdtempSync(join(tmpdir(), 'webgrade-cdn-real-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const skip = () => (unreachable ? `npm registry unreachable: ${unreachable}` : false);

describe('the real npm registry', () => {
  it('serves a small package file through a jsDelivr URL', async (t) => {
    if (skip()) return t.skip(skip() as string);
    const a = served(await new CdnCache({ dir }).answer(new URL('https://cdn.jsdelivr.net/npm/is-number@7.0.0/index.js')));
    assert.match(a.body.toString(), /module\.exports = function\(num\)/);
    assert.equal(a.headers['content-type'], 'application/javascript; charset=utf-8');
  });

  it('generates Google Fonts CSS for Inter whose font files are served too', async (t) => {
    if (skip()) return t.skip(skip() as string);
    const cdn = new CdnCache({ dir });
    const css = served(await cdn.answer(new URL('https://fonts.googleapis.com/css2?family=Inter:wght@400;700&display=swap'))).body.toString();
    assert.match(css, /font-family: 'Inter';/);
    assert.match(css, /font-weight: 700;/);
    const latin = /\/\* latin \*\/[^}]*?url\(([^)]+)\)/.exec(css)![1]!;
    const font = served(await cdn.answer(new URL(latin)));
    assert.equal(font.body.subarray(0, 4).toString('latin1'), 'wOF2');
  });

  it('links esm.sh react@18 and react-dom@18/server into one React (a hook renders)', async (t) => {
    if (skip()) return t.skip(skip() as string);
    const child = spawn(
      process.execPath,
      [join(here, 'esm-child.js'), JSON.stringify(['https://esm.sh/react@18', 'https://esm.sh/react-dom@18/server']), dir, registry],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, WEBGRADE_REACT_CHECK: '1' },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    assert.equal(code, 0, err);
    assert.equal((JSON.parse(out) as { rendered: string }).rendered, 'one react');
  });

  it('serves every sample of the shipped cdnjs and /gh/ mappings', async (t) => {
    if (skip()) return t.skip(skip() as string);
    if (!process.env.WEBGRADE_CDN_VERIFY_MAPPINGS) return t.skip('set WEBGRADE_CDN_VERIFY_MAPPINGS=1 to check every mapping sample (~140 packages)');
    const cdn = new CdnCache({ dir });
    const urls: string[] = [];
    for (const [lib, e] of Object.entries(cdnjsMapping()))
      for (const x of Array.isArray(e) ? e : [e]) urls.push(`https://cdnjs.cloudflare.com/ajax/libs/${lib}/${x.sample}`);
    for (const [repo, e] of Object.entries(githubMapping())) {
      const [ref, ...rest] = e.sample!.split('/');
      urls.push(`https://cdn.jsdelivr.net/gh/${repo}@${ref}/${rest.join('/')}`);
    }
    const failed: string[] = [];
    for (const u of urls) {
      const a = await cdn.answer(new URL(u));
      if (a.kind !== 'served') failed.push(`${u}: ${a.reason}`);
    }
    assert.deepEqual(failed, []);
  });
});
