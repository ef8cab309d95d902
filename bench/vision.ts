/**
 * Vision benchmark (issue: screenshot vision metrics): over N corpus pages, gather the browser evidence once per
 * page (screenshots and media; no Lighthouse, since none of these metrics reads it), then time the five vision
 * and media metrics together on that evidence. Gathering is not counted: the figure is the cost of the metrics.
 * Each page's metrics are run twice and the second run is timed, so opencv-wasm's one-time start-up is paid
 * before timing (it is reported separately as the first run's extra cost).
 *
 *   node dist/bench/vision.js [--pages 30] [--dir DIR]
 *
 * Prints per metric and for the five together: median and p90 ms per page, and the score spread.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { findMetric } from '../metrics/registry.js';
import type { MetricDefinition } from '../core/metric.js';
import { Scorer } from '../runner/score.js';
// Through the runner, as scoring does: a metric whose evidence is missing (a screenshot step that timed out on a
// loaded machine) is unscorable with the gatherer's reason; its own `score` assumes the evidence is there.
import { runMetric } from '../runner/run-metric.js';
import { benchArgs, corpusDir, inputDir } from './common.js';

const IDS = ['layout-consistency', 'layout-sparsity', 'color-harmony', 'media-quality', 'placeholder-quality'];

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (pos - lo);
}
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');

async function main(): Promise<void> {
  const { values: args } = benchArgs('usage: node dist/bench/vision.js [--pages 30] [--dir DIR]', {
    pages: { type: 'number', default: 30 },
    dir: { type: 'string', default: join(corpusDir, 'llm-tools', 'pages') },
  });
  const dir = args.dir;
  const count = args.pages;
  const metrics = IDS.map((id) => findMetric(id)).filter((m): m is MetricDefinition => !!m);
  const pages = readdirSync(inputDir(dir))
    .filter((f) => /\.html?$/i.test(f))
    .sort()
    .slice(0, count);
  const scorer = new Scorer({ only: metrics.map((m) => m.id) });
  const perMetric = new Map<string, number[]>(metrics.map((m) => [m.id, []]));
  const scores = new Map<string, number[]>(metrics.map((m) => [m.id, []]));
  const totals: number[] = [];
  const firstRunExtra: number[] = [];
  try {
    for (const page of pages) {
      const { evidence } = await scorer.scoreWithEvidence(join(dir, page));
      let first = 0;
      for (const m of metrics) {
        const t = performance.now();
        await runMetric(m, evidence);
        first += performance.now() - t;
      }
      let total = 0;
      for (const m of metrics) {
        const t = performance.now();
        const o = await runMetric(m, evidence);
        const ms = performance.now() - t;
        total += ms;
        perMetric.get(m.id)!.push(ms);
        if (o.score !== null) scores.get(m.id)!.push(o.score);
      }
      totals.push(total);
      firstRunExtra.push(first - total);
      process.stderr.write(`${page}: ${total.toFixed(0)} ms\n`);
    }
  } finally {
    await scorer.close();
  }
  console.log(
    `${pages.length} pages from ${dir}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('metric                  median ms   p90 ms   scored   min     median   max');
  for (const m of metrics) {
    const t = perMetric.get(m.id)!;
    const s = scores.get(m.id)!;
    console.log(
      `${m.id.padEnd(22)} ${f1(quantile(t, 0.5)).padStart(9)} ${f1(quantile(t, 0.9)).padStart(8)} ${String(s.length).padStart(8)}   ${f1(Math.min(...s)).padEnd(7)} ${f1(quantile(s, 0.5)).padEnd(8)} ${f1(Math.max(...s))}`,
    );
  }
  console.log(`all five together      ${f1(quantile(totals, 0.5)).padStart(9)} ${f1(quantile(totals, 0.9)).padStart(8)}   (goal: median < 300 ms per page)`);
  console.log(`first run on a page costs a median ${f1(quantile(firstRunExtra, 0.5))} ms more (caches, opencv start-up on the first page)`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
