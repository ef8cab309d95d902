/**
 * `webgrade report <results> --out DIR`: the static report folder (report/data.ts says what it shows).
 *
 *   index.html                      leaderboard with the persona switch, links to every model and requirement
 *   leaderboard.html                the HTML leaderboard (report/leaderboard-html.ts: heatmap, intervals, breakdowns)
 *   model/<model>.html              strengths, weaknesses, best and worst artifacts as thumbnails
 *   requirement/<id>.html           every model's artifact side by side
 *   artifact/<model>/<id>.html      screenshots, scores, reasons, details in words, pictures, network, settings
 *   failures.html                   failures per metric and reason
 *   compare.html                    with `--compare <base>`: the comparison (report/compare.ts)
 *   assets/, img/                   style, script, and the kept pictures copied from the results' evidence
 *
 * Interpretations: the pictures are copied (not linked) so the folder can be moved or published alone; only
 * pictures inside the results file's folder are copied (`readPicture`): one the results point at that is missing,
 * outside that folder, not a regular file or not a PNG, JPEG, GIF or WebP picture is left out, and its artifact
 * page and the index say so. Names from the results (models, requirements) are escaped by the templates and made
 * collision-free path segments for file names (store/evidence-keep.ts `safeSegment`). With a comparison, each
 * artifact page shows the base run's screenshot beside this one and the per-metric scores of both, with the
 * model's verdict over all requirements.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Eta } from 'eta';
import { testRates, testsOf } from './requirement-tests-view.js';
import { InputError, errorMessage } from '../core/errors.js';
import { insideTree } from '../lib/artifact/load.js';
import { dict } from '../lib/dict.js';
import { imageFormat, type ImageFormat } from '../lib/image-signature.js';
import type { EvidencePicture, ResultRow } from '../core/results.js';
import { artifactKey } from '../weights/aggregate.js';
import { REPORT_CSS, REPORT_JS } from './assets.js';
import type { Comparison } from './compare.js';
import { pagePath, type ArtifactView, type ReportModel } from './data.js';
import { detailsHtml } from './details.js';
import { TEMPLATES } from './templates.js';
import { renderReportHtml } from './leaderboard-html.js';
import { safeSegment } from '../store/evidence-keep.js';

export interface Img {
  src: string;
  width: number;
  height: number;
  caption: string;
}

export interface ArtifactImages {
  desktop?: Img;
  phone?: Img;
  pictures: Img[];
  /** Why there is no desktop screenshot. */
  why: string;
  /** The row's pictures that were not copied, each as `<file>: <why>` (see `readPicture`). */
  skipped: string[];
}

/** A comparison's base run: its rows and where its evidence paths are relative to. */
export interface CompareInput {
  comparison: Comparison;
  baseRows: readonly ResultRow[];
  baseDir: string;
}

function pct(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : `${(x * 100).toFixed(2)}%`;
}

function helpers(root: string, images: (v: ArtifactView) => ArtifactImages) {
  return {
    pct,
    cls: (x: number | null | undefined) => (x === null || x === undefined ? '' : x > 0 ? 'pos' : x < 0 ? 'neg' : ''),
    score: (x: number | null | undefined) => (x === null || x === undefined ? '—' : String(Math.round(x * 10) / 10)),
    signed: (x: number) => `${x > 0 ? '+' : ''}${(Math.round(x * 10) / 10).toFixed(1)}`,
    modelHref: (m: string) => root + pagePath.model(m),
    requirementHref: (r: string) => root + pagePath.requirement(r),
    details: detailsHtml,
    thumb: (v: ArtifactView) => {
      const img = images(v);
      return { root, v, shot: img.desktop, why: img.why };
    },
  };
}

/** The largest picture file the report copies (a batch keeps at most 1.5 MB for a whole artifact). */
const MAX_PICTURE_BYTES = 20 * 1024 * 1024;

/**
 * The bytes of a picture a row names, or why they are not copied. A results file is hostile data: its paths may
 * be absolute, climb out with `..`, or name a link to `/etc/passwd`. So only a regular file inside the results
 * file's folder is read (the path resolved and checked inside the folder, then its real path inside the folder's
 * real path), through a descriptor that follows no link, and only when its first bytes are a PNG, JPEG, GIF or
 * WebP picture; the bytes checked are the bytes written, so nothing can be swapped in between.
 */
export function readPicture(sourceDir: string, file: string): { bytes: Buffer; format: ImageFormat } | { skip: string } {
  if (isAbsolute(file)) return { skip: 'an absolute path' };
  const root = resolve(sourceDir);
  const abs = resolve(root, file);
  if (!insideTree(abs, root)) return { skip: 'outside the results folder' };
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return { skip: 'missing beside the results' };
  }
  if (!insideTree(real, realpathSync(root))) return { skip: 'a link out of the results folder' };
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return { skip: `cannot be read (${errorMessage(err)})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { skip: 'not a regular file' };
    if (st.size > MAX_PICTURE_BYTES) return { skip: `larger than ${MAX_PICTURE_BYTES / 1024 / 1024} MB` };
    const bytes = readFileSync(fd);
    const format = imageFormat(bytes);
    return format ? { bytes, format } : { skip: 'not a PNG, JPEG, GIF or WebP picture' };
  } finally {
    closeSync(fd);
  }
}

/** Copies a row's pictures into `img/` (once) and answers with their report-relative paths. */
class PictureStore {
  private readonly done = new Map<string, ArtifactImages>();
  /** Every picture a row named that was not copied, with why (a note of the report). */
  readonly skipped: string[] = [];
  constructor(
    private readonly out: string,
    private readonly sourceDir: string,
    private readonly prefix: string,
  ) {}

  images(row: ResultRow): ArtifactImages {
    const key = artifactKey(row.model, row.requirement);
    const known = this.done.get(key);
    if (known) return known;
    const missing = row.evidence?.dropped?.find((d) => d.startsWith('desktop: '));
    const why = missing
      ? missing.slice('desktop: '.length)
      : row.evidence
        ? 'the batch kept none'
        : row.status === 'ok'
          ? 'the results keep no pictures (batch --no-evidence, or an older batch)'
          : 'the row failed';
    const res: ArtifactImages = { pictures: [], why, skipped: [] };
    const used = new Set<string>();
    for (const p of row.evidence?.pictures ?? []) {
      const img = this.copy(row, p, used);
      if ('skip' in img) {
        const line = `${p.file}: ${img.skip}`;
        res.skipped.push(line);
        this.skipped.push(`${row.model}/${row.requirement} ${line}`);
        if (p.kind === 'desktop') res.why = `its picture was not copied: ${img.skip}`;
        continue;
      }
      if (p.kind === 'desktop') res.desktop = img;
      else if (p.kind === 'phone') res.phone = img;
      else res.pictures.push(img);
    }
    this.done.set(key, res);
    return res;
  }

  private copy(row: ResultRow, p: EvidencePicture, used: Set<string>): Img | { skip: string } {
    const pic = readPicture(this.sourceDir, p.file);
    if ('skip' in pic) return pic;
    const stem = safeSegment(basename(p.file).replace(/\.[A-Za-z0-9]{1,5}$/, ''));
    let name = `${stem}.${pic.format === 'jpeg' ? 'jpg' : pic.format}`;
    for (let k = 2; used.has(name); k++) name = `${stem}~${k}.${pic.format === 'jpeg' ? 'jpg' : pic.format}`;
    used.add(name);
    const rel = `img/${this.prefix}${safeSegment(row.model)}/${safeSegment(row.requirement)}/${name}`;
    mkdirSync(dirname(join(this.out, rel)), { recursive: true });
    writeFileSync(join(this.out, rel), pic.bytes);
    return { src: rel, width: p.width, height: p.height, caption: p.caption };
  }
}

function networkLine(row: ResultRow): string {
  const n = row.network;
  if (!n) return 'no browser ran';
  const libs = n.libraries?.length ? `; CDN libraries served: ${n.libraries.join(', ')}` : '';
  return `${n.mode}${libs}; ${n.blocked} request${n.blocked === 1 ? '' : 's'} blocked, ${n.withheld} withheld`;
}

function settingsOf(row: ResultRow): Record<string, string> {
  const s = row.settings;
  if (!s) return {};
  const out = dict<string>();
  for (const [k, v] of Object.entries(s)) {
    if (k === 'metrics' && Array.isArray(v)) out.metrics = `${v.length} (${v.join(', ')})`;
    else out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  if (row.ms !== undefined) out['time (s)'] = (row.ms / 1000).toFixed(1);
  if (row.finishedAt) out['finished at'] = row.finishedAt;
  return out;
}

function compareRows(v: ArtifactView, base: ResultRow | undefined, cmp: Comparison) {
  return v.row.metrics.map((m) => {
    const b = base?.metrics.find((x) => x.id === m.id)?.score ?? null;
    const c = cmp.changes.find((x) => x.model === v.model && x.metric === m.id);
    const delta = b !== null && m.score !== null ? m.score - b : null;
    return {
      metric: m.id,
      base: b,
      head: m.score,
      delta,
      verdict: c && c.verdict !== 'unchanged' ? c.verdict : undefined,
      text: c ? `${c.delta > 0 ? '+' : ''}${c.delta.toFixed(1)} over ${c.n} requirements` : '',
    };
  });
}

function write(out: string, rel: string, html: string): void {
  const file = join(out, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, html);
}

/** Write the report folder; returns the number of pages written. */
export function writeReport(
  m: ReportModel,
  opts: {
    out: string;
    resultsDir: string;
    compare?: CompareInput;
    /** Requirement texts by id (`report --requirements`). */ requirements?: ReadonlyMap<string, string>;
  },
): number {
  const out = resolve(opts.out);
  try {
    mkdirSync(join(out, 'assets'), { recursive: true });
  } catch (err) {
    throw new InputError(`--out ${opts.out}: cannot create folder (${errorMessage(err)})`);
  }
  writeFileSync(join(out, 'assets', 'report.css'), REPORT_CSS);
  writeFileSync(join(out, 'assets', 'report.js'), REPORT_JS);
  const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
  for (const [name, text] of Object.entries(TEMPLATES)) eta.loadTemplate(name, text);
  const store = new PictureStore(out, opts.resultsDir, '');
  const images = (v: ArtifactView) => store.images(v.row);
  const cmp = opts.compare;
  const baseStore = cmp ? new PictureStore(out, cmp.baseDir, 'base/') : undefined;
  const baseRows = new Map((cmp?.baseRows ?? []).filter((r) => (r.repeat ?? 1) === 1).map((r) => [artifactKey(r.model, r.requirement), r]));
  // Every picture is read and checked before any page is written, so the index can name those not copied.
  for (const v of m.artifacts) {
    images(v);
    const base = baseRows.get(artifactKey(v.model, v.requirement));
    if (base) baseStore!.images(base);
  }
  const skipped = [...store.skipped, ...(baseStore?.skipped ?? []).map((s) => `base run ${s}`)];
  const shown: ReportModel = skipped.length
    ? {
        ...m,
        notes: [
          ...m.notes,
          `${skipped.length} ${skipped.length === 1 ? 'picture' : 'pictures'} named by the results not copied: ${skipped.slice(0, 5).join('; ')}${skipped.length > 5 ? '; …' : ''}`,
        ],
      }
    : m;
  let pages = 0;
  const page = (rel: string, template: string, data: Record<string, unknown>, crumbs: Array<{ href: string; label: string }> = []) => {
    const root = '../'.repeat(rel.split('/').length - 1);
    write(out, rel, eta.render(template, { ...data, root, h: helpers(root, images), crumbs, report: m.title, hasCompare: Boolean(cmp) }));
    pages++;
  };
  page('index.html', '@index', { title: 'Leaderboard', m: shown, script: true });
  write(out, 'leaderboard.html', renderReportHtml(m.leaderboard));
  page('failures.html', '@failures', { title: 'Failures', m }, [{ href: 'index.html', label: 'Leaderboard' }]);
  for (const v of m.models) page(v.href, '@model', { title: `Model ${v.model}`, v }, [{ href: 'index.html', label: 'Leaderboard' }]);
  for (const r of m.requirements) {
    const sorted = [...r.artifacts].sort((a, b) => (b.overall ?? -Infinity) - (a.overall ?? -Infinity) || a.model.localeCompare(b.model));
    const text = opts.requirements?.get(r.id);
    page(r.href, '@requirement', { title: `Requirement ${r.id}`, r: { ...r, artifacts: sorted }, text, rates: testRates(sorted) }, [
      { href: 'index.html', label: 'Leaderboard' },
    ]);
  }
  for (const v of m.artifacts) {
    const base = baseRows.get(artifactKey(v.model, v.requirement));
    const cmpView = cmp
      ? {
          label: cmp.comparison.base,
          img: base ? baseStore!.images(base) : { pictures: [], why: 'not in the base run', skipped: [] },
          rows: compareRows(v, base, cmp.comparison),
        }
      : undefined;
    const crumbs = [
      { href: 'index.html', label: 'Leaderboard' },
      { href: pagePath.model(v.model), label: `Model ${v.model}` },
      { href: pagePath.requirement(v.requirement), label: `Requirement ${v.requirement}` },
    ];
    const fileUrl = pathToFileURL(resolve(opts.resultsDir, v.row.artifact)).href;
    page(
      v.href,
      '@artifact',
      {
        title: `${v.model} · ${v.requirement}`,
        v,
        img: images(v),
        tests: testsOf(v.row, images(v).pictures),
        cmp: cmpView,
        persona: m.persona,
        network: networkLine(v.row),
        settings: settingsOf(v.row),
        dropped: v.row.evidence?.dropped ?? [],
        fileUrl,
      },
      crumbs,
    );
  }
  if (cmp) page('compare.html', '@compare', { title: 'Compared with base', c: cmp.comparison }, [{ href: 'index.html', label: 'Leaderboard' }]);
  return pages;
}
