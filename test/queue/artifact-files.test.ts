import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactFiles, contentHash } from '../../distribute/queue-jobs.js';

describe('files a queue job carries', () => {
  it("are the artifact's own files only: links that leave the folder, and loops, never travel in a job", () => {
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-queue-files-'));
    const art = join(dir, 'page');
    mkdirSync(join(art, 'css'), { recursive: true });
    writeFileSync(join(art, 'index.html'), '<!doctype html><title>x</title><link rel=stylesheet href=css/a.css>');
    writeFileSync(join(art, 'css', 'a.css'), 'body{color:red}');
    writeFileSync(join(dir, 'secret.txt'), 'API_KEY=do-not-ship');
    symlinkSync('/proc/self/environ', join(art, 'e.txt'));
    symlinkSync(join(dir, 'secret.txt'), join(art, 'secret.txt'));
    symlinkSync(art, join(art, 'loop'));
    const files = artifactFiles(art);
    assert.deepEqual(
      files.map(([rel]) => rel),
      ['css/a.css', 'index.html'],
    );
    assert.ok(!files.some(([, b]) => b.toString().includes('do-not-ship')));
    // The content hash is of exactly those files.
    assert.equal(contentHash(files), contentHash(artifactFiles(art)));
  });
});
