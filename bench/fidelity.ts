/**
 * Fidelity benchmark and validation (issue: reference fidelity): the Design2Code model outputs scored against their
 * references with `visual-fidelity` and `component-fidelity` on desktop, tablet and phone.
 *
 *   node dist/bench/fidelity.js [--dir ../shared/corpus/design2code] [--methods a,b] [--pages 1000] [--checks]
 *
 * Data: `<dir>/references/<id>.html` (20 human-made pages) and `<dir>/predictions/<method>/<id>.html` (7
 * methods); images were replaced by `rick.jpg` beside them. Each page is copied with rick.jpg into a folder
 * artifact in the system temp dir (a single-file artifact would not serve its sibling), nothing into the repo.
 *
 * Prints:
 * - per method: mean and 95 % bootstrap CI (1000 resamples of the pages, seed 1) of each metric and of the
 *   visual-fidelity sub-scores, the SSIM, and the rank next to the rank the Design2Code study's own evaluation
 *   published for the same prediction folders (`predictions_100`, 100 pages; the repo's
 *   Pix2Code/prompting/eval_results.txt of 2024-01-27 and -30; `gpt4_text_revision_prompting` has no published
 *   figure), with Spearman's ρ between the rankings;
 * - cost per page pair (gathering both renders and scoring both metrics) with the reference rendered, then
 *   cached in memory, then read from the disk cache by a fresh scorer (as another batch worker would): wall time,
 *   and the CPU seconds of this process and all its descendants (Chrome) over the pair, from /proc, which depend
 *   far less on what else the machine runs (the machine's load average is printed beside them);
 * - with --checks: resized views against views loaded fresh at each size (visual-fidelity of one against the
 *   other), and the spread of two runs of the same pairs.
 */
import { mulberry32 } from '../lib/random.js';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Scorer } from '../runner/score.js';
import type { ScoreDocument } from '../core/results.js';
import type { ReferenceInput } from '../core/fidelity.js';
import { benchArgs, corpusDir, inputDir } from './common.js';

const { values: args } = benchArgs('usage: node dist/bench/fidelity.js [--dir ../shared/corpus/design2code] [--methods a,b] [--pages 1000] [--checks]', {
  dir: { type: 'string' },
  methods: { type: 'string' },
  pages: { type: 'number', default: 1000 },
  checks: { type: 'boolean' },
});
const dir = args.dir ?? join(corpusDir, 'design2code');
const checks = args.checks;

/** The study's published averages for the same prediction folders (final, size, text, position, color, clip). */
export const PUBLISHED: Record<string, { final: number; size: number; text: number; position: number; color: number; clip: number }> = {
  gpt4v_layout_marker_prompting: { final: 0.5385, size: 0.8527, text: 0.9732, position: 0.836, color: 0.8563, clip: 0.8956 },
  gpt4v_visual_revision_prompting: { final: 0.5335, size: 0.8105, text: 0.9713, position: 0.8453, color: 0.8491, clip: 0.9047 },
  gpt4v_text_augmented_prompting: { final: 0.513, size: 0.7884, text: 0.9709, position: 0.8478, color: 0.8426, clip: 0.9081 },
  gpt4v_direct_prompting: { final: 0.4681, size: 0.7327, text: 0.9735, position: 0.8371, color: 0.841, clip: 0.8848 },
  websight: { final: 0.3497, size: 0.509, text: 0.8407, position: 0.7968, color: 0.8508, clip: 0.8627 },
  finetuned_v0: { final: 0.3449, size: 0.6283, text: 0.902, position: 0.7776, color: 0.6999, clip: 0.8167 },
};

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
function ci(xs: readonly number[], seed = 1): [number, number] {
  const r = mulberry32(seed);
  const ms: number[] = [];
  for (let i = 0; i < 1000; i++) ms.push(mean(xs.map(() => xs[Math.floor(r() * xs.length)]!)));
  ms.sort((a, b) => a - b);
  return [ms[24]!, ms[974]!];
}
function ranks(xs: readonly number[]): number[] {
  const idx = xs.map((x, i) => [x, i] as const).sort((a, b) => b[0] - a[0]);
  const out = new Array<number>(xs.length);
  idx.forEach(([, i], r) => (out[i] = r + 1));
  return out;
}
function spearman(a: readonly number[], b: readonly number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const d2 = ra.reduce((s, r, i) => s + (r - rb[i]!) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (pos - lo);
};

function folderArtifact(root: string, name: string, html: string, rick: string): string {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  copyFileSync(html, join(d, 'index.html'));
  if (existsSync(rick)) copyFileSync(rick, join(d, 'rick.jpg'));
  return d;
}

/** CPU seconds used so far by a process and all its live descendants, plus the children they reaped (/proc). */
function treeCpuSeconds(root: number): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
      // utime, stime, cutime, cstime (fields 14–17)
      ticks.set(Number(name), Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
    } catch {
      /* gone */
    }
  }
  let total = 0;
  const stack = [root];
  const seen = new Set<number>();
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    total += ticks.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total / 100; // USER_HZ
}
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

interface Row {
  method: string;
  id: string;
  doc: ScoreDocument;
  ms: number;
}

const metric = (doc: ScoreDocument, id: string) => doc.metrics.find((m) => m.id === id);

async function main(): Promise<void> {
  const refDir = join(dir, 'references');
  inputDir(refDir, 'Design2Code references folder');
  const ids = readdirSync(refDir)
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.replace(/\.html$/, ''))
    .sort((a, b) => Number(a) - Number(b))
    .slice(0, args.pages);
  const methods = (args.methods?.split(',') ?? readdirSync(join(dir, 'predictions')).sort()).filter((m) => existsSync(join(dir, 'predictions', m)));
  const tmp = mkdtempSync(join(tmpdir(), 'webgrade-fidelity-bench-'));
  const cacheDir = join(tmp, 'cache');
  const refs = new Map<string, ReferenceInput>();
  for (const id of ids) refs.set(id, { path: folderArtifact(join(tmp, 'refs'), id, join(refDir, `${id}.html`), join(refDir, 'rick.jpg')), kind: 'artifact' });
  const only = ['visual-fidelity', 'component-fidelity'];
  const scorer = new Scorer({ suite: 'extended', only, fidelityCache: cacheDir });
  const rows: Row[] = [];
  const costs = { rendered: [] as number[], memory: [] as number[], disk: [] as number[] };
  const cpuS = { rendered: [] as number[], memory: [] as number[], disk: [] as number[] };
  const loads: string[] = [loadAverage()];
  const gatherMs = { rendered: [] as number[], memory: [] as number[], disk: [] as number[] };
  const scoreMs: number[] = [];
  try {
    for (const method of methods) {
      for (const id of ids) {
        const html = join(dir, 'predictions', method, `${id}.html`);
        if (!existsSync(html)) continue;
        const page = folderArtifact(join(tmp, 'runs', method), id, html, join(dir, 'predictions', method, 'rick.jpg'));
        const c0 = treeCpuSeconds(process.pid);
        const t = performance.now();
        const doc = await scorer.score(page, { reference: refs.get(id)! });
        const ms = performance.now() - t;
        const cpu = treeCpuSeconds(process.pid) - c0;
        rows.push({ method, id, doc, ms });
        const cache = doc.reference && 'cache' in doc.reference ? doc.reference.cache : undefined;
        if (cache) {
          costs[cache].push(ms);
          cpuS[cache].push(cpu);
          gatherMs[cache].push(browserGatherMs(doc.timings));
        }
        scoreMs.push(doc.metrics.reduce((s, m) => s + m.ms, 0));
        process.stderr.write(
          `${method}/${id}: ${only.map((m) => metric(doc, m)?.score ?? 'n/a').join(' ')} (${Math.round(ms)} ms, reference ${cache ?? '?'})\n`,
        );
      }
    }
    // A fresh scorer reads the references from the disk cache, as a second batch worker process would.
    const fresh = new Scorer({ suite: 'extended', only, fidelityCache: cacheDir });
    try {
      const method = methods[0]!;
      for (const id of ids.slice(0, 10)) {
        const page = join(tmp, 'runs', method, id);
        if (!existsSync(page)) continue;
        const c0 = treeCpuSeconds(process.pid);
        const t = performance.now();
        const doc = await fresh.score(page, { reference: refs.get(id)! });
        const ms = performance.now() - t;
        const cpu = treeCpuSeconds(process.pid) - c0;
        const cache = doc.reference && 'cache' in doc.reference ? doc.reference.cache : undefined;
        if (cache === 'disk') {
          costs.disk.push(ms);
          cpuS.disk.push(cpu);
          gatherMs.disk.push(browserGatherMs(doc.timings));
        }
      }
    } finally {
      await fresh.close();
    }
    loads.push(loadAverage());
    if (checks) await runChecks(scorer, rows, refs, tmp);
  } finally {
    await scorer.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  report(rows, methods, costs, gatherMs, scoreMs, cpuS, loads);
}

function report(
  rows: Row[],
  methods: string[],
  costs: Record<string, number[]>,
  gatherMs: Record<string, number[]>,
  scoreMs: number[],
  cpuS: Record<string, number[]>,
  loads: string[],
): void {
  const f = (x: number, d = 1) => x.toFixed(d);
  const lines: string[] = [];
  const stats = methods.map((m) => {
    const rs = rows.filter((r) => r.method === m);
    const vf = rs.map((r) => metric(r.doc, 'visual-fidelity')?.score ?? 0);
    const cf = rs.map((r) => metric(r.doc, 'component-fidelity')?.score ?? 0);
    // our component variant (F1, Chebyshev, ΔE2000, page word F1), reported beside CANVAS's: viewport mean of its computed sub-scores
    const cfOurs = rs.map((r) => {
      const vps = (
        (metric(r.doc, 'component-fidelity')?.details.viewports as Array<{ score: number | null; webgrade?: Record<string, number | null> }> | undefined) ?? []
      ).filter((v) => v.score !== null && v.webgrade);
      const per = vps.map((v) => {
        const xs = Object.values(v.webgrade!).filter((x): x is number => x !== null);
        return xs.length ? (100 * xs.reduce((a, b) => a + b, 0)) / xs.length : 0;
      });
      return per.length ? mean(per) : 0;
    });
    const cfSub = (k: string) =>
      rs.map((r) => ((metric(r.doc, 'component-fidelity')?.details.subScores as Record<string, number | null> | undefined)?.[k] ?? 0) * 100);
    const sub = (k: string) => rs.map((r) => ((metric(r.doc, 'visual-fidelity')?.details.subScores as Record<string, number> | undefined)?.[k] ?? 0) * 100);
    const ssim = rs.map((r) => ((metric(r.doc, 'visual-fidelity')?.details.ssim as { mean: number | null } | undefined)?.mean ?? 0) * 100);
    const perVp = (vp: string) =>
      rs.map(
        (r) =>
          (metric(r.doc, 'visual-fidelity')?.details.viewports as Array<{ viewport: string; score: number | null }> | undefined)?.find((v) => v.viewport === vp)
            ?.score ?? 0,
      );
    const unscorable = rs.filter((r) => metric(r.doc, 'visual-fidelity')?.score === null).length;
    return {
      m,
      n: rs.length,
      vf,
      cf,
      cfOurs,
      cfMatch: cfSub('match'),
      cfPosition: cfSub('position'),
      cfColour: cfSub('colour'),
      cfText: cfSub('text'),
      size: sub('size'),
      text: sub('text'),
      position: sub('position'),
      colour: sub('colour'),
      ssim,
      desktop: perVp('desktop'),
      tablet: perVp('tablet'),
      phone: perVp('phone'),
      unscorable,
    };
  });
  const vfRank = ranks(stats.map((s) => mean(s.vf)));
  const cfRank = ranks(stats.map((s) => mean(s.cf)));
  lines.push('', `Design2Code outputs vs their references (${stats[0]?.n ?? 0} pages per method; mean and 95 % bootstrap CI; scores 0–100)`, '');
  lines.push(
    '| method | n | visual-fidelity | CI | rank | component-fidelity | CI | rank | size | text | position | colour | SSIM | desktop / tablet / phone (visual) | published final (rank) |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  stats.forEach((s, i) => {
    const [a, b] = ci(s.vf);
    const [c, d] = ci(s.cf);
    const pub = PUBLISHED[s.m];
    const pubRank = pub ? ranks(Object.values(PUBLISHED).map((p) => p.final))[Object.keys(PUBLISHED).indexOf(s.m)] : undefined;
    lines.push(
      `| ${s.m} | ${s.n} | ${f(mean(s.vf))} | ${f(a)}–${f(b)} | ${vfRank[i]} | ${f(mean(s.cf))} | ${f(c)}–${f(d)} | ${cfRank[i]} | ${f(mean(s.size))} | ${f(mean(s.text))} | ${f(mean(s.position))} | ${f(mean(s.colour))} | ${f(mean(s.ssim))} | ${f(mean(s.desktop))} / ${f(mean(s.tablet))} / ${f(mean(s.phone))} | ${pub ? `${f(pub.final * 100)} (${pubRank})` : '—'} |`,
    );
  });
  lines.push('', "component-fidelity: CANVAS's sub-scores (the score) and our variant (reported in the details)", '');
  lines.push(
    '| method | component-fidelity (CANVAS) | match recall | position (Euclidean) | colour (RGB) | text (string F1) | ours (F1, Chebyshev, ΔE2000, word F1) | rank ours |',
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  const oursRank = ranks(stats.map((s) => mean(s.cfOurs)));
  stats.forEach((s, i) =>
    lines.push(
      `| ${s.m} | ${f(mean(s.cf))} | ${f(mean(s.cfMatch))} | ${f(mean(s.cfPosition))} | ${f(mean(s.cfColour))} | ${f(mean(s.cfText))} | ${f(mean(s.cfOurs))} | ${oursRank[i]} |`,
    ),
  );
  const common = stats.filter((s) => PUBLISHED[s.m]);
  if (common.length >= 3) {
    const pub = common.map((s) => PUBLISHED[s.m]!.final);
    lines.push(
      '',
      `Spearman ρ with the published final score over the ${common.length} methods it covers: visual-fidelity ${f(
        spearman(
          common.map((s) => mean(s.vf)),
          pub,
        ),
        2,
      )}, component-fidelity ${f(
        spearman(
          common.map((s) => mean(s.cf)),
          pub,
        ),
        2,
      )} (ours ${f(
        spearman(
          common.map((s) => mean(s.cfOurs)),
          pub,
        ),
        2,
      )}); with the published block-match (size): ${f(
        spearman(
          common.map((s) => mean(s.size)),
          common.map((s) => PUBLISHED[s.m]!.size),
        ),
        2,
      )}`,
    );
    lines.push(
      `our ranking (visual-fidelity): ${[...stats]
        .sort((a, b) => mean(b.vf) - mean(a.vf))
        .map((s) => s.m)
        .join(' > ')}`,
    );
    lines.push(
      `published ranking (final): ${Object.entries(PUBLISHED)
        .sort((a, b) => b[1].final - a[1].final)
        .map(([m]) => m)
        .join(' > ')}`,
    );
  }
  const c = (k: string) =>
    costs[k]!.length
      ? `median ${f(quantile(costs[k]!, 0.5) / 1000, 2)} s, p90 ${f(quantile(costs[k]!, 0.9) / 1000, 2)} s over ${costs[k]!.length} (gathering median ${f(quantile(gatherMs[k]!, 0.5) / 1000, 2)} s); CPU (this process and Chrome) median ${f(quantile(cpuS[k]!, 0.5), 2)} s, p90 ${f(quantile(cpuS[k]!, 0.9), 2)} s`
      : 'none';
  lines.push(
    '',
    `Cost per page pair (render both or read the reference, score both metrics at three viewports); load average at the start ${loads[0]}, at the end ${loads[loads.length - 1]} (${cpuCount()} cores):`,
  );
  lines.push(`- reference rendered now: ${c('rendered')}`);
  lines.push(`- reference cached in memory: ${c('memory')}`);
  lines.push(`- reference read from the disk cache (fresh scorer): ${c('disk')}`);
  lines.push(`- scoring both metrics: median ${f(quantile(scoreMs, 0.5))} ms, p90 ${f(quantile(scoreMs, 0.9))} ms`);
  process.stdout.write(lines.join('\n') + '\n');
}

function cpuCount(): number {
  return readFileSync('/proc/cpuinfo', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('processor')).length;
}

/** Resize vs fresh load, and run-to-run spread. */
async function runChecks(scorer: Scorer, rows: Row[], refs: Map<string, ReferenceInput>, tmp: string): Promise<void> {
  const { renderFreshVsResized } = await import('./fidelity-checks.js');
  const out = await renderFreshVsResized([...refs.values()].map((r) => r.path));
  process.stdout.write(`\nResized views vs views loaded fresh at that size (visual-fidelity of the resized view against the fresh one, references): ${out}\n`);
  // Run-to-run: the first 10 pairs of the first method again (reference from memory).
  const again = rows.slice(0, 10);
  const diffs: number[] = [];
  for (const r of again) {
    const doc = await scorer.score(join(tmp, 'runs', r.method, r.id), { reference: refs.get(r.id)! });
    for (const id of ['visual-fidelity', 'component-fidelity']) diffs.push(Math.abs((metric(doc, id)?.score ?? 0) - (metric(r.doc, id)?.score ?? 0)));
  }
  process.stdout.write(
    `Run-to-run: largest difference over ${again.length} pairs × 2 metrics: ${Math.max(...diffs).toFixed(2)} (mean ${mean(diffs).toFixed(3)})\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

/** The time the browser gatherers took (the score document's `gather.<id>` timings, the judges' apart). */
function browserGatherMs(timings: Record<string, number>): number {
  return Object.entries(timings).reduce((s, [k, v]) => (k.startsWith('gather.') && k !== 'gather.judge' && k !== 'gather.remote-check' ? s + v : s), 0);
}
