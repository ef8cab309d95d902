/**
 * What the runtime watch (gather/runtime/) saw of a page while it ran and was used, on real time: its animation
 * frames' cost, the frames Chrome dropped, how fast it answered the inputs webgrade sent, and how its memory
 * moved. Read by the extended suite's runtime performance metrics (metrics/performance/frame-smoothness.ts,
 * responsiveness.ts, memory-stability.ts). Plain, validated numbers: nothing here is the page's word unchecked.
 */

/** One animation frame of the page's main thread (Chrome's `AnimationFrame` trace event, LoAF's frame). */
export interface RuntimeFrame {
  /** When it began, ms from the start of the watch window. */
  at: number;
  /** Wall time from its first task to the end of its rendering (ms). */
  wallMs: number;
  /** Main-thread CPU time of the tasks inside it (ms, thread ticks): the page's own cost, not the machine's. */
  cpuMs: number;
  /**
   * Of `cpuMs`, the CPU time of the page's `requestAnimationFrame` callbacks (Chrome's `FireAnimationFrame`): the
   * work a script-driven animation does in the frame. Absent in evidence recorded before 2026-11-29.
   */
  rafCpuMs?: number;
}

/** One interaction webgrade sent (a key press or a click), as Event Timing measured it. */
export interface RuntimeInteraction {
  /** What was sent: `key ArrowRight`, `click 640,400`. */
  input: string;
  /**
   * Input to next paint (ms): the longest Event Timing `duration` of the interaction's events (keydown/keyup,
   * pointerdown/pointerup/click), rounded by Chrome to 8 ms; null when the page had no handler whose work pushed
   * the paint past 16 ms (Event Timing does not report faster events) — the interaction was fast.
   */
  latencyMs: number | null;
  /** The event type whose duration it is (`keydown`, `pointerup` ...), when reported. */
  event?: string;
  /** Time spent in the page's handlers (ms, wall), when reported. */
  processingMs?: number;
  /**
   * Real ms from sending the input to Chrome's answer that the page handled it; absent when the page had not
   * handled it by the end of the watch (its main thread never took it: a page that does not answer).
   */
  answeredMs?: number;
  /**
   * CPU time of the page's handlers of this input's events (ms, thread time, from the trace): their own cost,
   * which a loaded machine does not stretch. Absent when no event of it reached the page's main thread.
   */
  handlerCpuMs?: number;
}

/** JS heap and DOM size at one moment, after a full garbage collection. */
export interface MemorySample {
  /** ms from the start of the watch window. */
  at: number;
  /** V8 heap in use (bytes, `Runtime.getHeapUsage` usedSize). */
  heapBytes: number;
  /** DOM nodes alive (`Memory.getDOMCounters` nodes). */
  nodes: number;
  /** Event listeners alive (`Memory.getDOMCounters` jsEventListeners). */
  listeners: number;
}

export interface RuntimeEvidence {
  /**
   * Whether the window's trace was read: without it there are no frames and no handler CPU times (a trace that did
   * not start or was not handed over in time; `faults` says which), and an empty `frames` means nothing.
   */
  traced: boolean;
  /** The watch window's real length (ms): the frames and memory figures' window, inputs excluded. */
  windowMs: number;
  /**
   * The page's animation frames in the window (at most MAX_FRAMES, in order). Empty when the page did not render
   * during the window: nothing animates (a still page, or one whose only animation runs on the compositor).
   */
  frames: RuntimeFrame[];
  /**
   * Chrome's own frame accounting over the window (its `PipelineReporter`, the source of its smoothness
   * metric): frames presented, and frames dropped that affected smoothness. Wall-time figures: a loaded
   * machine drops frames a quiet one presents.
   */
  presented: number;
  dropped: number;
  /** The inputs sent after the window, in order, with what Event Timing measured. */
  interactions: RuntimeInteraction[];
  /**
   * The input event types (key, pointer, mouse, click, touch) the page listens to anywhere (window, document,
   * elements): none means the inputs had nothing to answer them. Absent when it could not be read.
   */
  inputListeners?: string[];
  /**
   * When `inputListeners` was read: after the inputs (the usual reading), or before the window when that one could
   * not be read (a page whose frames outlasted the call's limit); listeners the page added as it ran are missing from
   * the earlier one. Absent in evidence recorded before 2026-11-29 (after the inputs).
   */
  inputListenersRead?: 'after the inputs' | 'before the window';
  /** Real ms the watch waited, from the first input sent, for the page to handle them all. */
  inputWaitMs?: number;
  /** Memory at the start and end of the window, then after the inputs. */
  memory: MemorySample[];
  /** Main-thread CPU share (0–1) over the window: Chrome's TaskDuration in thread ticks over wall time. */
  busyCpu?: number;
  /** The same over wall time (TaskDuration in wall ticks is not kept; this is the trace's top-level tasks' wall time). */
  busyWall?: number;
  /** Long Animation Frame entries (over 50 ms) the page's isolated world saw in the window: a second witness. */
  longFrames?: number;
  /** What went wrong or was cut (a step that timed out, a trace that failed): the figures are partial then. */
  faults: string[];
  /** Real ms of the whole watch (load included), per step. */
  timings: Record<string, number>;
}
