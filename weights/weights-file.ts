/**
 * The weights file: what `webgrade survey weights --json/--out` writes and `webgrade leaderboard --weights`
 * reads. Same shape as SPEC's survey output:
 *
 *   {"personas": {"<persona>": {"respondents": n, "perspectives": {"<perspective id>": w},
 *                               "metrics": {"<metric id>": share}}},
 *    "dropped": {"too_fast": n, "invalid": n}}
 *
 * Interpretation: `perspectives` weights sum to 1 over the 9 perspectives; `metrics` are shares *inside* their
 * perspective (the shares of one perspective sum to 1; a perspective with one metric gives it 1). A metric's
 * final weight is its perspective weight × its share (SPEC "weights"). Missing metric shares for a perspective
 * mean equal shares, and tools that use the file say so.
 */
import { readFileSync } from 'node:fs';
import { METRIC_CATALOG } from '../metrics/catalog.js';
import { PERSPECTIVES, type PerspectiveId } from '../metrics/types.js';
import { InputError } from '../runner/errors.js';

export interface PersonaWeights {
  respondents: number;
  perspectives: Record<string, number>;
  metrics: Record<string, number>;
}

export interface WeightsFile {
  personas: Record<string, PersonaWeights>;
  dropped?: { too_fast: number; invalid: number };
}

const TOLERANCE = 1e-6;

/** Validate a parsed weights document; throws InputError naming `name` and the problem. */
export function validateWeightsFile(value: unknown, name: string): WeightsFile {
  const bad = (msg: string): never => {
    throw new InputError(`${name}: ${msg}`);
  };
  if (!value || typeof value !== 'object') bad('not a weights document');
  const personas = (value as { personas?: unknown }).personas;
  if (!personas || typeof personas !== 'object' || Array.isArray(personas)) bad('missing "personas" object');
  const out: WeightsFile = { personas: {} };
  for (const [persona, raw] of Object.entries(personas as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object') bad(`persona ${persona}: not an object`);
    const p = raw as Record<string, unknown>;
    const persp = p.perspectives as Record<string, unknown> | undefined;
    if (!persp || typeof persp !== 'object') bad(`persona ${persona}: missing "perspectives"`);
    const perspectives: Record<string, number> = {};
    for (const id of PERSPECTIVES) {
      const w = persp![id];
      if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) bad(`persona ${persona}: perspective ${id} needs a non-negative number`);
      perspectives[id] = w as number;
    }
    for (const k of Object.keys(persp!)) if (!(PERSPECTIVES as readonly string[]).includes(k)) bad(`persona ${persona}: unknown perspective ${k}`);
    const sum = Object.values(perspectives).reduce((a, b) => a + b, 0);
    if (Math.abs(sum - 1) > 1e-3) bad(`persona ${persona}: perspective weights sum to ${sum.toFixed(4)}, not 1`);
    const metrics: Record<string, number> = {};
    const rawMetrics = (p.metrics ?? {}) as Record<string, unknown>;
    for (const [id, w] of Object.entries(rawMetrics)) {
      if (!METRIC_CATALOG.some((m) => m.id === id)) bad(`persona ${persona}: unknown metric ${id}`);
      if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) bad(`persona ${persona}: metric ${id} needs a non-negative number`);
      metrics[id] = w as number;
    }
    for (const pid of PERSPECTIVES) {
      const ids = METRIC_CATALOG.filter((m) => m.perspective === pid).map((m) => m.id);
      const given = ids.filter((id) => id in metrics);
      if (given.length > 0 && given.length < ids.length) bad(`persona ${persona}: perspective ${pid} gives shares for some metrics but not all`);
      if (given.length === ids.length) {
        const s = given.reduce((a, id) => a + metrics[id]!, 0);
        if (Math.abs(s - 1) > 1e-3 + TOLERANCE) bad(`persona ${persona}: metric shares of ${pid} sum to ${s.toFixed(4)}, not 1`);
      }
    }
    const respondents = typeof p.respondents === 'number' ? p.respondents : 0;
    out.personas[persona] = { respondents, perspectives, metrics };
  }
  if (Object.keys(out.personas).length === 0) bad('no personas');
  const dropped = (value as { dropped?: { too_fast?: unknown; invalid?: unknown } }).dropped;
  if (dropped) out.dropped = { too_fast: Number(dropped.too_fast ?? 0), invalid: Number(dropped.invalid ?? 0) };
  return out;
}

export function loadWeightsFile(path: string): WeightsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new InputError(`${path}: cannot read weights file`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`${path}: not valid JSON`);
  }
  return validateWeightsFile(value, path);
}

/**
 * Final per-metric weights (summing to 1 over all 24) from perspective weights and within-perspective shares;
 * metrics without shares split their perspective equally. Also reports which perspectives used equal shares.
 */
export function metricWeights(perspectives: Record<string, number>, shares: Record<string, number> = {}): {
  weights: Record<string, number>;
  equalShareIn: PerspectiveId[];
} {
  const weights: Record<string, number> = {};
  const equalShareIn: PerspectiveId[] = [];
  const total = PERSPECTIVES.reduce((s, p) => s + (perspectives[p] ?? 0), 0);
  for (const p of PERSPECTIVES) {
    const ids = METRIC_CATALOG.filter((m) => m.perspective === p).map((m) => m.id);
    const pw = (perspectives[p] ?? 0) / (total || 1);
    const haveShares = ids.every((id) => typeof shares[id] === 'number');
    if (!haveShares && ids.length > 1) equalShareIn.push(p);
    const shareSum = haveShares ? ids.reduce((s, id) => s + shares[id]!, 0) : ids.length;
    for (const id of ids) weights[id] = pw * ((haveShares ? shares[id]! : 1) / (shareSum || 1));
  }
  return { weights, equalShareIn };
}
