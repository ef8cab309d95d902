/**
 * References for the fidelity metrics: what `--reference`, `--references <dir>` and a requirement's `reference`
 * accept (runner/reference.ts, core/requirements.ts), and the reference cache's disk round trip.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findReference, resolveReference } from '../../runner/reference.js';
import { loadRequirements } from '../../core/requirements.js';
import { ReferenceCache } from '../../gather/fidelity/reference-cache.js';
import { pictureViewport } from '../../gather/fidelity/gather.js';
import { DEFAULT_VIEWPORTS } from '../../core/fidelity.js';
import { tempDir } from '../helpers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('references', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.html'), '<p>a</p>');
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'b', 'index.html'), '<p>b</p>');
  writeFileSync(join(dir, 'c.png'), PNG);
  writeFileSync(join(dir, 'fake.png'), '<p>not a png</p>');
  mkdirSync(join(dir, 'empty-folder'));
  writeFileSync(join(dir, 'notes.txt'), 'x');

  it('accepts an .html file, a folder with index.html and a PNG; refuses the rest with one line', () => {
    assert.deepEqual(resolveReference(join(dir, 'a.html')), { path: join(dir, 'a.html'), kind: 'artifact' });
    assert.deepEqual(resolveReference(join(dir, 'b')), { path: join(dir, 'b'), kind: 'artifact' });
    assert.deepEqual(resolveReference(join(dir, 'c.png')), { path: join(dir, 'c.png'), kind: 'image' });
    assert.throws(() => resolveReference(join(dir, 'fake.png')), /not a PNG/);
    assert.throws(() => resolveReference(join(dir, 'empty-folder')), /needs an index\.html/);
    assert.throws(() => resolveReference(join(dir, 'notes.txt')), /expected an \.html file/);
    assert.throws(() => resolveReference(join(dir, 'missing.html')), /no such file/);
  });

  it('finds <id>.html, <id>/index.html or <id>.png in a --references folder', () => {
    assert.equal(findReference(dir, 'a')?.kind, 'artifact');
    assert.equal(findReference(dir, 'b')?.path, join(dir, 'b'));
    assert.equal(findReference(dir, 'c')?.kind, 'image');
    assert.equal(findReference(dir, 'zzz'), undefined);
  });

  it("resolves a requirement's reference against the requirements file, and names the line of a missing one", () => {
    const reqs = join(dir, 'reqs.jsonl');
    writeFileSync(reqs, `${JSON.stringify({ id: 'r1', requirement: 'x', reference: 'a.html' })}\n${JSON.stringify({ id: 'r2', requirement: 'y' })}\n`);
    const [r1, r2] = loadRequirements(reqs);
    assert.equal(r1!.reference, join(dir, 'a.html'));
    assert.equal(r2!.reference, undefined);
    writeFileSync(reqs, `${JSON.stringify({ id: 'r1', requirement: 'x' })}\n${JSON.stringify({ id: 'r2', requirement: 'y', reference: 'gone.html' })}\n`);
    assert.throws(() => loadRequirements(reqs), /reqs\.jsonl:2: reference gone\.html: no such file/);
  });

  it('a picture shows the viewport of its width, or a custom one of the nearest height', () => {
    assert.equal(pictureViewport(1440, DEFAULT_VIEWPORTS).name, 'desktop');
    assert.equal(pictureViewport(390, DEFAULT_VIEWPORTS).name, 'phone');
    assert.deepEqual(pictureViewport(1280, DEFAULT_VIEWPORTS), { name: '1280x900', width: 1280, height: 900 });
  });

  it('caches rendered references in memory and on disk (screenshots as files), read back equal', () => {
    const cacheDir = tempDir();
    const entry = {
      record: { input: 'r.html', kind: 'artifact' as const, sha256: 'x', viewports: ['desktop'], network: 'cdn' },
      views: [
        {
          ok: true as const,
          value: {
            viewport: DEFAULT_VIEWPORTS[0]!,
            source: 'dom' as const,
            scrollWidth: 1440,
            scrollHeight: 900,
            blocks: [],
            components: [],
            screenshot: { png: PNG, width: 720, height: 450, deviceScaleFactor: 0.5 },
          },
        },
      ],
    };
    new ReferenceCache(cacheDir).put('k1', entry);
    const fresh = new ReferenceCache(cacheDir);
    const got = fresh.get('k1');
    assert.equal(got?.from, 'disk');
    assert.deepEqual(got?.entry, entry);
    assert.equal(fresh.get('k1')?.from, 'memory');
    assert.equal(new ReferenceCache(false).get('k1'), undefined);
  });
});
