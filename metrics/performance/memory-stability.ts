/**
 * memory-stability (extended suite, performance; SPEC "Suites", issue 44): whether the page keeps memory it no
 * longer needs while it runs, so that a long session slows down and ends in a crashed tab.
 *
 * Measures: the runtime watch (gather/runtime/) collects garbage and reads the JS heap in use and the DOM nodes
 * alive three times: at the start of its real-time window, at its end (about 1 s later) and after its inputs.
 * Growth per minute is the smaller of the two stretches' rates (a leak grows in both; a one-off allocation — the
 * JIT warming up, a first key press building a level — in one only). Score: the lower of
 * `logScale(heap MB/min, 20, 200)` and `logScale(nodes/min, 300, 30000)`: a page keeping 1 MB a second (60 MB/min)
 * scores 52.
 *
 * Interpretations:
 * - Each reading's time is Chrome's own (`Timestamp`, read with the counters), not the time the request was sent: on
 *   a loaded machine the collection can take a second, which would credit growth to the wrong stretch.
 * - After a full garbage collection: what the page keeps, not what it churns.
 * - A small allowance (20 MB and 300 nodes a minute) before any loss: two seconds cannot tell a slow leak from a
 *   page still starting up; what it catches is fast growth, the kind that fills a tab within minutes.
 * - Unscorable unless all three samples were taken: one stretch alone cannot tell a leak from a one-off
 *   allocation (a page busy on every frame, whose calls time out, is read twice at most).
 *
 * Cannot see: leaks slower than the allowance, memory outside V8's heap and the DOM (canvas backing stores, WebGL
 * buffers, images, audio), workers' heaps, and growth that starts later or only with use the inputs do not make.
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { present } from '../../core/evidence.js';
import { logScale, round1 } from '../lib/runtime.js';

export const GOOD_HEAP_MB_PER_MIN = 20;
export const BAD_HEAP_MB_PER_MIN = 200;
export const GOOD_NODES_PER_MIN = 300;
export const BAD_NODES_PER_MIN = 30_000;

const memoryStability: MetricDefinition = {
  number: 35,
  id: 'memory-stability',
  perspective: 'performance',
  kind: 'rule',
  needs: ['runtime'],
  title: 'Memory stability',
  question: 'Does the page keep its memory steady while it runs?',
  suite: 'extended',
  score(evidence) {
    const r = present(evidence.runtime, 'runtime evidence');
    const m = r.memory;
    if (m.length < 3)
      return unscorable(`the page’s memory was read ${m.length} time${m.length === 1 ? '' : 's'}, not the three a rate needs`, {
        samples: m,
        faults: r.faults,
      });
    // Per stretch between two samples: growth per minute; the rate is the smallest over the stretches.
    const rates = m.slice(1).map((b, i) => {
      const a = m[i]!;
      const min = Math.max(1, b.at - a.at) / 60_000;
      return { heap: (b.heapBytes - a.heapBytes) / 1e6 / min, nodes: (b.nodes - a.nodes) / min };
    });
    const heap = Math.max(0, Math.min(...rates.map((x) => x.heap)));
    const nodes = Math.max(0, Math.min(...rates.map((x) => x.nodes)));
    const score = Math.min(logScale(heap, GOOD_HEAP_MB_PER_MIN, BAD_HEAP_MB_PER_MIN), logScale(nodes, GOOD_NODES_PER_MIN, BAD_NODES_PER_MIN));
    const first = m[0]!;
    const last = m[m.length - 1]!;
    const growing = heap > GOOD_HEAP_MB_PER_MIN || nodes > GOOD_NODES_PER_MIN;
    return scored(
      score,
      growing
        ? `memory keeps growing while the page runs: ${round1(heap)} MB of JS heap and ${Math.round(nodes)} DOM nodes a minute`
        : `memory steady while the page runs (${round1(heap)} MB/min of heap, ${Math.round(nodes)} nodes/min)`,
      {
        heapMbPerMin: round1(heap),
        nodesPerMin: Math.round(nodes),
        heapStartMb: round1(first.heapBytes / 1e6),
        heapEndMb: round1(last.heapBytes / 1e6),
        samples: m,
        ...(r.faults.length ? { faults: r.faults } : {}),
      },
    );
  },
};

export default memoryStability;
