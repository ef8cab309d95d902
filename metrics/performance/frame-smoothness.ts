/**
 * frame-smoothness (extended suite, performance; SPEC "Suites", issue 44): whether the page's animation keeps its
 * frame rate while it runs, as a player watching it feels it.
 *
 * Measures: over the runtime watch's fixed real-time window (gather/runtime/, about 1 s after load and a short
 * settle, nothing sent to the page), every animation frame's main-thread CPU time (script, style, layout, paint
 * recording: the tasks inside Chrome's `AnimationFrame`, LoAF's frame). A frame costing c ms of CPU holds the
 * main thread for ⌈c / 16.7⌉ refreshes at 60 Hz, so the share of refreshes that show a new frame is
 * frames / Σ max(1, ⌈c / 16.7⌉): score = 100 × that share (100: every frame fits a refresh; 60: a frame in three
 * takes three refreshes, 36 fps; 50: 30 fps). Details: median and p95 frame cost, the frame-time strip, and
 * Chrome's own dropped-frame share (its smoothness metric's source) over the same window.
 *
 * Interpretations:
 * - CPU time, not wall time: the page's own cost. On a loaded machine a frame waits for a CPU and Chrome drops
 *   frames a quiet machine presents; the score must not move with the machine's load or the scorer's
 *   concurrency (issue "Numbers that hold still"). Chrome's dropped share, a wall-time figure, is reported beside
 *   it, not scored.
 * - Unscorable when the window's trace could not be read (the frames were not measured), and when the page drew
 *   fewer than MIN_FRAMES frames in the window unless at least MIN_SCRIPT_FRAMES of them spent more than a
 *   refresh in the page's own `requestAnimationFrame` callbacks: nothing animates (a still page is not a smooth
 *   animation, and is not penalised either). A few frames drawn by such callbacks (a fractal recomputed every
 *   frame: 5 frames of 180 ms) are a very slow animation, and are scored, however little of a core the page got;
 *   a few cheap frames spread over the window are paced by raster or GPU work (a WebGL scene, rendered in software
 *   here): unscorable with that reason, not "nothing animates". "Cost" is CPU time only.
 * - Why the callbacks decide (2026-11-29): before, a few frames whose CPU filled half the window were scored. That
 *   rule moved with the machine: on CI the mutation test's janky animation (3·10⁷ loop iterations a frame) got
 *   under half a core beside other tests, drew 5 frames in 1,009 ms under half the window in CPU and was called
 *   still; and pages starting a WebAssembly runtime (tacopy-playground: one start-up frame of 2.2 s of CPU) were
 *   called a janky animation scoring 4. Counting the frames' wall time too was tried and dropped the same day: it
 *   called three such pages (pyodide-bar-chart, schema-dsl, tacopy-playground: 3–5 frames, 0.9–1.1 s of wall in a
 *   1.0–1.35 s window) a janky animation scoring 13. Their start-up work runs in script evaluation, WebAssembly
 *   compilation and promise jobs: 0 ms of it in animation-frame callbacks. Over 73 pages (67 corpus pages, every
 *   one that calls `requestAnimationFrame` among them, and the six heavy fixtures; one run beside a test suite) the
 *   two rules differ on one: tacopy-playground, 10.2 → unscorable. Evidence recorded before the callbacks' time
 *   was read (`rafCpuMs` absent) keeps the old rule.
 *
 * Cannot see: a slow animation of under MIN_FRAMES frames a second drawn from timers or a worker's messages instead
 * of animation-frame callbacks (unscorable: rare in generated pages, which draw in `requestAnimationFrame`); raster
 * and GPU work (off the main thread: a canvas with huge fills or a heavy WebGL scene may drop
 * frames on the GPU while its main thread is cheap); animations that run on the compositor alone (CSS transforms,
 * opacity: they are smooth anyway); frames after the window (a game that slows down as the level grows); a phone's
 * slower CPU (costs are this machine's; a page at 10 ms here may miss refreshes on a phone).
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { present } from '../../core/evidence.js';
import { FRAME_BUDGET_MS, frameStripSvg, quantile, round1 } from '../lib/runtime.js';
import { renderSvg } from '../lib/image-tools.js';

/** Fewer frames than this in the window (and not a slow animation, below): the page does not animate. */
export const MIN_FRAMES = 10;
/** Evidence without `rafCpuMs` (recorded before 2026-11-29): frames whose CPU fills this share of the window animate. */
export const BUSY_SHARE = 0.5;
/** At least this many frames whose own animation-frame callbacks cost more than a refresh: a slow animation, scored. */
export const MIN_SCRIPT_FRAMES = 3;

const frameSmoothness: MetricDefinition = {
  number: 33,
  id: 'frame-smoothness',
  perspective: 'performance',
  kind: 'rule',
  needs: ['runtime'],
  title: 'Frame smoothness',
  question: 'Does the animation keep its frame rate while the page runs?',
  suite: 'extended',
  score(evidence) {
    const r = present(evidence.runtime, 'runtime evidence');
    if (!r.traced) return unscorable(`the frames were not measured (${r.faults.join('; ') || 'no trace'})`, { faults: r.faults });
    const frames = r.frames;
    const chrome = r.presented + r.dropped > 0 ? round1((100 * r.dropped) / (r.presented + r.dropped)) : null;
    const frameCpu = frames.reduce((a, f) => a + f.cpuMs, 0);
    const drawnByScript = frames.filter((f) => (f.rafCpuMs ?? 0) > FRAME_BUDGET_MS).length;
    // Evidence recorded before the callbacks' time was read: the CPU that fills the window decides instead.
    const legacy = frames.some((f) => f.rafCpuMs === undefined);
    const slowAnimation = legacy ? frames.length >= 2 && frameCpu >= BUSY_SHARE * r.windowMs : drawnByScript >= MIN_SCRIPT_FRAMES;
    if (frames.length < MIN_FRAMES && !slowAnimation)
      return unscorable(
        frames.length >= 3 && frames[frames.length - 1]!.at >= r.windowMs / 2
          ? `the page animates at about ${round1((1000 * frames.length) / Math.max(1, r.windowMs))} fps with an idle main thread: its frames wait on raster or GPU work, which is not measured`
          : `nothing animates: the page drew ${frames.length} frame${frames.length === 1 ? '' : 's'} in ${r.windowMs} ms of running (fewer than ${MIN_FRAMES})`,
        { frames: frames.length, windowMs: r.windowMs, faults: r.faults },
      );
    const costs = frames.map((f) => f.cpuMs);
    const refreshes = costs.reduce((a, c) => a + Math.max(1, Math.ceil(c / FRAME_BUDGET_MS)), 0);
    const share = frames.length / refreshes;
    const over = costs.filter((c) => c > FRAME_BUDGET_MS).length;
    const median = round1(quantile(costs, 0.5));
    const p95 = round1(quantile(costs, 0.95));
    const fps = round1(60 * share);
    return scored(
      100 * share,
      over
        ? `${over} of ${frames.length} frames cost more than a refresh (p95 ${p95} ms of CPU, median ${median} ms): about ${fps} fps on a 60 Hz screen`
        : `every frame fits a 60 Hz refresh (median ${median} ms, p95 ${p95} ms of CPU)`,
      {
        frames: frames.length,
        windowMs: r.windowMs,
        medianCpuMs: median,
        p95CpuMs: p95,
        overBudget: over,
        estimatedFps: fps,
        chromeDroppedPct: chrome,
        medianWallMs: round1(
          quantile(
            frames.map((f) => f.wallMs),
            0.5,
          ),
        ),
        strip: frames.slice(0, 240).map((f) => [f.at, f.cpuMs, f.wallMs]),
        ...(r.faults.length ? { faults: r.faults } : {}),
      },
    );
  },
  async illustrate(evidence, outcome) {
    if (outcome.score === null || !evidence.runtime?.ok) return [];
    const frames = evidence.runtime.value.frames.slice(0, 240);
    const png = await renderSvg(960, 180, frameStripSvg(frames, 960, 180));
    return [{ name: 'strip', png, caption: 'frame-time strip: each bar one animation frame, its main-thread CPU time; red bars miss a 60 Hz refresh' }];
  },
};

export default frameSmoothness;
