/**
 * `component-fidelity` (extended suite, perspective `fidelity`): CANVAS's component-wise similarity against a
 * reference, on desktop, tablet and phone (`--viewports`).
 *
 * Components per viewport (runner/gather/fidelity/collect.ts): non-text components (images, icons, form inputs,
 * buttons, boxes with a visible background) and text components (the text blocks, prepared exactly as
 * visual-fidelity prepares them: filters, lower-casing, same-row merging). Only what starts within 3 screens.
 * Matching:
 * - non-text components by the Hungarian algorithm on 1 − IoU of their normalised boxes, between components of
 *   the same class (image and icon form one class, input and button another, boxes a third: an icon drawn as an
 *   image, or a link styled as a button, still matches), pairs with IoU ≥ 0.5 kept;
 * - text components by the Hungarian algorithm on 1 − (ρ + position similarity) / 2 (ρ difflib's ratio with
 *   autojunk off, position 1 − max(|Δcx|, |Δcy|)), pairs with ρ ≥ 0.3 and that combined similarity ≥ 0.5 kept.
 * Sub-scores (each 0–1, in the details per viewport):
 * - match: the F1 of matching, 2 × matched / (reference components + page components), over both kinds;
 * - position: mean position similarity over all matched pairs (0 with none);
 * - colour: mean 1 − ΔE2000/100 over matched pairs that have a colour on both sides (text colour; background of
 *   boxes, buttons and inputs; glyph colour of icons; images have none); not computed when no matched pair has
 *   colours on both sides but some pair matched, 0 when nothing matched;
 * - text: the F1 of the two pages' words (lower-case letter/digit runs of all text components, as multisets);
 *   not computed when neither page has words.
 * Viewport score = 100 × the mean of the computed sub-scores; the metric's score = the mean over viewports. A
 * viewport where neither page has any component is not scored.
 *
 * SSIM is reported by visual-fidelity (details), not here.
 *
 * A picture reference (PNG) has no DOM: components are element boxes detected from the edges of both screenshots
 * (layout-consistency's detection, one class), matched by IoU ≥ 0.5; colour compares the mean colour of each
 * matched pair's two regions; text is not computed (no OCR: see visual-fidelity.ts and bench/fidelity-ocr.ts). The score is the mean of match,
 * position and colour, and the details say which sub-score was not computed.
 */
import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import type { ComponentKind, RenderedView, Rgba, ViewportSpec } from '../../core/fidelity.js';
import { round2 } from '../formula.js';
import {
  assign,
  clamp01,
  colourSimilarity,
  edgeBoxes,
  matchByIou,
  mean,
  normalise,
  positionSimilarity,
  prepareBlocks,
  RatioTable,
  regionColour,
  round4,
  viewPairs,
  MIN_RATIO,
  type NormBox,
  type UsablePair,
} from './fidelity-tools.js';

const CLASS_OF: Record<ComponentKind, string> = { image: 'media', icon: 'media', input: 'control', button: 'control', box: 'box' };
const MIN_TEXT_SIMILARITY = 0.5;

export interface ComponentSubScores {
  match: number | null;
  position: number | null;
  colour: number | null;
  text: number | null;
}

interface Comp extends NormBox {
  cls: string;
  color?: Rgba;
}

export interface ViewportComponents {
  viewport: string;
  basis: 'components' | 'picture';
  score: number | null;
  reason?: string;
  subScores: ComponentSubScores;
  notComputed?: string[];
  counts: { reference: { nonText: number; text: number }; page: { nonText: number; text: number }; matched: { nonText: number; text: number } };
  byKind?: Record<string, { reference: number; page: number }>;
}

/** Multiset word F1 of two texts. */
export function wordF1(a: readonly string[], b: readonly string[]): number | null {
  const words = (xs: readonly string[]) => xs.join(' ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const wa = words(a);
  const wb = words(b);
  if (wa.length === 0 && wb.length === 0) return null;
  if (wa.length === 0 || wb.length === 0) return 0;
  const count = new Map<string, number>();
  for (const w of wa) count.set(w, (count.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of wb) {
    const n = count.get(w) ?? 0;
    if (n > 0) {
      common++;
      count.set(w, n - 1);
    }
  }
  return (2 * common) / (wa.length + wb.length);
}

function comps(view: RenderedView, v: ViewportSpec): Comp[] {
  return (view.components ?? []).map((c) => {
    const out: Comp = { ...normalise(c, v), cls: CLASS_OF[c.kind] };
    if (c.color) out.color = c.color;
    return out;
  });
}

export function compareComponents(ref: RenderedView, cand: RenderedView, v: ViewportSpec): { sub: ComponentSubScores; counts: ViewportComponents['counts']; byKind: Record<string, { reference: number; page: number }> } {
  const rc = comps(ref, v);
  const cc = comps(cand, v);
  const rt = prepareBlocks(ref.blocks ?? [], v).blocks;
  const ct = prepareBlocks(cand.blocks ?? [], v).blocks;
  const nonText = matchByIou(rc, cc, 0.5, (i, j) => rc[i]!.cls === cc[j]!.cls);
  const rho = RatioTable.of(rt.map((b) => b.text), ct.map((b) => b.text));
  const sim = rt.map((r, i) => ct.map((c, j) => (rho[i]![j]! + positionSimilarity(r, c)) / 2));
  const text = assign(sim.map((row) => row.map((x) => 1 - x))).filter(([i, j]) => rho[i]![j]! >= MIN_RATIO && sim[i]![j]! >= MIN_TEXT_SIMILARITY);
  const pairs: Array<{ a: NormBox & { color?: Rgba }; b: NormBox & { color?: Rgba } }> = [
    ...nonText.map((m) => ({ a: rc[m.r]!, b: cc[m.c]! })),
    ...text.map(([i, j]) => ({ a: rt[i]!, b: ct[j]! })),
  ];
  const nRef = rc.length + rt.length;
  const nCand = cc.length + ct.length;
  const matched = pairs.length;
  const coloured = pairs.filter((p) => p.a.color && p.b.color);
  const sub: ComponentSubScores = {
    match: nRef + nCand > 0 ? (2 * matched) / (nRef + nCand) : null,
    position: matched ? mean(pairs.map((p) => positionSimilarity(p.a, p.b))) : 0,
    colour: coloured.length ? mean(coloured.map((p) => colourSimilarity(p.a.color!, p.b.color!))) : matched ? null : 0,
    text: wordF1(rt.map((b) => b.text), ct.map((b) => b.text)),
  };
  const byKind: Record<string, { reference: number; page: number }> = {};
  for (const c of ref.components ?? []) (byKind[c.kind] ??= { reference: 0, page: 0 }).reference++;
  for (const c of cand.components ?? []) (byKind[c.kind] ??= { reference: 0, page: 0 }).page++;
  return {
    sub,
    counts: { reference: { nonText: rc.length, text: rt.length }, page: { nonText: cc.length, text: ct.length }, matched: { nonText: nonText.length, text: text.length } },
    byKind,
  };
}

async function comparePictureComponents(pair: UsablePair): Promise<{ sub: ComponentSubScores; counts: ViewportComponents['counts'] }> {
  const rs = pair.reference.screenshot!;
  const cs = pair.candidate.screenshot!;
  const [rb, cb] = await Promise.all([edgeBoxes(rs, pair.viewport), edgeBoxes(cs, pair.viewport)]);
  const matches = matchByIou(rb, cb);
  const colours = await Promise.all(matches.map(async (m) => colourSimilarity(await regionColour(rs, rb[m.r]!, pair.viewport), await regionColour(cs, cb[m.c]!, pair.viewport))));
  return {
    sub: {
      match: rb.length + cb.length ? (2 * matches.length) / (rb.length + cb.length) : null,
      position: matches.length ? mean(matches.map((m) => positionSimilarity(rb[m.r]!, cb[m.c]!))) : 0,
      colour: matches.length ? mean(colours) : 0,
      text: null,
    },
    counts: { reference: { nonText: rb.length, text: 0 }, page: { nonText: cb.length, text: 0 }, matched: { nonText: matches.length, text: 0 } },
  };
}

const SUBS: Array<keyof ComponentSubScores> = ['match', 'position', 'colour', 'text'];

async function viewportOutcome(pair: UsablePair): Promise<ViewportComponents> {
  const picture = pair.reference.source === 'image';
  if (picture && (!pair.reference.screenshot || !pair.candidate.screenshot)) {
    return { viewport: pair.viewport.name, basis: 'picture', score: null, reason: 'no screenshot to compare', subScores: { match: null, position: null, colour: null, text: null }, counts: { reference: { nonText: 0, text: 0 }, page: { nonText: 0, text: 0 }, matched: { nonText: 0, text: 0 } } };
  }
  const c = picture ? await comparePictureComponents(pair) : compareComponents(pair.reference, pair.candidate, pair.viewport);
  const out: ViewportComponents = { viewport: pair.viewport.name, basis: picture ? 'picture' : 'components', score: null, subScores: roundSubs(c.sub), counts: c.counts };
  if ('byKind' in c) out.byKind = (c as { byKind: Record<string, { reference: number; page: number }> }).byKind;
  const notComputed = SUBS.filter((k) => c.sub[k] === null);
  if (c.sub.match === null) {
    out.reason = 'neither page has any component at this viewport';
    return out;
  }
  if (notComputed.length) {
    out.notComputed = notComputed.map((k) =>
      k === 'text' ? (picture ? 'text (a picture reference has no text; OCR left out)' : 'text (neither page has words)') : k === 'colour' ? 'colour (no matched pair has colours on both sides)' : k,
    );
  }
  out.score = round2(100 * mean(SUBS.filter((k) => c.sub[k] !== null).map((k) => c.sub[k]!)));
  return out;
}

function roundSubs(s: ComponentSubScores): ComponentSubScores {
  const r = (x: number | null) => (x === null ? null : round4(clamp01(x)));
  return { match: r(s.match), position: r(s.position), colour: r(s.colour), text: r(s.text) };
}

async function score(evidence: Evidence): Promise<MetricOutcome> {
  const got = viewPairs(evidence);
  if ('unscorable' in got) return unscorable(got.unscorable);
  const perViewport: ViewportComponents[] = [];
  for (const pair of got.pairs) perViewport.push(await viewportOutcome(pair));
  const details: Record<string, unknown> = { reference: got.reference, viewports: perViewport };
  if (Object.keys(got.skipped).length) details.skippedViewports = got.skipped;
  const ok = perViewport.filter((v) => v.score !== null);
  if (ok.length === 0) return unscorable(`nothing to compare at any viewport (${perViewport.map((v) => `${v.viewport}: ${v.reason ?? 'no score'}`).join('; ')})`, details);
  const subs: Record<string, number | null> = {};
  for (const k of SUBS) {
    const xs = ok.map((v) => v.subScores[k]).filter((x): x is number => x !== null);
    subs[k] = xs.length ? round4(mean(xs)) : null;
  }
  details.subScores = subs;
  const s = mean(ok.map((v) => v.score!));
  const parts = ok.map((v) => `${v.viewport} ${v.score!.toFixed(1)}`).join(', ');
  const named = SUBS.filter((k) => subs[k] !== null).map((k) => `${k} ${subs[k]!.toFixed(2)}`).join(', ');
  return scored(s, `mean of ${ok.length} viewport${ok.length > 1 ? 's' : ''} (${parts}); ${named}`, details);
}

const componentFidelity: MetricDefinition = {
  number: 31,
  id: 'component-fidelity',
  perspective: 'fidelity',
  kind: 'rule',
  needs: ['reference'],
  title: 'Component fidelity',
  question: 'Does the page have the reference design\'s components (images, controls, boxes, texts) in the same place and colours, on desktop, tablet and phone?',
  suite: 'extended',
  score,
};

export default componentFidelity;
