/**
 * withTimeout (runner/gather/session.ts) bounds every browser step. Since the scorer scores static metrics while
 * the page settles, our own CPU work can hold the event loop past a step's deadline while Chrome's answer is
 * already waiting: that must not become a false timeout. A real timeout must still fire.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { joinMeasureGroup, pausedMs } from '../../../runner/gather/measure-alone.js';
import { TimeoutError, sleep, withTimeout } from '../../../runner/gather/session.js';

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

  it('adds the time this process spent stopped by another worker\'s measurement to the wait (withTimeout and sleep)', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
    // Join a group of our own, and write what a holder writes when it continues us: 300 ms stopped.
    const dir = mkdtempSync(join(tmpdir(), 'webgrade-paused-test-'));
    joinMeasureGroup(dir);
    const counter = join(dir, `${process.pid}.paused`);
    writeFileSync(counter, '0');
    assert.equal(pausedMs(), 0);
    let t = performance.now();
    const guarded = withTimeout(new Promise<never>(() => undefined), 200, 'step');
    setTimeout(() => writeFileSync(counter, '300'), 100);
    await assert.rejects(guarded, TimeoutError);
    assert.ok(performance.now() - t >= 480, `rejected after ${Math.round(performance.now() - t)} ms, not 200 + 300`);
    t = performance.now();
    setTimeout(() => writeFileSync(counter, '600'), 100);
    await sleep(200);
    assert.ok(performance.now() - t >= 480, `slept ${Math.round(performance.now() - t)} ms, not 200 + 300`);
  });
});
