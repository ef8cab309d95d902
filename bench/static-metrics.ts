/**
 * Corpus run of the static metrics: load every page of a corpus folder and score it with the registered
 * metrics whose needs are only `source`/`dom` (or the `--only` ones) through the real `Scorer`, with no
 * gatherers (no browser). Prints per metric: min / median / max score, how many pages were unscorable (and how
 * many of those because the metric threw: "metric failed", which is always a bug), total and median time per
 * page, and with `--extremes N` the N lowest and highest scored pages.
 *
 *   node dist/bench/static-metrics.js [--only id,id] [--dir DIR] [--extremes N] [--json]
 *
 * DIR defaults to the shared corpus (../shared/corpus/llm-tools/pages, beside the repository).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Scorer, type MetricResult } from '../runner/score.js';
import { METRICS } from '../metrics/registry.js';
import { allNeeds } from '../core/metric.js';
import { errorMessage } from '../core/errors.js';
import { benchArgs, corpusDir, inputDir } from './common.js';

// `network` is only gathered with --check-network; without it resource-validity reads the source alone.
const STATIC_NEEDS = new Set(['source', 'dom', 'network']);

function parsedArgs() {
  const { values } = benchArgs('usage: node dist/bench/static-metrics.js [--only id,id] [--dir DIR] [--extremes N] [--json]', {
    only: { type: 'string' },
    dir: { type: 'string', default: join(corpusDir, 'llm-tools', 'pages') },
    extremes: { type: 'number', default: 0 },
    json: { type: 'boolean' },
  });
  const only = values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { ...values, only };
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const r2 = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);

interface MetricStats {
  id: string;
  pages: number;
  scored: number;
  min: number | null;
  median: number | null;
  max: number | null;
  unscorable: number;
  failed: number;
  reasons: Record<string, number>;
  totalMs: number;
  medianMs: number | null;
  lowest: Array<{ page: string; score: number; summary?: string }>;
  highest: Array<{ page: string; score: number; summary?: string }>;
  failures: Array<{ page: string; reason: string }>;
}

async function main(): Promise<void> {
  const args = parsedArgs();
  const ids = args.only ?? METRICS.filter((m) => allNeeds(m).every((n) => STATIC_NEEDS.has(n))).map((m) => m.id);
  if (ids.length === 0) throw new Error('no static metric is registered');
  const scorer = new Scorer({ only: ids, gatherers: [] });
  const pages = readdirSync(inputDir(args.dir))
    .filter((f) => /\.html?$/i.test(f))
    .sort();
  const results = new Map<string, Array<{ page: string; r: MetricResult }>>(ids.map((id) => [id, []]));
  const loadMs: number[] = [];
  const started = performance.now();
  let loadFailures = 0;
  try {
    for (const page of pages) {
      let doc;
      try {
        doc = await scorer.score(join(args.dir, page));
      } catch (err) {
        loadFailures++;
        process.stderr.write(`${page}: could not be loaded: ${errorMessage(err)}\n`);
        continue;
      }
      loadMs.push(doc.timings.load ?? 0);
      for (const r of doc.metrics) results.get(r.id)?.push({ page, r });
    }
  } finally {
    await scorer.close();
  }
  const wallMs = performance.now() - started;

  const stats: MetricStats[] = ids.map((id) => {
    const rs = results.get(id)!;
    const scoredRs = rs.filter((x) => x.r.score !== null).sort((a, b) => a.r.score! - b.r.score!);
    const scores = scoredRs.map((x) => x.r.score!);
    const reasons: Record<string, number> = {};
    const failures: MetricStats['failures'] = [];
    for (const x of rs) {
      if (x.r.score !== null) continue;
      const reason = x.r.reason ?? 'unknown';
      if (reason.startsWith('metric failed')) failures.push({ page: x.page, reason });
      const key = reason.startsWith('metric failed') ? 'metric failed' : reason;
      reasons[key] = (reasons[key] ?? 0) + 1;
    }
    const ms = rs.map((x) => x.r.ms);
    const pick = (x: { page: string; r: MetricResult }) => ({ page: x.page, score: x.r.score!, ...(x.r.summary ? { summary: x.r.summary } : {}) });
    return {
      id,
      pages: rs.length,
      scored: scores.length,
      min: scores[0] ?? null,
      median: r2(median(scores)),
      max: scores[scores.length - 1] ?? null,
      unscorable: rs.length - scores.length,
      failed: failures.length,
      reasons,
      totalMs: Math.round(ms.reduce((a, b) => a + b, 0)),
      medianMs: r2(median(ms)),
      lowest: scoredRs.slice(0, args.extremes).map(pick),
      highest: scoredRs.slice(-args.extremes).reverse().map(pick),
      failures,
    };
  });

  const summary = {
    dir: args.dir,
    pages: pages.length,
    loadFailures,
    wallSeconds: r2(wallMs / 1000),
    loadMedianMs: r2(median(loadMs)),
    metrics: stats,
  };
  if (args.json) {
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  } else {
    const out: string[] = [];
    out.push(
      `${pages.length} pages from ${args.dir} (${loadFailures} not loadable); wall ${summary.wallSeconds} s, median load ${summary.loadMedianMs} ms/page`,
    );
    out.push('metric                     min   median      max  scored  unscorable  failed   total ms  median ms/page');
    for (const s of stats) {
      const f = (x: number | null) => (x === null ? '-' : x.toFixed(2)).padStart(8);
      out.push(
        `${s.id.padEnd(22)} ${f(s.min)} ${f(s.median)} ${f(s.max)} ${String(s.scored).padStart(7)} ${String(s.unscorable).padStart(11)} ${String(s.failed).padStart(7)} ${String(s.totalMs).padStart(10)} ${String(s.medianMs ?? '-').padStart(15)}`,
      );
    }
    for (const s of stats) {
      for (const [reason, n] of Object.entries(s.reasons)) out.push(`  ${s.id}: unscorable ${n}× "${reason}"`);
      for (const fl of s.failures) out.push(`  ${s.id}: FAILED on ${fl.page}: ${fl.reason}`);
      if (args.extremes > 0) {
        out.push(`  ${s.id} lowest:`);
        for (const x of s.lowest) out.push(`    ${x.score.toFixed(2).padStart(6)}  ${x.page}  ${x.summary ?? ''}`);
        out.push(`  ${s.id} highest:`);
        for (const x of s.highest) out.push(`    ${x.score.toFixed(2).padStart(6)}  ${x.page}  ${x.summary ?? ''}`);
      }
    }
    process.stdout.write(out.join('\n') + '\n');
  }
  if (stats.some((s) => s.failed > 0) || loadFailures > 0) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`static-metrics: ${errorMessage(err)}\n`);
  process.exit(2);
});
