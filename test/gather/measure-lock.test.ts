/**
 * The machine-wide lock around Lighthouse's measured phase, between real processes: a second holder waits for the
 * first, and a holder killed by SIGKILL blocks the others for at most the stale time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { STALE_MS, acquireMeasureLock } from '../../gather/measure-lock.js';
import { repoRoot, tempDir } from '../helpers.js';

const lockModule = pathToFileURL(join(repoRoot, 'dist', 'gather', 'measure-lock.js')).href;

/** A child process that takes the lock at `path`, prints "locked", holds it `holdMs`, then releases and exits. */
function holder(path: string, holdMs: number) {
  const code = `const { acquireMeasureLock } = await import(${JSON.stringify(lockModule)});
const release = await acquireMeasureLock(30000, ${JSON.stringify(path)});
process.stdout.write('locked\\n');
await new Promise((r) => setTimeout(r, ${holdMs}));
await release();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const locked = new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve()));
  return { child, locked };
}

describe('the Lighthouse measurement lock', () => {
  it('makes a second process wait until the first one releases it', async () => {
    const path = join(tempDir(), 'measure');
    const first = holder(path, 1500);
    await first.locked;
    const t = performance.now();
    const release = await acquireMeasureLock(10_000, path);
    const waited = performance.now() - t;
    await release();
    assert.ok(waited > 1000, `waited only ${Math.round(waited)} ms for a lock held 1500 ms`);
  });

  it('is taken over after the stale time when its holder was killed', async () => {
    const path = join(tempDir(), 'measure');
    const first = holder(path, 60_000);
    await first.locked;
    first.child.kill('SIGKILL');
    const t = performance.now();
    const release = await acquireMeasureLock(STALE_MS * 3, path);
    const waited = performance.now() - t;
    await release();
    assert.ok(waited < STALE_MS * 2, `waited ${Math.round(waited)} ms`);
  });

  it('gives up with a clear message instead of hanging', async () => {
    const path = join(tempDir(), 'measure');
    const first = holder(path, 5000);
    await first.locked;
    await assert.rejects(acquireMeasureLock(500, path), /held the Lighthouse measurement lock for more than/);
    first.child.kill();
  });
});
