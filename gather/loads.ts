/**
 * How many times one artifact's entry or one of its pages was loaded, per phase of gathering (the visit, the
 * phone visit, the probe, Lighthouse, the fidelity render), counted from the sandbox's log: every top-level
 * document request (Chrome's `Sec-Fetch-Dest: document`) the sandbox answered from the artifact. The artifact's
 * server sends `Cache-Control: no-store`, so every load reaches the sandbox and none is counted twice. A probe's
 * in-app navigation to another file of the artifact is a load too; iframes are not.
 *
 * The counts go into the score document's timings as `loads` (all phases) and `loads.<phase>`; each phase's
 * time is beside them (`visit`, `mobile`, `interaction`, `lighthouse`), so the cost of a load is that time over
 * the count.
 */
import type { NetworkEntry } from '../core/network.js';

export function countLoads(log: readonly NetworkEntry[], origin: string): Record<string, number> {
  const out: Record<string, number> = {};
  let all = 0;
  for (const e of log) {
    if (e.destination !== 'document' || e.disposition !== 'artifact' || !e.url.startsWith(origin)) continue;
    out[`loads.${e.phase}`] = (out[`loads.${e.phase}`] ?? 0) + 1;
    all++;
  }
  return { loads: all, ...out };
}
