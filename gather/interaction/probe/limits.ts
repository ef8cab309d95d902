/** The probe's defaults and limits (docs/interaction.md has the measurements behind them). */

/** The in-page settings of a probe run: the main-world agent's clock, its randomness, the readers' snapshot cap. */
export interface ProbeConfig {
  /** Epoch milliseconds of virtual time 0. */
  epochMs: number;
  seed: number;
  frameMs: number;
  /** At most this many callbacks per `advance` (a timer storm stops there). */
  maxFires: number;
  /** At most this many real milliseconds per `advance`. */
  maxAdvanceRealMs: number;
  /** At most this many real milliseconds per `advance` waiting for the page's fetches and XHRs (not counted above). */
  maxNetworkWaitMs: number;
  /** Elements fingerprinted per snapshot (document order; the rest are folded into one record). */
  maxElements: number;
  /**
   * V8 block coverage of every load (the probe's code coverage); default on. Off for the requirement tests, which
   * read none of it: its counters in every block slow a page's own code (a loop drawing every pixel most).
   */
  coverage?: boolean;
}

/** The probe's defaults (docs/interaction.md has the measurements behind them). */
export const INTERACTION_DEFAULTS = {
  /** Controls acted on at most (the keyboard counts as one). */
  maxControls: 40,
  /** Real milliseconds one action may take, its reload included. */
  actionTimeoutMs: 4000,
  /** Real milliseconds the whole probe may take (less when the artifact's budget is shorter). */
  budgetMs: 15_000,
  /** Virtual milliseconds (page clock) after load, before each action, after each action. */
  settleMs: 1000,
  prepMs: 300,
  observeMs: 1000,
  /** Navigation: steps from the start view, distinct views, tries beyond the control actions. */
  navDepth: 2,
  maxViews: 12,
  maxNavActions: 24,
} as const;

/**
 * How the keyboard control plays each key: held down KEY_HOLD_MS virtual ms (frames run meanwhile, with one
 * auto-repeat keydown halfway, as a held key sends), released, and read KEY_WINDOW_MS after it went down.
 */
export const KEY_HOLD_MS = 250;
export const KEY_WINDOW_MS = 500;

/**
 * A heavy page (HEAVY_FRAME_COST_MS) gets animation frames further apart for the rest of the probe
 * (ProbeRun.adaptFrames): 16 ms times its frames' cost (main-thread CPU ms per page second) over this, at most
 * MAX_FRAME_MS for a page paced by a worker (adapted after its first settle), about as far apart as one frame costs
 * for the others (adapted MEASURE_MS into the first settle, ProbeRun.adaptEarly), so that restores and baselines
 * leave the budget to the controls.
 */
export const FRAME_COST_TARGET_MS = 250;
/**
 * The mark from which a page is heavy (its frames then adapt, from FRAME_COST_TARGET_MS): CPU ms of its main thread
 * per page second (`ProbeRun.costOf`, Chrome's ThreadTime) as large as the page time they span, so that at 16 ms
 * frames the page clock would run slower than real time. Measured 2026-11-28 (Chromium 156, a 2-core VM), over the
 * first 64 page ms: a blank page 53 (the clock's own calls), an empty `requestAnimationFrame` loop 116, a canvas
 * filled every frame 170-190, the requirement tests' game fixture 192 and, with six CPU hogs beside it, 310-400 (a
 * VM's thread time grows with its neighbours); the heavy fixtures 2,050 (worker-sim) to 65,000 (fractal). Before,
 * FRAME_COST_TARGET_MS of wall time was the mark: on a loaded CI machine the game fixture adapted to 32 ms frames
 * and its jump no longer reached the height its test asks for.
 */
export const HEAVY_FRAME_COST_MS = 1000;
export const MAX_FRAME_MS = 96;
/**
 * The bound on that interval for a page whose every frame costs more than MAX_FRAME_MS of CPU time
 * (`ProbeRun.adaptFrames(true)`, the probe's and the requirement tests'): frames about as far apart as one costs, so
 * about four a second at most; 256 keeps at least one frame inside a requirement test's 500 ms `moving` window and
 * inside a held key (KEY_HOLD_MS).
 */
export const PACED_MAX_FRAME_MS = 256;
/**
 * The probe's animation-frame interval on a heavy page (ProbeOptions `heavyFrameMs`), whatever its frames cost: four
 * frames a page second, so that the probe's cost on a heavy page is a few frames per run, not its frame rate times
 * the page time it moves; KEY_HOLD_MS, so that one frame falls inside every held key. Measured 2026-11-29 on the heavy
 * fixtures (bench/interaction.js, docs/heavy-pages.md): at the cost-paced 96-256 ms the probe's median was 9.9 s.
 */
export const PROBE_HEAVY_FRAME_MS = KEY_HOLD_MS;
/**
 * An animation-frame interval that holds a page's frames: none falls due within a settle (the visit's settle on a
 * busy page, ../../visit-clock.ts; the probe's settles on a heavy page, ProbeOptions `holdSettleFrames`).
 */
export const HELD_FRAME_MS = 1e9;

export const FIRST_LOAD_TIMEOUT_MS = 15_000;
export const RELOAD_TIMEOUT_MS = 5_000;
export const NETWORK_QUIET_CAP_MS = 1500;
export const SCREENSHOT_CAP_PX = 4000;
/** A page that hangs this many times during actions is given up. */
export const MAX_HANGS = 2;
/** Real milliseconds one call into the page may take. */
export const EVAL_MS = 3000;
/**
 * Real milliseconds a page may take to answer after a load, and the first move of its clock to end (ProbeOptions
 * `startUpMs`), for start-up work off the page clock that holds its main thread (a WebAssembly runtime compiling:
 * Pyodide's took 3.7–4.6 s on the corpus's pages, 2026-11-28): a page busy starting is not a page that stopped
 * answering. A page that never answers costs this per load (the probe: once; the requirement tests: per test,
 * at most MAX_HANGS times).
 */
export const START_UP_MS = 6000;
/**
 * Real milliseconds kept from the probe's budget for finishing: the last coverage read, closing the page, the
 * crops and closing the context. The steps run against the budget minus this, so the whole probe, its browser
 * context included, stays within its budget.
 */
export const FINISH_RESERVE_MS = 1500;

export const PROBE_CONFIG: ProbeConfig = {
  epochMs: Date.UTC(2026, 0, 15, 9, 0, 0),
  seed: 20260115,
  frameMs: 16,
  maxFires: 5000,
  maxAdvanceRealMs: 1500,
  // A move's call may take EVAL_MS (3 s): 1.5 s of callbacks, 1 s of waiting for requests, the last callback's overrun.
  maxNetworkWaitMs: 1000,
  maxElements: 4000,
};

/** How the start state is restored before each action (recorded in the settings). */
export const RESTORE = "reload of the entry page with the origin's storage and cookies cleared";
