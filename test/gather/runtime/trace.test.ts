import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INPUTS_MARK, readTrace, type TraceEvent } from '../../../gather/runtime/trace.js';
import { handlerOf, matchInteractions, readObserved } from '../../../gather/runtime/watch.js';

const PID = 7;
const TID = 9;
/** A trace of `costs` frames one after another (at least 16.7 ms apart), one task each (wall = cpu × 2), then the inputs mark and `after`. */
function trace(costs: number[], after: TraceEvent[] = []): TraceEvent[] {
  const ev: TraceEvent[] = [
    {
      name: 'TracingStartedInBrowser',
      ph: 'I',
      pid: 1,
      tid: 1,
      ts: 0,
      args: {
        data: {
          frames: [
            { processId: PID, frame: 'F', url: 'http://x/' },
            { processId: 99, parent: 'F' },
          ],
        },
      },
    },
    { name: 'thread_name', ph: 'M', pid: PID, tid: TID, ts: 0, args: { name: 'CrRendererMain' } },
    { name: 'thread_name', ph: 'M', pid: 99, tid: 3, ts: 0, args: { name: 'CrRendererMain' } },
  ];
  let t = 1_000_000;
  costs.forEach((c, i) => {
    ev.push({ name: 'AnimationFrame', ph: 'b', id: i, pid: PID, tid: TID, ts: t });
    ev.push({ name: 'RunTask', ph: 'X', pid: PID, tid: TID, ts: t + 10, dur: c * 2000, tdur: c * 1000 });
    ev.push({ name: 'RunTask', ph: 'X', pid: PID, tid: TID, ts: t + 20, dur: 5, tdur: 5 }); // nested: not counted twice
    // the page's animation-frame callback, inside the task: half its CPU time
    ev.push({ name: 'FireAnimationFrame', ph: 'X', pid: PID, tid: TID, ts: t + 30, dur: c * 1000, tdur: c * 500 });
    ev.push({ name: 'AnimationFrame', ph: 'e', id: i, pid: PID, tid: TID, ts: t + c * 2000 + 100 });
    ev.push({
      name: 'PipelineReporter',
      ph: 'b',
      pid: PID,
      tid: 2,
      ts: t,
      args: { frame_reporter: { state: c > 16 ? 'STATE_DROPPED' : 'STATE_PRESENTED_ALL', affects_smoothness: true } },
    });
    // Another renderer's work is not the page's.
    ev.push({ name: 'RunTask', ph: 'X', pid: 99, tid: 3, ts: t, dur: 50_000, tdur: 50_000 });
    t += Math.max(16_700, c * 2000 + 200);
  });
  ev.push({ name: 'TimeStamp', ph: 'I', pid: PID, tid: TID, ts: t + 20_000, args: { data: { message: INPUTS_MARK } } });
  return [...ev, ...after.map((e) => ({ pid: PID, tid: TID, ...e }))];
}

describe('runtime trace reading', () => {
  it('frames of the page’s main thread with their CPU time; Chrome’s presented and dropped', () => {
    const r = readTrace(trace([2, 2, 42, 2, 2, 42]));
    assert.deepEqual(
      r.frames.map((f) => f.cpuMs),
      [2, 2, 42, 2, 2, 42],
    );
    assert.equal(r.frames[2]!.wallMs, 84.1);
    assert.deepEqual(
      r.frames.map((f) => f.rafCpuMs),
      [1, 1, 21, 1, 1, 21],
    );
    assert.equal(r.presented, 4);
    assert.equal(r.dropped, 2);
    assert.equal(r.fault, undefined);
  });
  it('frames after the inputs mark are not the window’s; input dispatches are grouped by interaction', () => {
    const after: TraceEvent[] = [
      { name: 'AnimationFrame', ph: 'b', id: 'z', ts: 5_000_000 },
      { name: 'AnimationFrame', ph: 'e', id: 'z', ts: 5_010_000 },
      { name: 'EventDispatch', ph: 'X', ts: 5_000_100, dur: 200_000, tdur: 199_000, args: { data: { type: 'keydown' } } },
      { name: 'EventDispatch', ph: 'X', ts: 5_000_200, dur: 10, tdur: 10, args: { data: { type: 'keydown' } } }, // nested
      { name: 'EventDispatch', ph: 'X', ts: 5_300_000, dur: 100, tdur: 100, args: { data: { type: 'keyup' } } },
      { name: 'EventDispatch', ph: 'X', ts: 5_400_000, dur: 2000, tdur: 1500, args: { data: { type: 'keydown' } } },
      { name: 'EventDispatch', ph: 'X', ts: 5_500_000, dur: 3000, tdur: 3000, args: { data: { type: 'pointerdown' } } },
      { name: 'EventDispatch', ph: 'X', ts: 5_510_000, dur: 1000, tdur: 1000, args: { data: { type: 'click' } } },
      { name: 'EventDispatch', ph: 'X', ts: 5_520_000, dur: 1000, tdur: 1000, args: { data: { type: 'message' } } },
    ];
    const r = readTrace(trace([2, 2], after));
    assert.equal(r.frames.length, 2);
    assert.deepEqual(r.handlers, [
      { type: 'keydown', cpuMs: 199.1 },
      { type: 'keydown', cpuMs: 1.5 },
      { type: 'pointerdown', cpuMs: 4 },
    ]);
    const sent = [{ input: 'key ArrowRight' }, { input: 'key ArrowUp' }, { input: 'key Space' }, { input: 'click 640,400' }];
    assert.deepEqual(
      sent.map((_, i) => handlerOf(sent, r.handlers, i)),
      [199.1, 1.5, undefined, 4],
    );
  });
  it('a trace that names no renderer reads as nothing, with a fault', () => {
    const r = readTrace([{ name: 'RunTask', ph: 'X', pid: 1, tid: 1, ts: 5, dur: 5 }]);
    assert.equal(r.frames.length, 0);
    assert.match(r.fault!, /renderer/);
  });
  it('garbage in the trace is skipped, not trusted', () => {
    const bad = trace([2]).concat([
      { name: 'RunTask', ph: 'X', pid: PID, tid: TID, ts: 'x', dur: 5 },
      { name: 'AnimationFrame', ph: 'e', id: 'never-began', pid: PID, tid: TID, ts: 2_000_000 },
      { name: 'PipelineReporter', ph: 'b', pid: PID, tid: 2, ts: 1_000_001, args: { frame_reporter: 'STATE_DROPPED' } },
    ]);
    const r = readTrace(bad);
    assert.equal(r.frames.length, 1);
    assert.equal(r.dropped, 0);
  });
});

describe('runtime observers’ answer', () => {
  it('keeps only well-formed entries', () => {
    const o = readObserved({
      timeOrigin: 1000,
      events: [['keydown', 10, 216, 12, 212, 5], ['keyup', 'x', 1, 1, 1, 5], ['click', 1, Infinity, 1, 1, 6], 'junk'],
      longFrames: [3, -1, 'a'],
    });
    assert.deepEqual(o?.events, [['keydown', 10, 216, 12, 212, 5]]);
    assert.deepEqual(o?.longFrames, [3]);
    assert.equal(readObserved({ events: [] }), undefined);
    assert.equal(readObserved('nope'), undefined);
  });
  it('matches each interaction to the input sent just before it; unreported inputs were fast', () => {
    const o = readObserved({
      timeOrigin: 1_000_000,
      events: [
        ['keydown', 100, 216, 101, 300, 1],
        ['keyup', 330, 24, 331, 332, 1],
        ['pointerdown', 402, 40, 403, 404, 2],
      ],
      longFrames: [],
    })!;
    const m = matchInteractions(
      [
        { input: 'key ArrowRight', sent: 1_000_099 },
        { input: 'key ArrowUp', sent: 1_000_200 },
        { input: 'click 640,400', sent: 1_000_400 },
      ],
      o,
    );
    assert.deepEqual(m, [
      { input: 'key ArrowRight', latencyMs: 216, event: 'keydown', processingMs: 199 },
      { input: 'key ArrowUp', latencyMs: null },
      { input: 'click 640,400', latencyMs: 40, event: 'pointerdown', processingMs: 1 },
    ]);
  });
});
