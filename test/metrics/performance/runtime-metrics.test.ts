import assert from 'node:assert/strict';
import { missing } from '../../../core/evidence.js';
import frameSmoothness from '../../../metrics/performance/frame-smoothness.js';
import responsiveness from '../../../metrics/performance/responsiveness.js';
import memoryStability from '../../../metrics/performance/memory-stability.js';
import { describe, it } from 'node:test';
import { buildEvidence, outcomeOf, testMetric } from '../../metric-tester.js';
import { frames, key, memory, runtime } from './runtime-synthetic.js';

const html = '<canvas></canvas>';

testMetric(frameSmoothness, [
  { name: 'a 2 ms frame every refresh scores 100', html, evidence: runtime({ frames: frames(60, [2]) }), score: 100 },
  {
    name: 'a 42 ms frame in every three: 3 frames in 5 refreshes (36 fps) scores 60',
    html,
    evidence: runtime({ frames: frames(60, [2, 2, 42]), presented: 40, dropped: 20 }),
    score: 60,
    details: (d) => {
      assert.equal(d.p95CpuMs, 42);
      assert.equal(d.medianCpuMs, 2);
      assert.equal(d.overBudget, 20);
      assert.equal(d.chromeDroppedPct, 33.3);
      assert.equal((d.strip as unknown[]).length, 60);
    },
  },
  { name: 'every frame at 30 ms: 30 fps scores 50', html, evidence: runtime({ frames: frames(30, [30]) }), score: 50 },
  {
    name: 'frames not measured (the trace failed) are not "nothing animates"',
    html,
    evidence: runtime({ traced: false, faults: ['trace start: timed out'] }),
    unscorable: /not measured \(trace start: timed out\)/,
  },
  { name: 'a still page is unscorable, not 100', html, evidence: runtime({ frames: [] }), unscorable: /nothing animates/ },
  {
    name: 'a few frames that fill the window are a very slow animation, not a still page',
    html,
    evidence: runtime({ frames: frames(5, [180]) }),
    near: [9.1, 0.1],
  },
  {
    name: 'a few frames of start-up work (CPU under half the window, wall time over it) are not an animation',
    html,
    evidence: runtime({ frames: [0, 400, 800].map((at) => ({ at, cpuMs: 120, rafCpuMs: 0, wallMs: 370 })), windowMs: 1012 }),
    unscorable: /nothing animates|raster or GPU/,
  },
  {
    name: 'start-up frames whose CPU fills the window outside animation-frame callbacks (a WebAssembly runtime compiling) are not an animation',
    html,
    evidence: runtime({
      frames: [
        { at: 59, cpuMs: 183, rafCpuMs: 0, wallMs: 187 },
        { at: 277, cpuMs: 328, rafCpuMs: 0, wallMs: 380 },
        { at: 658, cpuMs: 59, rafCpuMs: 0, wallMs: 60 },
        { at: 918, cpuMs: 2250, rafCpuMs: 0, wallMs: 3273 },
      ],
      windowMs: 1030,
    }),
    unscorable: /nothing animates|raster or GPU/,
  },
  {
    name: 'evidence recorded before callbacks were timed: a few frames filling half the window in CPU are still a slow animation',
    html,
    evidence: runtime({ frames: [0, 200, 400, 600, 800].map((at) => ({ at, cpuMs: 110, wallMs: 200 })), windowMs: 1000 }),
    near: [14.3, 0.1],
  },
  {
    name: 'evidence recorded before callbacks were timed: a few frames under half the window are not',
    html,
    evidence: runtime({ frames: [0, 200, 400, 600].map((at) => ({ at, cpuMs: 100, wallMs: 200 })), windowMs: 1000 }),
    unscorable: /nothing animates|raster or GPU/,
  },
  {
    name: 'a few frames whose animation-frame callbacks each cost more than a refresh are a slow animation, on under half a core too',
    html,
    evidence: runtime({ frames: [0, 200, 400, 600, 800].map((at) => ({ at, cpuMs: 100, rafCpuMs: 98, wallMs: 200 })), windowMs: 1009 }),
    near: [16.7, 0.1],
  },
  {
    name: 'two such frames, the rest start-up work outside animation-frame callbacks: not an animation',
    html,
    evidence: runtime({
      frames: [0, 200, 400, 600].map((at, i) => ({ at, cpuMs: 100, rafCpuMs: i < 2 ? 98 : 1, wallMs: 200 })),
      windowMs: 1009,
    }),
    unscorable: /nothing animates|raster or GPU/,
  },
  {
    name: 'a few cheap frames across the window: paced off the main thread, unscorable with why',
    html,
    evidence: runtime({ frames: [0, 300, 600, 900, 1200].map((at) => ({ at, cpuMs: 3, rafCpuMs: 2, wallMs: 5 })), windowMs: 1400 }),
    unscorable: /raster or GPU/,
  },
  { name: 'a few frames (start-up) are not an animation', html, evidence: runtime({ frames: frames(5, [2]) }), unscorable: /5 frames/ },
  { name: 'no runtime evidence: the gatherer’s reason', html, evidence: { runtime: missing('Chrome died') }, unscorable: /Chrome died/ },
]);

testMetric(responsiveness, [
  {
    name: 'handlers of 2 ms score 100',
    html,
    evidence: runtime({ inputListeners: ['keydown'], interactions: [key('key ArrowRight', 2, 24), key('click 640,400', 1)] }),
    score: 100,
  },
  {
    name: 'a key handler blocking 200 ms scores 40 and is named',
    html,
    evidence: runtime({ inputListeners: ['keydown'], interactions: [key('key ArrowRight', 200, 216), key('key ArrowUp', 1, 24)] }),
    near: [39.8, 0.1],
    details: (d) => {
      const s = d.slowest as { input: string; inpMs: number };
      assert.equal(s.input, 'key ArrowRight');
      assert.equal(s.inpMs, 216);
    },
  },
  { name: 'half a second or more scores 0', html, evidence: runtime({ inputListeners: ['click'], interactions: [key('click 640,400', 700)] }), score: 0 },
  {
    name: 'an input that reached no handler costs nothing',
    html,
    evidence: runtime({ inputListeners: ['click'], interactions: [key('key Space', undefined), key('click 640,400', 3)] }),
    score: 100,
  },
  {
    name: 'a page listening to no input is unscorable, not 100',
    html,
    evidence: runtime({ inputListeners: [], interactions: [key('key Space', 0.1)] }),
    unscorable: /listens to no key/,
  },
  {
    name: 'listeners not read and every handler quick: unscorable, not 100 (a page listening to nothing looks the same)',
    html,
    evidence: runtime({ inputListeners: undefined, faults: ['listeners: timed out'], interactions: [key('key Space', 0.1), key('click 640,400', 0)] }),
    unscorable: /listeners could not be read/,
  },
  {
    name: 'listeners not read but a handler blocking 200 ms: scored (it is a listener)',
    html,
    evidence: runtime({ inputListeners: undefined, interactions: [key('key ArrowRight', 200, 216)] }),
    near: [39.8, 0.1],
  },
  {
    name: 'no listeners before the window (the later reading lost) but a handler blocking 200 ms: scored, the page added one as it ran',
    html,
    evidence: runtime({ inputListeners: [], inputListenersRead: 'before the window', interactions: [key('key ArrowRight', 200, 216)] }),
    near: [39.8, 0.1],
  },
  {
    name: 'no listeners before the window and every handler quick: unscorable as listening to nothing',
    html,
    evidence: runtime({ inputListeners: [], inputListenersRead: 'before the window', interactions: [key('key ArrowRight', 0.2)] }),
    unscorable: /listens to no key/,
  },
  {
    name: 'handlers not measured (no trace): unscorable',
    html,
    evidence: runtime({ traced: false, inputListeners: ['keydown'], interactions: [key('key Space', undefined)] }),
    unscorable: /not measured/,
  },
  {
    name: 'an input the page never took scores 0, named',
    html,
    evidence: runtime({ inputListeners: ['keydown'], inputWaitMs: 1800, interactions: [key('key ArrowRight', 1), { input: 'key ArrowUp', latencyMs: null }] }),
    score: 0,
    details: (d) => assert.deepEqual(d.unanswered, ['key ArrowUp']),
  },
  { name: 'no input sent: unscorable', html, evidence: runtime({ inputListeners: ['keydown'], interactions: [] }), unscorable: /no input/ },
]);

testMetric(memoryStability, [
  { name: 'a steady heap scores 100', html, evidence: runtime({ memory: memory([1, 1, 1.02]) }), score: 100 },
  {
    name: '1 MB a second (60 MB/min) scores about 52',
    html,
    evidence: runtime({ memory: memory([1, 2, 2.7]) }),
    near: [52.3, 0.3],
    details: (d) => assert.equal(d.heapMbPerMin, 60),
  },
  { name: 'one-off growth in one stretch (JIT warm-up) is not a leak', html, evidence: runtime({ memory: memory([1, 1.6, 1.3]) }), score: 100 },
  {
    name: 'DOM nodes added without end lower the score',
    html,
    evidence: runtime({ memory: memory([1, 1, 1], [20, 520, 870]) }),
    near: [0, 0.01],
  },
  { name: 'heap shrinking is steady', html, evidence: runtime({ memory: memory([3, 2, 1]) }), score: 100 },
  { name: 'two samples are not enough (one stretch)', html, evidence: runtime({ memory: memory([1, 2, 3]).slice(0, 2) }), unscorable: /read 2 times/ },
]);

describe('frame-smoothness picture', () => {
  it('draws the frame-time strip as a PNG', async () => {
    const ev = buildEvidence({ html, evidence: runtime({ frames: frames(60, [2, 2, 42]) }) });
    const outcome = await outcomeOf(frameSmoothness, ev);
    const pics = await frameSmoothness.illustrate!(ev, outcome);
    assert.equal(pics.length, 1);
    assert.equal(pics[0]!.png.subarray(1, 4).toString(), 'PNG');
    assert.match(pics[0]!.caption, /frame-time strip/);
  });
});
