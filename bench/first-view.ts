/**
 * The first view as a person sees it: does the probe's start state (interaction-start.png, and the frames it reads
 * later on the page clock) show what the visit's desktop screenshot shows? Over a spread sample of the corpus pages
 * (every K-th, `--pages` of them), the heavy fixtures (fixtures/heavy/) and the first-view fixtures
 * (fixtures/first-view/), each scored for render-validity and layout-sparsity (which asks for the visit's
 * screenshots): per page the verdict, whether the visit took its screenshot, whether render-validity warned that the
 * visit shows a scene no probe frame shows, and the content of the visit's and the probe's first views; then the
 * agreement figures and the probe's time per page (median, p90).
 *
 *   node dist/bench/first-view.js [--pages 40] [--every K] [--dir DIR] [--no-fixtures]
 */
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { quantile } from 'simple-statistics';
import type { FirstView, InteractionEvidence } from '../core/browser-evidence.js';
import { Scorer } from '../runner/score.js';
import { benchArgs, corpusDir, inputDir } from './common.js';

const { values } = benchArgs('usage: node dist/bench/first-view.js [--pages 40] [--every K] [--dir DIR] [--no-fixtures]', {
  pages: { type: 'number', default: 40 },
  every: { type: 'number' },
  dir: { type: 'string' },
  'no-fixtures': { type: 'boolean' },
});
const dir = inputDir(values.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.html') || !f.includes('.'))
  .sort();
const wanted = values.pages;
const every = values.every ? values.every : Math.max(1, Math.floor(names.length / wanted));
const pages = names
  .filter((_, i) => i % every === 0)
  .slice(0, wanted)
  .map((n) => ({ name: n, path: join(dir, n), kind: 'corpus' }));
if (!values['no-fixtures']) {
  const fixtures = join(import.meta.dirname, '..', '..', 'fixtures');
  for (const sub of ['heavy', 'first-view'])
    for (const f of readdirSync(join(fixtures, sub))
      .filter((x) => x.endsWith('.html'))
      .sort())
      pages.push({ name: `${sub}/${f}`, path: join(fixtures, sub, f), kind: sub });
}

const scorer = new Scorer({ suite: 'extended', only: ['render-validity', 'layout-sparsity'] });
const rows: Array<{
  name: string;
  kind: string;
  score: number | null;
  visit: boolean;
  warning: boolean;
  probeMs: number;
  visitContent?: number;
  probeContent?: number;
}> = [];
const loads: number[] = [];
for (const [i, p] of pages.entries()) {
  loads.push(loadavg()[0]!);
  const { doc, evidence } = await scorer.scoreWithEvidence(p.path);
  const m = doc.metrics.find((x) => x.id === 'render-validity')!;
  const ie = evidence.interaction?.ok ? (evidence.interaction.value as InteractionEvidence) : undefined;
  const fv = ie?.firstView as FirstView | undefined;
  const details = (m.details ?? {}) as Record<string, unknown>;
  const row = {
    name: p.name,
    kind: p.kind,
    score: m.score,
    visit: !!fv?.visit,
    warning: typeof details.warning === 'string',
    probeMs: ie?.timings.withContext ?? ie?.timings.total ?? NaN,
    ...(fv?.visit ? { visitContent: fv.visit.content } : {}),
    ...(fv?.screen ? { probeContent: Math.max(fv.screen.content, ...(fv.samples ?? []).map((s) => s.screen.content)) } : {}),
  };
  rows.push(row);
  console.log(
    `[${i + 1}/${pages.length}] ${p.name}: render-validity ${m.score ?? 'n/a'}${row.warning ? ' WARNING: ' + String(details.warning) : ''}; visit screenshot ${row.visit ? 'read' : 'missing'}; content visit ${row.visitContent ?? '-'} probe ${row.probeContent ?? '-'}; probe ${Math.round(row.probeMs)} ms`,
  );
}
await scorer.close();

for (const kind of ['corpus', 'heavy', 'first-view']) {
  const rs = rows.filter((r) => r.kind === kind);
  if (!rs.length) continue;
  const compared = rs.filter((r) => r.visit);
  const agree = compared.filter((r) => !r.warning).length;
  const ms = rs.map((r) => r.probeMs).filter((x) => Number.isFinite(x));
  console.log(
    `${kind}: ${rs.length} pages; the visit's screenshot read on ${compared.length}; probe and visit agree on ${agree} of ${compared.length}; ` +
      `rendered ${rs.filter((r) => r.score === 100).length}, not rendered ${rs.filter((r) => r.score === 0).length}; ` +
      `probe ms per page median ${ms.length ? Math.round(quantile(ms, 0.5)) : '-'}, p90 ${ms.length ? Math.round(quantile(ms, 0.9)) : '-'}`,
  );
}
console.log(`load average during the run: median ${quantile(loads, 0.5).toFixed(2)}`);
