import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageOverall, populationFromRows } from '../../weights/aggregate.js';
import { analyse } from '../../weights/analyse.js';
import { analysisCsv, analysisTable } from '../../report/analyse-format.js';
import { parseCsv } from '../../weights/csv.js';
import { guardedPopulationNorms } from '../../weights/leaderboard.js';
import { DEFAULT_NOISE_GUARD_K } from '../../weights/noise.js';
import { presetWeights } from '../../weights/personas.js';
import { matchRatings, parseRatings, type RatingsFile } from '../../weights/ratings.js';
import { repeatRow, row } from './synthetic.js';

const close = (a: number | null | undefined, b: number, eps = 1e-9) => assert.ok(typeof a === 'number' && Math.abs(a - b) < eps, `${a} ≠ ${b}`);
const W = presetWeights('all');
const OFF = { enabled: false, k: DEFAULT_NOISE_GUARD_K };

/**
 * 3 models × 6 requirements × 2 repeats. comment-rate: 10·model + requirement, repeats equal (the ratings follow it
 * exactly); performance: 100 on 12 of 18 artifacts, the rest 90, and repeat 2 one point lower on artifacts of model
 * c; lint: scored on r0..r2 only.
 */
const MODELS = ['a', 'b', 'c'];
function rows() {
  const out = [];
  for (const [mi, model] of MODELS.entries()) {
    for (let r = 0; r < 6; r++) {
      for (const rep of [1, 2]) {
        const perf = (r % 3 === 2 ? 90 : 100) - (model === 'c' && rep === 2 ? 1 : 0);
        out.push(repeatRow(model, `r${r}`, rep, { 'comment-rate': 10 * mi + r, performance: perf, lint: r < 3 ? 50 + r : null }));
      }
    }
  }
  return out;
}
const ratingsFor = (fn: (mi: number, r: number) => number): RatingsFile => ({
  path: 'ratings.csv',
  unrated: 0,
  ratings: MODELS.flatMap((model, mi) => [0, 1, 2, 3, 4, 5].map((r) => ({ line: 2 + mi * 6 + r, model, requirement: `r${r}`, rating: fn(mi, r) }))),
});

describe('analyse: distribution and noise', () => {
  const pop = populationFromRows(rows());
  const doc = analyse(pop, W, { results: 'results.jsonl', iterations: 0, noiseGuard: OFF });
  const m = (id: string) => doc.metrics.find((x) => x.id === id)!;

  it('counts artifacts once and gives scorable share, mean, sd and the most common score', () => {
    assert.equal(doc.population.artifacts, 18);
    assert.equal(doc.population.rows, 36);
    assert.equal(m('lint').scorable, 9);
    close(m('lint').scorableShare, 0.5);
    close(m('lint').mean, 51);
    close(m('lint').sd, Math.sqrt(2 / 3));
    // performance artifact means: 100 ×8 (a, b: r0 r1 r3 r4), 99.5 ×4 (c), 90 ×4 (a, b: r2 r5), 89.5 ×2 (c).
    assert.deepEqual(m('performance').mode, { score: 100, share: 8 / 18, pages: 8 });
  });

  it('gives the within-page sd pooled over repeats and its ratio to the between-page sd', () => {
    // c's 6 artifacts differ by 1 between repeats: (0.5² + 0.5²) each, df 1 → s² = 0.5 · 6 / 18 pairs.
    const perf = m('performance');
    close(perf.retest!.sd, Math.sqrt((6 * 0.5) / 18));
    assert.equal(perf.retest!.pairs, 18);
    close(perf.retest!.ratio, perf.retest!.sd / perf.sd!);
    close(m('comment-rate').retest!.sd, 0);
    assert.equal(m('lint').retest!.pairs, 9);
    const single = analyse(populationFromRows(rows().filter((r) => r.repeat === 1)), W, { results: 'x', iterations: 0 });
    assert.equal(single.metrics[0]!.retest, null);
    assert.equal(single.metrics[0]!.retestNote, 'n/a: no repeats');
    assert.match(analysisTable(single), /n\/a: no repeats/);
  });

  it('adds the overall: each page Σ w · z under the population norms, with its own retest sd', () => {
    const { norms } = guardedPopulationNorms(pop, { noiseGuard: OFF });
    const overalls = pop.samples.map((s) => pageOverall(s.scores, norms, W.metrics));
    close(doc.overall.mean, overalls.reduce((a, b) => a + b, 0) / overalls.length);
    assert.equal(doc.overall.scorable, 18);
    assert.ok(doc.overall.retest!.sd > 0, 'performance noise reaches the overall');
  });

  it("reports the noise guard like the leaderboard (on by default; with k = 20 it raises performance's σ here)", () => {
    assert.equal(analyse(pop, W, { results: 'x', iterations: 0 }).noiseGuard.enabled, true);
    const guarded = analyse(pop, W, { results: 'x', iterations: 0, noiseGuard: { enabled: true, k: 20 } });
    assert.deepEqual(
      guarded.noiseGuard.changed.map((c) => c.metric),
      ['performance'],
    );
    close(guarded.metrics.find((x) => x.id === 'performance')!.effectiveSd, 20 * m('performance').retest!.sd);
    assert.ok(guarded.overall.retest!.sd < doc.overall.retest!.sd, 'the guard shrinks the noise of the overall');
    assert.match(analysisTable(guarded), /raised σ of 1 metric: performance: σ [\d.]+ → [\d.]+ \(k 20 × retest sd/);
    const csv = parseCsv(analysisCsv(guarded)).map((r) => r.fields);
    assert.match(csv.find((r) => r[0] === 'performance')![csv[0]!.indexOf('noise_guard')]!, /^performance: σ /);
  });
});

describe('analyse: agreement with ratings', () => {
  const pop = populationFromRows(rows());

  it('finds perfect agreement across pages and within every requirement for a metric the ratings follow', () => {
    const doc = analyse(pop, W, { results: 'x', iterations: 200, seed: 3, ratings: ratingsFor((mi, r) => 10 * mi + r), noiseGuard: OFF });
    const cr = doc.metrics.find((x) => x.id === 'comment-rate')!.ratings!;
    assert.equal(cr.across.pages, 18);
    close(cr.across.spearman.value, 1);
    close(cr.across.kendall.value, 1);
    assert.deepEqual(cr.across.kendall.ci, [1, 1]);
    assert.equal(cr.within.groups, 6);
    close(cr.within.spearman.value, 1);
    assert.equal(doc.ratings!.requirementsWithMinPages, 6);
    assert.ok(doc.overall.ratings, 'the overall is rated too');
  });

  it('averages within-requirement correlations over requirements with ≥ 3 rated pages (hand-computed)', () => {
    // Within each requirement the ratings order the models a, b, c as 3, 1, 2 on r0 (comment-rate orders them
    // a < b < c: ρ = −0.5, τ = −1/3) and as 1, 2, 3 elsewhere (ρ = τ = 1). Only r0 and r1 are rated for all three
    // models; r2 has two rated pages and does not count. Within: ρ (−0.5 + 1)/2, τ (−1/3 + 1)/2 over 2 requirements.
    const order = [
      [3, 1, 2],
      [1, 2, 3],
      [1, 2, 3],
    ];
    const ratings = ratingsFor((mi, r) => order[Math.min(r, 2)]![mi]!);
    ratings.ratings = ratings.ratings.filter((x) => x.requirement === 'r0' || x.requirement === 'r1' || (x.requirement === 'r2' && x.model !== 'c'));
    const doc = analyse(pop, W, { results: 'x', iterations: 0, ratings, noiseGuard: OFF });
    const w = doc.metrics.find((x) => x.id === 'comment-rate')!.ratings!.within;
    assert.equal(w.groups, 2);
    assert.equal(w.pages, 6);
    close(w.spearman.value, 0.25);
    close(w.kendall.value, 1 / 3);
    assert.equal(doc.ratings!.pages, 8);
    assert.equal(doc.ratings!.requirementsWithMinPages, 2);
    const lint = doc.metrics.find((x) => x.id === 'lint')!.ratings!.within;
    assert.equal(lint.groups, 0, 'lint is the same for every model within r0 and within r1: all tied, left out');
    assert.match(lint.kendall.note!, /no requirement with ≥ 3 rated pages/);
  });

  it('gives seeded bootstrap intervals: the same seed the same interval, another seed another', () => {
    const noisy = ratingsFor((mi, r) => ((mi * 7 + r * 5) % 11) + (10 * mi + r) / 10);
    const ci = (seed: number) =>
      analyse(pop, W, { results: 'x', iterations: 300, seed, ratings: noisy, noiseGuard: OFF }).metrics.find((x) => x.id === 'comment-rate')!.ratings!.across
        .kendall.ci;
    assert.deepEqual(ci(5), ci(5));
    assert.notDeepEqual(ci(5), ci(6));
    const [lo, hi] = ci(5)!;
    assert.ok(lo < hi);
  });

  it('says n/a when a correlation is undefined', () => {
    const doc = analyse(pop, W, { results: 'x', iterations: 50, ratings: ratingsFor(() => 4), noiseGuard: OFF });
    const cr = doc.metrics.find((x) => x.id === 'comment-rate')!.ratings!;
    assert.equal(cr.across.spearman.value, null);
    assert.match(cr.across.spearman.note!, /all tied/);
    assert.equal(cr.within.groups, 0);
    assert.match(analysisTable(doc), /comment-rate +│ 18 +│ n\/a/);
  });
});

describe('ratings files', () => {
  it('reads CSV and JSONL, skips unrated rows, and names the line of bad input', () => {
    const csv = parseRatings('artifact,rating\nruns/a/r1.html,4\n"runs/a/r2.html",\n', 'r.csv', 'csv');
    assert.deepEqual(csv.ratings, [{ line: 2, artifact: 'runs/a/r1.html', rating: 4 }]);
    assert.equal(csv.unrated, 1);
    const jsonl = parseRatings('{"model":"a","requirement":"r1","rating":2.5}\n\n{"model":"a","requirement":"r2","rating":null}\n', 'r.jsonl', 'jsonl');
    assert.deepEqual(jsonl.ratings, [{ line: 1, model: 'a', requirement: 'r1', rating: 2.5 }]);
    const bad: Array<[string, 'csv' | 'jsonl', RegExp]> = [
      ['artifact,score\nx,1\n', 'csv', /line 1: no "rating" column/],
      ['page,rating\nx,1\n', 'csv', /needs an "artifact" column, or "model" and "requirement"/],
      ['artifact,rating\nx,good\n', 'csv', /line 2: rating "good" is not a number/],
      ['artifact,rating\nx,1,2\n', 'csv', /line 2: 3 fields, the header has 2/],
      ['{"artifact":"x","rating":1}\n{oops\n', 'jsonl', /line 2: not valid JSON/],
      ['{"rating":1}\n', 'jsonl', /line 1: the row names no page/],
      ['artifact,rating\nx,\n', 'csv', /no ratings/],
    ];
    for (const [text, format, re] of bad) assert.throws(() => parseRatings(text, 'r', format), re, text);
  });

  it('matches by model and requirement, by path or its unique end, and averages several raters', () => {
    const pages = [
      { model: 'a', requirement: 'r1', artifact: '/data/runs/a/r1.html' },
      { model: 'b', requirement: 'r1', artifact: '/data/runs/b/r1' },
      { model: 'c', requirement: 'r1', artifact: '/other/runs/c/r1.html' },
      { model: 'd', requirement: 'r1', artifact: '/more/runs/c/r1.html' },
    ];
    const m = matchRatings(
      [
        { line: 2, artifact: '/data/runs/a/r1.html', rating: 1 },
        { line: 3, artifact: 'a/r1.html', rating: 3 }, // unique end: page 0
        { line: 4, artifact: 'runs/b/r1/index.html', rating: 5 }, // a folder artifact, named by its index.html
        { line: 5, model: 'b', requirement: 'r1', rating: 7 },
        { line: 6, artifact: 'runs/c/r1.html', rating: 1 }, // ends two pages: ambiguous
        { line: 7, model: 'z', requirement: 'r1', rating: 1 },
      ],
      pages,
    );
    assert.deepEqual(
      [...m.byPage],
      [
        [0, { rating: 2, raters: 2 }],
        [1, { rating: 6, raters: 2 }],
      ],
    );
    assert.deepEqual(
      m.ambiguous.map((r) => r.line),
      [6],
    );
    assert.deepEqual(
      m.unmatched.map((r) => r.line),
      [7],
    );
    assert.equal(m.matched, 4);
  });
});

// Rows without repeats scored once each still work with ratings (the common case).
describe('analyse without repeats', () => {
  it('rates pages scored once', () => {
    const rs = [row('a', 'r1', { 'comment-rate': 10 }), row('b', 'r1', { 'comment-rate': 20 }), row('c', 'r1', { 'comment-rate': 30 })];
    const doc = analyse(populationFromRows(rs), W, {
      results: 'x',
      iterations: 20,
      ratings: {
        path: 'r',
        unrated: 0,
        ratings: [
          { line: 1, model: 'a', requirement: 'r1', rating: 1 },
          { line: 2, model: 'b', requirement: 'r1', rating: 3 },
          { line: 3, model: 'c', requirement: 'r1', rating: 2 },
        ],
      },
    });
    close(doc.metrics[0]!.ratings!.across.kendall.value, 1 / 3);
    assert.equal(doc.metrics[0]!.ratings!.within.groups, 1);
  });
});
