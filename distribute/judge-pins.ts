/**
 * Which models really judged a set of rows (the `pin` of every judge metric's details; judges/gatherer.ts), and
 * the warnings that follow: a provider that served another model than the one asked (`batch`'s summary), and a
 * set of rows whose judge metric was served by more than one model (`leaderboard`, `merge`), which makes the
 * rows' judge scores incomparable. Rows from before pins were recorded say nothing and warn of nothing.
 */
import type { ResultRow } from '../core/results.js';

interface PinView {
  asked: string;
  served: string[];
}

function pinOf(details: unknown): PinView | null {
  const pin = (details as { pin?: { asked?: unknown; served?: unknown } } | undefined)?.pin;
  if (!pin || typeof pin.asked !== 'string' || !Array.isArray(pin.served)) return null;
  return { asked: pin.asked, served: pin.served.filter((s): s is string => typeof s === 'string') };
}

/** Per judge metric id: how many rows each served model judged. */
export function servedModels(rows: readonly ResultRow[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const r of rows) {
    for (const m of r.metrics ?? []) {
      if (m.kind !== 'judge') continue;
      const pin = pinOf(m.details);
      if (!pin) continue;
      const byModel = out.get(m.id) ?? new Map<string, number>();
      for (const s of pin.served) byModel.set(s, (byModel.get(s) ?? 0) + 1);
      out.set(m.id, byModel);
    }
  }
  return out;
}

/** One line per judge metric whose answers came from a model other than the one asked. */
export function servedNotAskedWarnings(rows: readonly ResultRow[]): string[] {
  const byKey = new Map<string, { id: string; asked: string; served: string; n: number }>();
  for (const r of rows) {
    for (const m of r.metrics ?? []) {
      const pin = m.kind === 'judge' ? pinOf(m.details) : null;
      for (const s of pin?.served ?? []) {
        if (s === pin!.asked) continue;
        const k = `${m.id}\u0000${pin!.asked}\u0000${s}`;
        const e = byKey.get(k) ?? { id: m.id, asked: pin!.asked, served: s, n: 0 };
        e.n++;
        byKey.set(k, e);
      }
    }
  }
  return [...byKey.values()].map((e) => `judge model: ${e.id} asked for ${e.asked}, the provider served ${e.served} (${e.n} row${e.n === 1 ? '' : 's'})`);
}

/** One line per judge metric whose rows were served by more than one model. */
export function mixedServedWarnings(rows: readonly ResultRow[]): string[] {
  const out: string[] = [];
  for (const [id, byModel] of servedModels(rows)) {
    if (byModel.size < 2) continue;
    const list = [...byModel]
      .sort((a, b) => b[1] - a[1])
      .map(([m, n]) => `${m} (${n} row${n === 1 ? '' : 's'})`)
      .join(', ');
    out.push(`judge model: the rows' ${id} scores come from different served models: ${list}; they are not comparable`);
  }
  return out;
}
