/**
 * What `webgrade report` shows, computed once from a results file: the leaderboard under every persona (the
 * standings of report/leaderboard-html.ts `reportStandings`, whose statistics every page reads), per model the per-metric z against the
 * others and its best and worst artifacts, per requirement every model's artifact, per artifact its row, and
 * the failures of the run aggregated per metric and reason.
 *
 * Interpretations:
 * - An artifact scored several times (`--repeats`) is shown by its first scorable row (repeat order); its
 *   scores in the leaderboard and z are the population's (repeats merged, weights/aggregate.ts).
 * - A page's overall (best/worst artifacts, the requirement page) is `pageOverall` under the standings' guarded
 *   population norms and the report's persona (`--persona`, default dev): Σ w·z over the metrics it has scores for.
 * - Strengths and weaknesses of a model: its mean z per metric (the leaderboard's "Per-metric z"), highest and
 *   lowest three among metrics where the population spreads (σ > 0).
 * - Failures per metric and reason: every artifact on which a metric is unscorable (reason: the unscorable
 *   reason) or scored below 100 (reason: the metric's summary with numbers replaced by "#", so "3 errors" and
 *   "5 errors" are one reason), plus failed rows (reason: their error). Sorted by artifacts, then metric order.
 */
import { dedupeRows, rowsWithValidScores } from '../store/results-file.js';
import type { ResultRow } from '../core/results.js';
import { DEFAULT_SUITE, type SuiteId } from '../core/metric.js';
import { findMetric, metricOrder, suiteMetrics } from '../metrics/registry.js';
import { artifactKey, pageOverall, populationFromRows, repeatOf, type Population } from '../weights/aggregate.js';
import type { LeaderboardDoc } from '../weights/leaderboard.js';
import { reportData, reportStandings, type ReportData } from './leaderboard-html.js';
import { DEFAULT_NOISE_GUARD_K } from '../weights/noise.js';
import { resolveWeights, type ResolvedWeights } from '../weights/personas.js';
import { loadDefaultNorms } from '../weights/norms.js';
import { InputError } from '../core/errors.js';
import { dict, own } from '../lib/dict.js';
import { safeSegment } from '../store/evidence-keep.js';

export interface ArtifactView {
  model: string;
  requirement: string;
  row: ResultRow;
  /** Page overall in SD units under the report's persona (null for a failed row). */
  overall: number | null;
  /** Report-relative path of its page. */
  href: string;
}

export interface BoardRow {
  rank: number;
  model: string;
  overall: number;
  ci: [number, number] | null;
  ciReason?: string;
  perspectives: Record<string, number>;
}

export interface PersonaBoard {
  id: string;
  title: string;
  description: string;
  rows: BoardRow[];
}

export interface MetricZ {
  id: string;
  title: string;
  z: number | null;
  raw: number | null;
  unscorable: number;
}

export interface ModelView {
  model: string;
  href: string;
  artifacts: ArtifactView[];
  metrics: MetricZ[];
  strengths: MetricZ[];
  weaknesses: MetricZ[];
  best: ArtifactView[];
  worst: ArtifactView[];
}

export interface FailureGroup {
  metric: string;
  artifacts: number;
  reasons: Array<{ reason: string; count: number; examples: ArtifactView[] }>;
}

export interface ReportModel {
  title: string;
  generatedAt: string;
  persona: string;
  suite: SuiteId;
  leaderboard: ReportData;
  boards: PersonaBoard[];
  perspectives: string[];
  models: ModelView[];
  requirements: Array<{ id: string; href: string; artifacts: ArtifactView[] }>;
  artifacts: ArtifactView[];
  failures: FailureGroup[];
  notes: string[];
  population: LeaderboardDoc['population'];
}

/** The suite the rows were scored with: theirs when they all agree, else the default. */
function rowsSuite(rows: readonly ResultRow[]): SuiteId {
  const suites = new Set(rows.filter((r) => r.status === 'ok').map((r) => r.suite ?? DEFAULT_SUITE));
  return suites.size === 1 ? [...suites][0]! : DEFAULT_SUITE;
}

/** Report-relative page paths (names reduced to safe path segments). */
export const pagePath = {
  model: (m: string) => `model/${safeSegment(m)}.html`,
  requirement: (r: string) => `requirement/${safeSegment(r)}.html`,
  artifact: (m: string, r: string) => `artifact/${safeSegment(m)}/${safeSegment(r)}.html`,
};

/** The row that stands for an artifact: its first ok row in repeat order, else its first row. */
function shownRows(rows: readonly ResultRow[]): Map<string, ResultRow> {
  const out = new Map<string, ResultRow>();
  const sorted = [...rows].sort((a, b) => repeatOf(a) - repeatOf(b));
  for (const r of sorted) {
    const k = artifactKey(r.model, r.requirement);
    const cur = out.get(k);
    if (!cur || (cur.status !== 'ok' && r.status === 'ok')) out.set(k, r);
  }
  return out;
}

/** Every persona's leaderboard with its intervals, as computed in the standings (report/leaderboard-html.ts). */
function boards(rd: ReportData): PersonaBoard[] {
  return rd.personas.map((p) => ({
    id: p.id,
    title: p.title,
    description: p.description,
    rows: p.board.map((r) => {
      const b = own(p.bootstrap, r.model);
      const row: BoardRow = { rank: r.rank, model: r.model, overall: r.overall, ci: b?.ci ?? null, perspectives: r.perspectives };
      if (b?.ciReason) row.ciReason = b.ciReason;
      return row;
    }),
  }));
}

/** A failure reason with its numbers folded ("3 errors in 170 lines" → "# errors in # lines"). */
export function foldReason(text: string): string {
  return text
    .replace(/\d+(?:\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

function failures(views: readonly ArtifactView[]): FailureGroup[] {
  const byMetric = new Map<string, Map<string, ArtifactView[]>>();
  const add = (metric: string, reason: string, v: ArtifactView) => {
    const m = byMetric.get(metric) ?? new Map<string, ArtifactView[]>();
    byMetric.set(metric, m);
    const list = m.get(reason) ?? [];
    list.push(v);
    m.set(reason, list);
  };
  for (const v of views) {
    if (v.row.status !== 'ok') {
      add('(row failed)', foldReason(v.row.error ?? 'failed'), v);
      continue;
    }
    for (const m of v.row.metrics) {
      if (m.score === null) add(m.id, `unscorable: ${foldReason(m.reason ?? 'no reason')}`, v);
      else if (m.score < 100) add(m.id, foldReason(m.summary ?? `score below 100`), v);
    }
  }
  const out: FailureGroup[] = [...byMetric].map(([metric, reasons]) => ({
    metric,
    artifacts: new Set([...reasons.values()].flat().map((v) => artifactKey(v.model, v.requirement))).size,
    reasons: [...reasons]
      .map(([reason, list]) => ({ reason, count: list.length, examples: list.slice(0, 6) }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
  }));
  return out.sort((a, b) => b.artifacts - a.artifacts || metricOrder(a.metric) - metricOrder(b.metric));
}

function modelViews(pop: Population, doc: LeaderboardDoc, views: readonly ArtifactView[]): ModelView[] {
  return pop.models.map((model) => {
    const cells = own(doc.perMetric, model) ?? dict();
    const metrics: MetricZ[] = doc.metrics.map((m) => ({
      id: m.id,
      title: findMetric(m.id)?.title ?? m.id,
      z: own(cells, m.id)?.z ?? null,
      raw: own(cells, m.id)?.raw ?? null,
      unscorable: own(cells, m.id)?.unscorable ?? 0,
    }));
    const spread = metrics.filter((m) => m.z !== null && !doc.metrics.find((x) => x.id === m.id)?.degenerate);
    const byZ = [...spread].sort((a, b) => b.z! - a.z! || metricOrder(a.id) - metricOrder(b.id));
    const mine = views.filter((v) => v.model === model);
    const ranked = mine.filter((v) => v.overall !== null).sort((a, b) => b.overall! - a.overall! || a.requirement.localeCompare(b.requirement));
    const n = Math.min(3, Math.floor(ranked.length / 2) || ranked.length);
    return {
      model,
      href: pagePath.model(model),
      artifacts: mine,
      metrics,
      strengths: byZ.slice(0, 3).filter((m) => m.z! > 0),
      weaknesses: byZ
        .slice(-3)
        .reverse()
        .filter((m) => m.z! < 0),
      best: ranked.slice(0, n),
      worst: ranked.length > 1 ? ranked.slice(-n).reverse() : [],
    };
  });
}

export interface ReportOptions {
  persona?: string;
  title?: string;
  /** Bootstrap resamples of the leaderboard's intervals (default 1000). */
  iterations?: number;
}

/** Build the report's model from the rows of one results file. */
export function buildReport(allRows: readonly ResultRow[], opts: ReportOptions = {}): ReportModel {
  const valid = rowsWithValidScores(allRows);
  const { rows } = dedupeRows(valid.rows);
  if (rows.length === 0) throw new InputError('the results file has no valid rows');
  const suite = rowsSuite(rows);
  const reference = rows.some((r) => r.reference !== undefined);
  const weights: ResolvedWeights = resolveWeights({ suite, reference, ...(opts.persona ? { persona: opts.persona } : {}) });
  const pop = populationFromRows(rows, new Set(suiteMetrics(suite).map((m) => m.id)));
  const norms = loadDefaultNorms();
  const lopts = { iterations: opts.iterations ?? 1000, noiseGuard: { enabled: true, k: DEFAULT_NOISE_GUARD_K }, normsMetrics: norms?.metrics ?? null };
  const rs = reportStandings(pop, weights, lopts);
  const { doc } = rs;
  const rd = reportData(rs, { title: opts.title ?? 'webgrade leaderboard' });
  const guarded = rs.standings.norms;
  const samples = new Map(pop.samples.map((s) => [artifactKey(s.model, s.requirement), s]));
  const views: ArtifactView[] = [...shownRows(rows).values()]
    .map((row) => {
      const s = samples.get(artifactKey(row.model, row.requirement));
      const overall = s && !s.failed ? pageOverall(s.scores, guarded, weights.metrics) : null;
      return { model: row.model, requirement: row.requirement, row, overall, href: pagePath.artifact(row.model, row.requirement) };
    })
    .sort((a, b) => a.requirement.localeCompare(b.requirement) || a.model.localeCompare(b.model));
  const reqIds = [...new Set(views.map((v) => v.requirement))].sort();
  const notes = [...doc.notes];
  if (valid.rejected) notes.push(`${valid.rejected} rows rejected: a score outside 0–100 (e.g. ${valid.examples.join('; ')})`);
  return {
    title: opts.title ?? 'webgrade report',
    generatedAt: new Date().toISOString(),
    persona: weights.persona,
    suite,
    leaderboard: rd,
    boards: boards(rd),
    perspectives: rd.perspectives,
    models: modelViews(pop, doc, views),
    requirements: reqIds.map((id) => ({ id, href: pagePath.requirement(id), artifacts: views.filter((v) => v.requirement === id) })),
    artifacts: views,
    failures: failures(views),
    notes,
    population: doc.population,
  };
}
