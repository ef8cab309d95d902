/**
 * Recorded fidelity views of the fixture pages (fixtures/fidelity/recorded/, made by record-views.ts with the real
 * renderer), and evidence built from them for the table-driven metric tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gathered, missing, type Evidence, type Gathered } from '../../../core/evidence.js';
import type { FidelityEvidence, RenderedView } from '../../../core/fidelity.js';
import { fixture } from '../../helpers.js';

export type RecordedPage = 'landing' | 'landing-shuffled' | 'landing-inverted' | 'empty';

const cache = new Map<string, RenderedView[]>();

/** The recorded views of a fixture page (desktop, tablet, phone), screenshots loaded. */
export function recordedViews(page: RecordedPage): RenderedView[] {
  const have = cache.get(page);
  if (have) return structuredClone(have);
  const dir = fixture('fidelity', 'recorded');
  const doc = JSON.parse(readFileSync(join(dir, `${page}.json`), 'utf8')) as { views: Array<RenderedView & { screenshot?: { file: string } }> };
  const views = doc.views.map((v) => {
    const { screenshot, ...rest } = v as RenderedView & { screenshot?: { file: string; width: number; height: number; deviceScaleFactor: number } };
    const out: RenderedView = { ...rest };
    if (screenshot) {
      const { file, ...meta } = screenshot;
      out.screenshot = { ...meta, png: readFileSync(join(dir, file)) };
    }
    return out;
  });
  cache.set(page, views);
  return structuredClone(views);
}

/** Fidelity evidence of `candidate` against `reference` (views, or a failure reason per side). */
export function fidelityEvidence(reference: RenderedView[] | string, candidate: RenderedView[] | string): Partial<Evidence> {
  const side = (x: RenderedView[] | string, i: number): Gathered<RenderedView> =>
    typeof x === 'string' ? missing(x) : x[i] ? gathered(x[i]!) : missing('not rendered');
  const views = typeof reference === 'string' ? (typeof candidate === 'string' ? [] : candidate) : reference;
  const f: FidelityEvidence = {
    reference: {
      input: 'reference.html',
      kind: 'artifact',
      sha256: '0'.repeat(64),
      viewports: views.map((v) => v.viewport.name),
      network: 'offline',
      cache: 'rendered',
    },
    method: 'resize',
    timings: {},
    pairs: views.map((v, i) => ({ viewport: v.viewport, reference: side(reference, i), candidate: side(candidate, i) })),
  };
  return { reference: { path: 'reference.html', kind: 'artifact' }, fidelity: gathered(f) };
}

/** The page's views, each replaced by a picture of its screenshot (a PNG reference of one viewport). */
export function asPicture(views: RenderedView[], which = 0): RenderedView[] {
  const v = views[which]!;
  const shot = v.screenshot!;
  return [{ viewport: v.viewport, source: 'image', scrollWidth: shot.width, scrollHeight: shot.height, screenshot: shot }];
}
