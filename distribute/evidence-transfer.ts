/**
 * A row's kept pictures across the work queue: a queue worker keeps them in a folder of its own (evidence-keep.ts),
 * then `packEvidence` moves their bytes into the row it returns (base64 in `pictures[].data`, so at most the
 * per-artifact cap, about 2 MB encoded, per job in Redis) and removes the folder; `queue collect` writes them beside
 * the results it appends with `unpackEvidence`, exactly where a batch would have (the same folder names, paths
 * relative to the results file), or drops them with `--no-evidence`.
 *
 * A returned row is not trusted with paths: `unpackEvidence` derives the folder from the row's model, requirement
 * and repeat (evidence-keep.ts `evidenceFolder`) and each file name from the picture's base name reduced to safe
 * characters; a picture whose bytes are not WebP, or that would overrun the cap, is left out and named in `dropped`.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { errorMessage } from '../core/errors.js';
import { imageFormat } from '../lib/image-signature.js';
import type { EvidencePicture, ResultRow, RowEvidence } from '../core/results.js';
import { EVIDENCE_CAP_BYTES, evidenceFolder, safeSegment, type EvidenceTarget } from '../store/evidence-keep.js';

/** A picture on its way through the queue: its bytes ride along. */
export type PackedPicture = EvidencePicture & { data?: string };

/** Read the row's pictures (under `target.base`) into the row and remove its folder. */
export function packEvidence(row: ResultRow, target: EvidenceTarget): ResultRow {
  const ev = row.evidence;
  if (!ev) return row;
  const pictures: PackedPicture[] = [];
  const dropped = [...(ev.dropped ?? [])];
  for (const p of ev.pictures) {
    try {
      pictures.push({ ...p, data: readFileSync(resolve(target.base, p.file)).toString('base64') });
    } catch (err) {
      dropped.push(`${p.file}: ${errorMessage(err)}`);
    }
  }
  rmSync(resolve(target.base, ev.folder), { recursive: true, force: true });
  return { ...row, evidence: { ...ev, pictures, ...(dropped.length ? { dropped } : {}) } };
}

const isWebp = (buf: Buffer) => imageFormat(buf) === 'webp';

/**
 * Write a collected row's pictures into `target` (or drop them when `target` is undefined) and return the row as
 * a batch would have written it.
 */
export function unpackEvidence(row: ResultRow, target: EvidenceTarget | undefined): ResultRow {
  const ev = row.evidence as (RowEvidence & { pictures: PackedPicture[] }) | undefined;
  if (!ev || !Array.isArray(ev.pictures)) {
    const { evidence: _none, ...rest } = row;
    return rest;
  }
  if (!target) {
    const { evidence: _dropped, ...rest } = row;
    return rest;
  }
  const folder = join(target.root, evidenceFolder({ model: row.model, requirement: row.requirement, ...(row.repeat ? { repeat: row.repeat } : {}) }));
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const pictures: EvidencePicture[] = [];
  const dropped: string[] = Array.isArray(ev.dropped) ? ev.dropped.filter((d) => typeof d === 'string') : [];
  let bytes = 0;
  for (const p of ev.pictures) {
    const name = safeSegment(basename(String(p.file ?? 'picture')).replace(/\.webp$/i, '')) + '.webp';
    const buf = typeof p.data === 'string' ? Buffer.from(p.data, 'base64') : Buffer.alloc(0);
    if (!isWebp(buf) || bytes + buf.length > EVIDENCE_CAP_BYTES) {
      dropped.push(`${name}: ${isWebp(buf) ? 'over the cap' : 'not a WebP picture'}`);
      continue;
    }
    const file = join(folder, name);
    writeFileSync(file, buf);
    bytes += buf.length;
    const { data: _data, ...meta } = p;
    pictures.push({ ...meta, file: relative(target.base, file), bytes: buf.length });
  }
  return { ...row, evidence: { folder: relative(target.base, folder), pictures, bytes, cap: EVIDENCE_CAP_BYTES, ...(dropped.length ? { dropped } : {}) } };
}
