/** The visit clock's answers from the page, held to plain values, and the busy share made of them (gather/visit-clock.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { busyShare, clockMove } from '../../gather/visit-clock.js';

describe('the page clock answer', () => {
  it('keeps finite numbers and true booleans, and turns anything else into zero or false', () => {
    const m = clockMove({ fired: 3, storm: 'yes', slow: true, realMs: Infinity, moved: -5, now: 1300, workers: '2', extra: { a: 1 } });
    assert.deepEqual(m, { fired: 3, storm: false, slow: true, realMs: 0, moved: 0, now: 1300, workers: 0 });
    assert.deepEqual(clockMove(null), { fired: 0, storm: false, slow: false, realMs: 0, moved: 0, now: 0, workers: 0 });
    assert.deepEqual(clockMove('{"moved":96}'), { fired: 0, storm: false, slow: false, realMs: 0, moved: 0, now: 0, workers: 0 });
  });

  it('the busy share is task ms per page ms, at most 1, and 1 for a storm of callbacks', () => {
    const m = clockMove({ moved: 96, realMs: 500 });
    assert.ok(Math.abs(busyShare(m, 9.6) - 0.1) < 1e-9);
    assert.equal(busyShare(m, 500), 1);
    assert.equal(busyShare(m, -3), 0);
    assert.equal(busyShare(clockMove({ moved: 0, storm: true }), 0), 1);
    // Nothing moved (a clock that fell behind at once): per one page ms, not a division by zero.
    assert.equal(busyShare(clockMove({ moved: 0 }), 0.5), 0.5);
  });
});
