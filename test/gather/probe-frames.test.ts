/**
 * The probe's frame interval on heavy pages (ProbeRun.adaptFrames): decided from what the first settle cost in
 * main-thread CPU time per virtual second, and recorded in the log's settings. The cost is given here, or measured on
 * a simulated page (its frames' CPU time as Chrome's counter would report it), not on a browser's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BrowserContext } from 'puppeteer-core';
import type { Artifact } from '../../core/artifact/model.js';
import {
  FRAME_COST_TARGET_MS,
  HEAVY_FRAME_COST_MS,
  MAX_FRAME_MS,
  PACED_MAX_FRAME_MS,
  PROBE_CONFIG,
  PROBE_HEAVY_FRAME_MS,
} from '../../gather/interaction/probe/limits.js';
import { ProbeRun, type ProbeOptions } from '../../gather/interaction/probe/run.js';

const run = (settleCost?: number) => {
  const r = new ProbeRun({} as BrowserContext, {} as Artifact, 'http://127.0.0.1:1', 'http://127.0.0.1:1/index.html', { deadline: performance.now() + 10_000 });
  if (settleCost !== undefined) r.settleCost = settleCost;
  return r;
};

describe('frames on heavy pages', () => {
  it('keeps 16 ms frames when the first settle was cheap (a light canvas beside CPU hogs: 400), or not measured', () => {
    for (const r of [run(), run(FRAME_COST_TARGET_MS), run(40), run(400), run(HEAVY_FRAME_COST_MS - 1)]) {
      assert.equal(r.adaptFrames(), false);
      assert.equal(r.frameMs, PROBE_CONFIG.frameMs);
      assert.equal(r.ev.settings.frameMs, undefined);
    }
  });

  it('from the heavy mark on, spaces frames out by the cost over the target, in multiples of 16 ms, up to the cap, and logs the interval', () => {
    const mark = run(HEAVY_FRAME_COST_MS);
    assert.equal(mark.adaptFrames(), true);
    assert.equal(mark.frameMs, 16 * Math.ceil(HEAVY_FRAME_COST_MS / FRAME_COST_TARGET_MS));
    const r = run(FRAME_COST_TARGET_MS * 4.8);
    assert.equal(r.adaptFrames(), true);
    assert.equal(r.frameMs, 80);
    assert.equal(r.ev.settings.frameMs, 80);
    const heavy = run(FRAME_COST_TARGET_MS * 40);
    heavy.adaptFrames();
    assert.equal(heavy.frameMs, MAX_FRAME_MS);
  });

  it('paced (the requirement tests): frames as far apart as one costs when that is beyond the cap, bounded', () => {
    // 180 CPU ms a frame at 16 ms frames: 62.5 frames a virtual second.
    const fractal = run(180 * (1000 / PROBE_CONFIG.frameMs));
    assert.equal(fractal.adaptFrames(true), true);
    assert.equal(fractal.frameMs, 192);
    // A frame cheaper than the cap: the probe's rule, whatever the pacing.
    const light = run(FRAME_COST_TARGET_MS * 4.8);
    light.adaptFrames(true);
    assert.equal(light.frameMs, 80);
    const mid = run(60 * (1000 / PROBE_CONFIG.frameMs));
    mid.adaptFrames(true);
    assert.equal(mid.frameMs, MAX_FRAME_MS);
    const huge = run(2000 * (1000 / PROBE_CONFIG.frameMs));
    huge.adaptFrames(true);
    assert.equal(huge.frameMs, PACED_MAX_FRAME_MS);
    // Unpaced (the probe) stays at its cap.
    const same = run(180 * (1000 / PROBE_CONFIG.frameMs));
    same.adaptFrames();
    assert.equal(same.frameMs, MAX_FRAME_MS);
  });
});

/**
 * A page simulated behind the probe's driver, drawing in every animation frame: one frame requested at a time, due on
 * the grid of the interval it was requested at, rescheduled as the page clock's `setFrameMs` does
 * (page/main/clock.ts); each costs `frameCost` CPU ms of the main thread, which Chrome's ThreadTime counter reports.
 * The probe's calls go to it as they would to the page's agent.
 */
function simulated(frameCost: number, opts: Partial<ProbeOptions> = {}) {
  const page = { now: 0, frameMs: PROBE_CONFIG.frameMs, due: PROBE_CONFIG.frameMs, cpuMs: 0, drawn: [] as number[] };
  const gridAfter = (t: number) => Math.floor(t / page.frameMs) * page.frameMs + page.frameMs;
  const d = {
    cdp: { send: async () => ({ metrics: [{ name: 'ThreadTime', value: page.cpuMs / 1000 }] }) },
    networkQuiet: async () => true,
    agent: async (op: string, args: unknown[]) => {
      if (op === 'setFrameMs') {
        page.frameMs = args[0] as number;
        const next = gridAfter(page.now);
        if (args[1] === true || page.due > next) page.due = next;
      }
      if (op !== 'advance') return null;
      const to = page.now + (args[0] as number);
      let realMs = 0;
      for (; page.due <= to; page.due = gridAfter(page.due)) {
        page.drawn.push(page.due);
        page.cpuMs += frameCost;
        realMs += frameCost;
      }
      page.now = to;
      return { moved: args[0], realMs, now: to, workers: 0 };
    },
  };
  const r = new ProbeRun({} as BrowserContext, {} as Artifact, 'http://127.0.0.1:1', 'http://127.0.0.1:1/index.html', {
    deadline: performance.now() + 60_000,
    onCostKnown: async (run) => {
      await run.adaptEarly();
    },
    holdSettleFrames: true,
    heavyFrameMs: PROBE_HEAVY_FRAME_MS,
    ...opts,
  });
  r.d = d as unknown as ProbeRun['d'];
  return { r, page };
}

describe("the probe's settles and samples on heavy pages (a simulated page)", () => {
  it('a first frame that alone costs the mark ends the measure there: frames PROBE_HEAVY_FRAME_MS apart, the rest of the settle held', async () => {
    const { r, page } = simulated(900);
    await r.settle();
    assert.deepEqual(page.drawn, [PROBE_CONFIG.frameMs], 'one frame: the measure stopped after it, the rest held');
    assert.equal(page.now, r.settings.settleMs);
    assert.equal(r.frameMs, PROBE_HEAVY_FRAME_MS);
    assert.equal(r.ev.settings.frameMs, PROBE_HEAVY_FRAME_MS);
    assert.ok((r.settleCost ?? 0) >= HEAVY_FRAME_COST_MS);
  });

  it('a page heavy only over the whole measure is measured over MEASURE_MS (four frames), then paced the same', async () => {
    // 20 ms a frame: the first frame is under the mark's 64 ms, the four together over it.
    const { r, page } = simulated(20);
    await r.settle();
    assert.deepEqual(page.drawn, [16, 32, 48, 64]);
    assert.equal(r.frameMs, PROBE_HEAVY_FRAME_MS);
    // Without the probe's interval (the requirement tests): the same measure, frames by the cost.
    const tests = simulated(20, { heavyFrameMs: undefined, holdSettleFrames: false });
    await tests.r.settle();
    assert.equal(tests.page.drawn.slice(0, 4).join(), '16,32,48,64');
    assert.equal(tests.r.frameMs, 16 * Math.ceil((20 * 1000) / 16 / FRAME_COST_TARGET_MS));
  });

  it('a light page is measured over MEASURE_MS and keeps every frame of its settles', async () => {
    const { r, page } = simulated(2);
    await r.settle();
    assert.equal(r.frameMs, PROBE_CONFIG.frameMs);
    assert.equal(page.drawn.length, Math.floor(r.settings.settleMs / PROBE_CONFIG.frameMs));
    page.drawn.length = 0;
    const from = page.now;
    await r.advanceToLastFrame(1000);
    assert.equal(page.drawn.length, Math.floor((from + 1000) / 16) - Math.floor(from / 16), 'every frame of the move');
  });

  it("a heavy page's later settles draw SETTLE_FRAMES intervals of frames, and its later sample only the frame at its end", async () => {
    const { r, page } = simulated(900);
    await r.settle();
    page.drawn.length = 0;
    await r.settle();
    assert.deepEqual(page.drawn, [1250], 'the frame due at the restore');
    page.drawn.length = 0;
    const from = page.now;
    await r.advanceToLastFrame(4000 - from);
    assert.deepEqual(page.drawn, [4000]);
  });
});
