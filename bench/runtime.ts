/**
 * Runtime performance benchmark (issue 44): what the runtime watch (gather/runtime/) adds to a page's scoring, and
 * whether its metrics hold still when the machine is shared.
 *
 * 1. Added cost: each page (the heavy fixtures of fixtures/heavy/ and the animated ones of fixtures/runtime/) is
 *    scored with only the three runtime metrics, one at a time; the watch runs in a page of its own after every
 *    other step of the browser gatherer has its page closed, so its wall time is what it adds to a full scoring.
 *    Goal: median ≤ 2 s.
 * 2. Concurrency: each page is scored `--repeats` times alone (concurrency 1: the retest noise is the spread
 *    between those runs) and as many times beside a second Scorer (own Chrome) scoring another page at the same
 *    moment (concurrency 2, two cores); per metric the mean |c1 − c2| difference against the mean |c1 − c1'| noise.
 *
 *   node dist/bench/runtime.js [--pages a.html,b.html] [--repeats 2] [--no-concurrency]
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from 'simple-statistics';
import { Scorer } from '../runner/score.js';
import { benchArgs, cannotRun } from './common.js';

const { values: args } = benchArgs('usage: node dist/bench/runtime.js [--pages a.html,b.html] [--repeats 2] [--no-concurrency]', {
  pages: { type: 'string' },
  repeats: { type: 'number', default: 2 },
  'no-concurrency': { type: 'boolean' },
});

const IDS = ['frame-smoothness', 'responsiveness', 'memory-stability'] as const;
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', '..', 'fixtures');
const repeats = args.repeats;
const pick = args.pages?.split(',');
const concurrency = !args['no-concurrency'];

function pages(): Array<{ name: string; path: string }> {
  const out: Array<{ name: string; path: string }> = [];
  for (const dir of ['heavy', 'runtime']) {
    const d = join(fixtures, dir);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d).sort())
      if (f.endsWith('.html') && f !== 'still.html' && (!pick || pick.includes(f))) out.push({ name: `${dir}/${f}`, path: join(d, f) });
  }
  return out;
}

const newScorer = () => new Scorer({ suite: 'extended', only: [...IDS], budgetMs: 60_000, network: { mode: 'cdn' }, judge: undefined });

interface Run {
  wall: number;
  watch: number | undefined;
  scores: Record<string, number | null>;
}

async function score(scorer: Scorer, path: string): Promise<Run> {
  const t = performance.now();
  const { doc, evidence } = await scorer.scoreWithEvidence(path);
  const wall = performance.now() - t;
  const rt = evidence.runtime?.ok ? evidence.runtime.value : undefined;
  return { wall, watch: rt?.timings.total, scores: Object.fromEntries(doc.metrics.map((m) => [m.id, m.score])) };
}

const fmt = (x: number | null | undefined, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(d));
const meanAbs = (pairs: Array<[number | null, number | null]>) => {
  const d = pairs.filter(([a, b]) => a !== null && b !== null).map(([a, b]) => Math.abs(a! - b!));
  return d.length ? d.reduce((a, b) => a + b, 0) / d.length : NaN;
};

async function main(): Promise<void> {
  const list = pages();
  if (!list.length) cannotRun('no fixture pages (fixtures/heavy, fixtures/runtime)');
  const a = newScorer();
  const b = concurrency ? newScorer() : undefined;
  try {
    await score(a, list[0]!.path); // Chrome's start and first trace are not a page's cost
    const c1: Run[][] = [];
    for (const p of list) {
      const runs: Run[] = [];
      for (let r = 0; r < repeats; r++) runs.push(await score(a, p.path));
      c1.push(runs);
      const s = runs[0]!.scores;
      console.log(
        `${p.name}: watch ${fmt((runs[0]!.watch ?? NaN) / 1000, 2)} s, page ${fmt(runs[0]!.wall / 1000, 2)} s; ${IDS.map((id) => `${id} ${fmt(s[id])}`).join(', ')}`,
      );
    }
    const watches = c1.flat().map((r) => r.watch ?? r.wall);
    const walls = c1.flat().map((r) => r.wall);
    console.log(
      `added cost per page: watch median ${fmt(median(watches) / 1000, 2)} s (max ${fmt(Math.max(...watches) / 1000, 2)} s), whole runtime-only scoring median ${fmt(median(walls) / 1000, 2)} s over ${walls.length} runs (goal ≤ 2 s)`,
    );
    if (!b) return;
    await score(b, list[0]!.path);
    const c2: Run[][] = [];
    for (let i = 0; i < list.length; i++) {
      const runs: Run[] = [];
      const other = list[(i + 1) % list.length]!;
      for (let r = 0; r < repeats; r++) {
        const [mine] = await Promise.all([score(a, list[i]!.path), score(b, other.path)]);
        runs.push(mine);
      }
      c2.push(runs);
    }
    console.log('metric             retest noise (c1 vs c1)   c1 vs c2   (mean |Δ| over pages)');
    for (const id of IDS) {
      const noise = meanAbs(
        c1.flatMap((runs) => runs.slice(1).map((r) => [runs[0]!.scores[id] ?? null, r.scores[id] ?? null] as [number | null, number | null])),
      );
      const diff = meanAbs(
        c1.flatMap((runs, i) => runs.map((r, k) => [r.scores[id] ?? null, c2[i]![k]!.scores[id] ?? null] as [number | null, number | null])),
      );
      console.log(`${id.padEnd(18)} ${fmt(noise, 2).padStart(10)}                ${fmt(diff, 2).padStart(8)}`);
    }
    const w2 = c2.flat().map((r) => r.watch ?? r.wall);
    console.log(`watch at concurrency 2: median ${fmt(median(w2) / 1000, 2)} s`);
  } finally {
    await a.close();
    await b?.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
