import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { populationFromRows, type Population } from '../../weights/aggregate.js';
import { mulberry32 } from '../../weights/bootstrap.js';
import {
  comparisons,
  fitNonNegativeLogistic,
  fittedPersona,
  fitWeights,
  groupFolds,
  provenanceOf,
  type FitOptions,
  type FitResult,
} from '../../weights/fit.js';
import { groupAgreement, judgementsFromPairs, judgementsFromRatings, type Judgements } from '../../weights/judgements.js';
import { matchPairs, pairsFileNotes, parsePairs } from '../../weights/pairs.js';
import { fileWeights, presetWeights, weightedPerspectives } from '../../weights/personas.js';
import { matchRatings, parseRatings } from '../../weights/ratings.js';
import { provenanceLine, validateWeightsFile } from '../../weights/weights-file.js';
import { leaderboardFromPopulation } from '../../weights/leaderboard.js';
import { judgedPages } from './synthetic.js';

const METRICS = ['lint', 'comment-rate', 'copywriting', 'accessibility', 'performance', 'layout-sparsity'];
const OPTS: FitOptions = { survey: [presetWeights('all')], suite: 'study', iterations: 60, seed: 1, folds: 5 };
const DATA = { file: 'judgements.csv', sha256: '0'.repeat(64), rows: 0, matched: 0, unmatched: 0 };

const fits = new Map<string, { pop: Population; j: Judgements; fit: FitResult }>();

/** The fit of judgedPages' ratings (6 models × 40 requirements), once per (follow, seed): fits take a second or two. */
function ratingsFit(follow: string | null, seed: number, noise = 0.5): { pop: Population; j: Judgements; fit: FitResult } {
  const key = `${follow}/${seed}/${noise}`;
  if (!fits.has(key)) fits.set(key, ratingsFitNow(follow, seed, noise));
  return fits.get(key)!;
}

function ratingsFitNow(follow: string | null, seed: number, noise: number): { pop: Population; j: Judgements; fit: FitResult } {
  const d = judgedPages({ models: 6, requirements: 40, metrics: METRICS, follow, noise, seed });
  const pop = populationFromRows(d.rows);
  const match = matchRatings(
    d.ratings.map((r, i) => ({ line: i + 2, ...r })),
    pop.samples,
  );
  const j = judgementsFromRatings(match.byPage, pop.samples);
  return { pop, j, fit: fitWeights(pop, j, DATA, 'results.jsonl', OPTS) };
}

function pairsFit(follow: string | null, seed: number): FitResult {
  const d = judgedPages({ models: 6, requirements: 40, metrics: METRICS, follow, noise: 0.5, pairsPerRequirement: 8, seed });
  const pop = populationFromRows(d.rows);
  const text = ['requirement,model_a,model_b,winner', ...d.pairs.map((p) => `${p.requirement},${p.model_a},${p.model_b},${p.winner}`)].join('\n');
  const j = judgementsFromPairs(matchPairs(parsePairs(text, 'pairs.csv', 'csv').pairs, pop.samples).pairs, pop.samples);
  return fitWeights(pop, j, DATA, 'results.jsonl', OPTS);
}

const top = (f: FitResult) => f.doc.weights[0]!;
const metricEst = (f: FitResult, id: string) => f.doc.agreement.metrics.find((m) => m.id === id)!.estimate;

describe('fitNonNegativeLogistic', () => {
  // Comparisons drawn from a logistic model with known weights; the fit must satisfy the optimality (KKT)
  // conditions of the non-negative problem: zero gradient where w > 0, non-negative gradient where w = 0.
  const cases: Array<{ name: string; truth: number[] }> = [
    { name: 'all weights positive', truth: [2, 1, 0.5] },
    { name: 'a metric people dislike is held at 0, not made negative', truth: [1.5, -1, 0] },
    { name: 'a single informative metric', truth: [0, 0, 3] },
  ];
  for (const c of cases) {
    it(`reaches the constrained optimum: ${c.name}`, () => {
      const rand = mulberry32(7);
      const n = 800;
      const m = c.truth.length;
      const X = new Float64Array(n * m);
      const y = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        let t = 0;
        for (let k = 0; k < m; k++) {
          X[i * m + k] = rand() * 4 - 2;
          t += c.truth[k]! * X[i * m + k]!;
        }
        y[i] = rand() < 1 / (1 + Math.exp(-t)) ? 1 : 0;
      }
      const l2 = 0.01;
      const fit = fitNonNegativeLogistic(X, y, n, m, l2);
      assert.ok(fit.converged);
      const grad = new Array<number>(m).fill(0);
      for (let i = 0; i < n; i++) {
        let t = 0;
        for (let k = 0; k < m; k++) t += X[i * m + k]! * fit.w[k]!;
        const r = 1 / (1 + Math.exp(-t)) - y[i]!;
        for (let k = 0; k < m; k++) grad[k]! += (r * X[i * m + k]!) / n;
      }
      for (let k = 0; k < m; k++) {
        const g = grad[k]! + l2 * fit.w[k]!;
        assert.ok(fit.w[k]! >= 0);
        if (fit.w[k]! > 1e-9) assert.ok(Math.abs(g) < 1e-5, `w${k} = ${fit.w[k]} but gradient ${g}`);
        else assert.ok(g > -1e-5, `w${k} = 0 but gradient ${g} says it should grow`);
      }
      // The largest true weight stays the largest fitted one; a negative or zero truth gets (near) nothing.
      const best = c.truth.indexOf(Math.max(...c.truth));
      assert.equal([...fit.w].indexOf(Math.max(...fit.w)), best);
      c.truth.forEach((t, k) => t <= 0 && assert.ok(fit.w[k]! < 0.15, `w${k} = ${fit.w[k]}`));
    });
  }
});

describe('groupFolds', () => {
  it('deals every requirement into exactly one of k folds of near-equal size, the same for the same seed', () => {
    for (const [groups, k] of [
      [10, 5],
      [7, 3],
      [2, 2],
      [40, 5],
    ] as const) {
      const f = groupFolds(groups, k, 3);
      assert.equal(f.length, groups);
      const sizes = Array.from({ length: k }, (_, i) => f.filter((x) => x === i).length);
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${sizes}`);
      assert.deepEqual(groupFolds(groups, k, 3), f);
    }
    assert.notDeepEqual(groupFolds(40, 5, 1), groupFolds(40, 5, 2));
  });
});

describe('comparisons', () => {
  it('pairs every two rated pages of a requirement whose ratings differ, and pairs judgements as ties say', () => {
    const z = [0, 1, 2, 3].map((i) => Float64Array.from([i]));
    const ratings: Judgements = {
      kind: 'ratings',
      groups: [
        {
          requirement: 'r',
          rated: [
            { page: 0, rating: 1 },
            { page: 1, rating: 1 },
            { page: 2, rating: 3 },
          ],
          pairs: [],
        },
      ],
    };
    const c = comparisons(ratings, z, 1, [0], 'half');
    assert.equal(c.n, 2, 'the tied pair of ratings says nothing');
    assert.deepEqual([...c.X], [2, 1]);
    assert.deepEqual([...c.y], [1, 1]);
    const pairs: Judgements = {
      kind: 'pairs',
      groups: [
        {
          requirement: 'r',
          rated: [],
          pairs: [
            { a: 0, b: 3, winner: 'b' },
            { a: 1, b: 2, winner: 'tie' },
          ],
        },
      ],
    };
    assert.deepEqual([...comparisons(pairs, z, 1, [0], 'half').y], [1, 0.5]);
    assert.deepEqual([...comparisons(pairs, z, 1, [0], 'half').X], [3, -1]);
    assert.equal(comparisons(pairs, z, 1, [0], 'drop').n, 1);
    assert.equal(comparisons(pairs, z, 1, [0, 0], 'drop').n, 2, 'a requirement drawn twice counts twice');
  });
});

describe('groupAgreement', () => {
  const cases: Array<{ name: string; scores: Array<number | null>; value: number | null; decisive: number }> = [
    { name: 'every winner scores higher', scores: [3, 2, 1, 0], value: 1, decisive: 3 },
    { name: 'every winner scores lower', scores: [0, 1, 2, 3], value: 0, decisive: 3 },
    { name: 'equal scores count half', scores: [1, 1, 1, 1], value: 0.5, decisive: 3 },
    { name: 'a judgement with an unscorable page is left out', scores: [3, 2, null, 0], value: 1, decisive: 1 },
  ];
  const g = {
    requirement: 'r',
    rated: [],
    pairs: [
      { a: 0, b: 1, winner: 'a' as const },
      { a: 1, b: 2, winner: 'a' as const },
      { a: 3, b: 2, winner: 'b' as const },
      { a: 0, b: 3, winner: 'tie' as const },
    ],
  };
  for (const c of cases) {
    it(`pairwise accuracy: ${c.name}`, () => {
      const a = groupAgreement('pairs', g, c.scores);
      assert.equal(a.value, c.value);
      assert.equal(a.decisive, c.decisive);
    });
  }
  it(`ratings: Spearman needs 3 rated pages with a score`, () => {
    const r = {
      requirement: 'r',
      rated: [
        { page: 0, rating: 1 },
        { page: 1, rating: 2 },
        { page: 2, rating: 3 },
      ],
      pairs: [],
    };
    assert.equal(groupAgreement('ratings', r, [1, 2, 3]).value, 1);
    assert.equal(groupAgreement('ratings', r, [1, 2, null]).value, null);
  });
});

describe('fitWeights on ratings', () => {
  it("gives the metric people follow the largest weight, and held-out agreement near that metric's own", () => {
    for (const follow of ['comment-rate', 'accessibility']) {
      const { fit } = ratingsFit(follow, 11);
      assert.equal(top(fit).id, follow);
      assert.ok(top(fit).weight > 0.8, `${top(fit).weight}`);
      assert.ok(top(fit).ci![0] > 0.5, `${top(fit).ci}`);
      const truth = metricEst(fit, follow).value!;
      const held = fit.doc.agreement.fitted.value!;
      assert.ok(Math.abs(held - truth) < 0.05, `held-out ${held} vs the truth's ${truth}`);
      assert.equal(fit.doc.verdict.beatsSurvey, true);
      assert.match(fit.doc.verdict.text, /agree with people better than the survey weights/);
      assert.ok(Math.abs(Object.values(fit.weights!).reduce((a, b) => a + b, 0) - 1) < 1e-9);
    }
  });

  it('on pure noise: the held-out interval contains 0 and the survey weights cannot be beaten', () => {
    for (const seed of [1, 2, 3]) {
      const { fit } = ratingsFit(null, seed);
      const ci = fit.doc.agreement.fitted.ci!;
      assert.ok(ci[0] < 0 && ci[1] > 0, `seed ${seed}: ${ci}`);
      assert.equal(fit.doc.verdict.beatsSurvey, false);
      assert.match(fit.doc.verdict.text, /too few data to beat the survey weights/);
    }
  });

  it('weights metrics that cannot separate pages 0 and says why', () => {
    const d = judgedPages({ models: 4, requirements: 6, metrics: METRICS, follow: 'lint', noise: 0.3, seed: 5 });
    for (const r of d.rows) r.metrics.find((m) => m.id === 'copywriting')!.score = 70;
    const pop = populationFromRows(d.rows);
    const j = judgementsFromRatings(
      matchRatings(
        d.ratings.map((r, i) => ({ line: i, ...r })),
        pop.samples,
      ).byPage,
      pop.samples,
    );
    const fit = fitWeights(pop, j, DATA, 'results.jsonl', { ...OPTS, iterations: 20 });
    const cw = fit.doc.weights.find((w) => w.id === 'copywriting')!;
    assert.equal(cw.weight, 0);
    assert.match(cw.note!, /not fitted: every sample has the same score/);
    assert.equal(fit.doc.weights.find((w) => w.id === 'functionality-correctness')!.note, 'no results');
  });
});

describe('fitWeights on pairs', () => {
  it("gives the metric people follow the largest weight, and held-out accuracy near that metric's own", () => {
    const fit = pairsFit('copywriting', 21);
    assert.equal(top(fit).id, 'copywriting');
    const truth = metricEst(fit, 'copywriting').value!;
    assert.ok(Math.abs(fit.doc.agreement.fitted.value! - truth) < 0.05, `${fit.doc.agreement.fitted.value} vs ${truth}`);
    assert.equal(fit.doc.measure.id, 'pairwise-accuracy');
    assert.equal(fit.doc.verdict.beatsSurvey, true);
  });

  it('on pure noise: the held-out accuracy interval contains chance (0.5) and the survey weights cannot be beaten', () => {
    for (const seed of [1, 2]) {
      const fit = pairsFit(null, seed);
      const ci = fit.doc.agreement.fitted.ci!;
      assert.ok(ci[0] < 0.5 && ci[1] > 0.5, `seed ${seed}: ${ci}`);
      assert.equal(fit.doc.verdict.beatsSurvey, false);
    }
  });
});

describe('fitted weights files', () => {
  it("round-trip: the leaderboard's weights resolve to exactly the fitted metric weights, with the provenance", () => {
    const { fit } = ratingsFit('comment-rate', 11);
    const prov = provenanceOf(fit.doc, new Date('2026-01-02T03:04:05Z'));
    const file = validateWeightsFile(
      JSON.parse(JSON.stringify({ personas: { fitted: fittedPersona(fit.weights!, weightedPerspectives('study'), 'study', prov) } })),
      'fitted.json',
    );
    const resolved = fileWeights(file, 'fitted.json');
    assert.equal(resolved.persona, 'fitted');
    for (const [id, w] of Object.entries(fit.weights!)) assert.ok(Math.abs((resolved.metrics[id] ?? 0) - w) < 1e-12, id);
    assert.equal(resolved.fit!.data.file, 'judgements.csv');
    assert.match(
      provenanceLine(resolved.fit!),
      /^weights fitted to ratings judgements\.csv \(sha256 000000000000\) on 2026-01-02: held-out Spearman within requirement 0\.\d\d \[0\.\d\d, 0\.\d\d\] \(5-fold by requirement, seed 1\) vs survey all/,
    );
  });

  it("the leaderboard names the fitted weights' provenance, and says so when its noise guard differs from the fit's", () => {
    const { pop, fit } = ratingsFit('comment-rate', 11);
    const prov = { ...provenanceOf(fit.doc), noiseGuard: false };
    const file = validateWeightsFile(
      JSON.parse(JSON.stringify({ personas: { fitted: fittedPersona(fit.weights!, weightedPerspectives('study'), 'study', prov) } })),
      'fitted.json',
    );
    const doc = leaderboardFromPopulation(pop, fileWeights(file, 'fitted.json'), { iterations: 0 });
    assert.match(doc.weights.provenanceLine!, /^weights fitted to ratings judgements\.csv/);
    assert.equal(doc.weights.provenance!.measure, 'spearman-within-requirement');
    assert.ok(
      doc.notes.some((n) => /fitted on z without the noise guard and this ranking is with it/.test(n)),
      doc.notes.join('\n'),
    );
    const same = leaderboardFromPopulation(pop, fileWeights(file, 'fitted.json'), { iterations: 0, noiseGuard: { enabled: false, k: 3 } });
    assert.ok(!same.notes.some((n) => /fitted on z/.test(n)));
  });

  it('rejects a fit provenance without its data file', () => {
    const p = fittedPersona({ lint: 1 }, weightedPerspectives('study'), 'study', provenanceOf(ratingsFit('comment-rate', 11).fit.doc));
    const bad = JSON.parse(JSON.stringify({ personas: { fitted: p } }));
    delete bad.personas.fitted.fit.data;
    assert.throws(() => validateWeightsFile(bad, 'x.json'), /persona fitted: "fit": "data" needs "kind"/);
  });
});

describe('pairs files', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['requirement,model_a,winner\nr,a,a', 'csv', /line 1: no "model_b" column/],
    ['requirement,model_a,model_b,winner\nr,a,b,x', 'csv', /line 2: winner "x" is not a, b, tie or both-bad/],
    ['requirement,model_a,model_b,winner\nr,a,a,a', 'csv', /line 2: model_a and model_b are both "a"/],
    ['{"requirement":"r","model_a":"a","model_b":"b"}', 'jsonl', /line 1: no "winner"/],
    ['{"requirement":"r","model_a":"a","model_b":"b","winner":"A"}\nnot json', 'jsonl', /line 2: not valid JSON/],
  ];
  for (const [text, format, re] of cases) {
    it(`names the bad line: ${re.source}`, () => assert.throws(() => parsePairs(text, 'p', format as 'csv' | 'jsonl'), re));
  }
  it('reads winners case-insensitively and counts raters', () => {
    const f = parsePairs(
      '{"requirement":"r","model_a":"a","model_b":"b","winner":"A","rater":"x"}\n{"requirement":"r","model_a":"a","model_b":"b","winner":"TIE","rater":"y"}',
      'p',
      'jsonl',
    );
    assert.deepEqual(
      f.pairs.map((p) => p.winner),
      ['a', 'tie'],
    );
    assert.equal(f.raters, 2);
  });
  it("reads an arena's votes as they are: both-bad counts as a tie, time and position are read past", () => {
    const f = parsePairs(
      [
        '{"requirement":"r","model_a":"a","model_b":"b","winner":"both-bad","rater":"x","time":"2026-11-27T10:00:00.000Z","position":"right","id":"v1"}',
        '{"requirement":"r","model_a":"b","model_b":"a","winner":"a","rater":"x","time":"2026-11-27T10:00:05.000Z","position":"left","id":"v2"}',
      ].join('\n') + '\n',
      'votes.jsonl',
      'jsonl',
    );
    assert.deepEqual(
      f.pairs.map((p) => [p.winner, p.bothBad ?? false]),
      [
        ['tie', true],
        ['a', false],
      ],
    );
    assert.equal(f.bothBad, 1);
    assert.equal(f.tornTail, false);
    assert.deepEqual(pairsFileNotes(f), ['1 both-bad vote counts as a tie']);
  });
  it('leaves out a torn last line of a votes file (a crash mid-write), and only that', () => {
    const whole = '{"requirement":"r","model_a":"a","model_b":"b","winner":"a"}\n';
    const f = parsePairs(whole + '{"requirement":"r","model_a":"a","mo', 'votes.jsonl', 'jsonl');
    assert.equal(f.pairs.length, 1);
    assert.equal(f.tornTail, true);
    assert.match(pairsFileNotes(f)[0]!, /votes\.jsonl ends with a torn line .*left out/);
    // A complete last line without its newline is a judgement; a broken line before the last is bad input.
    assert.equal(parsePairs(whole + whole.trim(), 'v', 'jsonl').pairs.length, 2);
    assert.throws(() => parsePairs('{"requirement":"r","mo\n' + whole, 'v', 'jsonl'), /line 1: not valid JSON/);
  });
});

describe('ratings with repeats', () => {
  it('averages the ratings of one page whatever repeat they name, and the fit reads them as one page', () => {
    const d = judgedPages({ models: 3, requirements: 2, metrics: ['lint'], follow: 'lint', noise: 0, seed: 1 });
    const pop = populationFromRows(d.rows);
    const csv = ['model,requirement,repeat,rating', 'm1,r0,1,1', 'm1,r0,2,3', 'm2,r0,1,5'].join('\n');
    const match = matchRatings(parseRatings(csv, 'r.csv', 'csv').ratings, pop.samples);
    const page = pop.samples.findIndex((s) => s.model === 'm1' && s.requirement === 'r0');
    assert.deepEqual(match.byPage.get(page), { rating: 2, raters: 2 });
    assert.equal(judgementsFromRatings(match.byPage, pop.samples).groups[0]!.rated.length, 2);
  });
});
