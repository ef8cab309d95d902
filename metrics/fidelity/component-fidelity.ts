/**
 * `component-fidelity` (extended suite, perspective `fidelity`): CANVAS's component-wise similarity against a
 * reference, on desktop, tablet and phone (`--viewports`).
 *
 * Components per viewport (gather/fidelity/collect.ts): non-text components (images, icons, form inputs,
 * buttons, boxes with a visible background) and text components (the text blocks, prepared exactly as
 * visual-fidelity prepares them: filters, lower-casing, same-row merging). Only what starts within 3 screens.
 * Matching (ours: CANVAS matches the design tool's component tree, which a web page does not have):
 * - non-text components by the Hungarian algorithm on 1 − IoU of their normalised boxes, between components of
 *   the same class (image and icon form one class, input and button another, boxes a third: an icon drawn as an
 *   image, or a link styled as a button, still matches), pairs with IoU ≥ 0.5 kept;
 * - text components by the Hungarian algorithm on 1 − (ρ + position similarity) / 2 (ρ difflib's ratio with
 *   autojunk off, position 1 − max(|Δcx|, |Δcy|)), pairs with ρ ≥ 0.3 and that combined similarity ≥ 0.5 kept.
 *
 * The SCORE is CANVAS's definition (issue 36: the other study's formula, not a look-alike). Sub-scores, each
 * 0–1, per viewport in `details.viewports[].subScores`:
 * - match: recall, matched reference components / reference components (a page that adds components is not
 *   penalised here, as in CANVAS);
 * - position: mean over matched pairs of 1 − the Euclidean distance of the centres over the viewport diagonal
 *   (0 with no pair);
 * - colour: mean over matched pairs with a colour on both sides of 1 − the RGB distance over √3·255 (text colour;
 *   background of boxes, buttons and inputs; glyph colour of icons; images have none); not computed when pairs
 *   matched but none has colours on both sides, 0 when nothing matched;
 * - text: mean over matched text pairs of the string F1 of their two texts (words as multisets); not computed
 *   when the reference has no text component, 0 when none of them matched.
 * Viewport score = 100 × the mean of the computed sub-scores; the metric's score = the mean over viewports. A
 * viewport whose reference has no component is not scored (recall has no denominator).
 *
 * Ours, kept beside it in `details.viewports[].webgrade` (reported, not scored): match as the F1 of matching,
 * 2 × matched / (reference + page components), so extra components count against the page; position as
 * 1 − max(|Δcx|, |Δcy|) of the normalised centres (Chebyshev, each axis by its own viewport side); colour as
 * 1 − ΔE2000/100 (perceptual, where RGB distance over-weights differences the eye barely sees); text as the word
 * F1 of the two pages' whole texts (credit for words that exist somewhere on the page, matched or not).
 * Remaining differences from CANVAS, named: the matching above (CANVAS pairs components of its Figma tree), our
 * component classes, the 3-screen cut, and the mean over several viewports (CANVAS compares one mobile screen).
 *
 * SSIM is reported by visual-fidelity (details), not here.
 *
 * A picture reference (PNG) has no DOM: components are element boxes detected from the edges of both screenshots
 * (layout-consistency's detection, one class), matched by IoU ≥ 0.5; match is their recall, position as above,
 * colour compares the mean colour of each matched pair's two regions (RGB distance; ΔE2000 in ours); text is not
 * computed (no OCR: see visual-fidelity.ts and bench/fidelity-ocr.ts). The score is the mean of match,
 * position and colour, and the details say which sub-score was not computed.
 */
import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import type { ComponentKind, RenderedView, Rgba, ViewportSpec } from '../../core/fidelity.js';
import { round2 } from '../lib/formula.js';
import {
  assign,
  clamp01,
  colourSimilarity,
  edgeBoxes,
  matchByIou,
  mean,
  normalise,
  positionSimilarity,
  euclideanPositionSimilarity,
  rgbColourSimilarity,
  stringF1,
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

/** Our variant of each sub-score (module comment), reported beside CANVAS's. */
export interface WebgradeComponentScores {
  matchF1: number | null;
  position: number | null;
  colour: number | null;
  words: number | null;
}

export interface ViewportComponents {
  viewport: string;
  basis: 'components' | 'picture';
  score: number | null;
  reason?: string;
  /** CANVAS's sub-scores: what the score is made of. */
  subScores: ComponentSubScores;
  webgrade?: WebgradeComponentScores;
  notComputed?: string[];
  counts: { reference: { nonText: number; text: number }; page: { nonText: number; text: number }; matched: { nonText: number; text: number } };
  byKind?: Record<string, { reference: number; page: number }>;
}

/** Multiset word F1 of two pages' texts (ours: the whole text, matched or not). */
export function wordF1(a: readonly string[], b: readonly string[]): number | null {
  return stringF1(a.join(' '), b.join(' '));
}

function comps(view: RenderedView, v: ViewportSpec): Comp[] {
  return (view.components ?? []).map((c) => {
    const out: Comp = { ...normalise(c, v), cls: CLASS_OF[c.kind] };
    if (c.color) out.color = c.color;
    return out;
  });
}

type Counts = ViewportComponents['counts'];
interface Compared {
  sub: ComponentSubScores;
  webgrade: WebgradeComponentScores;
  counts: Counts;
  byKind?: Record<string, { reference: number; page: number }>;
}
type Coloured = NormBox & { color?: Rgba };

/** CANVAS's sub-scores and ours from one viewport's matched pairs (module comment). */
function subScores(
  pairs: ReadonlyArray<{ a: Coloured; b: Coloured }>,
  nRef: number,
  nCand: number,
  v: ViewportSpec,
  canvasColour: (p: { a: Coloured; b: Coloured }) => number | null,
  oursColour: (p: { a: Coloured; b: Coloured }) => number | null,
): { canvas: Omit<ComponentSubScores, 'text'>; ours: Omit<WebgradeComponentScores, 'words'> } {
  const matched = pairs.length;
  const nums = (xs: Array<number | null>) => xs.filter((x): x is number => x !== null);
  const cc = nums(pairs.map(canvasColour));
  const oc = nums(pairs.map(oursColour));
  return {
    canvas: {
      match: nRef > 0 ? matched / nRef : null,
      position: matched ? mean(pairs.map((p) => euclideanPositionSimilarity(p.a, p.b, v))) : 0,
      colour: cc.length ? mean(cc) : matched ? null : 0,
    },
    ours: {
      matchF1: nRef + nCand > 0 ? (2 * matched) / (nRef + nCand) : null,
      position: matched ? mean(pairs.map((p) => positionSimilarity(p.a, p.b))) : 0,
      colour: oc.length ? mean(oc) : matched ? null : 0,
    },
  };
}

export function compareComponents(
  ref: RenderedView,
  cand: RenderedView,
  v: ViewportSpec,
): Compared & { byKind: Record<string, { reference: number; page: number }> } {
  const rc = comps(ref, v);
  const cc = comps(cand, v);
  const rt = prepareBlocks(ref.blocks ?? [], v).blocks;
  const ct = prepareBlocks(cand.blocks ?? [], v).blocks;
  const nonText = matchByIou(rc, cc, 0.5, (i, j) => rc[i]!.cls === cc[j]!.cls);
  const rho = RatioTable.of(
    rt.map((b) => b.text),
    ct.map((b) => b.text),
  );
  const sim = rt.map((r, i) => ct.map((c, j) => (rho[i]![j]! + positionSimilarity(r, c)) / 2));
  const text = assign(sim.map((row) => row.map((x) => 1 - x))).filter(([i, j]) => rho[i]![j]! >= MIN_RATIO && sim[i]![j]! >= MIN_TEXT_SIMILARITY);
  const pairs: Array<{ a: Coloured; b: Coloured }> = [
    ...nonText.map((m) => ({ a: rc[m.r]!, b: cc[m.c]! })),
    ...text.map(([i, j]) => ({ a: rt[i]!, b: ct[j]! })),
  ];
  const both = (f: (x: Rgba, y: Rgba) => number) => (p: { a: Coloured; b: Coloured }) => (p.a.color && p.b.color ? f(p.a.color, p.b.color) : null);
  const s = subScores(pairs, rc.length + rt.length, cc.length + ct.length, v, both(rgbColourSimilarity), both(colourSimilarity));
  const textF1 = text.map(([i, j]) => stringF1(rt[i]!.text, ct[j]!.text) ?? 1);
  const byKind: Record<string, { reference: number; page: number }> = {};
  for (const c of ref.components ?? []) (byKind[c.kind] ??= { reference: 0, page: 0 }).reference++;
  for (const c of cand.components ?? []) (byKind[c.kind] ??= { reference: 0, page: 0 }).page++;
  return {
    // text: matched pairs whose texts have no word (punctuation only) agree fully; a reference without text has nothing to reproduce
    sub: { ...s.canvas, text: rt.length === 0 ? null : text.length ? mean(textF1) : 0 },
    webgrade: {
      ...s.ours,
      words: wordF1(
        rt.map((b) => b.text),
        ct.map((b) => b.text),
      ),
    },
    counts: {
      reference: { nonText: rc.length, text: rt.length },
      page: { nonText: cc.length, text: ct.length },
      matched: { nonText: nonText.length, text: text.length },
    },
    byKind,
  };
}

async function comparePictureComponents(pair: UsablePair): Promise<Compared> {
  const rs = pair.reference.screenshot!;
  const cs = pair.candidate.screenshot!;
  const [rb, cb] = await Promise.all([edgeBoxes(rs, pair.viewport), edgeBoxes(cs, pair.viewport)]);
  const matches = matchByIou(rb, cb);
  const pairs = await Promise.all(
    matches.map(async (m) => ({
      a: { ...rb[m.r]!, color: await regionColour(rs, rb[m.r]!, pair.viewport) },
      b: { ...cb[m.c]!, color: await regionColour(cs, cb[m.c]!, pair.viewport) },
    })),
  );
  const s = subScores(
    pairs,
    rb.length,
    cb.length,
    pair.viewport,
    (p) => rgbColourSimilarity(p.a.color!, p.b.color!),
    (p) => colourSimilarity(p.a.color!, p.b.color!),
  );
  return {
    sub: { ...s.canvas, text: null },
    webgrade: { ...s.ours, words: null },
    counts: { reference: { nonText: rb.length, text: 0 }, page: { nonText: cb.length, text: 0 }, matched: { nonText: matches.length, text: 0 } },
  };
}

const SUBS: Array<keyof ComponentSubScores> = ['match', 'position', 'colour', 'text'];

async function viewportOutcome(pair: UsablePair): Promise<ViewportComponents> {
  const picture = pair.reference.source === 'image';
  if (picture && (!pair.reference.screenshot || !pair.candidate.screenshot)) {
    return {
      viewport: pair.viewport.name,
      basis: 'picture',
      score: null,
      reason: 'no screenshot to compare',
      subScores: { match: null, position: null, colour: null, text: null },
      counts: { reference: { nonText: 0, text: 0 }, page: { nonText: 0, text: 0 }, matched: { nonText: 0, text: 0 } },
    };
  }
  const c = picture ? await comparePictureComponents(pair) : compareComponents(pair.reference, pair.candidate, pair.viewport);
  const out: ViewportComponents = {
    viewport: pair.viewport.name,
    basis: picture ? 'picture' : 'components',
    score: null,
    subScores: roundSubs(c.sub),
    webgrade: roundOurs(c.webgrade),
    counts: c.counts,
  };
  if (c.byKind) out.byKind = c.byKind;
  const notComputed = SUBS.filter((k) => c.sub[k] === null);
  if (c.sub.match === null) {
    out.reason = 'the reference has no component at this viewport (match is recall: nothing to find)';
    return out;
  }
  if (notComputed.length) {
    out.notComputed = notComputed.map((k) =>
      k === 'text'
        ? picture
          ? 'text (a picture reference has no text; OCR left out)'
          : 'text (the reference has no text component)'
        : k === 'colour'
          ? 'colour (no matched pair has colours on both sides)'
          : k,
    );
  }
  out.score = round2(100 * mean(SUBS.filter((k) => c.sub[k] !== null).map((k) => c.sub[k]!)));
  return out;
}

function roundOurs(s: WebgradeComponentScores): WebgradeComponentScores {
  const r = (x: number | null) => (x === null ? null : round4(clamp01(x)));
  return { matchF1: r(s.matchF1), position: r(s.position), colour: r(s.colour), words: r(s.words) };
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
  if (ok.length === 0)
    return unscorable(`nothing to compare at any viewport (${perViewport.map((v) => `${v.viewport}: ${v.reason ?? 'no score'}`).join('; ')})`, details);
  const subs: Record<string, number | null> = {};
  for (const k of SUBS) {
    const xs = ok.map((v) => v.subScores[k]).filter((x): x is number => x !== null);
    subs[k] = xs.length ? round4(mean(xs)) : null;
  }
  details.subScores = subs;
  details.formula =
    "CANVAS's: match recall, Euclidean position over the diagonal, RGB colour over √3·255, string F1 of matched texts; ours (F1, Chebyshev, ΔE2000, page word F1) per viewport under `webgrade`, not scored";
  const s = mean(ok.map((v) => v.score!));
  const parts = ok.map((v) => `${v.viewport} ${v.score!.toFixed(1)}`).join(', ');
  const named = SUBS.filter((k) => subs[k] !== null)
    .map((k) => `${k} ${subs[k]!.toFixed(2)}`)
    .join(', ');
  return scored(s, `mean of ${ok.length} viewport${ok.length > 1 ? 's' : ''} (${parts}); ${named}`, details);
}

const componentFidelity: MetricDefinition = {
  number: 31,
  id: 'component-fidelity',
  perspective: 'fidelity',
  kind: 'rule',
  needs: ['reference'],
  title: 'Component fidelity',
  question:
    "Does the page have the reference design's components (images, controls, boxes, texts) in the same place and colours, on desktop, tablet and phone (CANVAS's component-wise similarity)?",
  suite: 'extended',
  score,
};

export default componentFidelity;
