/**
 * `visual-fidelity` (extended suite, perspective `fidelity`): UI2App's judge-free visual fidelity against a
 * reference, on desktop, tablet and phone (core/fidelity.ts's default viewports, our choice; `--viewports`).
 *
 * Per viewport, from the text blocks of both rendered pages (gather/fidelity/collect.ts: every visible text
 * parent, with its text, box, computed colour and tag), prepared and matched as fidelity-tools.ts says (filters:
 * smaller than 2×2 px, further than 3 screens down, longer than 500 characters; lower-cased, cut to 200
 * characters; same-row same-tag fragments within 0.02 merged; Hungarian matching on 1 − ρ, ρ difflib's ratio
 * with autojunk off; pairs with ρ ≥ 0.3 kept):
 * - SIZE = min(1, matched area / mean total area): matched area = Σ over pairs of the mean of the two blocks'
 *   areas, mean total area = the mean of the two pages' total block areas (areas normalised to the viewport).
 *   This is Design2Code's block-match (matched areas of both sides over all areas of both sides).
 * - TEXT = mean ρ over pairs; POSITION = mean of 1 − max(|Δcx|, |Δcy|) (normalised centres, at least 0);
 *   COLOR = mean of 1 − ΔE2000/100 of the two text colours (at least 0).
 * - All four are 0 when nothing matches; score = 25 × (S + T + P + C).
 * - A viewport where neither page shows any text is not scored (nothing to compare); one where only one side
 *   does scores 0.
 * The metric's score is the mean over the viewports that could be scored; each viewport's sub-scores are in the
 * details, with the SSIM of the two screenshots (reported only: see fidelity-tools.ts `screenshotSsim` for the
 * window and scaling), the block counts and the reference texts that found no match.
 *
 * A picture reference (PNG) has no DOM, so text blocks cannot be read from it. OCR was measured and left out
 * (bench/fidelity-ocr.ts, tesseract.js with the bundled English data on the 20 Design2Code references rendered at
 * 1440 px: median 6.0 s per image on the shared 2-core machine (load average about 18), worst 35 s; 87 % of the DOM
 * text blocks found at ρ ≥ 0.3 but only 35 % at ρ ≥ 0.8, so TEXT would be mostly OCR noise, at several times the
 * cost budget of a whole page pair): TEXT is not computed; SIZE and POSITION come from element boxes detected from the edges of
 * both screenshots (layout-consistency's detection), matched by the Hungarian algorithm on 1 − IoU with IoU ≥ 0.5;
 * COLOR is the palette similarity of the two screenshots (color-harmony's dominant colours, each paired with the
 * nearest of the other palette, 1 − ΔE2000/100 weighted by share, both ways). The score is then 100 × the mean of
 * the three computed sub-scores, and the details list the sub-scores that could not be computed.
 *
 * UI2App's other two rules (issue 36):
 * - A build that does not run scores 0: a viewport where the reference rendered and the page did not respond (its
 *   view timed out: an endless loop, a busy main thread; gather/fidelity/render.ts) scores 0 and is
 *   averaged in, instead of being left out. A page that loads but shows nothing already scores 0 (nothing
 *   matches). Failures that are not the page's (no time left in the budget, the browser failing) still leave the
 *   viewport out, and the metric unscorable when no viewport is left.
 * - The coverage factor (× matched routes / all routes of a multi-page reference) is **not applied**: the
 *   fidelity renderer renders and compares only the entry page of each side, so a score of the other routes does
 *   not exist to be weighted. When the reference links to other routes (metrics/lib/reference-routes.ts), the details
 *   say so (`coverage`: the reference's routes, the one compared, `applied: false`); navigation-reachability,
 *   with a reference, scores the share of those routes the page reaches.
 *
 * Unscorable: "no reference given (--reference)" without a reference; the render failure when neither page could
 * be rendered at any viewport for a reason that is not the page's own.
 */
import { scored, unscorable, type MetricDefinition, type MetricOutcome, type MetricPicture } from '../../core/metric.js';
import type { Evidence } from '../../core/evidence.js';
import type { RenderedView, ViewportSpec } from '../../core/fidelity.js';
import { round2 } from '../lib/formula.js';
import {
  area,
  clamp01,
  colourSimilarity,
  edgeBoxes,
  matchBlocks,
  matchByIou,
  mean,
  palette,
  paletteSimilarity,
  positionSimilarity,
  prepareBlocks,
  round4,
  screenshotSsim,
  viewPairs,
  type BlockMatch,
  type NormBox,
  type PreparedBlock,
  type UsablePair,
} from './fidelity-tools.js';
import { drawPair } from './fidelity-picture.js';
import { referenceRoutes } from '../lib/reference-routes.js';

export interface VisualSubScores {
  size: number | null;
  text: number | null;
  position: number | null;
  colour: number | null;
}

export interface ViewportVisual {
  viewport: string;
  /** `dom`: text blocks of both pages; `image`: a picture reference (edge boxes and palettes). */
  basis: 'text blocks' | 'picture';
  score: number | null;
  reason?: string;
  subScores: VisualSubScores;
  notComputed?: string[];
  ssim?: number | null;
  counts: { reference: number; page: number; matched: number };
  unmatchedReference?: string[];
  weakestMatches?: Array<{ reference: string; page: string; rho: number }>;
}

/** The text-block comparison of one viewport (also drawn by `illustrate`). */
export function compareBlocks(
  ref: RenderedView,
  cand: RenderedView,
  v: ViewportSpec,
): { ref: PreparedBlock[]; cand: PreparedBlock[]; matches: BlockMatch[]; sub: VisualSubScores; dropped: Record<string, unknown> } {
  const r = prepareBlocks(ref.blocks ?? [], v);
  const c = prepareBlocks(cand.blocks ?? [], v);
  const matches = matchBlocks(r.blocks, c.blocks);
  const dropped = { reference: { ...r.dropped, merged: r.merged }, page: { ...c.dropped, merged: c.merged } };
  if (matches.length === 0) return { ref: r.blocks, cand: c.blocks, matches, sub: { size: 0, text: 0, position: 0, colour: 0 }, dropped };
  const total = (r.blocks.reduce((s, b) => s + area(b), 0) + c.blocks.reduce((s, b) => s + area(b), 0)) / 2;
  const matched = matches.reduce((s, m) => s + (area(r.blocks[m.r]!) + area(c.blocks[m.c]!)) / 2, 0);
  const sub: VisualSubScores = {
    size: total > 0 ? Math.min(1, matched / total) : 0,
    text: mean(matches.map((m) => m.rho)),
    position: mean(matches.map((m) => positionSimilarity(r.blocks[m.r]!, c.blocks[m.c]!))),
    colour: mean(matches.map((m) => colourSimilarity(r.blocks[m.r]!.color, c.blocks[m.c]!.color))),
  };
  return { ref: r.blocks, cand: c.blocks, matches, sub, dropped };
}

/** The picture comparison of one viewport (module comment). */
export async function comparePicture(
  pair: UsablePair,
): Promise<{ ref: NormBox[]; cand: NormBox[]; matches: Array<{ r: number; c: number; iou: number }>; sub: VisualSubScores }> {
  const rs = pair.reference.screenshot;
  const cs = pair.candidate.screenshot;
  if (!rs || !cs) return { ref: [], cand: [], matches: [], sub: { size: null, text: null, position: null, colour: null } };
  const [ref, cand, pr, pc] = await Promise.all([edgeBoxes(rs, pair.viewport), edgeBoxes(cs, pair.viewport), palette(rs), palette(cs)]);
  const matches = matchByIou(ref, cand);
  const total = (ref.reduce((s, b) => s + area(b), 0) + cand.reduce((s, b) => s + area(b), 0)) / 2;
  const matched = matches.reduce((s, m) => s + (area(ref[m.r]!) + area(cand[m.c]!)) / 2, 0);
  return {
    ref,
    cand,
    matches,
    sub: {
      size: matches.length && total > 0 ? Math.min(1, matched / total) : 0,
      text: null,
      position: matches.length ? mean(matches.map((m) => positionSimilarity(ref[m.r]!, cand[m.c]!))) : 0,
      colour: paletteSimilarity(pr, pc),
    },
  };
}

const SUB_NAMES: Array<keyof VisualSubScores> = ['size', 'text', 'position', 'colour'];

async function viewportOutcome(pair: UsablePair): Promise<ViewportVisual> {
  const v = pair.viewport;
  let ssimValue: number | null = null;
  if (pair.reference.screenshot && pair.candidate.screenshot)
    ssimValue = round4((await screenshotSsim(pair.reference.screenshot, pair.candidate.screenshot)).ssim);
  if (pair.reference.source === 'image') {
    const p = await comparePicture(pair);
    const computed = SUB_NAMES.filter((k) => p.sub[k] !== null);
    const notComputed = SUB_NAMES.filter((k) => p.sub[k] === null).map((k) =>
      k === 'text' ? 'text (a picture reference has no text blocks; OCR left out)' : `${k} (no screenshot)`,
    );
    const out: ViewportVisual = {
      viewport: v.name,
      basis: 'picture',
      score: computed.length ? round2(100 * mean(computed.map((k) => p.sub[k]!))) : null,
      subScores: roundSubs(p.sub),
      notComputed,
      ssim: ssimValue,
      counts: { reference: p.ref.length, page: p.cand.length, matched: p.matches.length },
    };
    if (!computed.length) out.reason = 'no screenshot to compare';
    return out;
  }
  const c = compareBlocks(pair.reference, pair.candidate, v);
  const out: ViewportVisual = {
    viewport: v.name,
    basis: 'text blocks',
    score: null,
    subScores: roundSubs(c.sub),
    ssim: ssimValue,
    counts: { reference: c.ref.length, page: c.cand.length, matched: c.matches.length },
  };
  if (c.ref.length === 0 && c.cand.length === 0) {
    out.reason = 'neither page shows text at this viewport';
    out.subScores = { size: null, text: null, position: null, colour: null };
    return out;
  }
  out.score = round2(25 * (c.sub.size! + c.sub.text! + c.sub.position! + c.sub.colour!));
  const matchedRef = new Set(c.matches.map((m) => m.r));
  const unmatched = c.ref.filter((_, i) => !matchedRef.has(i)).map((b) => b.text.slice(0, 60));
  if (unmatched.length) out.unmatchedReference = unmatched.slice(0, 8);
  const weakest = [...c.matches]
    .sort((a, b) => a.rho - b.rho)
    .slice(0, 3)
    .filter((m) => m.rho < 1);
  if (weakest.length)
    out.weakestMatches = weakest.map((m) => ({ reference: c.ref[m.r]!.text.slice(0, 60), page: c.cand[m.c]!.text.slice(0, 60), rho: round4(m.rho) }));
  return out;
}

function roundSubs(s: VisualSubScores): VisualSubScores {
  return {
    size: s.size === null ? null : round4(clamp01(s.size)),
    text: s.text === null ? null : round4(s.text),
    position: s.position === null ? null : round4(s.position),
    colour: s.colour === null ? null : round4(s.colour),
  };
}

async function score(evidence: Evidence): Promise<MetricOutcome> {
  const got = viewPairs(evidence, { didNotRun: true });
  if ('unscorable' in got) return unscorable(got.unscorable);
  const perViewport: ViewportVisual[] = [];
  for (const pair of got.pairs) perViewport.push(await viewportOutcome(pair));
  // UI2App: a build that does not run scores 0 (the reference rendered; the page did not respond)
  for (const [name, why] of Object.entries(got.didNotRun)) {
    perViewport.push({
      viewport: name,
      basis: 'text blocks',
      score: 0,
      reason: `the page did not run: ${why}`,
      subScores: { size: 0, text: 0, position: 0, colour: 0 },
      counts: { reference: 0, page: 0, matched: 0 },
    });
  }
  const scoredViews = perViewport.filter((v) => v.score !== null);
  const details: Record<string, unknown> = {
    reference: got.reference,
    viewports: perViewport,
    ssim: { window: 'uniform 7×7', mean: meanOrNull(perViewport.map((v) => v.ssim)), note: 'reported only, not part of the score' },
  };
  if (Object.keys(got.skipped).length) details.skippedViewports = got.skipped;
  const routes = evidence.reference ? referenceRoutes(evidence.reference) : null;
  if (routes && routes.routes.length > 1) {
    details.coverage = {
      applied: false,
      referenceRoutes: routes.routes.map((r) => `/${r}`),
      compared: ['/'],
      note: 'UI2App multiplies by matched routes / all routes; only the entry pages are rendered and compared, so the factor is not applied (navigation-reachability reports the routes the page reaches)',
    };
  }
  if (scoredViews.length === 0)
    return unscorable(`nothing to compare at any viewport (${perViewport.map((v) => `${v.viewport}: ${v.reason ?? 'no score'}`).join('; ')})`, details);
  const s = mean(scoredViews.map((v) => v.score!));
  const meanSubs: Record<string, number | null> = {};
  for (const k of SUB_NAMES) meanSubs[k] = meanOrNull(scoredViews.map((v) => v.subScores[k]));
  details.subScores = meanSubs;
  const parts = scoredViews.map((v) => `${v.viewport} ${v.score!.toFixed(1)}`).join(', ');
  const subs = SUB_NAMES.filter((k) => meanSubs[k] !== null)
    .map((k) => `${k} ${meanSubs[k]!.toFixed(2)}`)
    .join(', ');
  const picture = scoredViews.some((v) => v.basis === 'picture') ? ' (picture reference: text not computed)' : '';
  return scored(s, `mean of ${scoredViews.length} viewport${scoredViews.length > 1 ? 's' : ''} (${parts}); ${subs}${picture}`, details);
}

function meanOrNull(xs: ReadonlyArray<number | null | undefined>): number | null {
  const v = xs.filter((x): x is number => typeof x === 'number');
  return v.length ? round4(mean(v)) : null;
}

/** Both screenshots of each viewport side by side, matched blocks joined, unmatched ones marked. */
async function illustrate(evidence: Evidence): Promise<MetricPicture[]> {
  const got = viewPairs(evidence);
  if ('unscorable' in got) return [];
  const out: MetricPicture[] = [];
  for (const pair of got.pairs) {
    const rs = pair.reference.screenshot;
    const cs = pair.candidate.screenshot;
    if (!rs || !cs) continue;
    if (pair.reference.source === 'image') {
      const p = await comparePicture(pair);
      out.push({
        name: pair.viewport.name,
        png: await drawPair(rs, cs, pair.viewport, p.ref, p.cand, p.matches),
        caption: `${pair.viewport.name}: reference picture (left) and page (right); edge boxes matched by IoU ≥ 0.5 joined in green, unmatched reference boxes red, unmatched page boxes orange`,
      });
      continue;
    }
    const c = compareBlocks(pair.reference, pair.candidate, pair.viewport);
    out.push({
      name: pair.viewport.name,
      png: await drawPair(rs, cs, pair.viewport, c.ref, c.cand, c.matches),
      caption: `${pair.viewport.name}: reference (left) and page (right); ${c.matches.length} matched text blocks joined in green, ${c.ref.length - c.matches.length} reference blocks without a match red, ${c.cand.length - c.matches.length} extra page blocks orange`,
    });
  }
  return out;
}

const visualFidelity: MetricDefinition = {
  number: 30,
  id: 'visual-fidelity',
  perspective: 'fidelity',
  kind: 'rule',
  needs: ['reference'],
  title: 'Visual fidelity',
  question: "Does the page show the reference design's text blocks at the same size, place and colour, on desktop, tablet and phone?",
  suite: 'extended',
  score,
  illustrate,
};

export default visualFidelity;
