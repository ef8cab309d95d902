/**
 * How busy a page is after its load (BrowserEvidence.busyAfterLoad) must not depend on how loaded the machine is
 * (issue "Evidence that does not depend on the wall clock"): a page computing in a loop measures ≥ 0.9 busy and a
 * quiet page ≤ 0.1, alone and with four CPU hogs beside the browser on this machine's cores. The share is Chrome's
 * task time over the renderer's own clock (a task preempted by a hog still counts as the page's: it was runnable,
 * not idle; the time its answers take to reach us does not count). The busy page computes in 40 ms slices, each
 * queued by a message to itself (a timer would add the 4 ms clamp of nested timers: its own share is 0.91).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Scorer } from '../../runner/score.js';
import { cpuHogs, fixture, writeArtifact } from '../helpers.js';

const BUSY = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>busy</title></head><body><canvas id="c" width="300" height="150"></canvas>
<script>const g = document.getElementById('c').getContext('2d'); let x = 0;
const ch = new MessageChannel(); ch.port1.onmessage = step;
function step() { const end = performance.now() + 40; while (performance.now() < end) x = (x + 1) % 300; ch.port2.postMessage(0); }
function frame() { g.clearRect(0, 0, 300, 150); g.fillRect(x, 50, 20, 20); requestAnimationFrame(frame); }
step(); requestAnimationFrame(frame);</script></body></html>`;

/**
 * A still page but for one long task (400 ms) started at its load: it fills most of the settle's first window (each
 * window is 300 ms; Chrome counts a task's time so far, answering while the task runs) and ends early in the second.
 */
const ONE_LONG_TASK = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>once</title></head><body><p>Still.</p>
<script>addEventListener('load', () => setTimeout(() => { const end = performance.now() + 400; while (performance.now() < end); }, 0));</script></body></html>`;

describe('busy share after load under machine load', () => {
  const scorer = new Scorer({ only: ['console-errors'], budgetMs: 60_000 });
  after(() => scorer.close());
  const busyPage = writeArtifact({ 'index.html': BUSY });
  const quietPage = fixture('browser', 'clean-1000.html');

  const measure = async (path: string): Promise<number | undefined> => {
    const { evidence } = await scorer.scoreWithEvidence(path);
    assert.ok(evidence.browser?.ok, JSON.stringify(evidence.browser));
    return evidence.browser.value.busyAfterLoad;
  };

  it('a still page with one long task in the settle is not taken as never idle: the confirming window finds it quiet', async () => {
    const share = await measure(writeArtifact({ 'index.html': ONE_LONG_TASK }));
    assert.ok(share !== undefined && share < 0.5, `one long task: ${share}`);
  });

  for (const loaded of [false, true]) {
    it(`a page computing in a loop measures ≥ 0.9 busy and a quiet page ≤ 0.1, ${loaded ? 'with four CPU hogs beside it' : 'alone'}`, async () => {
      const spinning = loaded ? cpuHogs() : [];
      try {
        const busy = await measure(busyPage);
        const quiet = await measure(quietPage);
        assert.ok(busy !== undefined && busy >= 0.9, `busy page: ${busy}`);
        assert.ok(quiet !== undefined && quiet <= 0.1, `quiet page: ${quiet}`);
      } finally {
        for (const h of spinning) h.kill('SIGKILL');
      }
    });
  }
});
