/**
 * The measuring Chrome's priority (measure-priority.ts) on a real process tree: a shell with a child, and a
 * grandchild started while the priority is raised. With the right to raise priorities (root here and in CI)
 * every thread goes to the raised nice value and back, the late child included; without it nothing changes and
 * the reason says so.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { getPriority } from 'node:os';
import { after, describe, it } from 'node:test';
import { processTree, raisePriority } from '../../../runner/gather/measure-priority.js';

const linux = process.platform === 'linux';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const started: ChildProcess[] = [];
after(() => {
  for (const c of started) if (c.pid) for (const p of processTree(c.pid).reverse()) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
});

describe('the measuring Chrome\'s priority', { skip: !linux && 'Linux only (/proc)' }, () => {
  it('raises every process and thread of a tree by the same steps (their order kept), and puts them all back, a process started meanwhile included', async () => {
    // sh → `sleep 30` at nice 10, `sleep 30` and `sleep 0.6` at once; after 600 ms another `sleep 30` (started while
    // the priority is raised).
    const sh = spawn('sh', ['-c', 'nice -n 10 sleep 30 & sleep 30 & sleep 0.6; sleep 30 & wait'], { stdio: 'ignore' });
    started.push(sh);
    await sleep(200);
    const before = processTree(sh.pid!);
    assert.equal(before.length, 4, `tree: ${before}`);
    const was = new Map(before.map((p) => [p, getPriority(p)]));
    assert.deepEqual([...was.values()].sort((a, b) => a - b), [0, 0, 0, 10]);
    const boost = raisePriority(sh.pid!, 5);
    if (boost.reason) {
      assert.match(boost.reason, /not permitted/);
      assert.equal(boost.raised, 0);
      for (const p of before) assert.equal(getPriority(p), was.get(p));
      return;
    }
    assert.ok(boost.raised >= 3, `raised ${boost.raised}`);
    for (const p of before) assert.equal(getPriority(p), was.get(p)! - 5, `pid ${p}`);
    await sleep(800);
    const during = processTree(sh.pid!);
    const late = during.find((p) => !before.includes(p));
    assert.ok(late, `no process started meanwhile: ${before} → ${during}`);
    assert.equal(getPriority(late), -5, 'a process started meanwhile inherits the raised priority');
    boost.restore();
    for (const p of during) assert.equal(getPriority(p), was.get(p) ?? 0, `pid ${p} not put back`);
  });

  it('changes nothing when turned off, or without a pid', () => {
    process.env.WEBGRADE_MEASURE_PRIORITY = 'off';
    try {
      assert.match(raisePriority(process.pid).reason ?? '', /turned off/);
    } finally {
      delete process.env.WEBGRADE_MEASURE_PRIORITY;
    }
    assert.equal(raisePriority(undefined).raised, 0);
    assert.equal(getPriority(process.pid), 0);
  });
});
