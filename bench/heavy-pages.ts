/**
 * Heavy-page benchmark (issue 31): pages that never go idle (fixtures/heavy/: a fractal recomputed every frame, a
 * three.js scene of 1,500 meshes from the CDN, a particle storm, a cloth simulation; plus the corpus's pages that
 * run requestAnimationFrame) scored with every rule metric of the study suite by one Scorer at the default budget,
 * one page at a time (the default concurrency), as `webgrade score` would; then light corpus pages scored by the
 * same Scorer in the same run, for the ratio. Per page: wall time, each phase's time (the visit, Lighthouse's whole
 * run and its measured phase, the interaction probe, the page's main-thread busy share after load), the metrics
 * that became unscorable and why; and a bare Lighthouse run of the page with the same settings (bare-lighthouse.ts:
 * the same Chrome flags and sandbox, nothing else), the floor.
 *
 * `--runtime` adds the extended suite's three runtime metrics (frame-smoothness, responsiveness, memory-stability):
 * the runtime watch (gather/runtime/) then runs on every page, and its time per page is printed; each page is also
 * scored without the watch by a second Scorer (the study's rule metrics alone), the two one after the other in
 * alternating order, and the wall time the watch adds to the page is printed (issue 44's goal: ≤ 2 s median added
 * per page; the watch's own time is larger where the static metrics' scoring runs beside it).
 *
 *   node dist/bench/heavy-pages.js [--pages a,b] [--light 3] [--no-corpus] [--no-bare] [--runtime] [--dir DIR]
 *
 * Goals: heavy p90 ≤ 20 s and ≤ 3× the light pages' median; no study rule metric unscorable for time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quantile, median } from 'simple-statistics';
import { suiteMetrics } from '../metrics/registry.js';
import { Scorer } from '../runner/score.js';
import { isNeverIdle } from '../gather/collectors/busy-after-load.js';
import { bareLighthouse, launchBareChrome } from './bare-lighthouse.js';
import { benchArgs, corpusDir } from './common.js';

const { values: args } = benchArgs('usage: node dist/bench/heavy-pages.js [--pages a,b] [--light 3] [--no-corpus] [--no-bare] [--runtime] [--dir DIR]', {
  pages: { type: 'string' },
  light: { type: 'number', default: 3 },
  'no-corpus': { type: 'boolean' },
  'no-bare': { type: 'boolean' },
  runtime: { type: 'boolean' },
  dir: { type: 'string' },
});

const here = dirname(fileURLToPath(import.meta.url));
const heavyDir = join(here, '..', '..', 'fixtures', 'heavy');
const corpus = args.dir ?? join(corpusDir, 'llm-tools', 'pages');
const lightCount = args.light;
const pick = args.pages?.split(',');
/** The extended suite's metrics of the runtime watch, added with `--runtime`. */
const RUNTIME_METRICS = ['frame-smoothness', 'responsiveness', 'memory-stability'];
/** The study suite's rule metrics (no judge). */
const STUDY_RULE = suiteMetrics('study')
  .filter((m) => m.kind !== 'judge')
  .map((m) => m.id);
const only = [...STUDY_RULE, ...(args.runtime ? RUNTIME_METRICS : [])];

/** A reason that says a measurement ran out of time, or a step timed out on a busy page (as opposed to what the page lacks). */
export const FOR_TIME = /time|timed out|did not finish|budget|stopped answering|did not respond/i;

interface Row {
  name: string;
  kind: 'heavy' | 'light';
  wall: number;
  phases: Record<string, number>;
  unscorable: Array<{ id: string; reason: string }>;
  /** The page's performance score (null: unscorable). */
  performance: number | null;
  bare?: { seconds: number; performance: number | null; error?: string };
  /** With `--runtime`: the page's wall time scored without the watch. */
  wallWithout?: number;
}

function pages(): Array<{ name: string; path: string; kind: 'heavy' | 'light' }> {
  const out: Array<{ name: string; path: string; kind: 'heavy' | 'light' }> = [];
  for (const f of readdirSync(heavyDir)
    .filter((f) => f.endsWith('.html'))
    .sort())
    out.push({ name: f, path: join(heavyDir, f), kind: 'heavy' });
  if (existsSync(corpus)) {
    const all = readdirSync(corpus)
      .filter((f) => f.endsWith('.html'))
      .sort();
    const animated = all.filter((f) => /requestAnimationFrame/.test(readFileSync(join(corpus, f), 'utf8')));
    if (!args['no-corpus']) for (const f of animated) out.push({ name: `corpus/${f}`, path: join(corpus, f), kind: 'heavy' });
    // Light pages: neither animated nor canvas nor CSS keyframes, the first in name order.
    const light = all.filter((f) => !/@keyframes|requestAnimationFrame|<canvas|setInterval/.test(readFileSync(join(corpus, f), 'utf8')));
    for (const f of light.slice(0, lightCount)) out.push({ name: `corpus/${f}`, path: join(corpus, f), kind: 'light' });
  }
  return out.filter((p) => !pick || p.kind === 'light' || pick.some((x) => p.name.includes(x)));
}

const PHASES = ['visit', 'lighthouse', 'lighthouseMeasured', 'lighthouseLockWait', 'interaction', 'busyAfterLoadPct', 'gather.runtime'] as const;

async function main(): Promise<void> {
  const list = pages();
  const rows: Row[] = [];
  const scorer = new Scorer({ only, ...(args.runtime ? { suite: 'extended' as const } : {}) });
  const without = args.runtime ? new Scorer({ only: STUDY_RULE }) : undefined;
  try {
    for (const [i, p] of list.entries()) {
      const timed = async (s: Scorer) => {
        const t = performance.now();
        return { doc: await s.score(p.path), wall: (performance.now() - t) / 1000 };
      };
      // Without the watch before or after it, alternately: neither order is favoured.
      const before = without && i % 2 === 0 ? await timed(without) : undefined;
      const { doc, wall } = await timed(scorer);
      const other = before ?? (without ? await timed(without) : undefined);
      const phases: Record<string, number> = {};
      for (const k of PHASES) if (doc.timings?.[k] !== undefined) phases[k] = doc.timings[k]!;
      const unscorable = doc.metrics.filter((m) => m.score === null).map((m) => ({ id: m.id, reason: (m.reason ?? '').slice(0, 120) }));
      rows.push({
        name: p.name,
        kind: p.kind,
        wall,
        phases,
        unscorable,
        performance: doc.metrics.find((m) => m.id === 'performance')?.score ?? null,
        ...(other ? { wallWithout: other.wall } : {}),
      });
      process.stderr.write(`${p.name}: ${wall.toFixed(1)} s\n`);
    }
  } finally {
    await scorer.close();
    await without?.close();
  }
  if (!args['no-bare']) {
    const chrome = await launchBareChrome();
    try {
      for (const r of rows.filter((x) => x.kind === 'heavy')) {
        const p = list.find((x) => x.name === r.name)!;
        const t = performance.now();
        try {
          // As the scorer measured this page: as a never-idle one when its visit found it busy.
          const lh = await bareLighthouse(p.path, chrome, 60_000, { neverIdle: isNeverIdle((r.phases.busyAfterLoadPct ?? 0) / 100) });
          r.bare = {
            seconds: (performance.now() - t) / 1000,
            performance: lh.categories.performance?.score ?? null,
            ...(lh.runtimeError ? { error: lh.runtimeError } : {}),
          };
        } catch (err) {
          r.bare = { seconds: (performance.now() - t) / 1000, performance: null, error: (err as Error).message };
        }
      }
    } finally {
      await chrome.close();
    }
  }
  report(rows);
}

function report(rows: Row[]): void {
  const fmt = (v: number | undefined, d = 1) => (v === undefined ? '-' : v.toFixed(d));
  console.log(
    `${rows.length} pages (${rows.filter((r) => r.kind === 'heavy').length} heavy), ${only.length} rule metrics of the study suite${args.runtime ? ' and the runtime watch' : ''}, default budget, one page at a time`,
  );
  console.log(
    [
      'page',
      'kind',
      'wall s',
      'visit s',
      'LH s',
      'LH measured s',
      'lock wait s',
      'probe s',
      'watch s',
      'busy %',
      'perf',
      'bare LH s',
      'bare perf',
      'unscorable',
    ].join('\t'),
  );
  for (const r of rows) {
    const ms = (k: string) => (r.phases[k] === undefined ? undefined : r.phases[k]! / 1000);
    // Every unscorable metric by id; the reason for those lost to time or to a failure (the others say what the page lacks).
    const why = (u: { reason: string }) => (FOR_TIME.test(u.reason) ? `TIME: ${u.reason}` : /Lighthouse|respond|failed|crash/.test(u.reason) ? u.reason : '');
    const un = r.unscorable.map((u) => (why(u) ? `${u.id} (${why(u)})` : u.id)).join(', ') || '-';
    const bare = r.bare
      ? [
          fmt(r.bare.seconds),
          r.bare.performance === null ? `n/a${r.bare.error ? ` (${r.bare.error.slice(0, 40)})` : ''}` : String(Math.round(r.bare.performance * 100)),
        ]
      : ['-', '-'];
    console.log(
      [
        r.name,
        r.kind,
        fmt(r.wall),
        fmt(ms('visit')),
        fmt(ms('lighthouse')),
        fmt(ms('lighthouseMeasured')),
        fmt(ms('lighthouseLockWait')),
        fmt(ms('interaction')),
        fmt(ms('gather.runtime'), 2),
        r.phases.busyAfterLoadPct ?? '-',
        r.performance ?? 'n/a',
        ...bare,
        un,
      ].join('\t'),
    );
  }
  const heavy = rows.filter((r) => r.kind === 'heavy').map((r) => r.wall);
  const light = rows.filter((r) => r.kind === 'light').map((r) => r.wall);
  const p90 = heavy.length ? quantile(heavy, 0.9) : NaN;
  const lightMedian = light.length ? median(light) : NaN;
  const bare = rows.flatMap((r) => (r.bare ? [r.bare.seconds] : []));
  console.log(
    `heavy seconds per page: median ${fmt(heavy.length ? median(heavy) : NaN)}, p90 ${fmt(p90)}, max ${fmt(heavy.length ? Math.max(...heavy) : NaN)} (goal p90 ≤ 20)`,
  );
  console.log(`light seconds per page: median ${fmt(lightMedian)} over ${light.length}; heavy p90 / light median ${fmt(p90 / lightMedian, 2)} (goal ≤ 3)`);
  console.log(
    `bare Lighthouse with the same settings (the floor): median ${fmt(bare.length ? median(bare) : NaN)} s, max ${fmt(bare.length ? Math.max(...bare) : NaN)} s`,
  );
  if (args.runtime) {
    const watch = (kind: Row['kind']) =>
      rows.filter((r) => r.kind === kind && r.phases['gather.runtime'] !== undefined).map((r) => r.phases['gather.runtime']! / 1000);
    const [h, l] = [watch('heavy'), watch('light')];
    console.log(
      `runtime watch per page: heavy median ${fmt(h.length ? median(h) : NaN, 2)} s (max ${fmt(h.length ? Math.max(...h) : NaN, 2)}), light median ${fmt(l.length ? median(l) : NaN, 2)} s, all ${fmt(h.length + l.length ? median([...h, ...l]) : NaN, 2)} s`,
    );
    const added = (kind?: Row['kind']) => rows.filter((r) => (!kind || r.kind === kind) && r.wallWithout !== undefined).map((r) => r.wall - r.wallWithout!);
    const m = (xs: number[]) => fmt(xs.length ? median(xs) : NaN, 2);
    console.log(
      `wall time the watch adds per page (with it − without it, same page): heavy median ${m(added('heavy'))} s, light median ${m(added('light'))} s, all ${m(added())} s (goal ≤ 2 s median)`,
    );
  }
  const taken = (kind: Row['kind']) => rows.filter((r) => r.kind === kind && isNeverIdle((r.phases.busyAfterLoadPct ?? 0) / 100)).length;
  console.log(`taken as never idle: ${taken('heavy')} of ${heavy.length} heavy pages, ${taken('light')} of ${light.length} light pages`);
  const forTime = rows.flatMap((r) => r.unscorable.filter((u) => FOR_TIME.test(u.reason)).map((u) => `${r.name} ${u.id}`));
  console.log(`study rule metrics unscorable for time: ${forTime.length}${forTime.length ? ` (${forTime.join(', ')})` : ''} (goal 0)`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
