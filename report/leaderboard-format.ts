/** Terminal table and CSV renderings of a leaderboard document (leaderboard.ts). */
import Table from 'cli-table3';
import { stringify } from 'csv-stringify/sync';
import { PERSPECTIVE_SHORT, type LeaderboardDoc, type LeaderboardModel } from '../weights/leaderboard.js';
import { describeChange, guardSummary } from '../weights/noise.js';
import type { PeopleBeside } from '../weights/people.js';
import { estimateText } from '../weights/judgements.js';

/** SD units → "1.23" (percent of one SD, the study's Table 4 convention); the unit is named in headers. */
export function pctOfSd(x: number | null | undefined, digits = 2): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  const v = x * 100;
  return `${v >= 0 ? '' : '-'}${Math.abs(v).toFixed(digits)}`;
}

/** The CI cell: "lo … hi", "n/a: one requirement", or empty without a bootstrap. */
export function ciText(m: Pick<LeaderboardModel, 'ci' | 'ciReason'>): string {
  if (m.ci === null) return `n/a: ${m.ciReason ?? 'no interval'}`;
  return m.ci ? `${pctOfSd(m.ci[0])} … ${pctOfSd(m.ci[1])}` : '';
}

/** The executable cell: "83% (5/6)", with "+k unscorable" when render-validity could not be scored for some. */
export function executableText(m: Pick<LeaderboardModel, 'executable'>): string {
  const e = m.executable;
  if (!e) return '';
  const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  return `${e.of ? `${Math.round(e.share * 100)}%` : 'n/a'} (${n(e.rendered)}/${e.of})${e.unscorable ? ` +${e.unscorable} unscorable` : ''}`;
}

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [] }, chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } });
}

export function leaderboardTable(doc: LeaderboardDoc): string {
  const out: string[] = [];
  const p = doc.population;
  const repeats = p.maxRepeats > 1 ? ` scored up to ${p.maxRepeats} times (${p.rows} rows; each artifact counts once, its mean over its repeats)` : '';
  out.push(
    `Leaderboard (suite ${doc.suite}): ${p.models} models, ${p.artifacts} artifacts (${p.failed} failed)${repeats}, ${p.requirements} requirements, ${p.metrics} metrics with results`,
  );
  out.push(doc.weights.description);
  if (doc.weights.provenanceLine) out.push(doc.weights.provenanceLine);
  out.push('');
  out.push('Model scores (Table 4): weighted z per perspective and overall, in % of one standard deviation');
  const withExec = doc.models.some((m) => m.executable);
  const head = ['rank', 'model', 'overall', '95% CI', 'rank holds', ...(withExec ? ['executable'] : []), ...doc.perspectives.map((x) => PERSPECTIVE_SHORT[x])];
  const t = table(head);
  for (const m of doc.models) {
    t.push([
      String(m.rank),
      m.model,
      pctOfSd(m.overall),
      ciText(m),
      m.rankHolds === undefined ? '' : m.rankHolds === null ? 'n/a' : `${Math.round(m.rankHolds * 100)}%`,
      ...(withExec ? [executableText(m)] : []),
      ...doc.perspectives.map((x) => pctOfSd(m.perspectives[x])),
    ]);
  }
  out.push(t.toString());
  if (doc.bootstrap)
    out.push(
      `CI: ${doc.bootstrap.iterations} bootstrap resamples of the ${doc.bootstrap.requirements} requirements (seed ${doc.bootstrap.seed}); rank holds = share of resamples with the same rank`,
    );
  if (withExec)
    out.push(
      "executable: share of the model's artifacts whose first view rendered (render-validity 100; UI2App's executability), of those with a render-validity score; not weighted",
    );
  out.push(guardSummary(doc.noiseGuard));
  if (doc.people) out.push('', ...peopleSection(doc.people));

  const models = doc.models.map((m) => m.model);
  out.push('');
  out.push('Per-metric z (Table 10): unweighted mean z per model, % of one SD (n/a: no scorable sample)');
  const tz = table(['metric', 'weight', ...models]);
  for (const m of doc.metrics) {
    tz.push([m.id + (m.degenerate ? ' *' : ''), `${(m.weight * 100).toFixed(2)}%`, ...models.map((x) => pctOfSd(doc.perMetric[x]![m.id]!.z, 1))]);
  }
  out.push(tz.toString());
  if (doc.metrics.some((m) => m.degenerate)) out.push('* contributes 0 (scorable for nobody, or σ = 0)');

  out.push('');
  out.push('Raw means (0–100) per model; pool SD is between artifacts, retest SD within (n/a: no repeats, none in the norms), σ used is what z divides by');
  const tr = table(['metric', 'pool mean', 'pool SD', 'retest SD', 'σ used', ...models]);
  for (const m of doc.metrics) {
    const used = m.effectiveSd ?? m.sd;
    tr.push([
      m.id,
      m.mean === null ? 'n/a' : m.mean.toFixed(1),
      m.sd === null ? 'n/a' : m.sd.toFixed(2),
      m.retestSd === undefined ? 'n/a' : m.retestSd.toFixed(2),
      used === null ? 'n/a' : `${used.toFixed(2)}${m.effectiveSd !== undefined ? ' (guard)' : ''}`,
      ...models.map((x) => {
        const raw = doc.perMetric[x]![m.id]!.raw;
        return raw === null ? 'n/a' : raw.toFixed(1);
      }),
    ]);
  }
  out.push(tr.toString());

  out.push('');
  out.push("Unscorable counts per model and metric (Table 11), of each model's artifacts");
  const tu = table(['metric', ...models.map((x) => `${x} (${doc.models.find((m) => m.model === x)!.artifacts})`)]);
  for (const m of doc.metrics) tu.push([m.id, ...models.map((x) => String(doc.perMetric[x]![m.id]!.unscorable))]);
  out.push(tu.toString());

  for (const b of doc.breakdowns) {
    out.push('');
    out.push(`Overall by ${b.label} (Table 5), % of one SD (μ and σ from the whole population): the average over models, then each model`);
    const tb = table([b.label, 'artifacts', 'average over models', ...models]);
    for (const v of b.values) {
      tb.push([
        v.value,
        String(v.artifacts),
        `${pctOfSd(v.average)} (${v.modelsAveraged})`,
        ...models.map((x) => {
          const e = v.models.find((y) => y.model === x);
          return e ? pctOfSd(e.overall) : '';
        }),
      ]);
    }
    out.push(tb.toString());
    out.push('average over models: unweighted mean of the overalls of the models with artifacts of that value (how many in brackets)');
  }
  if (doc.notes.length) {
    out.push('');
    out.push('Notes:');
    for (const n of doc.notes) out.push(`- ${n}`);
  }
  return out.join('\n');
}

/** A CSV cell's value: empty for null and undefined, numbers written to 6 decimals. */
export type CsvValue = string | number | null | undefined;

/**
 * CSV text (csv-stringify, RFC 4180): one record a line, each line ended by LF; a field is quoted when it holds a
 * quote, comma or line break; null and undefined are empty; numbers are rounded to 6 decimals.
 */
export function csvText(records: ReadonlyArray<readonly CsvValue[]>): string {
  return stringify(records as CsvValue[][], { cast: { number: (v) => String(Math.round(v * 1e6) / 1e6) } });
}

/** The label breakdowns as (column name, value) pairs: `label:<label>=<value>` (Table 5). */
function breakdownColumns(doc: LeaderboardDoc): Array<{ name: string; label: string; value: string }> {
  return doc.breakdowns.flatMap((b) => b.values.map((v) => ({ name: `label:${b.label}=${v.value}`, label: b.label, value: v.value })));
}

/** The row name of the Table 5 average in the CSV (the `model` column of the last row). */
export const CSV_AVERAGE_ROW = '(average over models)';

/**
 * One row per model: rank, overall, CI, rank holds, the perspectives, artifacts, failed, `executable` (the share
 * of artifacts that rendered, 0–1, empty without render-validity results), then per metric `z:<id>`, `raw:<id>`,
 * `unscorable:<id>`, then the label breakdowns (Table 5) as `label:<label>=<value>` (the model's overall on the
 * artifacts with that label value), then with `--pairs` the people's `people_rank`, `people_strength`,
 * `people_ci_low`, `people_ci_high` (log-odds) and `people_votes`; values in SD units (not %). When there are breakdowns, one last row named
 * `(average over models)` (CSV_AVERAGE_ROW), with an empty rank and only the `label:` columns filled, holds the
 * study's Table 5 figure: the average over models per label value. Comment-free: the weights used are in the
 * `weights` column; then `ci_note` ("n/a: one requirement" when ci_low/ci_high are empty for that reason) and
 * `noise_guard` (what the guard changed: metric, σ, retest sd, k; the same text on every row).
 */
export function leaderboardCsv(doc: LeaderboardDoc): string {
  const ids = doc.metrics.map((m) => m.id);
  const bcols = breakdownColumns(doc);
  const cell = (label: string, value: string) => doc.breakdowns.find((b) => b.label === label)!.values.find((v) => v.value === value)!;
  const head = [
    'rank',
    'model',
    'overall',
    'ci_low',
    'ci_high',
    'rank_holds',
    ...doc.perspectives,
    'artifacts',
    'failed',
    'executable',
    ...ids.map((id) => `z:${id}`),
    ...ids.map((id) => `raw:${id}`),
    ...ids.map((id) => `unscorable:${id}`),
    ...bcols.map((c) => c.name),
    ...(doc.people ? ['people_rank', 'people_strength', 'people_ci_low', 'people_ci_high', 'people_votes'] : []),
    'weights',
    'ci_note',
    'noise_guard',
  ];
  const guard = doc.noiseGuard.changed.length
    ? `k ${doc.noiseGuard.k}: ${doc.noiseGuard.changed.map(describeChange).join('; ')}`
    : guardSummary(doc.noiseGuard);
  const lines: CsvValue[][] = [head];
  for (const m of doc.models) {
    const pm = doc.perMetric[m.model]!;
    lines.push([
      m.rank,
      m.model,
      m.overall,
      m.ci?.[0],
      m.ci?.[1],
      m.rankHolds,
      ...doc.perspectives.map((p) => m.perspectives[p]),
      m.artifacts,
      m.failed,
      m.executable?.of ? m.executable.share : undefined,
      ...ids.map((id) => pm[id]!.z),
      ...ids.map((id) => pm[id]!.raw),
      ...ids.map((id) => pm[id]!.unscorable),
      ...bcols.map((c) => cell(c.label, c.value).models.find((x) => x.model === m.model)?.overall),
      ...peopleCells(doc.people, m.model),
      doc.weights.description,
      m.ci === null ? `n/a: ${m.ciReason ?? 'no interval'}` : '',
      guard,
    ]);
  }
  if (bcols.length) {
    const before = head.length - bcols.length - 3 - (doc.people ? 5 : 0);
    const row: Array<string | number | null | undefined> = new Array(before).fill(undefined);
    row[1] = CSV_AVERAGE_ROW;
    lines.push([
      ...row,
      ...bcols.map((c) => cell(c.label, c.value).average),
      ...(doc.people ? new Array(5).fill(undefined) : []),
      doc.weights.description,
      '',
      guard,
    ]);
  }
  return csvText(lines);
}

/** "0.42 [0.10, 0.77]" of a strength (log-odds) or ρ; "n/a" without a value. */
function withCi(value: number | null, ci: [number, number] | null, digits = 2): string {
  if (value === null) return 'n/a';
  return ci ? `${value.toFixed(digits)} [${ci[0].toFixed(digits)}, ${ci[1].toFixed(digits)}]` : value.toFixed(digits);
}

/** The people's Bradley–Terry ranking beside webgrade's, and their agreement (`leaderboard --pairs`). */
export function peopleSection(p: PeopleBeside): string[] {
  const out: string[] = [];
  const boot = p.bootstrap
    ? `; 95% CI: ${p.bootstrap.iterations} bootstrap resamples of the ${p.bootstrap.unit === 'requirement' ? 'requirements' : 'votes'} (seed ${p.bootstrap.seed})`
    : '';
  out.push(
    `People's ranking beside webgrade's: Bradley–Terry on ${p.matched} votes of ${p.file} (${p.ties} ties${p.bothBad ? `, ${p.bothBad} of them both-bad` : ''}; ${p.raters} rater${p.raters === 1 ? '' : 's'}; ${p.requirements} requirements)${boot}`,
  );
  const t = table(['people', 'model', 'strength (log-odds) [95% CI]', 'rank interval', 'votes (won–lost–tied)', 'webgrade', 'overall']);
  for (const m of p.models) {
    t.push([
      String(m.rank),
      m.model,
      withCi(m.strength, m.ci),
      m.rankCi ? `${Math.round(m.rankCi[0])}–${Math.round(m.rankCi[1])}` : '',
      `${m.votes} (${m.wins}–${m.losses}–${m.ties})`,
      String(m.webgradeRank),
      pctOfSd(m.webgradeOverall),
    ]);
  }
  out.push(t.toString());
  out.push(`strength: log-odds of beating the average model of the set (0), with a weak prior (λ ${p.l2}); webgrade's overall in % of one SD`);
  const o = p.agreement.modelOrder;
  out.push(
    `Agreement, model order: Spearman ρ ${withCi(o.spearman, o.ci)} between the people's strengths and webgrade's overalls over ${o.models} models${o.ci ? " (interval: the people's bootstrap)" : ''}`,
  );
  const g = p.agreement.pages;
  out.push(
    `Agreement, pages: webgrade's overall picks the people's winner in ${estimateText(g)} of ${g.n} decisive votes of ${g.groups} requirements (chance 0.50; a tie in the overall counts ½; interval over requirements)`,
  );
  if (p.unmatched) out.push(`${p.unmatched} votes name a page these results do not have: left out`);
  return out;
}

/** The people's columns of one model's CSV row (none without --pairs). */
function peopleCells(p: PeopleBeside | undefined, model: string): Array<number | undefined> {
  if (!p) return [];
  const m = p.models.find((x) => x.model === model);
  return [m?.rank, m?.strength, m?.ci?.[0], m?.ci?.[1], m?.votes];
}
