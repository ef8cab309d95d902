/**
 * The 8 persona presets of SPEC "From scores to rankings": perspective weights from the study's survey of 141
 * people (in %), one column per persona. Values are exactly SPEC's table, normalised so that each persona's nine
 * perspective weights sum to 1 (the published columns sum to 99.8–100.1 because of rounding).
 *
 * Within-perspective metric shares were published only as a chart, so every preset uses equal shares inside a
 * perspective (`metricWeights` from weights-file.ts reports `equalShareIn`); every output says so.
 *
 * Suites (SPEC "Suites"): weights cover the perspectives and metrics of one suite. For `study` they are the nine
 * study perspectives as above. For `extended`, until a survey supplies weights for them, each added perspective
 * (interaction; fidelity only when a reference was given) takes the weight the persona gives
 * `functional-alignment` (the study respondents' top perspective overall), and every perspective is then scaled
 * so that all sum to 1 (`withAddedPerspectives`). A weights file whose personas rank the added perspectives too
 * (a survey served with `--suite extended`) supplies them instead.
 */
import { DEFAULT_SUITE, STUDY_PERSPECTIVES, type PerspectiveId, type SuiteId } from '../core/metric.js';
import { InputError } from '../core/errors.js';
import { metricsOf, suitePerspectives } from '../metrics/registry.js';
import { metricWeights, type FitProvenance, type WeightsFile } from './weights-file.js';

export const PERSONA_IDS = ['dev', 'qa', 'ds', 'pm', 'ops', 'legal', 'designer', 'all'] as const;
export type PersonaId = (typeof PERSONA_IDS)[number];
export const DEFAULT_PERSONA: PersonaId = 'all';

export const PERSONA_TITLES: Record<PersonaId, string> = {
  dev: 'Developer',
  qa: 'QA / tester',
  ds: 'Data scientist',
  pm: 'Product manager',
  ops: 'Operations',
  legal: 'Legal / compliance',
  designer: 'Designer',
  all: 'All respondents',
};

/** SPEC's table in %, rows = the study perspectives in SPEC order, columns = PERSONA_IDS order. */
const TABLE_PERCENT: Record<(typeof STUDY_PERSPECTIVES)[number], readonly number[]> = {
  code: [13.5, 13.3, 12.7, 12.7, 10.3, 11.9, 5.6, 12.0],
  visual: [8.6, 7.4, 9.5, 7.5, 9.9, 8.2, 20.8, 9.0],
  content: [10.6, 13.1, 12.4, 9.2, 13.0, 13.3, 6.9, 12.1],
  performance: [8.6, 11.7, 11.1, 9.5, 13.1, 13.5, 5.6, 11.5],
  accessibility: [8.7, 10.9, 10.6, 9.2, 9.3, 10.5, 11.1, 9.9],
  maintainability: [11.2, 10.0, 10.3, 11.7, 9.0, 6.8, 5.6, 9.6],
  'functional-alignment': [14.7, 13.0, 11.5, 17.3, 13.8, 14.0, 16.7, 13.8],
  'visual-alignment': [9.2, 8.1, 9.1, 10.4, 9.8, 8.7, 18.1, 9.7],
  'content-alignment': [14.9, 12.4, 12.7, 12.6, 11.7, 13.1, 9.7, 12.5],
};

/** Raw SPEC percentages of one persona over the nine study perspectives (for display). */
export function personaPercent(id: PersonaId): Partial<Record<PerspectiveId, number>> {
  const col = PERSONA_IDS.indexOf(id);
  const out: Partial<Record<PerspectiveId, number>> = {};
  for (const p of STUDY_PERSPECTIVES) out[p] = TABLE_PERCENT[p][col]!;
  return out;
}

/** Study perspective weights of one persona, summing to 1. */
export function personaPerspectiveWeights(id: PersonaId): Partial<Record<PerspectiveId, number>> {
  const pct = personaPercent(id);
  const total = STUDY_PERSPECTIVES.reduce((s, p) => s + pct[p]!, 0);
  const out: Partial<Record<PerspectiveId, number>> = {};
  for (const p of STUDY_PERSPECTIVES) out[p] = pct[p]! / total;
  return out;
}

/**
 * The perspectives a suite weighs: its perspectives with metrics, `fidelity` only when a reference was given.
 */
export function weightedPerspectives(suite: SuiteId, opts: { reference?: boolean } = {}): PerspectiveId[] {
  return suitePerspectives(suite).filter((p) => p !== 'fidelity' || opts.reference);
}

/**
 * Perspective weights over `perspectives` from `base` (preset or file weights): a perspective `base` lacks
 * (an added one) takes the weight `base` gives functional-alignment; then all are scaled to sum to 1. Returns
 * the weights and the perspectives that took the rule.
 */
export function withAddedPerspectives(
  base: Partial<Record<PerspectiveId, number>>,
  perspectives: readonly PerspectiveId[],
): { weights: Partial<Record<PerspectiveId, number>>; ruled: PerspectiveId[] } {
  const raw: Partial<Record<PerspectiveId, number>> = {};
  const ruled: PerspectiveId[] = [];
  for (const p of perspectives) {
    const given = base[p];
    if (typeof given === 'number') raw[p] = given;
    else {
      raw[p] = base['functional-alignment'] ?? 0;
      ruled.push(p);
    }
  }
  const total = perspectives.reduce((s, p) => s + raw[p]!, 0) || 1;
  const weights: Partial<Record<PerspectiveId, number>> = {};
  for (const p of perspectives) weights[p] = raw[p]! / total;
  return { weights, ruled };
}

export function isPersonaId(id: string): id is PersonaId {
  return (PERSONA_IDS as readonly string[]).includes(id);
}

/** The weights a leaderboard or a score uses, with where they came from. */
export interface ResolvedWeights {
  /** Persona id (a preset id, or a persona of the weights file). */
  persona: string;
  /** "SPEC persona preset" or the weights file path. */
  source: string;
  /** The suite whose perspectives and metrics these weights cover. */
  suite: SuiteId;
  /** Weight of every perspective of the suite (see `weightedPerspectives`); they sum to 1. */
  perspectives: Partial<Record<PerspectiveId, number>>;
  /** Final weight of every metric of the suite (perspective weight × share); all sum to 1. */
  metrics: Record<string, number>;
  /** Perspectives (with more than one metric) whose metric shares are equal by default. */
  equalShareIn: PerspectiveId[];
  /** Added perspectives whose weight is the functional-alignment rule (no survey weight for them). */
  ruled: PerspectiveId[];
  /** Fitted weights (`webgrade weights fit`): where they came from. */
  fit?: FitProvenance;
}

/** Options every weights resolution takes: the suite, and whether a reference was given (fidelity). */
export interface SuiteOptions {
  suite?: SuiteId;
  reference?: boolean;
}

function resolved(
  persona: string,
  source: string,
  base: Partial<Record<PerspectiveId, number>>,
  shares: Record<string, number> | undefined,
  opts: SuiteOptions,
): ResolvedWeights {
  const suite = opts.suite ?? DEFAULT_SUITE;
  const { weights: perspectives, ruled } = withAddedPerspectives(base, weightedPerspectives(suite, opts));
  const { weights, equalShareIn } = metricWeights(perspectives, shares, suite);
  return { persona, source, suite, perspectives, metrics: weights, equalShareIn, ruled };
}

export function presetWeights(id: PersonaId, opts: SuiteOptions = {}): ResolvedWeights {
  return resolved(id, 'SPEC persona preset (study survey, 141 respondents)', personaPerspectiveWeights(id), undefined, opts);
}

/** Weights of `persona` from a weights file (weights-file.ts). */
export function fileWeights(file: WeightsFile, path: string, persona?: string, opts: SuiteOptions = {}): ResolvedWeights {
  const names = Object.keys(file.personas);
  const chosen = persona ?? (names.includes(DEFAULT_PERSONA) ? DEFAULT_PERSONA : names.length === 1 ? names[0]! : undefined);
  if (!chosen) throw new InputError(`${path}: holds personas ${names.join(', ')}; choose one with --persona`);
  const pw = file.personas[chosen];
  if (!pw) throw new InputError(`${path}: no persona ${JSON.stringify(chosen)} (has ${names.join(', ')})`);
  const out = resolved(chosen, path, pw.perspectives as Partial<Record<PerspectiveId, number>>, pw.shares ?? pw.metrics, opts);
  if (pw.fit) out.fit = pw.fit;
  return out;
}

/** `--persona` / `--weights` / `--suite` as the CLI takes them. */
export function resolveWeights(opts: { persona?: string; weightsFile?: WeightsFile; weightsPath?: string } & SuiteOptions): ResolvedWeights {
  if (opts.weightsFile) return fileWeights(opts.weightsFile, opts.weightsPath ?? 'weights file', opts.persona, opts);
  const id = opts.persona ?? DEFAULT_PERSONA;
  if (!isPersonaId(id)) throw new InputError(`unknown persona ${JSON.stringify(id)} (known: ${PERSONA_IDS.join(', ')})`);
  return presetWeights(id, opts);
}

/** One line naming the weights, for every output. */
export function describeWeights(w: ResolvedWeights): string {
  const multi = Object.keys(w.perspectives).filter((p) => metricsOf(p as PerspectiveId, w.suite).length > 1);
  const eq = w.equalShareIn.length
    ? `; metric shares inside ${w.equalShareIn.length === multi.length ? 'every perspective' : w.equalShareIn.join(', ')} are equal by default (no survey shares given)`
    : '';
  const ruled = w.ruled.length
    ? `; ${w.ruled.join(', ')} weigh${w.ruled.length === 1 ? 's' : ''} what the persona gives functional-alignment (no survey weight), all scaled to sum to 1`
    : '';
  // Fitted weights set every share themselves, so the equal-share remark would be wrong for them.
  return `weights: suite ${w.suite}, persona ${w.persona} from ${w.source}${w.fit ? '' : eq}${ruled}${w.fit ? " (fitted to people's judgements: see the provenance)" : ''}`;
}
