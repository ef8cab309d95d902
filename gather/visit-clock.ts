/**
 * The visit on a page clock of our own from the first byte (issue 45, `--visit-clock page`): the interaction
 * probe's main-world clock (interaction/page/main/clock.ts: timers, animation frames, idle callbacks, `Date`,
 * `performance.now`, and with the document timeline stopped CSS, Web and SVG animations) installed before any
 * page script, in its clock-only form (no recorders: the visit's page keeps its own dialogs, sound and canvases).
 * The page's clock starts at 0 with the document and moves only when the visit moves it; network waits are not
 * counted (the settle waits for the network to go quiet before and after moving it). So a page that draws in
 * `requestAnimationFrame` (a d3 transition, a bar-chart race), a message shown by a timer and a CSS animation are
 * at the same moment of their start-up when the visit collects them, on every run and on every machine speed.
 *
 * The settle on this clock, after load (`settle`):
 * 1. the network goes quiet (at most NETWORK_QUIET_CAP_MS);
 * 2. FIRST_MS of page time (start-up timers, the first frame); this is the page's answer: a page that does not
 *    end it within the responsiveness limit is unresponsive, as with the real-time probe; then the network goes
 *    quiet again (what those timers fetched has arrived);
 * 3. MEASURE_MS more at 16 ms frames: the main thread's CPU time over them per page millisecond is the busy share
 *    (`BrowserEvidence.busyAfterLoad`): the share of its main thread the page would keep busy on real time at 60
 *    frames a second, measured on the page's own work, not on how long the machine made us wait;
 * 4. the rest of SETTLE_TOTAL_MS: at 16 ms frames on a light page; on a page busy from HOLD_FRAMES_BUSY (its frames
 *    cost 16 ms of CPU or more) with its animation frames held from here (its picture is its fourth frame), its
 *    timers still running, so that a page costing a second a frame does not cost a minute of frames here. One
 *    mark only, decided on a deterministic workload (the same frames on every run): an earlier second mark on the
 *    first frame's cost sat on the cloth fixture's and flipped its picture between runs;
 * 5. the network goes quiet again.
 * A move that reaches MAX_MOVE_REAL_MS of real time stops there (the page's clock fell behind, said in the faults):
 * only then does what is collected depend on the machine.
 *
 * The page's own fetches and XHRs hold the clock while they are in flight (interaction/page/main/network.ts, at
 * most MOVE_NETWORK_WAIT_MS a move): what they bring is handled at the page time they were asked for.
 *
 * What stays on real time: what a worker computes (a page that started one gets its page time paced by real time,
 * as in the probe), the network (its waits are not page time), video and audio.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import { agentKeys, agentScript, type AgentInit } from './interaction/page-script.js';
import type { Moved } from './interaction/page/main/clock.js';
import { bounded } from './isolated-world.js';
import { HELD_FRAME_MS } from './interaction/probe/limits.js';
import { withTimeout } from './time.js';
import { threadSeconds } from './thread-time.js';

/** Page ms moved first after load, at 16 ms frames (one frame). */
export const FIRST_MS = 16;
/** Page ms whose CPU cost is the busy share (two frames at 16 ms). */
export const MEASURE_MS = 32;
/**
 * Page ms the settle moves in all: the real-time visit's 300 ms settle and 1 s run-on (visit.ts), so that the
 * two clocks collect a page at about the same moment of its start-up.
 */
export const SETTLE_TOTAL_MS = 1300;
/**
 * The busy share (`busyShare`, at most 1) from which the settle holds a page's animation frames: frames costing as
 * much CPU time as the 16 ms they span (the probe's mark too: interaction/probe/limits.ts HEAVY_FRAME_COST_MS).
 * It was NEVER_IDLE_BUSY (0.5, frames of 8 ms): arena-animated in the corpus (a d3 bar-chart race) measures 0.48
 * in one run and 0.76 in the next on the 2-core VM, so its frames were held in one run and not in the other and
 * every picture of it differed (stability benchmark, 2026-11-29). Light corpus pages measure 0.01–0.06, the heavy
 * fixtures' frames cost 24 ms (cloth) to a second (fractal): all 1.
 */
export const HOLD_FRAMES_BUSY = 1;
/** Real ms one move of the clock may take (the agent stops there and says the clock fell behind). */
export const MAX_MOVE_REAL_MS = 3000;
/** Real ms one move may wait for the page's fetches and XHRs to answer (not counted in MAX_MOVE_REAL_MS). */
export const MOVE_NETWORK_WAIT_MS = 1500;
/** Real ms the answer to one move may take: its callbacks, its waits, the last callback's overrun. */
export const MOVE_CALL_MS = MAX_MOVE_REAL_MS + MOVE_NETWORK_WAIT_MS + 2000;
/** Real ms the settle waits for the network to go quiet, before and after moving the clock. */
export const NETWORK_QUIET_CAP_MS = 1500;
/** The visit's fixed start date (the probe's: the same page reads the same date in both). */
const EPOCH_MS = Date.UTC(2026, 0, 15, 9, 0, 0);
/** At most this many callbacks per move (a storm of timers stops there). */
const MAX_FIRES = 5000;
/** Frames at 60 a second. */
const FRAME_MS = 16;

/** What one move of the page clock did (the agent's answer, interaction/page/main/clock.ts), validated. */
export interface ClockMove extends Moved {
  /** Workers the page started (its clock is then paced by real time). */
  workers: number;
}

/** What the settle on the page clock found. */
export interface ClockSettle {
  /** The busy share (0–1) over MEASURE_MS. */
  busy: number;
  /** Why the clock fell behind (undefined: it did not). */
  behind?: string;
}

/** A number from the page, or a default when it is not a finite number. */
const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);

/** The agent's answer to a move, held to plain numbers and booleans. */
export function clockMove(raw: unknown): ClockMove {
  const v = (bounded(raw) ?? {}) as Record<string, unknown>;
  return {
    fired: Math.max(0, num(v.fired)),
    storm: v.storm === true,
    slow: v.slow === true,
    realMs: Math.max(0, num(v.realMs)),
    moved: Math.max(0, num(v.moved)),
    now: Math.max(0, num(v.now)),
    workers: Math.max(0, num(v.workers)),
  };
}

/**
 * The busy share of a move: CPU ms of the page's main thread (Chrome's `ThreadTime`: neither the real-time pacing
 * of a page with a worker, which sleeps, nor waiting for a core on a loaded machine counts) per page ms moved, at
 * most 1; a storm of callbacks is 1.
 */
export function busyShare(m: ClockMove, taskMs: number): number {
  if (m.storm) return 1;
  return Math.min(1, Math.max(0, taskMs) / Math.max(1, m.moved));
}

/** The page clock of one visit's page: installed before navigation, moved by the settle. */
export class VisitClock {
  private readonly keys = agentKeys();

  constructor(
    private readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly seed: number,
  ) {}

  /** Before navigation: the clock (with the seeded randomness) in every document, the document timeline stopped. */
  async install(): Promise<void> {
    const init: AgentInit = {
      ...this.keys,
      epochMs: EPOCH_MS,
      frameMs: FRAME_MS,
      maxFires: MAX_FIRES,
      maxAdvanceRealMs: MAX_MOVE_REAL_MS,
      maxNetworkWaitMs: MOVE_NETWORK_WAIT_MS,
      clockOnly: true,
    };
    await Promise.all([
      this.page.evaluateOnNewDocument(agentScript(init, this.seed)),
      this.cdp.send('Animation.setPlaybackRate', { playbackRate: 0 }),
      // For the main thread's CPU time (`threadSeconds`).
      this.cdp.send('Performance.enable'),
    ]);
  }

  /** Ask the agent (`window[name](secret, op, args)`, an expression the page cannot redirect) within `ms`. */
  private async ask(op: string, args: unknown[], ms: number): Promise<unknown> {
    const { name, secret } = this.keys;
    const expression = `window[${JSON.stringify(name)}](${JSON.stringify(secret)}, ${JSON.stringify(op)}, ${JSON.stringify(JSON.stringify(args))})`;
    const r = (await withTimeout(this.cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }), ms, `page clock ${op}`)) as {
      result: { value?: unknown };
      exceptionDetails?: { text: string };
    };
    if (r.exceptionDetails)
      throw new Error(
        `page clock ${op}: ${(r.exceptionDetails as { exception?: { description?: string } }).exception?.description?.split('\n')[0] ?? r.exceptionDetails.text}`,
      );
    const raw = r.result.value;
    if (typeof raw !== 'string' || raw === '') throw new Error(`page clock ${op}: the clock is not in this document`);
    return JSON.parse(raw) as unknown;
  }

  /** Move the clock `ms` page ms (timeout: real ms the answer may take). */
  async advance(ms: number, timeoutMs: number): Promise<ClockMove> {
    return clockMove(await this.ask('advance', [ms], timeoutMs));
  }

  private async frames(ms: number, timeoutMs: number): Promise<void> {
    await this.ask('setFrameMs', [ms], timeoutMs);
  }

  /** Wait until no request is in flight, at most `capMs`. */
  private async quiet(capMs: number): Promise<void> {
    if (capMs <= 0) return;
    await this.page.waitForNetworkIdle({ idleTime: 50, timeout: capMs, concurrency: 0 }).catch(() => undefined);
  }

  /**
   * The settle (steps in the module comment). `answerMs`: real ms the first move may take (the page's answer, its
   * start-up work off the clock included); `left()`: real ms left in the visit's budget. Throws a TimeoutError when
   * the page does not answer.
   */
  async settle(answerMs: number, left: () => number): Promise<ClockSettle> {
    const limit = (ms: number) => Math.max(1, Math.min(ms, left()));
    await this.quiet(Math.min(NETWORK_QUIET_CAP_MS, left()));
    const first = await this.advance(FIRST_MS, limit(answerMs));
    // What the page fetched from its first timers and frame arrives before the clock moves on (a page timing its
    // own fetch with `performance.now()`, datasette-extras-explorer, showed 16 ms in one run and 1,300 in the next).
    await this.quiet(Math.min(NETWORK_QUIET_CAP_MS, left()));
    const t1 = await threadSeconds(this.cdp, limit(2000));
    const measure = await this.advance(MEASURE_MS, limit(MOVE_CALL_MS));
    const t2 = await threadSeconds(this.cdp, limit(2000));
    const moves = [first, measure];
    // Without Chrome's count, the move's own real time (an estimate from above: it includes the yields and waits).
    const cpuMs = t1 !== undefined && t2 !== undefined ? (t2 - t1) * 1000 : measure.realMs;
    const busy = busyShare(measure, cpuMs);
    const heavy = measure.storm || busy >= HOLD_FRAMES_BUSY;
    if (heavy) await this.frames(HELD_FRAME_MS, limit(2000));
    const moved = moves.reduce((sum, m) => sum + m.moved, 0);
    moves.push(await this.advance(SETTLE_TOTAL_MS - moved, limit(MOVE_CALL_MS)));
    await this.quiet(Math.min(NETWORK_QUIET_CAP_MS, left()));
    const out: ClockSettle = { busy };
    const behind = moves.find((m) => m.storm || m.slow);
    if (behind) out.behind = behind.storm ? `over ${MAX_FIRES} callbacks in one move` : `a move took over ${MAX_MOVE_REAL_MS} real ms`;
    return out;
  }
}
