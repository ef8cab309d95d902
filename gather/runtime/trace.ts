/**
 * Reading a Chrome trace of the watch window into frames (pure: tested on synthetic events). What is read:
 * - the page's renderer: the process of the top frame `TracingStartedInBrowser` names, its `CrRendererMain`
 *   thread;
 * - frames: Chrome's `AnimationFrame` async events on that thread (category `devtools.timeline`; the frame the
 *   Long Animation Frames API reports, but every one of them, not only those over 50 ms): from the first task
 *   after the previous rendering to the end of this one;
 * - each frame's CPU cost: the thread time (`tdur`) of the top-level `RunTask`s that start inside it. Thread time
 *   is what the page's own work costs; wall time also counts the waits for a CPU another process holds;
 * - of that cost, the part in the page's own `requestAnimationFrame` callbacks (`FireAnimationFrame`'s thread
 *   time): the work an animation driven by script does each frame, beside its start-up, timers and events;
 * - Chrome's own accounting of the frames it presented and dropped (`PipelineReporter`, the source of its
 *   smoothness metric), dropped frames counted only where Chrome says they affect smoothness.
 * Everything is a number checked for its type; a trace event is Chrome's, but its arguments can carry the page's
 * strings (URLs, names), none of which are read.
 */
import type { RuntimeFrame } from '../../core/runtime-evidence.js';

/** The categories the watch records (nothing else: the trace stays small). */
export const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame'] as const;

/** The `console.timeStamp` label that marks the end of the window and the start of the inputs. */
export const INPUTS_MARK = 'webgrade-runtime-inputs';

/** The dispatched event types an input webgrade sends makes (the order inside a group does not matter). */
const INPUT_TYPES = new Set(['keydown', 'keypress', 'keyup', 'pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']);

/** At most this many frames are kept (a 1 s window at 120 Hz has 120). */
export const MAX_FRAMES = 1000;

/** A trace event as Chrome sends it (only the fields read here). */
export interface TraceEvent {
  name?: unknown;
  ph?: unknown;
  pid?: unknown;
  tid?: unknown;
  ts?: unknown;
  dur?: unknown;
  tdur?: unknown;
  id?: unknown;
  id2?: unknown;
  args?: unknown;
}

export interface TraceReading {
  frames: RuntimeFrame[];
  presented: number;
  dropped: number;
  /** Wall time of the main thread's top-level tasks in the window (ms). */
  busyWallMs: number;
  /** The window the trace covered (ms, first to last event of the page's main thread), 0 when none. */
  spanMs: number;
  /**
   * After the inputs mark (INPUTS_MARK), the input events the page's main thread dispatched, grouped by
   * interaction (a group begins with a `keydown` or a `pointerdown`), with the CPU time (ms) of their dispatch:
   * the page's handlers' own cost.
   */
  handlers: Array<{ type: string; cpuMs: number }>;
  /** Why nothing could be read, when so. */
  fault?: string;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The page's renderer process and main thread, from the trace's own metadata. */
export function pageThread(events: readonly TraceEvent[]): { pid: number; tid: number } | undefined {
  let pid: number | undefined;
  for (const e of events) {
    if (e.name !== 'TracingStartedInBrowser') continue;
    const frames = obj(obj(e.args)?.data)?.frames;
    if (!Array.isArray(frames)) continue;
    const top = frames.map(obj).find((f) => f && !f.parent && num(f.processId) !== undefined);
    pid = num(top?.processId);
    if (pid !== undefined) break;
  }
  if (pid === undefined) return undefined;
  for (const e of events)
    if (e.name === 'thread_name' && e.pid === pid && obj(e.args)?.name === 'CrRendererMain') {
      const tid = num(e.tid);
      if (tid !== undefined) return { pid, tid };
    }
  return undefined;
}

/** The trace of one watch window read into frames, presented and dropped counts. `from`: trace µs of the window start (default: the first event of the page's main thread). */
export function readTrace(events: readonly TraceEvent[], from?: number, to?: number): TraceReading {
  const empty: TraceReading = { frames: [], presented: 0, dropped: 0, busyWallMs: 0, spanMs: 0, handlers: [] };
  const where = pageThread(events);
  if (!where) return { ...empty, fault: "the trace does not name the page's renderer" };
  const { pid, tid } = where;
  // The window ends at the inputs mark when there is one: frames and tasks after it belong to the inputs.
  if (to === undefined)
    for (const e of events) if (e.name === 'TimeStamp' && e.pid === pid && e.tid === tid && obj(obj(e.args)?.data)?.message === INPUTS_MARK) to = num(e.ts);
  const dispatches: Array<{ ts: number; end: number; type: string; cpu: number }> = [];
  const tasks: Array<{ ts: number; end: number; cpu: number }> = [];
  const begins = new Map<string, number>();
  const spans: Array<{ ts: number; end: number }> = [];
  const callbacks: Array<{ ts: number; cpu: number }> = [];
  let presented = 0;
  let dropped = 0;
  let first = Infinity;
  let last = -Infinity;
  const inWindow = (ts: number) => (from === undefined || ts >= from) && (to === undefined || ts <= to);
  for (const e of events) {
    const ts = num(e.ts);
    if (ts === undefined || e.ph === 'M' || e.pid !== pid) continue;
    if (to !== undefined && ts > to && e.tid === tid && e.name === 'EventDispatch' && e.ph === 'X') {
      const type = obj(obj(e.args)?.data)?.type;
      const dur = num(e.dur);
      if (typeof type === 'string' && INPUT_TYPES.has(type) && dur !== undefined) dispatches.push({ ts, end: ts + dur, type, cpu: num(e.tdur) ?? dur });
    }
    if (!inWindow(ts)) continue;
    if (e.name === 'PipelineReporter' && e.ph === 'b') {
      const r = obj(obj(e.args)?.frame_reporter);
      const state = r?.state;
      if (state === 'STATE_PRESENTED_ALL' || state === 'STATE_PRESENTED_PARTIAL') presented++;
      else if (state === 'STATE_DROPPED' && r?.affects_smoothness === true) dropped++;
      continue;
    }
    if (e.tid !== tid) continue;
    first = Math.min(first, ts);
    last = Math.max(last, ts + (num(e.dur) ?? 0));
    if (e.name === 'RunTask' && e.ph === 'X') {
      const dur = num(e.dur);
      if (dur !== undefined && dur >= 0) tasks.push({ ts, end: ts + dur, cpu: Math.max(0, num(e.tdur) ?? dur) });
    } else if (e.name === 'FireAnimationFrame' && e.ph === 'X') {
      const dur = num(e.dur);
      if (dur !== undefined && dur >= 0) callbacks.push({ ts, cpu: Math.max(0, num(e.tdur) ?? dur) });
    } else if (e.name === 'AnimationFrame' && (e.ph === 'b' || e.ph === 'e')) {
      const id = typeof e.id === 'string' || typeof e.id === 'number' ? String(e.id) : JSON.stringify(obj(e.id2) ?? null);
      if (e.ph === 'b') begins.set(id, ts);
      else {
        const b = begins.get(id);
        begins.delete(id);
        if (b !== undefined && ts >= b) spans.push({ ts: b, end: ts });
      }
    }
  }
  // Top-level tasks only: a task nested in another (a nested run loop) is already in its parent's time.
  tasks.sort((a, b) => a.ts - b.ts);
  const top: typeof tasks = [];
  for (const t of tasks) if (!top.length || t.ts >= top[top.length - 1]!.end) top.push(t);
  spans.sort((a, b) => a.ts - b.ts);
  callbacks.sort((a, b) => a.ts - b.ts);
  const start = from ?? (Number.isFinite(first) ? first : 0);
  const frames: RuntimeFrame[] = [];
  let i = 0;
  let k = 0;
  for (const s of spans.slice(0, MAX_FRAMES)) {
    while (i < top.length && top[i]!.ts < s.ts) i++;
    while (k < callbacks.length && callbacks[k]!.ts < s.ts) k++;
    let cpu = 0;
    for (let j = i; j < top.length && top[j]!.ts <= s.end; j++) cpu += top[j]!.cpu;
    // Callbacks of one frame run one after another in its rendering step: none is nested in another.
    let script = 0;
    for (let j = k; j < callbacks.length && callbacks[j]!.ts <= s.end; j++) script += callbacks[j]!.cpu;
    frames.push({
      at: round((s.ts - start) / 1000),
      wallMs: round((s.end - s.ts) / 1000),
      cpuMs: round(cpu / 1000),
      rafCpuMs: round(Math.min(cpu, script) / 1000),
    });
  }
  const busyWallMs = round(top.reduce((a, t) => a + (t.end - t.ts), 0) / 1000);
  const spanMs = Number.isFinite(first) ? round(((to ?? last) - start) / 1000) : 0;
  return { frames, presented, dropped, busyWallMs, spanMs, handlers: inputGroups(dispatches) };
}

/** Top-level input dispatches grouped by interaction (see TraceReading.handlers). */
function inputGroups(dispatches: Array<{ ts: number; end: number; type: string; cpu: number }>): TraceReading['handlers'] {
  dispatches.sort((a, b) => a.ts - b.ts);
  const groups: TraceReading['handlers'] = [];
  let end = -Infinity;
  for (const d of dispatches) {
    if (d.ts < end) continue; // dispatched from inside another handler: in its time already
    end = d.end;
    if (d.type === 'keydown' || d.type === 'pointerdown' || !groups.length) groups.push({ type: d.type, cpuMs: 0 });
    const g = groups[groups.length - 1]!;
    g.cpuMs = round(g.cpuMs + d.cpu / 1000);
    if (groups.length >= 100) break;
  }
  return groups;
}

const round = (x: number) => Math.round(x * 100) / 100;
