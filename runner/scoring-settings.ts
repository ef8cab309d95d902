/**
 * The scoring settings of a results row: what decides a row's scores besides the page itself. `batch` and the
 * queue's workers write them into every row (`settings`), a queue stores them once (every worker uses them), and
 * `webgrade merge` refuses to combine files whose rows were scored with different ones.
 *
 * Rows written before rows carried `settings` still say part of it: their `suite`, the metric ids they hold (the
 * `--only` selection), the network mode of their `network` record and the alignment judges' `details.stance`.
 * `rowSettings` reads both; fields a row does not show are unknown and agree with anything.
 */
import { readFileSync } from 'node:fs';
import type { ResultRow, ScoringSettings } from '../core/results.js';
import { DEFAULT_SUITE, type SuiteId } from '../core/metric.js';
import { DEFAULT_NETWORK_MODE, type NetworkSettings } from '../core/network.js';
import type { AlignmentStance } from '../core/judge-answer.js';
import type { ViewportSpec } from '../core/fidelity.js';
import { DEFAULT_LIGHTHOUSE_RUNS } from '../gather/browser-gatherers.js';
import { selectMetrics } from './score.js';
import { browserVersion } from '../gather/chrome.js';
import { DEFAULT_VISIT_CLOCK, type VisitClockMode } from '../core/visit-clock.js';

export type { ScoringSettings };

export const WEBGRADE_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The settings of a batch or queue (bad `--only` ids are an InputError). */
export function scoringSettings(opts: {
  suite?: SuiteId;
  only?: string[];
  network?: NetworkSettings;
  lighthouseRuns?: number;
  visitClock?: VisitClockMode;
  budgetMs: number;
  checkNetwork?: boolean;
  alignment?: AlignmentStance;
  viewports?: ViewportSpec[];
}): ScoringSettings {
  const out: ScoringSettings = {
    webgrade: WEBGRADE_VERSION,
    suite: opts.suite ?? DEFAULT_SUITE,
    metrics: selectMetrics(opts.only, opts.suite).map((m) => m.id),
    network: opts.network?.mode ?? DEFAULT_NETWORK_MODE,
    lighthouseRuns: opts.lighthouseRuns ?? DEFAULT_LIGHTHOUSE_RUNS,
    budgetSeconds: opts.budgetMs / 1000,
    checkNetwork: opts.checkNetwork ?? false,
  };
  out.visitClock = opts.visitClock ?? DEFAULT_VISIT_CLOCK;
  if (opts.alignment) out.alignment = opts.alignment;
  if (opts.viewports) out.viewports = opts.viewports.map((v) => `${v.name}:${v.width}x${v.height}`);
  const browser = browserVersion();
  if (browser) out.browser = browser;
  return out;
}

/** What a row shows of its settings (see the module comment). */
export function rowSettings(row: ResultRow): Partial<ScoringSettings> {
  const out: Partial<ScoringSettings> = { ...(row.settings ?? {}) };
  out.suite = row.settings?.suite ?? row.suite ?? DEFAULT_SUITE;
  if (row.status === 'ok' && !row.settings) out.metrics = row.metrics.map((m) => m.id);
  const mode = (row as { network?: { mode?: unknown } }).network?.mode;
  if (typeof mode === 'string' && out.network === undefined) out.network = mode.replace(/:.*$/, '');
  if (out.alignment === undefined) {
    const stance = row.metrics.map((m) => (m.details as Record<string, unknown> | undefined)?.stance).find((s) => typeof s === 'string');
    if (typeof stance === 'string' && stance !== 'study') out.alignment = stance as AlignmentStance;
  }
  return out;
}

/** Every scoring setting two rows are compared on (all of ScoringSettings but the browser). */
export const COMPARED_SETTINGS: ReadonlyArray<keyof ScoringSettings> = [
  'webgrade',
  'suite',
  'metrics',
  'network',
  'lighthouseRuns',
  'visitClock',
  'budgetSeconds',
  'checkNetwork',
  'alignment',
  'viewports',
];

function show(v: unknown): string {
  if (v === undefined) return 'default';
  return Array.isArray(v) ? v.join(',') : String(v);
}

/** The browsers that scored `rows` (rows that do not say are left out), most rows first. */
export function browsersOf(settings: ReadonlyArray<Partial<ScoringSettings>>): string[] {
  const n = new Map<string, number>();
  for (const s of settings) if (s.browser) n.set(s.browser, (n.get(s.browser) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([b]) => b);
}

/** The first setting two rows disagree on, as `name: a vs b`, or null when they agree (the browser is not one). */
export function settingsDifference(a: Partial<ScoringSettings>, b: Partial<ScoringSettings>): string | null {
  for (const k of COMPARED_SETTINGS) {
    // The alignment stance and the viewports are written only when not the default; elsewhere a missing field
    // is unknown.
    const writtenWhenSet = k === 'alignment' || k === 'viewports';
    if (!writtenWhenSet && (a[k] === undefined || b[k] === undefined)) continue;
    if (writtenWhenSet && (a.webgrade === undefined || b.webgrade === undefined) && (a[k] === undefined || b[k] === undefined)) continue;
    if (show(a[k]) !== show(b[k])) return `${k}: ${show(a[k])} vs ${show(b[k])}`;
  }
  return null;
}
