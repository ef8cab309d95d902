/**
 * The fidelity metrics, table-driven on recorded views of the fixture pages (fixtures/fidelity/: a landing page, a
 * copy with its blocks reordered, a copy with every colour inverted, an empty page), plus the interpretations of
 * fidelity-tools.ts on synthetic blocks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testMetric } from '../../metric-tester.js';
import visualFidelity from '../../../metrics/fidelity/visual-fidelity.js';
import componentFidelity, { wordF1 } from '../../../metrics/fidelity/component-fidelity.js';
import { CUT_CHARS, matchBlocks, prepareBlocks, ratio, screenshotSsim, type PreparedBlock } from '../../../metrics/fidelity/fidelity-tools.js';
import { parseViewports, type RenderedView, type Rgba, type TextBlock, type UiComponent } from '../../../core/fidelity.js';
import { asPicture, fidelityEvidence, recordedViews } from './recorded.js';
import { writeArtifact } from '../../helpers.js';

const HTML = '<!DOCTYPE html><title>t</title><p>x</p>';
type Subs = Record<string, number | null>;
const viewports = (d: Record<string, unknown>) =>
  d.viewports as Array<{ viewport: string; score: number | null; subScores: Subs; ssim?: number | null; notComputed?: string[] }>;
const everyViewport = (d: Record<string, unknown>, check: (s: Subs, v: ReturnType<typeof viewports>[number]) => void) => {
  const vs = viewports(d);
  assert.equal(vs.length, 3);
  for (const v of vs) check(v.subScores, v);
};

testMetric(visualFidelity, [
  { name: 'no reference: unscorable with the flag to give', html: HTML, unscorable: 'no reference given (--reference)' },
  {
    name: 'identical page vs itself: 100, every sub-score 1 at every viewport, SSIM 1',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('landing')),
    score: 100,
    details: (d) =>
      everyViewport(d, (s, v) => {
        assert.deepEqual(s, { size: 1, text: 1, position: 1, colour: 1 });
        assert.equal(v.ssim, 1);
      }),
  },
  {
    name: 'blocks reordered: text, colour and size stay 1, position drops',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('landing-shuffled')),
    between: [40, 95],
    details: (d) =>
      everyViewport(d, (s, v) => {
        assert.equal(s.text, 1, v.viewport);
        assert.equal(s.colour, 1, v.viewport);
        assert.ok(s.size! > 0.97, `size ${s.size}`);
        assert.ok(s.position! < 0.8, `position ${s.position} at ${v.viewport}`);
        assert.ok(v.ssim! < 0.95, `ssim ${v.ssim}`);
      }),
  },
  {
    name: 'colours inverted: colour drops, text, position and size stay 1',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('landing-inverted')),
    between: [60, 95],
    details: (d) =>
      everyViewport(d, (s, v) => {
        assert.equal(s.text, 1);
        assert.equal(s.position, 1);
        assert.equal(s.size, 1);
        assert.ok(s.colour! < 0.7, `colour ${s.colour} at ${v.viewport}`);
        assert.ok(v.ssim! < 0.9, `ssim ${v.ssim}`);
      }),
  },
  {
    name: 'empty page: every sub-score 0',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('empty')),
    score: 0,
    details: (d) => everyViewport(d, (s) => assert.deepEqual(s, { size: 0, text: 0, position: 0, colour: 0 })),
  },
  {
    name: 'empty page vs empty reference: nothing to compare',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('empty'), recordedViews('empty')),
    unscorable: /neither page shows text/,
  },
  {
    name: 'the page did not run (its views timed out): 0 at every viewport, as UI2App scores a build that does not run',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), 'page did not respond (desktop view timed out)'),
    score: 0,
    details: (d) =>
      everyViewport(d, (s, v) => {
        assert.deepEqual(s, { size: 0, text: 0, position: 0, colour: 0 });
        assert.match(String((v as unknown as { reason: string }).reason), /the page did not run/);
      }),
  },
  {
    name: "a failure that is not the page's (the browser): unscorable with the reason, not 0",
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), 'rendering failed: Target closed'),
    unscorable: /rendering failed/,
  },
  {
    name: 'a multi-page reference: the coverage factor is reported as not applied (only the entry pages are rendered)',
    html: HTML,
    evidence: {
      ...fidelityEvidence(recordedViews('landing'), recordedViews('landing')),
      reference: { path: writeArtifact({ 'index.html': '<a href="about.html">About</a>', 'about.html': '<p>About</p>' }), kind: 'artifact' },
    },
    score: 100,
    details: (d) =>
      assert.deepEqual(d.coverage && { ...(d.coverage as object), note: undefined }, {
        applied: false,
        referenceRoutes: ['/', '/about'],
        compared: ['/'],
        note: undefined,
      }),
  },
  {
    name: 'a picture reference: text not computed, size/position from edge boxes and colour from palettes',
    html: HTML,
    evidence: fidelityEvidence(asPicture(recordedViews('landing')), [recordedViews('landing')[0]!]),
    between: [95, 100],
    details: (d) => {
      const [v] = viewports(d);
      assert.equal(v!.subScores.text, null);
      assert.match(v!.notComputed!.join(' '), /text/);
    },
  },
  {
    name: 'a picture reference vs the inverted page: colour is what drops',
    html: HTML,
    evidence: fidelityEvidence(asPicture(recordedViews('landing')), [recordedViews('landing-inverted')[0]!]),
    details: (d) => {
      const [v] = viewports(d);
      assert.ok(v!.subScores.colour! < 0.9, `colour ${v!.subScores.colour}`);
      assert.ok(v!.subScores.position! > 0.9, `position ${v!.subScores.position}`);
    },
  },
]);

testMetric(componentFidelity, [
  { name: 'no reference: unscorable', html: HTML, unscorable: 'no reference given (--reference)' },
  {
    name: 'identical page vs itself: 100, every sub-score 1',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('landing')),
    score: 100,
    details: (d) => everyViewport(d, (s) => assert.deepEqual(s, { match: 1, position: 1, colour: 1, text: 1 })),
  },
  {
    name: 'blocks reordered: the words are all there (our page word F1 1), components no longer match in place',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('landing-shuffled')),
    between: [30, 90],
    details: (d) =>
      everyViewport(d, (s, v) => {
        const ours = (v as unknown as { webgrade: Subs }).webgrade;
        assert.equal(ours.words, 1);
        assert.ok(s.match! < 0.8, `match ${s.match} at ${v.viewport}`);
        assert.ok(ours.matchF1! < 0.8, `matchF1 ${ours.matchF1} at ${v.viewport}`);
      }),
  },
  {
    name: 'colours inverted: colour drops, match, position and text stay 1',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('landing-inverted')),
    between: [60, 95],
    details: (d) =>
      everyViewport(d, (s) => {
        assert.equal(s.match, 1);
        assert.equal(s.position, 1);
        assert.equal(s.text, 1);
        assert.ok(s.colour! < 0.7, `colour ${s.colour}`);
      }),
  },
  {
    name: 'empty page: every sub-score 0',
    html: HTML,
    evidence: fidelityEvidence(recordedViews('landing'), recordedViews('empty')),
    score: 0,
    details: (d) => everyViewport(d, (s) => assert.deepEqual(s, { match: 0, position: 0, colour: 0, text: 0 })),
  },
  {
    name: 'a picture reference: text not computed',
    html: HTML,
    evidence: fidelityEvidence(asPicture(recordedViews('landing')), [recordedViews('landing')[0]!]),
    between: [95, 100],
    details: (d) => assert.match(viewports(d)[0]!.notComputed!.join(' '), /text/),
  },
]);

/**
 * CANVAS's component-wise similarity on one synthetic desktop view (1440×900, diagonal 1698.06 px): the reference
 * has a black box, an image and the text "hello world"; the page moves the box 10 px right and paints it blue,
 * keeps the text's place but says "hello there", and puts its image elsewhere (unmatched).
 */
const DIAG = Math.hypot(1440, 900);
const comp = (kind: UiComponent['kind'], x: number, y: number, w: number, h: number, color?: Rgba): UiComponent => ({
  kind,
  tag: kind === 'image' ? 'img' : 'div',
  x,
  y,
  w,
  h,
  ...(color ? { color } : {}),
});
const view = (components: UiComponent[], blocks: TextBlock[]): RenderedView => ({
  viewport: parseViewports('desktop')[0]!,
  source: 'dom',
  scrollWidth: 1440,
  scrollHeight: 900,
  components,
  blocks,
});
const tb = (text: string, x: number, y: number, color: Rgba): TextBlock => ({ text, length: text.length, x, y, w: 100, h: 20, color, tag: 'p' });
const SYN_REF = view([comp('box', 0, 0, 100, 100, [0, 0, 0, 1]), comp('image', 500, 500, 50, 50)], [tb('hello world', 200, 0, [0, 0, 0, 1])]);
const SYN_PAGE = view([comp('box', 10, 0, 100, 100, [0, 0, 255, 1]), comp('image', 1000, 800, 50, 50)], [tb('hello there', 200, 0, [0, 0, 0, 1])]);
const canvas = {
  match: 2 / 3, // recall: box and text of 3 reference components
  position: (1 - 10 / DIAG + 1) / 2, // Euclidean centre distance over the diagonal: box 10 px, text 0
  colour: (1 - 255 / (Math.sqrt(3) * 255) + 1) / 2, // RGB distance over √3·255: black → blue, black → black
  text: 0.5, // string F1 of the matched texts: "hello" of 2 + 2 words
};
const ours = { matchF1: (2 * 2) / (3 + 3), position: (1 - 10 / 1440 + 1) / 2, words: 0.5 };

testMetric(componentFidelity, [
  {
    name: "synthetic view: the score is CANVAS's definition (recall, Euclidean/diagonal, RGB/√3·255, string F1)",
    html: HTML,
    evidence: fidelityEvidence([SYN_REF], [SYN_PAGE]),
    near: [100 * ((canvas.match + canvas.position + canvas.colour + canvas.text) / 4), 0.01],
    details: (d) => {
      const [v] = viewports(d);
      for (const [k, want] of Object.entries(canvas)) assert.ok(Math.abs(v!.subScores[k]! - want) < 1e-4, `${k}: ${v!.subScores[k]} vs ${want}`);
      const w = (v as unknown as { webgrade: Subs }).webgrade;
      for (const [k, want] of Object.entries(ours)) assert.ok(Math.abs(w[k]! - want) < 1e-4, `ours ${k}: ${w[k]} vs ${want}`);
      assert.ok(w.colour! < 1 && w.colour! !== v!.subScores.colour, 'our colour is ΔE2000, not RGB distance');
    },
  },
  {
    name: 'extra components on the page do not lower CANVAS match (recall); they lower our F1',
    html: HTML,
    evidence: fidelityEvidence(
      [SYN_REF],
      [view([...SYN_REF.components!, comp('box', 900, 100, 80, 80, [9, 9, 9, 1]), comp('icon', 50, 700, 20, 20, [0, 0, 0, 1])], SYN_REF.blocks!)],
    ),
    score: 100,
    details: (d) => {
      const [v] = viewports(d);
      assert.equal(v!.subScores.match, 1);
      assert.ok(Math.abs((v as unknown as { webgrade: Subs }).webgrade.matchF1! - 6 / 8) < 1e-4);
    },
  },
  {
    name: 'a reference without components: not scored (recall has no denominator)',
    html: HTML,
    evidence: fidelityEvidence([view([], [])], [SYN_PAGE]),
    unscorable: /reference has no component/,
  },
]);

const block = (text: string, x: number, y: number, w = 100, h = 20, tag = 'p'): TextBlock => ({
  text,
  length: text.length,
  x,
  y,
  w,
  h,
  color: [0, 0, 0, 1],
  tag,
});
const desktop = parseViewports('desktop')[0]!;

describe('fidelity interpretations', () => {
  it('drops blocks smaller than 2×2, deeper than 3 screens and longer than 500 characters; lower-cases and cuts to 200', () => {
    const long = 'a'.repeat(501);
    const r = prepareBlocks(
      [block('Tiny', 0, 0, 1, 20), block('Deep', 0, 2700), block(long, 0, 0), block('X'.repeat(300), 0, 100), block('Kept', 0, 2699)],
      desktop,
    );
    assert.deepEqual(r.dropped, { small: 1, deep: 1, long: 1 });
    assert.deepEqual(
      r.blocks.map((b) => b.text.length),
      [CUT_CHARS, 4],
    );
    assert.equal(r.blocks[0]!.text, 'x'.repeat(200));
  });

  it('merges same-tag fragments of one row within 0.02, not other tags, rows or far fragments', () => {
    const vw = desktop.width;
    const r = prepareBlocks(
      [
        block('Home', 100, 10, 50, 20, 'a'),
        block('About', 150 + 0.015 * vw, 10, 50, 20, 'a'), // gap 0.015: merged
        block('Far', 600, 10, 50, 20, 'a'), // gap far: not merged
        block('Span', 240, 10, 50, 20, 'span'), // other tag
        block('Below', 100, 60, 50, 20, 'a'), // other row
      ],
      desktop,
    );
    assert.deepEqual(r.blocks.map((b) => b.text).sort(), ['below', 'far', 'home about', 'span']);
    assert.equal(r.merged, 1);
  });

  it('ratio: difflib without autojunk (a 200-character text keeps its ratio with words reordered)', () => {
    const a =
      'the quick brown fox jumps over the lazy dog and then keeps running through the forest until it reaches the river where it stops to drink some water before heading back home to its den in the hills okay'.slice(
        0,
        200,
      );
    assert.equal(a.length, 200);
    assert.ok(Math.abs(ratio(a, a.replace('river', 'creek')) - 0.985) < 1e-9);
    assert.equal(ratio('abc', 'abc'), 1);
    assert.equal(ratio('', 'abc'), 0);
  });

  it('matches identical texts to the nearest block (the tie-break), and drops pairs below ρ 0.3', () => {
    const mk = (t: string, y: number): PreparedBlock => ({ text: t, x: 0.1, y, w: 0.1, h: 0.02, color: [0, 0, 0, 1], tag: 'a' });
    const ref = [mk('read more', 0.1), mk('read more', 0.5), mk('read more', 0.9), mk('zzzz', 0.95)];
    const cand = [mk('read more', 0.9), mk('read more', 0.1), mk('read more', 0.5), mk('qqqq', 0.95)];
    const m = matchBlocks(ref, cand).sort((a, b) => a.r - b.r);
    assert.deepEqual(
      m.map((x) => [x.r, x.c]),
      [
        [0, 1],
        [1, 2],
        [2, 0],
      ],
    );
  });

  it('word F1 counts words as multisets', () => {
    assert.equal(wordF1(['a b c'], ['a b c']), 1);
    assert.equal(wordF1(['a a b'], ['a b b']), 2 / 3);
    assert.equal(wordF1([], []), null);
    assert.equal(wordF1(['a'], []), 0);
  });

  it('SSIM of a screenshot with itself is 1', async () => {
    const v = recordedViews('landing')[2]!;
    assert.ok(Math.abs((await screenshotSsim(v.screenshot!, v.screenshot!)).ssim - 1) < 1e-9);
  });

  it('parses --viewports: names, custom sizes, bad values', () => {
    assert.deepEqual(
      parseViewports('desktop,tablet,phone').map((v) => v.name),
      ['desktop', 'tablet', 'phone'],
    );
    assert.deepEqual(parseViewports('1280x800'), [{ name: '1280x800', width: 1280, height: 800 }]);
    assert.throws(() => parseViewports('watch'), /neither desktop/);
    assert.throws(() => parseViewports('100x100'), /outside/);
  });
});
