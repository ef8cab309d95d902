/** Terminal table and CSV renderings of an analysis document (analyse.ts). */
import Table from 'cli-table3';
import type { AnalysisDoc, Correlation, MetricAnalysis } from '../weights/analyse.js';
import { csvText, pctOfSd, type CsvValue } from './leaderboard-format.js';
import { describeChange, guardSummary } from '../weights/noise.js';
import { estimateText } from '../weights/judgements.js';

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [] }, chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } });
}

const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));
const share = (x: number) => `${(x * 100).toFixed(0)}%`;

/** A metric's numbers are 0–100 scores; the overall's are SD units, shown as % of one SD. */
function scaled(m: MetricAnalysis, x: number | null | undefined): string {
  return m.id === 'overall' ? pctOfSd(x) : num(x);
}

export function corrText(c: Correlation): string {
  if (c.value === null) return 'n/a';
  return c.ci ? `${c.value.toFixed(2)} [${c.ci[0].toFixed(2)}, ${c.ci[1].toFixed(2)}]` : c.value.toFixed(2);
}

/** How many timings the table shows (the slowest by median). */
const TIMINGS_SHOWN = 15;

export function analysisTable(doc: AnalysisDoc): string {
  const p = doc.population;
  const out: string[] = [];
  const repeats = p.maxRepeats > 1 ? `; scored up to ${p.maxRepeats} times (${p.rows} rows, ${p.artifactsWithRepeats} artifacts with repeats)` : '; no repeats';
  out.push(
    `Analysis of ${doc.results} (suite ${doc.suite}): ${p.artifacts} artifacts (${p.failed} failed) from ${p.models} models, ${p.requirements} requirements, ${p.metrics} metrics with results${repeats}`,
  );
  out.push(doc.weights);
  out.push(guardSummary(doc.noiseGuard));
  out.push('');
  out.push("Distribution and noise per metric (an artifact's score is its mean over its repeats; the overall in % of one SD)");
  const t = table(['metric', 'weight', 'scorable', 'mean', 'sd', 'most common (share)', 'retest sd', 'retest / sd', 'σ used']);
  for (const m of [...doc.metrics, doc.overall]) {
    t.push([
      m.id,
      m.id === 'overall' ? '' : `${(m.weight * 100).toFixed(2)}%`,
      `${share(m.scorableShare)} (${m.scorable})`,
      scaled(m, m.mean),
      scaled(m, m.sd),
      m.id === 'overall' ? '' : m.mode ? `${scaled(m, m.mode.score)} (${share(m.mode.share)})` : 'n/a',
      m.retest ? scaled(m, m.retest.sd) : (m.retestNote ?? 'n/a'),
      m.retest?.ratio === null || m.retest?.ratio === undefined ? (m.retest ? 'n/a' : '') : m.retest.ratio.toFixed(2),
      m.effectiveSd !== undefined ? `${num(m.effectiveSd)} (guard)` : m.id === 'overall' ? '' : num(m.sd),
    ]);
  }
  out.push(t.toString());
  out.push('retest sd: within-page sd pooled over pages with two scorable repeats; retest / sd ≥ 1 means the spread across pages is no larger than the noise');
  const r = doc.ratings;
  if (r) {
    out.push('');
    const boot = r.bootstrap ? `95% CI: ${r.bootstrap.iterations} bootstrap resamples of the requirements (seed ${r.bootstrap.seed})` : 'no bootstrap';
    out.push(
      `Agreement with human ratings (${r.file}: ${r.pages} rated pages of ${r.requirements} requirements, ${r.requirementsWithMinPages} with ≥ ${r.minGroup} rated pages; ${boot})`,
    );
    const a = table(['metric', 'pages', 'Spearman ρ', 'Kendall τ', 'within: reqs', 'within ρ', 'within τ']);
    for (const m of [...doc.metrics, doc.overall]) {
      const g = m.ratings!;
      a.push([
        m.id,
        String(g.across.pages),
        corrText(g.across.spearman),
        corrText(g.across.kendall),
        String(g.within.groups),
        corrText(g.within.spearman),
        corrText(g.within.kendall),
      ]);
    }
    out.push(a.toString());
    out.push(
      `across pages: all rated pages pooled; within: per requirement with ≥ ${r.minGroup} rated pages (not all tied), averaged over those requirements (how many: "within: reqs")`,
    );
  }
  const pr = doc.pairs;
  if (pr) {
    out.push('');
    const boot = pr.bootstrap ? `95% CI: ${pr.bootstrap.iterations} bootstrap resamples of the requirements (seed ${pr.bootstrap.seed})` : 'no bootstrap';
    out.push(
      `Agreement with pairwise preferences (${pr.file}: ${pr.matched} judgements of ${pr.requirements} requirements, ${pr.ties} ties${pr.raters ? `, ${pr.raters} raters` : ''}; ${boot})`,
    );
    const a = table(['metric', 'judgements', 'accuracy [95% CI]', 'requirements']);
    for (const m of [...doc.metrics, doc.overall]) {
      const e = m.pairs!.accuracy;
      a.push([m.id, String(e.n), estimateText(e), String(e.groups)]);
    }
    out.push(a.toString());
    out.push(
      'accuracy: share of decisive judgements (ties left out) whose winner scores higher, a score tie counting ½ (chance 0.50); judgements with an unscorable page are left out for that metric',
    );
  }
  const times = doc.timings ?? [];
  if (times.length) {
    out.push('');
    const shown = times.slice(0, TIMINGS_SHOWN);
    out.push(`Where the time goes (ms per row; the ${shown.length} slowest of ${times.length} timings by median; every one with --json)`);
    const t = table(['timing', 'rows', 'median', 'p90', 'max']);
    for (const k of shown) t.push([k.key, String(k.rows), k.median.toFixed(0), k.p90.toFixed(0), k.max.toFixed(0)]);
    out.push(t.toString());
    out.push(
      'gather.<id>: a gatherer from its start to its end; visit.<phase>: a phase of the visit; a phase that grew between two runs of the same pages shows here',
    );
  }
  if (doc.notes.length) {
    out.push('');
    out.push('Notes:');
    for (const n of doc.notes) out.push(`- ${n}`);
  }
  return out.join('\n');
}

const CORR_COLUMNS = ['spearman', 'spearman_low', 'spearman_high', 'kendall', 'kendall_low', 'kendall_high'] as const;
const corrCells = (c: { spearman: Correlation; kendall: Correlation } | undefined) =>
  c ? [c.spearman.value, c.spearman.ci?.[0], c.spearman.ci?.[1], c.kendall.value, c.kendall.ci?.[0], c.kendall.ci?.[1]] : [null, null, null, null, null, null];

/**
 * One row per metric, then one for the overall (`metric` = "overall", values in SD units). Rating columns are
 * empty without --ratings, `pair_*` without --pairs; `within_*` are the within-requirement averages over `within_groups` requirements.
 * `noise_guard`: the guard's change for that metric (metric, σ, retest sd, k), empty when it changed nothing.
 */
export function analysisCsv(doc: AnalysisDoc): string {
  const head = [
    'metric',
    'perspective',
    'weight',
    'artifacts',
    'scorable',
    'scorable_share',
    'mean',
    'sd',
    'mode_score',
    'mode_share',
    'retest_sd',
    'retest_pairs',
    'retest_ratio',
    'effective_sd',
    'noise_guard',
    'pages',
    ...CORR_COLUMNS,
    'within_groups',
    'within_pages',
    ...CORR_COLUMNS.map((c) => `within_${c}`),
    'pair_judgements',
    'pair_accuracy',
    'pair_accuracy_low',
    'pair_accuracy_high',
  ];
  const lines: CsvValue[][] = [head];
  for (const m of [...doc.metrics, doc.overall]) {
    const change = doc.noiseGuard.changed.find((c) => c.metric === m.id);
    lines.push([
      m.id,
      m.perspective ?? '',
      m.weight,
      m.artifacts,
      m.scorable,
      m.scorableShare,
      m.mean,
      m.sd,
      m.mode?.score,
      m.mode?.share,
      m.retest?.sd,
      m.retest?.pairs,
      m.retest?.ratio,
      m.effectiveSd,
      change ? describeChange(change) : '',
      m.ratings?.across.pages,
      ...corrCells(m.ratings?.across),
      m.ratings?.within.groups,
      m.ratings?.within.pages,
      ...corrCells(m.ratings?.within),
      m.pairs?.accuracy.n,
      m.pairs?.accuracy.value,
      m.pairs?.accuracy.ci?.[0],
      m.pairs?.accuracy.ci?.[1],
    ]);
  }
  return csvText(lines);
}
