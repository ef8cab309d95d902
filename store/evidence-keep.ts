/**
 * The pictures a batch keeps beside its results (issue 34): for each row, the desktop viewport screenshot, the
 * full-page and phone screenshots, the annotated pictures of every scored metric that has `illustrate` (the
 * `score --explain <id> --out` pictures: control-liveness boxes the probe's inert controls) and the probe's crops of
 * inert controls, written by the worker process that gathered them (so image bytes never cross the IPC channel:
 * the row carries relative paths).
 *
 * Interpretations:
 * - Folder: `<evidence root>/<model>/<requirement>[~r<repeat>]/` with names reduced to `[A-Za-z0-9._-]` (a model
 *   or requirement name is never a path); the row's `evidence.pictures[].file` are relative to the results file's
 *   folder, so a results file and its evidence folder can be moved together.
 * - Compression: WebP (quality 72), screenshots at most 1280 px wide (phone 430, full page 900 wide and 3600
 *   tall); pictures are kept in priority order (desktop, phone, metric pictures, full page, crops) until the
 *   per-artifact cap (`EVIDENCE_CAP_BYTES`); a picture over what is left is encoded once more at half size and
 *   quality 50, and dropped (named in `evidence.dropped`) when it still does not fit.
 * - A picture that cannot be drawn or encoded is dropped with its reason; keeping evidence never fails a row.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import sharp from 'sharp';
import { errorMessage } from '../core/errors.js';
import type { Evidence } from '../core/evidence.js';
import type { MetricDefinition, MetricOutcome, MetricPicture } from '../core/metric.js';
import type { EvidencePicture, MetricResult, RowEvidence } from '../core/results.js';

export type { EvidencePicture, RowEvidence };

/** Per-artifact cap on the kept pictures (bytes after compression). */
export const EVIDENCE_CAP_BYTES = 1_500_000;

/** Where a batch keeps pictures: `root` the evidence folder, `base` the results file's folder (paths are relative to it). */
export interface EvidenceTarget {
  root: string;
  base: string;
}

/** Which row the pictures belong to. */
export interface EvidenceKey {
  model: string;
  requirement: string;
  repeat?: number;
  /** The queue job's id, when a queue worker keeps them: two jobs of one row's key held at once keep apart. */
  job?: string;
}

interface Candidate {
  name: string;
  kind: EvidencePicture['kind'];
  caption: string;
  metric?: string;
  maxWidth: number;
  maxHeight?: number;
  png: () => Promise<Buffer | undefined>;
  /** A metric's pictures, drawn on use (one metric may give several). */
  draw?: () => Promise<MetricPicture[]>;
}

/**
 * A name safe as one path segment (evidence folders, the report's pages and pictures), distinct for distinct
 * inputs and the same on every run. A name of lower-case letters, digits, `.`, `_` and `-` (not starting with a
 * dot, at most 80 characters) is its own segment; any other is a readable slug plus `~` and the first 10 hex
 * digits of the SHA-256 of the exact name (`a!@` → `a__~…`, `a"!` → `a__~…`, two segments). A plain name has no
 * `~`, so it never meets a suffixed one; upper case is suffixed too, so `Alpha` and `alpha` stay apart on a file
 * system that folds case (a report moved to macOS or Windows).
 */
export function safeSegment(name: string): string {
  if (/^[a-z0-9_-][a-z0-9._-]{0,79}$/.test(name)) return name;
  const slug =
    name
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 80) || '_';
  return `${slug}~${createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 10)}`;
}

/** The evidence folder of a row, relative to the evidence root. */
export function evidenceFolder(key: EvidenceKey): string {
  const req =
    safeSegment(key.requirement) + (key.repeat && key.repeat > 1 ? `~r${key.repeat}` : '') + (key.job !== undefined ? `~job-${safeSegment(key.job)}` : '');
  return join(safeSegment(key.model), req);
}

function candidates(evidence: Evidence, metrics: readonly MetricDefinition[], results: readonly MetricResult[]): Candidate[] {
  const out: Candidate[] = [];
  const shots = evidence.browser?.ok ? evidence.browser.value.screenshots : undefined;
  if (shots?.desktop) out.push({ name: 'desktop', kind: 'desktop', caption: 'desktop viewport', maxWidth: 1280, png: async () => shots.desktop!.png });
  const mobile = shots?.mobile;
  if (mobile) out.push({ name: 'phone', kind: 'phone', caption: 'phone viewport', maxWidth: 430, png: async () => mobile.png });
  for (const r of results) {
    const def = metrics.find((m) => m.id === r.id);
    if (!def?.illustrate || r.score === null) continue;
    const outcome: MetricOutcome = { score: r.score, summary: r.summary ?? '', details: r.details };
    out.push({
      name: def.id,
      kind: 'metric',
      metric: def.id,
      caption: '',
      maxWidth: 1280,
      maxHeight: 3600,
      png: async () => undefined,
      draw: () => def.illustrate!(evidence, outcome),
    });
  }
  if (shots?.fullPage)
    out.push({
      name: 'full-page',
      kind: 'full-page',
      caption: `full page${shots.fullPage.truncated ? ' (cut at the height cap)' : ''}`,
      maxWidth: 900,
      maxHeight: 3600,
      png: async () => shots.fullPage!.png,
    });
  const probe = evidence.interaction?.ok ? evidence.interaction.value : undefined;
  for (const a of probe?.actions ?? []) {
    if (!a.crop) continue;
    const c = probe!.controls[a.control];
    const label = c ? `${c.tag}${c.text ? ` "${c.text}"` : ''}` : `control ${a.control}`;
    out.push({ name: `crop-${a.control}`, kind: 'crop', caption: `inert control ${label}: no effect of ${a.action}`, maxWidth: 600, png: async () => a.crop });
  }
  return out;
}

async function encode(png: Buffer, maxWidth: number, maxHeight: number | undefined, quality: number): Promise<{ data: Buffer; width: number; height: number }> {
  const img = sharp(png, { limitInputPixels: 200_000_000 });
  const meta = await img.metadata();
  let pipeline = img;
  if (maxHeight && meta.height && meta.width && meta.height * (Math.min(maxWidth, meta.width) / meta.width) > maxHeight) {
    // Keep the top of a very tall picture: the part a reader looks at first.
    const h = Math.round(maxHeight * (meta.width / Math.min(maxWidth, meta.width)));
    pipeline = pipeline.extract({ left: 0, top: 0, width: meta.width, height: Math.min(meta.height, h) });
  }
  const { data, info } = await pipeline
    .resize({ width: maxWidth, withoutEnlargement: true })
    .webp({ quality, effort: 3 })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The metric pictures as candidates (drawn now, since one metric may give several). */
async function expand(list: Candidate[], dropped: string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const c of list) {
    const draw = c.draw;
    if (!draw) {
      out.push(c);
      continue;
    }
    try {
      for (const p of await draw())
        out.push({
          kind: c.kind,
          metric: c.metric!,
          maxWidth: c.maxWidth,
          maxHeight: c.maxHeight!,
          name: `${c.metric}-${p.name}`,
          caption: `${c.metric}: ${p.caption}`,
          png: async () => p.png,
        });
    } catch (err) {
      dropped.push(`${c.metric}: cannot draw (${errorMessage(err)})`);
    }
  }
  return out;
}

/**
 * Write the row's pictures under `target.root` and return what the row records. Old pictures of the same row
 * (a rerun) are replaced.
 */
export async function keepEvidence(
  target: EvidenceTarget,
  key: EvidenceKey,
  evidence: Evidence,
  metrics: readonly MetricDefinition[],
  results: readonly MetricResult[],
  cap = EVIDENCE_CAP_BYTES,
): Promise<RowEvidence> {
  const folder = join(target.root, evidenceFolder(key));
  const dropped: string[] = [];
  const pictures: EvidencePicture[] = [];
  let bytes = 0;
  try {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
  } catch (err) {
    return { folder: relative(target.base, folder), pictures, bytes, cap, dropped: [`cannot create the folder (${errorMessage(err)})`] };
  }
  const b = evidence.browser;
  if (!b?.ok || !b.value.screenshots.desktop) {
    const why = !b ? 'no browser ran' : !b.ok ? b.reason : (b.value.unavailable?.screenshots ?? b.value.unavailable?.desktop ?? 'the browser took none');
    dropped.push(`desktop: ${why}`);
  }
  for (const c of await expand(candidates(evidence, metrics, results), dropped)) {
    try {
      const png = await c.png();
      if (!png) continue;
      let enc = await encode(png, c.maxWidth, c.maxHeight, 72);
      if (bytes + enc.data.length > cap) enc = await encode(png, Math.round(c.maxWidth / 2), c.maxHeight && Math.round(c.maxHeight / 2), 50);
      if (bytes + enc.data.length > cap) {
        dropped.push(`${c.name}: over the cap (${enc.data.length} bytes, ${cap - bytes} left)`);
        continue;
      }
      const file = join(folder, `${safeSegment(c.name)}.webp`);
      writeFileSync(file, enc.data);
      bytes += enc.data.length;
      const pic: EvidencePicture = {
        file: relative(target.base, file),
        kind: c.kind,
        caption: c.caption,
        width: enc.width,
        height: enc.height,
        bytes: enc.data.length,
      };
      if (c.metric) pic.metric = c.metric;
      pictures.push(pic);
    } catch (err) {
      dropped.push(`${c.name}: ${errorMessage(err)}`);
    }
  }
  const out: RowEvidence = { folder: relative(target.base, folder), pictures, bytes, cap };
  if (dropped.length) out.dropped = dropped;
  return out;
}
