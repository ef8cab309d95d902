import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate, pageOverall, populationFromRows, populationNorms, scoreModels } from '../../weights/aggregate.js';
import { bootstrap } from '../../weights/bootstrap.js';
import { guardedPopulationNorms, leaderboard } from '../../weights/leaderboard.js';
import { leaderboardCsv, leaderboardTable } from '../../report/leaderboard-format.js';
import { DEFAULT_NOISE_GUARD_K, guardNorms, retestOf, retestSources } from '../../weights/noise.js';
import { applyNorms, buildNorms, normOverallText } from '../../weights/norms.js';
import { presetWeights } from '../../weights/personas.js';
import type { ScoreDocument } from '../../core/results.js';
import { parseCsv } from '../../weights/csv.js';
import { repeatRow, row } from './synthetic.js';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} ≠ ${b}`);
const W = presetWeights('all').metrics;
const OFF = { enabled: false, k: DEFAULT_NOISE_GUARD_K };
const ON = { enabled: true, k: DEFAULT_NOISE_GUARD_K };

/**
 * 2 models × 10 requirements × 2 repeats. `performance` barely spreads across pages (99 ± 1) and its repeats
 * differ by as much as its pages do; `comment-rate` spreads widely (20 + 3i, A 10 points up) and repeats exactly.
 */
function noisyRows() {
  const rows = [];
  for (const model of ['A', 'B']) {
    for (let i = 0; i < 10; i++) {
      const base = 20 + 3 * i + (model === 'A' ? 10 : 0);
      const p1 = 99 + (((i * 7 + (model === 'A' ? 1 : 0)) % 3) - 1);
      const p2 = 99 + (((i * 5 + (model === 'A' ? 2 : 0)) % 3) - 1);
      rows.push(repeatRow(model, `r${i}`, 1, { performance: p1, 'comment-rate': base }));
      rows.push(repeatRow(model, `r${i}`, 2, { performance: p2, 'comment-rate': base }));
    }
  }
  return rows;
}

describe('repeats in the population', () => {
  it("merges an artifact's repeats into its mean, leaving out unscorable and failed repeats; rows without repeat are repeat 1", () => {
    const rows = [
      row('A', 'r1', { performance: 90, lint: 50 }), // no `repeat`: repeat 1
      repeatRow('A', 'r1', 2, { performance: 80, lint: null }),
      { ...repeatRow('A', 'r1', 3, {}), status: 'failed' as const, metrics: [] },
      repeatRow('A', 'r2', 1, { performance: 70, lint: 40 }),
      { ...repeatRow('A', 'r3', 1, {}), status: 'failed' as const, metrics: [] },
      { ...repeatRow('A', 'r3', 2, {}), status: 'failed' as const, metrics: [] },
    ];
    const pop = populationFromRows(rows);
    assert.equal(pop.samples.length, 3, 'one sample per (model, requirement)');
    assert.equal(pop.rows, 6);
    assert.equal(pop.maxRepeats, 3);
    assert.equal(pop.failedRepeats, 1, 'the failed repeat of r1; r3 failed in every repeat');
    const r1 = pop.samples.find((s) => s.requirement === 'r1')!;
    assert.deepEqual({ ...r1.scores }, { performance: 85, lint: 50 }); // a record without prototype (lib/dict.ts)
    assert.equal(r1.failed, false);
    assert.deepEqual(
      r1.repeats!.map((r) => r.repeat),
      [1, 2, 3],
    );
    assert.equal(pop.samples.find((s) => s.requirement === 'r2')!.repeats, undefined);
    assert.equal(pop.samples.find((s) => s.requirement === 'r3')!.failed, true);
  });

  it("counts each artifact once in a model's mean and takes σ between artifacts", () => {
    // A: r1 scored three times (90, 90, 60 → mean 80), r2 once (40). B: r1 once (60), r2 once (60).
    const rows = [
      repeatRow('A', 'r1', 1, { 'comment-rate': 90 }),
      repeatRow('A', 'r1', 2, { 'comment-rate': 90 }),
      repeatRow('A', 'r1', 3, { 'comment-rate': 60 }),
      row('A', 'r2', { 'comment-rate': 40 }),
      row('B', 'r1', { 'comment-rate': 60 }),
      row('B', 'r2', { 'comment-rate': 60 }),
    ];
    const pop = populationFromRows(rows);
    const norm = populationNorms(pop)['comment-rate']!;
    // Artifact means 80, 40, 60, 60: μ = 60, σ = √((400 + 400 + 0 + 0) / 4) = √200.
    close(norm.mean!, 60);
    close(norm.sd!, Math.sqrt(200));
    assert.equal(norm.n, 4);
    const a = aggregate(pop).models.find((m) => m.model === 'A')!;
    close(a.cells['comment-rate']!.rawMean!, 60, 1e-9); // (80 + 40) / 2, not (90 + 90 + 60 + 40) / 4 = 70
    assert.equal(a.artifacts, 2);
    const doc = leaderboard(rows, presetWeights('all'), { iterations: 0, noiseGuard: OFF });
    assert.equal(doc.population.artifacts, 4);
    assert.equal(doc.population.rows, 6);
    assert.match(leaderboardTable(doc), /4 artifacts \(0 failed\) scored up to 3 times \(6 rows; each artifact counts once/);
  });

  it('estimates the test–retest sd as the pooled within-artifact sd (hand-computed)', () => {
    // a: 10, 12 → Σ(x − x̄)² = 2, df 1. b: 5, 5, 8 → x̄ 6, Σ = 1 + 1 + 4 = 6, df 2. c: one repeat, no information.
    const pop = populationFromRows([
      repeatRow('m', 'a', 1, { lint: 10 }),
      repeatRow('m', 'a', 2, { lint: 12 }),
      repeatRow('m', 'b', 1, { lint: 5 }),
      repeatRow('m', 'b', 2, { lint: 5 }),
      repeatRow('m', 'b', 3, { lint: 8 }),
      repeatRow('m', 'c', 1, { lint: 70 }),
      repeatRow('m', 'c', 2, { lint: null }),
    ]);
    const e = retestOf(pop, 'lint')!;
    close(e.sd, Math.sqrt(8 / 3));
    assert.equal(e.pairs, 3);
    assert.equal(e.artifacts, 2);
    assert.equal(retestOf(populationFromRows([row('m', 'a', { lint: 1 }), row('m', 'b', { lint: 2 })]), 'lint'), null, 'no repeats, no estimate');
  });
});

describe('noise guard', () => {
  const rows = noisyRows();
  const pop = populationFromRows(rows);

  it('raises σ of a metric whose spread is not well above its noise to k × its retest sd, and only that metric', () => {
    const { norms, report } = guardedPopulationNorms(pop, { noiseGuard: ON });
    const raw = populationNorms(pop);
    const s = retestOf(pop, 'performance')!.sd;
    assert.ok(raw.performance!.sd! < DEFAULT_NOISE_GUARD_K * s, 'the fixture is noisy');
    close(norms.performance!.effectiveSd!, DEFAULT_NOISE_GUARD_K * s);
    assert.equal(norms['comment-rate']!.effectiveSd, undefined, 'a noiseless metric keeps its σ');
    assert.deepEqual(
      report.changed.map((c) => [c.metric, c.k, c.source]),
      [['performance', DEFAULT_NOISE_GUARD_K, 'repeats']],
    );
    close(report.changed[0]!.sd, raw.performance!.sd!);
    close(report.changed[0]!.retestSd, s);
  });

  it("bounds how far one metric's noise moves a page's overall between repeats: RMS ≤ w·√2 / k", () => {
    // Two repeats differing by d give retest sd s with s² = mean(d²)/2, so under σ_eff ≥ k·s the RMS move of the
    // overall is at most w·√(mean d²)/(k·s) = w·√2/k. Without the guard the same noise moves it much further.
    const k = DEFAULT_NOISE_GUARD_K;
    const bound = (W.performance! * Math.SQRT2) / k;
    const rms = (guardOn: boolean) => {
      const { norms } = guardedPopulationNorms(pop, { noiseGuard: guardOn ? ON : OFF });
      const moves = pop.samples.map((smp) => pageOverall(smp.repeats![0]!.scores, norms, W) - pageOverall(smp.repeats![1]!.scores, norms, W));
      return Math.sqrt(moves.reduce((a, m) => a + m * m, 0) / moves.length);
    };
    assert.ok(rms(true) <= bound + 1e-12, `guarded RMS move ${rms(true)} > bound ${bound}`);
    assert.ok(rms(false) > 2 * bound, `unguarded RMS move ${rms(false)} should exceed the bound`);
  });

  it("with the guard off, the arithmetic is exactly the study's (artifact means, population σ, Σ w · mean z)", () => {
    const doc = leaderboard(rows, presetWeights('all'), { iterations: 0, noiseGuard: OFF });
    assert.deepEqual(doc.noiseGuard.changed, []);
    assert.equal(doc.noiseGuard.enabled, false);
    // By hand, from the rows: each artifact's mean over its two repeats, μ and population σ over the 20 artifacts.
    const byArtifact = new Map<string, { model: string; perf: number; cr: number }>();
    for (const r of rows) {
      const k = `${r.model}/${r.requirement}`;
      const v = byArtifact.get(k) ?? { model: r.model, perf: 0, cr: 0 };
      v.perf += r.metrics.find((m) => m.id === 'performance')!.score! / 2;
      v.cr += r.metrics.find((m) => m.id === 'comment-rate')!.score! / 2;
      byArtifact.set(k, v);
    }
    const arts = [...byArtifact.values()];
    const musd = (xs: number[]) => {
      const mu = xs.reduce((a, b) => a + b, 0) / xs.length;
      return [mu, Math.sqrt(xs.reduce((a, b) => a + (b - mu) ** 2, 0) / xs.length)] as const;
    };
    const [mp, sp] = musd(arts.map((a) => a.perf));
    const [mc, sc] = musd(arts.map((a) => a.cr));
    for (const model of ['A', 'B']) {
      const mine = arts.filter((a) => a.model === model);
      const zp = mine.reduce((a, x) => a + (x.perf - mp) / sp, 0) / mine.length;
      const zc = mine.reduce((a, x) => a + (x.cr - mc) / sc, 0) / mine.length;
      close(doc.models.find((m) => m.model === model)!.overall, W.performance! * zp + W['comment-rate']! * zc, 1e-12);
    }
  });

  it('applies the same σ floor inside the bootstrap: its point estimates equal the guarded aggregate', () => {
    const { norms, floors } = guardedPopulationNorms(pop, { noiseGuard: ON });
    const point = scoreModels(aggregate(pop, { norms }), W);
    const boot = bootstrap(pop, { all: W }, { iterations: 50, sdFloor: floors }).all!;
    for (const m of boot.models) close(m.overall, point.find((p) => p.model === m.model)!.overall, 1e-9);
    const study = bootstrap(pop, { all: W }, { iterations: 50 }).all!;
    assert.notEqual(study.models[0]!.overall, boot.models.find((m) => m.model === study.models[0]!.model)!.overall);
  });

  it("takes the retest sd from the results' repeats first, then from the norms", () => {
    const single = populationFromRows(rows.filter((r) => r.repeat === 1));
    const normsMetrics = { performance: { mean: 99, sd: 0.5, n: 9, unscorable: 0, retestSd: 2, retestPairs: 40 } };
    assert.deepEqual({ ...retestSources(single, normsMetrics) }, { performance: { sd: 2, pairs: 40, source: 'norms' } });
    assert.equal(retestSources(pop, normsMetrics).performance!.source, 'repeats');
    const doc = leaderboard(
      rows.filter((r) => r.repeat === 1),
      presetWeights('all'),
      { iterations: 0, noiseGuard: ON, normsMetrics },
    );
    assert.deepEqual(
      doc.noiseGuard.changed.map((c) => [c.metric, c.retestSd, c.effectiveSd, c.source]),
      [['performance', 2, 6, 'norms']],
    );
  });

  it('says what it changed in every leaderboard output: JSON, table, CSV', () => {
    const doc = leaderboard(rows, presetWeights('all'), { iterations: 0, noiseGuard: ON });
    const perf = doc.metrics.find((m) => m.id === 'performance')!;
    assert.ok(perf.effectiveSd! > perf.sd!);
    assert.equal(perf.retestSource, 'repeats');
    assert.match(
      leaderboardTable(doc),
      /noise guard \(σ ≥ k × test–retest sd, k = 3\) raised σ of 1 metric: performance: σ [\d.]+ → [\d.]+ \(k 3 × retest sd [\d.]+, from the results' repeats, 20 pairs\)/,
    );
    assert.match(leaderboardTable(doc), /performance +│ [\d.]+ +│ [\d.]+ +│ [\d.]+ +│ [\d.]+ \(guard\)/);
    const csv = parseCsv(leaderboardCsv(doc)).map((r) => r.fields);
    assert.equal(csv[0]!.at(-1), 'noise_guard');
    assert.match(csv[1]!.at(-1)!, /^k 3: performance: σ .* → /);
    const off = leaderboard(rows, presetWeights('all'), { iterations: 0, noiseGuard: OFF });
    assert.match(leaderboardTable(off), /noise guard off \(--no-noise-guard\)/);
  });

  it('does nothing to norms without retest estimates, and keeps degenerate metrics degenerate', () => {
    const norms = {
      lint: { mean: 50, sd: 0, n: 3, unscorable: 0, degenerate: 'every sample has the same score (σ = 0)' },
      performance: { mean: 90, sd: 5, n: 3, unscorable: 0 },
    };
    const g = guardNorms(norms, { lint: { sd: 4, pairs: 2, source: 'repeats' } }, ON);
    assert.equal(g.norms.lint!.effectiveSd, undefined);
    assert.deepEqual(g.report.changed, []);
    assert.deepEqual(g.report.noEstimate, ['performance']);
  });
});

describe('norms with repeats', () => {
  it('norms build counts artifacts once and stores retestSd and retestPairs', () => {
    const norms = buildNorms(noisyRows(), 'x');
    assert.equal(norms.artifacts, 20);
    assert.equal(norms.maxRepeats, 2);
    close(norms.metrics.performance!.retestSd!, retestOf(populationFromRows(noisyRows()), 'performance')!.sd);
    assert.equal(norms.metrics.performance!.retestPairs, 20);
    assert.equal(norms.metrics['comment-rate']!.retestSd, 0);
    const plain = buildNorms([row('m', 'a', { lint: 1 }), row('m', 'b', { lint: 3 })], 'y');
    assert.equal(plain.metrics.lint!.retestSd, undefined);
    assert.equal(plain.maxRepeats, undefined);
  });

  it("score's norm-based overall: σ raised to k × the norms' retestSd and said so; --no-noise-guard gives the study's z", () => {
    const norms = buildNorms([row('m', 'a', { performance: 99, lint: 40 }), row('m', 'b', { performance: 100, lint: 80 })], 'corpus');
    norms.metrics.performance!.retestSd = 1; // σ 0.5 < 3 × 1
    const doc = (): ScoreDocument => ({
      artifact: 'p.html',
      entry: 'p.html',
      suite: 'study',
      perspectives: {},
      overall: null,
      timings: {},
      metrics: row('x', 'p', { performance: 98, lint: 60 }).metrics,
    });
    const guarded = doc();
    const g = applyNorms(guarded, norms, 'my-norms.json', presetWeights('all'));
    const zPerf = (d: ScoreDocument) => (d.metrics.find((m) => m.id === 'performance') as { z?: number }).z!;
    close(zPerf(guarded), (98 - 99.5) / 3, 1e-4);
    assert.deepEqual(
      g.noiseGuard.changed.map((c) => [c.metric, c.sd, c.retestSd, c.k, c.effectiveSd, c.source]),
      [['performance', 0.5, 1, 3, 3, 'norms']],
    );
    assert.match(normOverallText(guarded), /noise guard .* raised σ of 1 metric: performance: σ 0\.50 → 3\.00 \(k 3 × retest sd 1\.00, from the norms/);
    const study = doc();
    const s = applyNorms(study, norms, 'my-norms.json', presetWeights('all'), OFF);
    close(zPerf(study), (98 - 99.5) / 0.5, 1e-4);
    assert.deepEqual(s.noiseGuard.changed, []);
    assert.match(normOverallText(study), /noise guard off/);
  });
});
