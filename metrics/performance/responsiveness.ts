/**
 * responsiveness (extended suite, performance; SPEC "Suites", issue 44): whether the page answers a key press or
 * a click before the player notices a lag.
 *
 * Measures: the runtime watch (gather/runtime/) sends three key presses (ArrowRight, ArrowUp, Space) and a click
 * at the viewport's centre, 50 ms apart, to a page running on real time; for each it has the CPU time of the
 * page's handlers (thread time of their dispatch, from the trace) and Event Timing's input-to-next-paint
 * (INP's per-interaction figure, wall time). Score from the slowest interaction's handler CPU time h:
 * `logScale(h, 50, 500)`: 100 up to 50 ms (about three frames: felt as instant), 0 from 500 ms (web-vitals'
 * "poor" INP), each doubling in between costing the same points (a 200 ms handler scores 40). The slowest
 * interaction is named, with its INP.
 *
 * Interpretations:
 * - The handlers' CPU time, not Event Timing's wall-time latency: the page's own cost, which the machine's load
 *   and the scorer's concurrency do not stretch; the INP figure (what web-vitals would report) is in the details.
 * - An input the page had not taken by the end of the watch (Chrome never got its answer: a main thread that never
 *   rests) scores 0, named: a player's key press there is lost or answered seconds later.
 * - Unscorable when the page listens to no key, pointer, mouse, click or touch event (nothing to answer: a still
 *   page is not penalised), when no input could be sent, or when the trace could not be read.
 * - The listeners are read after the inputs; when that reading times out, the one made before the window stands in,
 *   except that a page it found listening to nothing whose handlers cost over GOOD_HANDLER_MS in the trace (listeners
 *   added as it ran: a start screen's game) is scored on them.
 * - Unscorable, too, when the listeners could not be read (a main thread that answered no call in time) and no
 *   handler cost more than GOOD_HANDLER_MS: a page that listens to nothing and one that answers at once then look
 *   alike, and 100 would credit the first with an answer it never gave. A handler over GOOD_HANDLER_MS is a
 *   listener however the reading went: scored.
 * - The inputs are the same for every page: a game bound to other keys, or a button away from the centre, is
 *   measured on what these inputs reach. Handlers the inputs do not reach cost nothing here.
 *
 * Cannot see: the delay before a handler runs when the main thread is busy with the page's own frames (it is
 * frame-smoothness's cost), work a handler schedules for later (a timer, a fetch answer), rendering cost after
 * the handler, and the probe's and the requirement tests' own inputs (they run on the probe's page clock; their
 * pages are not traced).
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { present } from '../../core/evidence.js';
import { logScale, round1 } from '../lib/runtime.js';

/** Handler CPU time felt as instant (ms), and the time from which the page is unusable for a player. */
export const GOOD_HANDLER_MS = 50;
export const BAD_HANDLER_MS = 500;

const responsiveness: MetricDefinition = {
  number: 34,
  id: 'responsiveness',
  perspective: 'performance',
  kind: 'rule',
  needs: ['runtime'],
  title: 'Responsiveness',
  question: 'Does the page answer a key press or a click within a few frames?',
  suite: 'extended',
  score(evidence) {
    const r = present(evidence.runtime, 'runtime evidence');
    // A costly handler in the trace is a listener, whatever an early reading of the listeners said.
    const costly = r.traced && r.interactions.some((x) => (x.handlerCpuMs ?? 0) > GOOD_HANDLER_MS);
    if (r.inputListeners && r.inputListeners.length === 0 && !(r.inputListenersRead === 'before the window' && costly))
      return unscorable('the page listens to no key, pointer or click input: nothing to answer', { faults: r.faults });
    if (!r.interactions.length) return unscorable('no input could be sent to the page', { faults: r.faults });
    if (!r.traced) return unscorable(`the handlers' cost was not measured (${r.faults.join('; ') || 'no trace'})`, { faults: r.faults });
    const unanswered = r.interactions.filter((x) => x.answeredMs === undefined);
    if (unanswered.length)
      return scored(0, `the page did not take ${unanswered[0]!.input} within ${r.inputWaitMs ?? '?'} ms: its main thread never rested`, {
        unanswered: unanswered.map((x) => x.input),
        inputWaitMs: r.inputWaitMs ?? null,
        interactions: r.interactions,
        ...(r.faults.length ? { faults: r.faults } : {}),
      });
    const rows = r.interactions.map((x) => ({ input: x.input, handlerCpuMs: x.handlerCpuMs ?? 0, inpMs: x.latencyMs }));
    const worst = rows.reduce((a, b) => (b.handlerCpuMs > a.handlerCpuMs ? b : a));
    if (!r.inputListeners && worst.handlerCpuMs <= GOOD_HANDLER_MS)
      return unscorable(`the page's input listeners could not be read and no input cost it over ${GOOD_HANDLER_MS} ms: whether it answers inputs is unknown`, {
        interactions: rows,
        faults: r.faults,
      });
    const inps = rows.map((x) => x.inpMs ?? 0);
    const inp = Math.max(...inps);
    const h = round1(worst.handlerCpuMs);
    return scored(
      logScale(worst.handlerCpuMs, GOOD_HANDLER_MS, BAD_HANDLER_MS),
      h > GOOD_HANDLER_MS
        ? `the slowest input (${worst.input}) kept the page busy ${h} ms before it could paint (INP ${inp} ms)`
        : `every input answered within a few frames (slowest handler ${h} ms: ${worst.input}; INP ${inp} ms)`,
      {
        slowest: { input: worst.input, handlerCpuMs: h, inpMs: worst.inpMs },
        inpMs: inp,
        interactions: rows,
        listens: r.inputListeners ?? null,
        note: 'INP is Event Timing’s input-to-next-paint in wall time, under 16 ms when not reported (null)',
        ...(r.faults.length ? { faults: r.faults } : {}),
      },
    );
  },
};

export default responsiveness;
