/**
 * withTimeout (gather/time.ts) bounds every browser step. Since the scorer scores static metrics while
 * the page settles, our own CPU work can hold the event loop past a step's deadline while Chrome's answer is
 * already waiting: that must not become a false timeout. A real timeout must still fire.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { TimeoutError, withTimeout } from '../../gather/time.js';

function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* hold the event loop, as a long synchronous metric would */
  }
}

describe('withTimeout', () => {
  it('takes an answer that arrived while the event loop was blocked past the deadline', async () => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("ready")'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const answer = new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    const guarded = withTimeout(answer, 100, 'answer');
    // The child answers well within this; the 100 ms timer is overdue by the time the loop turns again.
    busyWait(2000);
    assert.equal(await guarded, 'ready');
  });

  it('still rejects with a TimeoutError when no answer comes', async () => {
    const never = new Promise<never>(() => undefined);
    await assert.rejects(withTimeout(never, 50, 'nothing'), (err: unknown) => err instanceof TimeoutError && /nothing timed out after 50 ms/.test(err.message));
  });

  it('passes on a rejection that comes in time', async () => {
    await assert.rejects(withTimeout(Promise.reject(new Error('boom')), 1000, 'x'), /boom/);
  });

  it('rejects at once when the budget is already spent', async () => {
    await assert.rejects(withTimeout(Promise.resolve(1), 0, 'late'), /no time left/);
  });
});
