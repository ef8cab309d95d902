/**
 * The CPU time of a page's main thread, from Chrome (`Performance.getMetrics`' `ThreadTime`, after
 * `Performance.enable` on the session): time the thread ran, not time it waited for a core. Costs measured with
 * it (the visit clock's busy share, the probe's frame cost) do not grow when the machine is loaded: a light page
 * stays light beside other work, where its wall time would make it look heavy.
 */
import type { CDPSession } from 'puppeteer-core';
import { withTimeout } from './time.js';

/** CPU seconds of the page's main thread so far; undefined when Chrome does not answer within `ms`. */
export async function threadSeconds(cdp: CDPSession, ms: number): Promise<number | undefined> {
  const r = (await withTimeout(cdp.send('Performance.getMetrics'), ms, 'metrics').catch(() => undefined)) as
    { metrics?: Array<{ name: string; value: number }> } | undefined;
  const v = r?.metrics?.find((m) => m.name === 'ThreadTime')?.value;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}
