/**
 * The CPU time of a page's main thread, from Chrome (`Performance.getMetrics`' `ThreadTime`, after
 * `Performance.enable` on the session): time the thread ran, not time it waited for a core. Costs measured with
 * it (the visit clock's busy share, the probe's frame cost) do not grow when the machine is loaded: a light page
 * stays light beside other work, where its wall time would make it look heavy.
 */
import type { CDPSession } from 'puppeteer-core';
import { TimeoutError, withTimeout } from './time.js';

/**
 * Chrome's performance counters of the page now (`Performance.getMetrics`), by name, finite non-negative values
 * only; 'timeout' when Chrome did not answer within `ms`, undefined when the call failed.
 */
export async function chromeMetrics(cdp: CDPSession, ms: number): Promise<Map<string, number> | 'timeout' | undefined> {
  try {
    const r = (await withTimeout(cdp.send('Performance.getMetrics'), ms, 'metrics')) as { metrics?: Array<{ name: string; value: number }> };
    const out = new Map<string, number>();
    for (const m of r.metrics ?? []) if (typeof m.value === 'number' && Number.isFinite(m.value) && m.value >= 0) out.set(m.name, m.value);
    return out;
  } catch (err) {
    return err instanceof TimeoutError ? 'timeout' : undefined;
  }
}

/** CPU seconds of the page's main thread so far; undefined when Chrome does not answer within `ms`. */
export async function threadSeconds(cdp: CDPSession, ms: number): Promise<number | undefined> {
  const m = await chromeMetrics(cdp, ms);
  return typeof m === 'object' ? m.get('ThreadTime') : undefined;
}
