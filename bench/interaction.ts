/**
 * Interaction-probe benchmark, over the corpus pages (default: all of ../shared/corpus/llm-tools/pages):
 *
 * 1. The probe alone on every page (the browser gatherer asked only for `interaction`): its time per page
 *    (context created, probe, context closed: what it adds to a page's scoring), median, p90 and largest, against
 *    its budget; where the time goes (first load, baselines, restores, actions, navigation); the number of
 *    controls and actions; the share of pages with at least one inert control; and per metric how many pages
 *    score and the mean. `--out DIR` writes every page's interaction log (evidence.json without images) and the
 *    crops of the inert controls (`<page>/crop-<i>.png`, with `inert.tsv` listing them all) for looking at.
 * 2. `--placement K`: on the first K pages, the whole extended rule suite three ways, alternating per page:
 *    without the interaction metrics (and with dead-code left out, which needs the probe), with the probe before
 *    Lighthouse measures (the default: Lighthouse waits), and with the probe after Lighthouse's run; seconds per
 *    page and the median difference to the run without.
 *
 * `--every K` takes every K-th page in name order (a deterministic spread sample), before `--pages`.
 *
 *   node dist/bench/interaction.js [--every K] [--pages N] [--dir DIR] [--out DIR] [--placement K] [--only name,name]
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { loadArtifact } from '../lib/artifact/load.js';
import type { Evidence } from '../core/evidence.js';
import { browserGatherers } from '../gather/browser-gatherers.js';
import { closeGatherers, productGatherers } from '../runner/gatherers.js';
import { gatherEvidence } from '../runner/gathering.js';
import { INTERACTION_DEFAULTS } from '../gather/interaction/probe.js';
import { METRICS } from '../metrics/registry.js';
import { DEFAULT_BUDGET_MS, runMetric, Scorer } from '../runner/score.js';
import { tallyLiveness } from '../metrics/interaction/control-liveness.js';
import { benchArgs, corpusDir, inputDir } from './common.js';

const { values: args } = benchArgs('usage: node dist/bench/interaction.js [--every K] [--pages N] [--dir DIR] [--out DIR] [--placement K] [--only name,name]', {
  every: { type: 'number', default: 1 },
  pages: { type: 'number', default: Infinity },
  dir: { type: 'string' },
  out: { type: 'string' },
  placement: { type: 'number', default: 0 },
  only: { type: 'string' },
});
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const out = args.out;
const only = args.only?.split(',');

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i]!;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f2 = (x: number) => x.toFixed(2);
const INTERACTION_METRICS = METRICS.filter((m) => m.perspective === 'interaction');

async function probeAll(pages: string[]): Promise<void> {
  const g = browserGatherers({ network: { mode: 'cdn' } });
  const times: number[] = [];
  const phases: Record<string, number[]> = {};
  const rows: string[] = [];
  let withInert = 0;
  let scoredLiveness = 0;
  let actionsTotal = 0;
  let controlsTotal = 0;
  let overBudget = 0;
  const metricScores: Record<string, number[]> = {};
  const unscorable: Record<string, number> = {};
  const load: number[] = [];
  try {
    for (const [i, page] of pages.entries()) {
      const name = page
        .split('/')
        .pop()!
        .replace(/\.html?$/, '');
      const evidence: Evidence = { artifact: loadArtifact(page), options: { checkNetwork: false } };
      const t = performance.now();
      await gatherEvidence(g, evidence, { needs: new Set(['interaction']), metrics: [], budgetMs: 60_000 });
      const ms = performance.now() - t;
      load.push(loadavg()[0]!);
      const it = evidence.interaction;
      if (!it?.ok) {
        process.stderr.write(`${name}: no probe (${it?.reason})\n`);
        continue;
      }
      const v = it.value;
      const probeMs = v.timings.withContext ?? ms;
      times.push(probeMs);
      if (probeMs > INTERACTION_DEFAULTS.budgetMs) overBudget++;
      for (const [k, x] of Object.entries(v.timings)) (phases[k] ??= []).push(x);
      actionsTotal += v.actions.length;
      controlsTotal += v.controls.filter((c) => c.kind !== 'page-link').length;
      const tl = tallyLiveness(v);
      if (tl.acted.length) scoredLiveness++;
      if (tl.inert.length + tl.hung.length > 0) withInert++;
      for (const m of INTERACTION_METRICS) {
        const r = await runMetric(m, evidence);
        if (r.score === null) unscorable[m.id] = (unscorable[m.id] ?? 0) + 1;
        else (metricScores[m.id] ??= []).push(r.score);
      }
      process.stderr.write(
        `[${i + 1}/${pages.length}] ${name}: ${(probeMs / 1000).toFixed(2)} s, ${v.actions.length} actions, ${tl.inert.length} inert, ${v.navigation.links.length} nav links${v.unavailable?.actions ? ` (${v.unavailable.actions})` : ''}\n`,
      );
      if (out) {
        const pdir = join(out, name);
        mkdirSync(pdir, { recursive: true });
        const { screenshot, actions, ...rest } = v;
        if (screenshot) writeFileSync(join(pdir, 'start.png'), screenshot.png);
        writeFileSync(join(pdir, 'interaction.json'), JSON.stringify({ ...rest, actions: actions.map(({ crop: _c, ...a }) => a) }, null, 1));
        for (const a of actions) {
          const c = v.controls[a.control]!;
          if (a.crop) writeFileSync(join(pdir, `crop-${a.control}.png`), a.crop);
          if (a.outcome === 'done' && a.effects.length === 0)
            rows.push(
              [name, a.control, c.kind, c.selector, JSON.stringify(c.text), a.action, a.note ?? '', a.crop ? `${name}/crop-${a.control}.png` : ''].join('\t'),
            );
        }
      }
    }
  } finally {
    await closeGatherers(g);
  }
  if (out) writeFileSync(join(out, 'inert.tsv'), ['page\tcontrol\tkind\tselector\ttext\taction\tnote\tcrop', ...rows].join('\n') + '\n');
  console.log(`probe alone, ${times.length} pages (load average ${f2(median(load))} median during the run)`);
  console.log(
    `  seconds per page: median ${f2(median(times) / 1000)}, p90 ${f2(quantile(times, 0.9) / 1000)}, largest ${f2(Math.max(...times) / 1000)} (budget ${INTERACTION_DEFAULTS.budgetMs / 1000} s; over it: ${overBudget})`,
  );
  console.log(
    `  median ms by phase: ${Object.entries(phases)
      .map(([k, xs]) => `${k} ${Math.round(median(xs))}`)
      .join(', ')}`,
  );
  console.log(`  controls ${controlsTotal}, actions ${actionsTotal} (${f2(actionsTotal / Math.max(1, times.length))} per page)`);
  console.log(
    `  pages with at least one inert control: ${withInert} of ${scoredLiveness} with controls acted on (${f2((100 * withInert) / Math.max(1, scoredLiveness))}%)`,
  );
  for (const m of INTERACTION_METRICS) {
    const xs = metricScores[m.id] ?? [];
    console.log(
      `  ${m.id}: ${xs.length} scored (mean ${xs.length ? f2(xs.reduce((a, b) => a + b, 0) / xs.length) : 'n/a'}), ${unscorable[m.id] ?? 0} unscorable`,
    );
  }
}

async function placement(pages: string[]): Promise<void> {
  const ids = METRICS.filter((m) => m.kind === 'rule').map((m) => m.id);
  const without = ids.filter((id) => !INTERACTION_METRICS.some((m) => m.id === id) && id !== 'dead-code');
  // The placement is a probe-gatherer option: each scorer gets gatherers made with it.
  const withPlacement = (p: 'before-lighthouse' | 'after-lighthouse') =>
    productGatherers({ checkNetwork: false, budgetMs: DEFAULT_BUDGET_MS, interactionPlacement: p });
  const scorers = {
    none: new Scorer({ suite: 'extended', only: without }),
    before: new Scorer({ suite: 'extended', only: ids, gatherers: withPlacement('before-lighthouse') }),
    after: new Scorer({ suite: 'extended', only: ids, gatherers: withPlacement('after-lighthouse') }),
  };
  const secs: Record<string, number[]> = { none: [], before: [], after: [] };
  const held: number[] = [];
  try {
    for (const [i, page] of pages.entries()) {
      const order = (['none', 'before', 'after'] as const).map((_, k, a) => a[(k + i) % 3]!);
      for (const which of order) {
        const t = performance.now();
        const { evidence } = await scorers[which].scoreWithEvidence(page);
        secs[which]!.push((performance.now() - t) / 1000);
        if (which === 'before' && evidence.browser?.ok && evidence.browser.value.timings.lighthouseHeld !== undefined)
          held.push(evidence.browser.value.timings.lighthouseHeld);
      }
      process.stderr.write(
        `[${i + 1}/${pages.length}] ${page.split('/').pop()}: none ${f2(secs.none!.at(-1)!)} s, before ${f2(secs.before!.at(-1)!)} s, after ${f2(secs.after!.at(-1)!)} s\n`,
      );
    }
  } finally {
    await Promise.all(Object.values(scorers).map((s) => s.close()));
  }
  const diff = (k: string) => secs[k]!.map((x, i) => x - secs.none![i]!);
  console.log(
    `placement, ${pages.length} pages, whole extended rule suite (seconds per page, median): without the probe ${f2(median(secs.none!))}, probe before Lighthouse measures ${f2(median(secs.before!))} (+${f2(median(diff('before')))}), probe after Lighthouse ${f2(median(secs.after!))} (+${f2(median(diff('after')))}); Lighthouse held ${Math.round(median(held))} ms (median) with the probe before it`,
  );
}

async function main(): Promise<void> {
  const count = args.pages;
  let pages = readdirSync(dir)
    .filter((f) => /\.html?$/.test(f))
    .sort()
    .map((f) => join(dir, f));
  if (only) pages = pages.filter((p) => only.some((o) => p.endsWith(`/${o}.html`) || p.endsWith(`/${o}`)));
  const every = args.every;
  pages = pages.filter((_, i) => i % every === 0).slice(0, count);
  if (out) mkdirSync(out, { recursive: true });
  await probeAll(pages);
  const k = args.placement;
  if (k > 0) await placement(pages.slice(0, k));
}

await main();
