/**
 * The HTML report of `webgrade leaderboard --format html`: one self-contained file (inline data, style and
 * script; no network, no external fonts) with the leaderboard, a persona switcher that re-ranks in the page, a
 * heatmap of raw metric means (models × the 24 catalogue metrics, like the study's Figure 5), per-metric z,
 * unscorable counts, label breakdowns (the study's Table 5: the average over models per label value, then each
 * model) and the bootstrap intervals.
 *
 * Switching persona in the page: every persona's leaderboard (ranks, overall, perspectives), its breakdowns and
 * its bootstrap intervals are computed in Node from the one set of standings (weights/leaderboard.ts
 * `computeStandings`: the norms, aggregates and bootstrap resamples are computed once for all personas) and
 * embedded; the page only shows them, it derives no score.
 *
 * All strings from the results (model names, label values) are inserted with textContent, and the embedded JSON
 * escapes `<`, so a hostile model name cannot inject markup. Records keyed by them have no prototype here and in
 * the page (lookups ask for own keys), so a model, metric or label named `__proto__` or `toString` is one like any other.
 *
 * The noise guard of the document (noise.ts) applies to every persona's bootstrap and to the breakdowns, and the
 * report says what it changed under the leaderboard. A model with artifacts for one requirement shows
 * "n/a: one requirement" instead of an interval.
 */
import { suiteMetrics } from '../metrics/registry.js';
import { scoreBreakdown, scoreModels, type Population } from '../weights/aggregate.js';
import { dict, own } from '../lib/dict.js';
import { readFileSync } from 'node:fs';
import { Eta } from 'eta';
import { LEADERBOARD_PAGE } from './templates.js';
import { guardSummary } from '../weights/noise.js';
import { executableText } from './leaderboard-format.js';
import { computeStandings, leaderboardDoc, PERSPECTIVE_SHORT, type LeaderboardDoc, type LeaderboardOptions, type Standings } from '../weights/leaderboard.js';
import { describeWeights, PERSONA_IDS, PERSONA_TITLES, presetWeights, type ResolvedWeights } from '../weights/personas.js';

/** One persona's leaderboard as the page shows it. */
export interface PersonaRow {
  model: string;
  rank: number;
  overall: number;
  /** Weighted z per perspective of the document (0 for a perspective the persona does not weigh). */
  perspectives: Record<string, number>;
}

export interface ReportData {
  title: string;
  generatedAt: string;
  initialPersona: string;
  population: LeaderboardDoc['population'];
  perspectives: string[];
  perspectiveShort: Record<string, string>;
  catalog: Array<{ id: string; perspective: string; title: string }>;
  /** Metrics with results (catalogue order). */
  metrics: LeaderboardDoc['metrics'];
  models: Array<{ model: string; artifacts: number; failed: number; executable?: string }>;
  perMetric: LeaderboardDoc['perMetric'];
  personas: Array<{
    id: string;
    title: string;
    description: string;
    perspectives: Record<string, number>;
    metrics: Record<string, number>;
    /** The leaderboard under this persona, best first. */
    board: PersonaRow[];
    /** breakdowns[label][value]: the mean over models of their overall on the value, how many, and each model's. */
    breakdowns: Record<string, Record<string, { average: number | null; models: number; overall: Record<string, number> }>>;
    bootstrap: Record<string, { ci: [number, number] | null; ciReason?: string; rankHolds: number | null }>;
    notApart: Array<{ upper: string; lower: string; pAhead: number }>;
  }>;
  /** breakdowns[label][value] = {artifacts}: the labels broken down, their values and how many artifacts carry each. */
  breakdowns: Record<string, Record<string, { artifacts: number }>>;
  bootstrapInfo: { iterations: number; seed: number; requirements: number } | null;
  /** The noise guard in one line (noise.ts `guardSummary`), and its changes. */
  noiseGuard: { summary: string; changed: LeaderboardDoc['noiseGuard']['changed'] };
  notes: string[];
}

/**
 * What the HTML leaderboard shows, computed once: the standings of the population with every persona's weights
 * bootstrapped on the same resamples, and the document of the chosen persona.
 */
export interface ReportStandings {
  standings: Standings;
  doc: LeaderboardDoc;
  /** The personas of the switcher: a persona from a weights file first, then the presets. */
  personas: ResolvedWeights[];
  /** The id of the chosen persona among `personas`. */
  initial: string;
}

/** The persona switcher's weight sets: every preset for the chosen suite, a weights file's persona first. */
export function reportPersonas(chosen: ResolvedWeights): { personas: ResolvedWeights[]; initial: string } {
  const suite = { suite: chosen.suite, reference: chosen.perspectives.fidelity !== undefined };
  const personas: ResolvedWeights[] = PERSONA_IDS.map((id) => presetWeights(id, suite));
  if (!personas.some((w) => w.persona === chosen.persona && w.source === chosen.source)) {
    // A persona from a weights file: shown first, under its own name (suffixed if it shadows a preset).
    const id = PERSONA_IDS.includes(chosen.persona as never) ? `${chosen.persona} (file)` : chosen.persona;
    personas.unshift({ ...chosen, persona: id });
  }
  const initial = personas.find((w) => w.source === chosen.source && (w.persona === chosen.persona || w.persona === `${chosen.persona} (file)`))!.persona;
  return { personas, initial };
}

/** Compute the standings of `pop` once for every persona of the switcher, and the chosen persona's document. */
export function reportStandings(pop: Population, chosen: ResolvedWeights, opts: LeaderboardOptions = {}): ReportStandings {
  const { personas, initial } = reportPersonas(chosen);
  const standings = computeStandings(pop, dict(personas.map((w) => [w.persona, w.metrics])), opts);
  return { standings, doc: leaderboardDoc(standings, chosen, initial), personas, initial };
}

export function reportData(rs: ReportStandings, opts: { title?: string } = {}): ReportData {
  const { standings: st, doc } = rs;
  const guard = doc.noiseGuard;
  const breakdowns: ReportData['breakdowns'] = dict();
  for (const la of st.labels) breakdowns[la.label] = dict(la.values.map((v) => [v.value, { artifacts: v.artifacts }]));
  return {
    title: opts.title ?? 'webgrade leaderboard',
    generatedAt: new Date().toISOString(),
    initialPersona: rs.initial,
    population: doc.population,
    perspectives: [...doc.perspectives],
    perspectiveShort: PERSPECTIVE_SHORT,
    catalog: suiteMetrics(doc.suite).map((m) => ({ id: m.id, perspective: m.perspective, title: m.title })),
    metrics: doc.metrics,
    models: doc.models.map((m) =>
      m.executable
        ? { model: m.model, artifacts: m.artifacts, failed: m.failed, executable: executableText(m) }
        : { model: m.model, artifacts: m.artifacts, failed: m.failed },
    ),
    perMetric: doc.perMetric,
    personas: rs.personas.map((w) => {
      const b = own(st.boot, w.persona);
      const perspectivesOf = (per: Partial<Record<string, number>>) => dict(doc.perspectives.map((p) => [p, own(per, p) ?? 0]));
      return {
        id: w.persona,
        title: own(PERSONA_TITLES as Record<string, string>, w.persona) ?? `from ${w.source}`,
        description: describeWeights(w),
        perspectives: w.perspectives,
        metrics: w.metrics,
        board: scoreModels(st.agg, w.metrics).map((m) => ({ model: m.model, rank: m.rank, overall: m.overall, perspectives: perspectivesOf(m.perspectives) })),
        breakdowns: dict(
          st.labels.map((la) => {
            const scored = scoreBreakdown(la, w.metrics);
            return [
              la.label,
              dict(
                scored.values.map((v) => [v.value, { average: v.average, models: v.modelsAveraged, overall: dict(v.models.map((m) => [m.model, m.overall])) }]),
              ),
            ];
          }),
        ),
        bootstrap: dict(
          (b?.models ?? []).map((m) => [
            m.model,
            m.ciReason ? { ci: m.ci, ciReason: m.ciReason, rankHolds: m.rankHolds } : { ci: m.ci, rankHolds: m.rankHolds },
          ]),
        ),
        notApart: b?.notApart ?? [],
      };
    }),
    breakdowns,
    bootstrapInfo: doc.bootstrap ? { iterations: doc.bootstrap.iterations, seed: doc.bootstrap.seed, requirements: doc.bootstrap.requirements } : null,
    noiseGuard: { summary: guardSummary(guard), changed: guard.changed },
    notes: doc.notes.filter((n) => !/not clearly apart/.test(n)),
  };
}

/** JSON safe inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The page's style and script (report/page/), read once from the source tree and inlined into every page. */
const PAGE_DIR = new URL('../../report/page/', import.meta.url);
const STYLE = readFileSync(new URL('leaderboard.css', PAGE_DIR), 'utf8');
const SCRIPT = readFileSync(new URL('leaderboard.js', PAGE_DIR), 'utf8');

const eta = new Eta({ autoEscape: true, autoTrim: false });

/** The HTML leaderboard (report/templates.ts `LEADERBOARD_PAGE`): one self-contained file. */
export function renderReportHtml(data: ReportData): string {
  return eta.renderString(LEADERBOARD_PAGE, { title: data.title, style: STYLE, json: scriptJson(data), script: SCRIPT });
}
