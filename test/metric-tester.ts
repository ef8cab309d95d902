/**
 * Table-driven metric tests, in the spirit of ESLint's RuleTester: a list of cases, each an input (an
 * artifact's files and optional extra evidence) and the expected outcome (an exact or approximate score, or an
 * unscorable reason). No browser: evidence is built from the files plus whatever the case supplies.
 *
 *   testMetric(commentRate, [
 *     { name: 'no comments scores 60', files: { 'index.html': '<p>hi</p>' }, score: 60 },
 *     { name: 'browser evidence missing', html: '...', evidence: { browser: missing('no browser') }, unscorable: /no browser/ },
 *   ]);
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadArtifact } from '../lib/artifact/load.js';
import type { Evidence } from '../core/evidence.js';
import { unscorable, type MetricDefinition, type MetricDetails, type MetricOutcome } from '../core/metric.js';
import { missingEvidence } from '../runner/run-metric.js';
import { writeArtifact, writeSingleFile } from './helpers.js';

export interface MetricCase {
  name: string;
  /** A one-file artifact. */
  html?: string | Buffer;
  /** A folder artifact (must contain index.html). */
  files?: Record<string, string | Buffer>;
  /** Extra evidence merged over the static evidence (browser, lighthouse, judges ...). */
  evidence?: Partial<Omit<Evidence, 'artifact'>> | ((base: Evidence) => Partial<Omit<Evidence, 'artifact'>>);
  /** Exact expected score (compared to 1e-6). */
  score?: number;
  /** Expected score within a tolerance: [value, tolerance]. */
  near?: [number, number];
  /** Score bounds, inclusive. */
  between?: [number, number];
  /** Expected unscorable; the reason must match. */
  unscorable?: RegExp | string;
  /** Extra checks on details. */
  details?: (details: MetricDetails, outcome: MetricOutcome) => void;
}

export function buildEvidence(c: Pick<MetricCase, 'html' | 'files' | 'evidence'>): Evidence {
  let path: string;
  if (c.files) path = writeArtifact(c.files);
  else if (c.html !== undefined) path = writeSingleFile(c.html);
  else throw new Error('a metric case needs html or files');
  const base: Evidence = { artifact: loadArtifact(path), options: { checkNetwork: false } };
  const extra = typeof c.evidence === 'function' ? c.evidence(base) : c.evidence;
  return { ...base, ...extra };
}

/**
 * The metric's outcome as the runner produces it: unscorable with the gatherer's reason when a required evidence
 * is missing (runner/run-metric.ts `missingEvidence`), else the metric's own `score`.
 */
export async function outcomeOf(metric: MetricDefinition, evidence: Evidence): Promise<MetricOutcome> {
  const absent = missingEvidence(metric, evidence);
  return absent ? unscorable(absent.reason, absent.details) : metric.score(evidence);
}

export async function evaluateCase(metric: MetricDefinition, c: MetricCase): Promise<MetricOutcome> {
  const outcome = await outcomeOf(metric, buildEvidence(c));
  if (c.unscorable !== undefined) {
    assert.equal(outcome.score, null, `expected unscorable, got ${outcome.score}`);
    const reason = (outcome as { reason: string }).reason;
    if (typeof c.unscorable === 'string') assert.ok(reason.includes(c.unscorable), `reason "${reason}" lacks "${c.unscorable}"`);
    else assert.match(reason, c.unscorable);
  } else {
    assert.notEqual(outcome.score, null, `expected a score, got unscorable: ${(outcome as { reason?: string }).reason}`);
    const s = outcome.score as number;
    assert.ok(s >= 0 && s <= 100, `score ${s} outside [0, 100]`);
    if (c.score !== undefined) assert.ok(Math.abs(s - c.score) < 1e-6, `expected score ${c.score}, got ${s}`);
    if (c.near) assert.ok(Math.abs(s - c.near[0]) <= c.near[1], `expected ${c.near[0]} ± ${c.near[1]}, got ${s}`);
    if (c.between) assert.ok(s >= c.between[0] && s <= c.between[1], `expected score in [${c.between}], got ${s}`);
  }
  c.details?.(outcome.details, outcome);
  return outcome;
}

/** One metric's test table, as `testMetric` received it. */
export interface MetricTable {
  metric: MetricDefinition;
  cases: readonly MetricCase[];
}

/**
 * Where `testMetric` records its tables instead of registering tests, when a reader asked for them: the metric
 * pages (test/docs/metric-pages.ts) take their examples from the tables this way.
 */
const TABLE_SINK = Symbol.for('webgrade.metricTables');

/** Record every later `testMetric` table into the returned list instead of registering tests. */
export function collectMetricTables(): MetricTable[] {
  const g = globalThis as { [TABLE_SINK]?: MetricTable[] };
  return (g[TABLE_SINK] ??= []);
}

/** Register one `it` per case under `describe(metric.id)` (or record the table: `collectMetricTables`). */
export function testMetric(metric: MetricDefinition, cases: MetricCase[]): void {
  const sink = (globalThis as { [TABLE_SINK]?: MetricTable[] })[TABLE_SINK];
  if (sink) {
    sink.push({ metric, cases });
    return;
  }
  describe(`metric ${metric.id}`, () => {
    for (const c of cases) {
      it(c.name, async () => {
        await evaluateCase(metric, c);
      });
    }
  });
}
