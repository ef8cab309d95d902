/**
 * Where the time goes, over a results file: each timing key of the rows (the score document's `timings`: the
 * gatherers' `gather.<id>`, the visit's phases `visit.<phase>`, Lighthouse's hold and measured phase, the probe,
 * the static scoring ...), its median, 90th percentile and maximum in ms over the rows that have it, and its
 * median per model. A phase that grew shows here between two runs of one set of pages (`webgrade analyse`), the
 * way the Chromium 156 stalls in set-up, load or settle were found by hand before.
 */
import { max, median, quantileSorted } from 'simple-statistics';

export interface TimingRow {
  model: string;
  timings?: Record<string, number>;
}

export interface TimingKey {
  key: string;
  /** Rows with this timing. */
  rows: number;
  median: number;
  p90: number;
  max: number;
  /** Median per model (models with the timing only). */
  byModel: Record<string, number>;
}

/** Keys that are counts, not durations (the page loads per phase): left out. */
const COUNT_KEY = /^loads(\.|$)|Pct$/;

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Every duration key of the rows, slowest median first. */
export function timingSummary(rows: readonly TimingRow[]): TimingKey[] {
  const all = new Map<string, number[]>();
  const perModel = new Map<string, Map<string, number[]>>();
  for (const r of rows) {
    for (const [k, v] of Object.entries(r.timings ?? {})) {
      if (COUNT_KEY.test(k) || typeof v !== 'number' || !Number.isFinite(v) || v < 0) continue;
      let xs = all.get(k);
      if (!xs) all.set(k, (xs = []));
      xs.push(v);
      let m = perModel.get(k);
      if (!m) perModel.set(k, (m = new Map()));
      let ys = m.get(r.model);
      if (!ys) m.set(r.model, (ys = []));
      ys.push(v);
    }
  }
  const out: TimingKey[] = [];
  for (const [key, xs] of all) {
    const sorted = [...xs].sort((a, b) => a - b);
    const byModel: Record<string, number> = Object.create(null) as Record<string, number>;
    for (const [model, ys] of perModel.get(key)!) byModel[model] = round1(median(ys));
    out.push({ key, rows: xs.length, median: round1(median(sorted)), p90: round1(quantileSorted(sorted, 0.9)), max: round1(max(sorted)), byModel });
  }
  return out.sort((a, b) => b.median - a.median || a.key.localeCompare(b.key));
}
