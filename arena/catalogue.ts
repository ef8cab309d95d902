/**
 * What the arena can show: the pages of a results file (`webgrade batch`), each with its artifact and its kept
 * desktop screenshot, and the requirements' text.
 *
 * A results file and everything it names are hostile data (a hand-edited or foreign file, or one a page under
 * test shaped). Interpretations:
 * - A page is (model, requirement); rows of several repeats name the same artifact, and the first row whose
 *   artifact can be served stands for it, ok or failed (a page that failed scoring is still an answer people can
 *   judge; `weights fit` then leaves its votes out, as it leaves out any vote on a page without scores).
 * - `artifact` must be a path without NUL, at most 4096 characters; a relative path is taken from the results
 *   file's folder, as the row's evidence pictures are. The artifact is listed with core/artifact/load.ts
 *   `listArtifact` (the rule every served artifact follows: only regular files whose real path lies inside the
 *   artifact's real folder; links out, devices, FIFOs and /proc are refused); one that cannot be listed is
 *   skipped with the reason. Its files are listed again when a pair is served (arena/frames.ts), so what is
 *   served is what is there then, by the same rule.
 * - Model and requirement names are shown and written into the votes file: at most 200 characters, no control
 *   characters; a row with another name is skipped.
 * - The screenshot is the row's kept `desktop` picture (runner/evidence-keep.ts), shown while the live page
 *   loads. Its path must resolve inside the results file's real folder to a regular .webp or .png file of at
 *   most 8 MiB; anything else is not shown (the page is still served).
 * - Requirement text comes from `--requirements` (core/requirements.ts); without it, or for an id it does not
 *   have, the page says that only the id is known.
 * - Each page's metric profile, for the choice of pairs (arena/select.ts): the z `weights fit` learns from, over
 *   the rows with valid scores (repeats merged; z over every page of the results, unscorable counting 0, metrics
 *   that cannot separate pages left out). No noise guard: the choice needs only which pages differ and how.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve, sep } from 'node:path';
import { InputError } from '../core/errors.js';
import { listArtifact } from '../lib/artifact/load.js';
import { loadRequirements } from '../core/requirements.js';
import { dedupeRows, readResults, rowsWithValidScores, type ResultRow } from '../store/results-file.js';
import { populationFromRows, populationNorms } from '../weights/aggregate.js';
import { zOf } from '../weights/zscore.js';

export const MAX_NAME_CHARS = 200;
export const MAX_PATH_CHARS = 4096;
export const MAX_SHOT_BYTES = 8 * 1024 * 1024;

export interface ArenaPage {
  model: string;
  requirement: string;
  /** The artifact's path (absolute). */
  artifact: string;
  /** The verified real path of its desktop screenshot, when one can be shown. */
  shot?: string;
  /** MIME type of `shot`. */
  shotType?: string;
}

export interface Catalogue {
  pages: ArenaPage[];
  /** Requirement id → its text (only with --requirements). */
  texts: Map<string, string>;
  /** Pages left out, each with why. */
  skipped: string[];
  /** Each page's metric z, by `requirement\0model` (module comment); empty when no metric separates pages. */
  features: Map<string, Float64Array>;
  /** The metrics behind `features`, in order. */
  featureMetrics: string[];
  /** Rows read, and lines of the results file that were not rows. */
  rows: number;
  badLines: number;
}

function nameProblem(kind: string, name: unknown): string | null {
  if (typeof name !== 'string' || name.trim() === '') return `no ${kind}`;
  if (name.length > MAX_NAME_CHARS) return `${kind} longer than ${MAX_NAME_CHARS} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return `${kind} with control characters`;
  return null;
}

function insideFolder(real: string, root: string): boolean {
  return real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The row's desktop screenshot, when it passes the module comment's checks. */
export function screenshotOf(row: ResultRow, resultsRoot: string): { path: string; type: string } | null {
  const pic = row.evidence?.pictures?.find?.((p) => p && p.kind === 'desktop');
  const file = pic?.file;
  if (typeof file !== 'string' || file.length === 0 || file.length > MAX_PATH_CHARS || file.includes('\0')) return null;
  const ext = extname(file).toLowerCase();
  if (ext !== '.webp' && ext !== '.png') return null;
  try {
    const real = realpathSync(resolve(resultsRoot, file));
    if (!insideFolder(real, resultsRoot) || extname(real).toLowerCase() !== ext) return null;
    const st = lstatSync(real);
    if (!st.isFile() || st.size > MAX_SHOT_BYTES) return null;
    return { path: real, type: ext === '.webp' ? 'image/webp' : 'image/png' };
  } catch {
    return null;
  }
}

/** The pages of `resultsPath` the arena can serve (module comment). */
export function readCatalogue(resultsPath: string, requirementsPath?: string): Catalogue {
  const read = readResults(resultsPath);
  const base = dirname(resolve(resultsPath));
  const root = realpathSync(base);
  const skipped = new Map<string, string>();
  const pages = new Map<string, ArenaPage>();
  const rows = [...read.rows].sort((a, b) => (a.repeat ?? 1) - (b.repeat ?? 1));
  for (const row of rows) {
    const problem = nameProblem('model', row.model) ?? nameProblem('requirement', row.requirement);
    const label = `${String(row.model).slice(0, 80)}/${String(row.requirement).slice(0, 80)}`;
    const key = `${String(row.model)}\u0000${String(row.requirement)}`;
    if (problem) {
      skipped.set(key, `${label}: ${problem}`);
      continue;
    }
    if (pages.has(key)) continue;
    const given = row.artifact;
    if (typeof given !== 'string' || given === '' || given.length > MAX_PATH_CHARS || given.includes('\0')) {
      skipped.set(key, `${label}: no usable artifact path`);
      continue;
    }
    const artifact = isAbsolute(given) ? given : resolve(base, given);
    try {
      listArtifact(artifact);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      skipped.set(key, `${label}: ${err.message}`);
      continue;
    }
    const page: ArenaPage = { model: row.model, requirement: row.requirement, artifact };
    const shot = screenshotOf(row, root);
    if (shot) {
      page.shot = shot.path;
      page.shotType = shot.type;
    }
    pages.set(key, page);
  }
  const { features, metrics: featureMetrics } = metricProfiles(read.rows, new Set(pages.keys()));
  const texts = new Map<string, string>();
  if (requirementsPath) for (const r of loadRequirements(requirementsPath)) texts.set(r.id, r.requirement);
  return {
    pages: [...pages.values()],
    texts,
    features,
    featureMetrics,
    // A page another of its rows could serve is not skipped; a skipped page is said once.
    skipped: [...skipped].filter(([key]) => !pages.has(key)).map(([, why]) => why),
    rows: read.rows.length,
    badLines: read.badLines.length,
  };
}

/** The z of every page in `keys` (module comment). */
export function metricProfiles(rows: readonly ResultRow[], keys: ReadonlySet<string>): { features: Map<string, Float64Array>; metrics: string[] } {
  const pop = populationFromRows(dedupeRows(rowsWithValidScores(rows).rows).rows);
  const norms = populationNorms(pop);
  const metrics = pop.metrics.filter((id) => norms[id] && !norms[id]!.degenerate);
  const features = new Map<string, Float64Array>();
  if (metrics.length === 0) return { features, metrics };
  for (const s of pop.samples) {
    const key = `${s.model}\u0000${s.requirement}`;
    if (!keys.has(key)) continue;
    features.set(
      `${s.requirement}\u0000${s.model}`,
      Float64Array.from(metrics, (id) => {
        const v = s.scores[id];
        return typeof v === 'number' ? zOf(v, norms[id]!) : 0;
      }),
    );
  }
  return { features, metrics };
}
