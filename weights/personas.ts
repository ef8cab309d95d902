/**
 * The 8 persona presets of SPEC "From scores to rankings": perspective weights from the study's survey of 141
 * people (in %), one column per persona. Values are exactly SPEC's table, normalised so that each persona's nine
 * perspective weights sum to 1 (the published columns sum to 99.8–100.1 because of rounding).
 *
 * Within-perspective metric shares were published only as a chart, so every preset uses equal shares inside a
 * perspective (`metricWeights` from weights-file.ts reports `equalShareIn`); every output says so.
 */
import { METRIC_CATALOG } from '../metrics/catalog.js';
import { PERSPECTIVES, type PerspectiveId } from '../metrics/types.js';
import { InputError } from '../runner/errors.js';
import { metricWeights, type WeightsFile } from './weights-file.js';

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

/** SPEC's table in %, rows = perspectives in PERSPECTIVES order, columns = PERSONA_IDS order. */
const TABLE_PERCENT: Record<PerspectiveId, readonly number[]> = {
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

/** Raw SPEC percentages of one persona (for display). */
export function personaPercent(id: PersonaId): Record<PerspectiveId, number> {
  const col = PERSONA_IDS.indexOf(id);
  const out = {} as Record<PerspectiveId, number>;
  for (const p of PERSPECTIVES) out[p] = TABLE_PERCENT[p][col]!;
  return out;
}

/** Perspective weights of one persona, summing to 1. */
export function personaPerspectiveWeights(id: PersonaId): Record<PerspectiveId, number> {
  const pct = personaPercent(id);
  const total = PERSPECTIVES.reduce((s, p) => s + pct[p], 0);
  const out = {} as Record<PerspectiveId, number>;
  for (const p of PERSPECTIVES) out[p] = pct[p] / total;
  return out;
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
  perspectives: Record<PerspectiveId, number>;
  /** Final weight of every catalogue metric (perspective weight × share); all 24 sum to 1. */
  metrics: Record<string, number>;
  /** Perspectives (with more than one metric) whose metric shares are equal by default. */
  equalShareIn: PerspectiveId[];
}

export function presetWeights(id: PersonaId): ResolvedWeights {
  const perspectives = personaPerspectiveWeights(id);
  const { weights, equalShareIn } = metricWeights(perspectives);
  return { persona: id, source: 'SPEC persona preset (study survey, 141 respondents)', perspectives, metrics: weights, equalShareIn };
}

/** Weights of `persona` from a weights file (weights-file.ts). */
export function fileWeights(file: WeightsFile, path: string, persona?: string): ResolvedWeights {
  const names = Object.keys(file.personas);
  const chosen = persona ?? (names.includes(DEFAULT_PERSONA) ? DEFAULT_PERSONA : names.length === 1 ? names[0]! : undefined);
  if (!chosen) throw new InputError(`${path}: holds personas ${names.join(', ')}; choose one with --persona`);
  const pw = file.personas[chosen];
  if (!pw) throw new InputError(`${path}: no persona ${JSON.stringify(chosen)} (has ${names.join(', ')})`);
  const total = PERSPECTIVES.reduce((s, p) => s + (pw.perspectives[p] ?? 0), 0) || 1;
  const perspectives = {} as Record<PerspectiveId, number>;
  for (const p of PERSPECTIVES) perspectives[p] = (pw.perspectives[p] ?? 0) / total;
  const { weights, equalShareIn } = metricWeights(perspectives, pw.metrics);
  return { persona: chosen, source: path, perspectives, metrics: weights, equalShareIn };
}

/** `--persona` / `--weights` as the CLI takes them. */
export function resolveWeights(opts: { persona?: string; weightsFile?: WeightsFile; weightsPath?: string }): ResolvedWeights {
  if (opts.weightsFile) return fileWeights(opts.weightsFile, opts.weightsPath ?? 'weights file', opts.persona);
  const id = opts.persona ?? DEFAULT_PERSONA;
  if (!isPersonaId(id)) throw new InputError(`unknown persona ${JSON.stringify(id)} (known: ${PERSONA_IDS.join(', ')})`);
  return presetWeights(id);
}

/** One line naming the weights, for every output. */
export function describeWeights(w: ResolvedWeights): string {
  const multi = PERSPECTIVES.filter((p) => METRIC_CATALOG.filter((m) => m.perspective === p).length > 1);
  const eq = w.equalShareIn.length
    ? `; metric shares inside ${w.equalShareIn.length === multi.length ? 'every perspective' : w.equalShareIn.join(', ')} are equal by default (no survey shares given)`
    : '';
  return `weights: persona ${w.persona} from ${w.source}${eq}`;
}
