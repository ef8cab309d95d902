/**
 * The step gate between real processes: a step waits while another process holds the measurement lock and goes
 * when it is released; a lock whose holder died never holds a step past its staleness; the page's own
 * measurement never holds its steps; a live holder holds a step at most maxHoldMs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';
import { HOLDER_FILE, STALE_MS, acquireMeasureLock, lockDirectory } from '../../gather/measure-lock.js';
import { StepGate, readHolder } from '../../gather/step-gate.js';
import { repoRoot, tempDir } from '../helpers.js';

const lockModule = pathToFileURL(join(repoRoot, 'dist', 'gather', 'measure-lock.js')).href;

/** A child process that takes the lock at `path`, prints "locked", holds it until its stdin closes, then releases. */
function holder(path: string) {
  const code = `const { acquireMeasureLock } = await import(${JSON.stringify(lockModule)});
const release = await acquireMeasureLock(30000, ${JSON.stringify(path)});
process.stdout.write('locked\\n');
process.stdin.resume();
await new Promise((r) => process.stdin.on('end', r));
await release();
process.stdout.write('released\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const seen = (word: string) => new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes(word) && resolve()));
  return { child, locked: seen('locked'), released: seen('released') };
}

describe('the step gate', () => {
  it('holds a step while another process holds the measurement lock and lets it go when released', async () => {
    const path = join(tempDir(), 'measure');
    const gate = new StepGate({ lockPath: path, pollMs: 10 });
    assert.equal(gate.heldByOther(), false, 'no lock, no hold');
    const other = holder(path);
    await other.locked;
    assert.equal(readHolder(lockDirectory(path))?.pid, other.child.pid, 'the holder wrote its marker');
    let done = false;
    const step = gate.step('visit load').then(() => (done = true));
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(done, false, 'the step went on while another process measured');
    other.child.stdin!.end();
    await other.released;
    await step;
    assert.equal(gate.stats.held, 1);
    assert.ok(gate.stats.heldMs >= 350, `held ${gate.stats.heldMs} ms`);
    assert.equal(gate.stats.timedOut, 0);
  });

  it("never holds a step past the lock's staleness when its holder died", async () => {
    const path = join(tempDir(), 'measure');
    const dir = lockDirectory(path);
    // A lock left by a process that died: the directory and its marker, last refreshed just now.
    mkdirSync(dir);
    writeFileSync(join(dir, HOLDER_FILE), '999999999 0\n');
    const gate = new StepGate({ lockPath: path, pollMs: 20, staleMs: 600 });
    assert.equal(gate.heldByOther(), true);
    const t = performance.now();
    await gate.step('probe restore');
    const waited = performance.now() - t;
    assert.ok(waited >= 400 && waited < 3000, `waited ${Math.round(waited)} ms for a lock stale after 600 ms`);
    // An old lock holds nothing at all.
    const past = new Date(Date.now() - STALE_MS * 2);
    utimesSync(dir, past, past);
    assert.equal(new StepGate({ lockPath: path }).heldByOther(), false);
    // And the lock itself is taken over despite the marker inside.
    const release = await acquireMeasureLock(5000, path);
    assert.equal(readHolder(dir)?.pid, process.pid);
    await release();
  });

  it('lets a live holder hold a step at most maxHoldMs', async () => {
    const path = join(tempDir(), 'measure');
    const other = holder(path);
    await other.locked;
    const gate = new StepGate({ lockPath: path, pollMs: 10, maxHoldMs: 300 });
    const t = performance.now();
    await gate.step('fidelity load');
    const waited = performance.now() - t;
    other.child.stdin!.end();
    await other.released;
    assert.ok(waited >= 280 && waited < 5000, `waited ${Math.round(waited)} ms`);
    assert.equal(gate.stats.timedOut, 1);
  });

  it('holds the steps of one page at most maxPageHoldMs in all, then lets them overlap the measurement', async () => {
    const path = join(tempDir(), 'measure');
    const other = holder(path);
    await other.locked;
    const gate = new StepGate({ lockPath: path, pollMs: 10, maxHoldMs: 250, maxPageHoldMs: 400 });
    try {
      const t = performance.now();
      await gate.scope(
        () => undefined,
        async () => {
          for (let i = 0; i < 5; i++) await gate.step(`step ${i}`);
        },
      );
      const waited = performance.now() - t;
      assert.ok(waited >= 380 && waited < 3000, `five steps waited ${Math.round(waited)} ms for a page cap of 400 ms`);
      // The first step is held maxHoldMs, the second the rest of the page's 400 ms; on a loaded machine the first
      // poll after 250 ms can come past 400, and then the first step alone used the page's allowance.
      assert.ok(gate.stats.held >= 1 && gate.stats.held <= 2, `${gate.stats.held} steps held`);
      assert.ok(gate.stats.heldMs >= 380, `held ${gate.stats.heldMs} ms`);
      // Another page starts with its own allowance.
      const t2 = performance.now();
      await gate.scope(
        () => undefined,
        () => gate.step('next page'),
      );
      assert.ok(performance.now() - t2 >= 230);
    } finally {
      other.child.stdin!.end();
      await other.released;
    }
  });

  it("is not held by its own page's measurement, and is by another page's of the same process", async () => {
    const path = join(tempDir(), 'measure');
    const release = await acquireMeasureLock(5000, path);
    try {
      const gate = new StepGate({ lockPath: path, pollMs: 10, maxHoldMs: 200 });
      // This thread holds the lock: outside a scope a step belongs to its thread.
      assert.equal(gate.heldByOther(), false);
      // A page whose Lighthouse runs in this thread: not held; a page measured by another thread: held.
      assert.equal(
        await gate.scope(
          () => threadId,
          async () => gate.heldByOther(),
        ),
        false,
      );
      assert.equal(
        await gate.scope(
          () => threadId + 1000,
          async () => gate.heldByOther(),
        ),
        true,
      );
      assert.equal(
        await gate.scope(
          () => undefined,
          async () => gate.heldByOther(),
        ),
        false,
      );
    } finally {
      await release();
    }
    assert.equal(new StepGate({ lockPath: path }).heldByOther(), false, 'released: nothing holds');
  });

  it('leaves the lock refreshable with the marker inside (proper-lockfile does not take it as compromised)', async () => {
    const path = join(tempDir(), 'measure');
    const release = await acquireMeasureLock(5000, path);
    const failures: unknown[] = [];
    const onError = (err: unknown) => failures.push(err);
    process.on('uncaughtException', onError);
    try {
      // proper-lockfile refreshes the mtime every STALE_MS / 4 and checks that it is the one it set.
      await new Promise((r) => setTimeout(r, STALE_MS / 4 + 1500));
      // Seen as another page's, the lock is still fresh against a staleness shorter than its age: it was refreshed.
      const strict = new StepGate({ lockPath: path, staleMs: STALE_MS / 4 + 500 });
      assert.equal(
        await strict.scope(
          () => threadId + 1000,
          async () => strict.heldByOther(),
        ),
        true,
      );
    } finally {
      process.off('uncaughtException', onError);
      await release();
    }
    assert.deepEqual(failures, []);
  });
});
