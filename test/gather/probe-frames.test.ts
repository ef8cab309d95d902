/**
 * The probe's frame interval on heavy pages (ProbeRun.adaptFrames): decided from what the first settle cost in
 * main-thread CPU time per virtual second, and recorded in the log's settings. The cost is given here, not measured.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BrowserContext } from 'puppeteer-core';
import type { Artifact } from '../../core/artifact/model.js';
import { FRAME_COST_TARGET_MS, HEAVY_FRAME_COST_MS, MAX_FRAME_MS, PACED_MAX_FRAME_MS, PROBE_CONFIG } from '../../gather/interaction/probe/limits.js';
import { ProbeRun } from '../../gather/interaction/probe/run.js';

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
