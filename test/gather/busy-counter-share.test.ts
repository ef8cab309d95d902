/**
 * The busy share from Chrome's counters (collectors/busy-after-load.ts `counterShare`): CPU time over the window
 * less the time spent in tasks without a core. Counters are given here (seconds), not measured.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { counterShare } from '../../gather/collectors/busy-after-load.js';

const at = (t: number, task: number, cpu?: number) => ({ at: t, task, ...(cpu !== undefined ? { cpu } : {}) });

describe('busy share from the counters', () => {
  it('alone (task time = CPU time): task time over the window', () => {
    assert.ok(Math.abs(counterShare(at(10, 1, 1), at(10.3, 1.03, 1.03))! - 0.1) < 1e-9);
    assert.ok(Math.abs(counterShare(at(10, 1, 1), at(10.3, 1.3, 1.3))! - 1) < 1e-9);
  });

  it('a page computing in a loop that had a core a third of the time is busy', () => {
    // 300 ms in tasks, 100 ms of them on a core: it used every moment it had one.
    assert.ok(Math.abs(counterShare(at(0, 0, 0), at(0.3, 0.3, 0.1))! - 1) < 1e-9);
  });

  it('a still page whose short tasks a loaded machine stretched is not busy (task time over the window said 0.13)', () => {
    // 39 ms in tasks, 9 ms of CPU time: 30 ms waiting for a core inside them.
    const share = counterShare(at(0, 0, 0), at(0.3, 0.039, 0.009))!;
    assert.ok(share < 0.05, String(share));
  });

  it('without the CPU time: task time over the window; no time passed: not measured', () => {
    assert.ok(Math.abs(counterShare(at(0, 0), at(0.3, 0.039))! - 0.13) < 1e-9);
    assert.equal(counterShare(at(1, 0, 0), at(1, 0.1, 0.1)), undefined);
  });
});
