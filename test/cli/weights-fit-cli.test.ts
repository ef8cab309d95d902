/** `webgrade weights fit`, `analyse --pairs` and the leaderboard with fitted weights, through the built CLI (no browser). */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AnalysisDoc } from '../../weights/analyse.js';
import type { FitDoc } from '../../weights/fit.js';
import type { LeaderboardDoc } from '../../weights/leaderboard.js';
import type { WeightsFile } from '../../weights/weights-file.js';
import { runCli, tempDir } from '../helpers.js';
import { judgedPages } from '../weights/synthetic.js';

const METRICS = ['lint', 'comment-rate', 'copywriting', 'accessibility', 'performance', 'layout-sparsity'];

function setup(follow: string | null, seed: number) {
  const dir = tempDir();
  const d = judgedPages({ models: 6, requirements: 30, metrics: METRICS, follow, noise: 0.5, pairsPerRequirement: 8, seed });
  const results = join(dir, 'results.jsonl');
  writeFileSync(results, d.rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const ratings = join(dir, 'ratings.csv');
  writeFileSync(ratings, ['model,requirement,rating', ...d.ratings.map((r) => `${r.model},${r.requirement},${r.rating}`)].join('\n') + '\n');
  const pairs = join(dir, 'pairs.jsonl');
  writeFileSync(pairs, d.pairs.map((p, i) => JSON.stringify({ ...p, rater: `p${i % 3}` })).join('\n') + '\n');
  return { dir, results, ratings, pairs };
}

describe('webgrade weights fit (CLI)', () => {
  const s = setup('comment-rate', 4);

  it("fits ratings, prints weights, held-out agreement beside the survey's and a verdict, and writes a weights file", async () => {
    const out = join(s.dir, 'fitted.json');
    const r = await runCli(['weights', 'fit', s.results, '--ratings', s.ratings, '--out', out, '--bootstrap', '40', '--persona', 'designer']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Weights fitted to ratings .*ratings\.csv: 180 rated pages of 30 requirements, 450 within-requirement comparisons/);
    assert.match(r.stdout, /│ comment-rate +│ maintainability │ 9\d\.\d%/);
    assert.match(r.stdout, /│ fitted \(held out\) +│ 0\.\d\d \[/);
    assert.match(r.stdout, /│ survey persona all +│/);
    assert.match(r.stdout, /│ survey persona designer +│/);
    assert.match(r.stdout, /│ metric comment-rate +│/);
    assert.match(r.stdout, /Verdict: the fitted weights agree with people better than the survey weights/);
    const file = JSON.parse(readFileSync(out, 'utf8')) as WeightsFile;
    const fit = file.personas.fitted!.fit!;
    assert.equal(fit.data.kind, 'ratings');
    assert.match(fit.data.sha256, /^[0-9a-f]{64}$/);
    assert.equal(fit.folds, 5);
    assert.equal(fit.seed, 1);
    assert.equal(fit.beatsSurvey, true);
    assert.ok(fit.agreement.fitted.ci && fit.agreement.survey.all && fit.agreement.survey.designer);
    assert.ok(!Number.isNaN(Date.parse(fit.date)));
  });

  it('the leaderboard with the fitted weights says which weights it used and where they came from', async () => {
    const out = join(s.dir, 'fitted2.json');
    assert.equal((await runCli(['weights', 'fit', s.results, '--ratings', s.ratings, '--out', out, '--bootstrap', '20'])).code, 0);
    const t = await runCli(['leaderboard', s.results, '--weights', out, '--bootstrap', '0']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /weights: suite study, persona fitted from .*fitted2\.json \(fitted to people's judgements: see the provenance\)/);
    assert.match(
      t.stdout,
      /weights fitted to ratings .*ratings\.csv \(sha256 [0-9a-f]{12}\) on \d{4}-\d\d-\d\d: held-out Spearman within requirement 0\.\d\d \[.*\] \(5-fold by requirement, seed 1\) vs survey all/,
    );
    const j = await runCli(['leaderboard', s.results, '--weights', out, '--bootstrap', '0', '--json']);
    const doc = JSON.parse(j.stdout) as LeaderboardDoc;
    assert.equal(doc.persona, 'fitted');
    assert.equal(doc.weights.provenance!.data.kind, 'ratings');
    assert.match(doc.weights.provenanceLine!, /^weights fitted to ratings/);
    const fitted = (JSON.parse(readFileSync(out, 'utf8')) as WeightsFile).personas.fitted!.metrics;
    for (const [id, w] of Object.entries(fitted)) assert.ok(Math.abs((doc.weights.metrics[id] ?? 0) - w) < 1e-12, id);
  });

  it('fits pairs (--json), ties half or dropped', async () => {
    const out = join(s.dir, 'pairs-fitted.json');
    const r = await runCli(['weights', 'fit', s.results, '--pairs', s.pairs, '--out', out, '--bootstrap', '30', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as FitDoc;
    assert.equal(doc.kind, 'webgrade-weights-fit');
    assert.equal(doc.measure.id, 'pairwise-accuracy');
    assert.equal(doc.weights[0]!.id, 'comment-rate');
    assert.equal(doc.data.raters, 3);
    assert.equal(doc.method.ties, 'half');
    assert.equal(doc.data.comparisons, doc.data.judgements);
    const drop = JSON.parse(
      (await runCli(['weights', 'fit', s.results, '--pairs', s.pairs, '--out', out, '--bootstrap', '0', '--json', '--ties', 'drop'])).stdout,
    ) as FitDoc;
    assert.equal(drop.data.comparisons, doc.data.judgements! - doc.data.ties!);
  });

  it("analyse --pairs gives every metric's pairwise accuracy (table and JSON)", async () => {
    const r = await runCli(['analyse', s.results, '--pairs', s.pairs, '--bootstrap', '100']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /Agreement with pairwise preferences \(.*pairs\.jsonl: 240 judgements of 30 requirements, \d+ ties, 3 raters; 95% CI: 100 bootstrap resamples/,
    );
    assert.match(r.stdout, /│ comment-rate +│ \d+ +│ 0\.[89]\d \[/);
    const j = JSON.parse((await runCli(['analyse', s.results, '--pairs', s.pairs, '--bootstrap', '0', '--json'])).stdout) as AnalysisDoc;
    assert.equal(j.pairs!.matched, 240);
    assert.ok(j.metrics.find((m) => m.id === 'comment-rate')!.pairs!.accuracy.value! > 0.75);
    assert.ok(j.overall.pairs!.accuracy.value !== null);
  });

  it('on pure noise says the survey weights cannot be beaten', async () => {
    const n = setup(null, 2);
    const r = await runCli(['weights', 'fit', n.results, '--ratings', n.ratings, '--out', join(n.dir, 'w.json'), '--bootstrap', '60']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /Verdict: too few data to beat the survey weights: the fitted weights' held-out agreement -?0\.\d\d \[-0\.\d\d, 0\.\d\d\] overlaps persona all/,
    );
  });

  it('rejects bad input with one line and exit 2', async () => {
    const badPairs = join(s.dir, 'bad-pairs.csv');
    writeFileSync(badPairs, 'requirement,model_a,model_b,winner\nr0,m1,m2,left\n');
    const strangers = join(s.dir, 'strangers.csv');
    writeFileSync(strangers, 'requirement,model_a,model_b,winner\nr0,zz,yy,a\n');
    const oneReq = join(s.dir, 'one.csv');
    writeFileSync(oneReq, 'model,requirement,rating\nm1,r0,1\nm2,r0,2\nm3,r0,3\n');
    const tied = join(s.dir, 'tied.csv');
    writeFileSync(tied, 'model,requirement,rating\nm1,r0,1\nm2,r0,1\nm1,r1,2\nm2,r1,2\n');
    const out = join(s.dir, 'x.json');
    const cases: Array<[string[], RegExp]> = [
      [['weights', 'fit', s.results, '--out', out], /give --ratings <file> or --pairs <file>/],
      [['weights', 'fit', s.results, '--ratings', s.ratings, '--pairs', s.pairs, '--out', out], /give --ratings <file> or --pairs <file> \(one of them\)/],
      [['weights', 'fit', s.results, '--ratings', s.ratings], /give --out <weights\.json>/],
      [['weights', 'fit', join(s.dir, 'missing.jsonl'), '--ratings', s.ratings, '--out', out], /missing\.jsonl: no such file/],
      [['weights', 'fit', s.results, '--pairs', badPairs, '--out', out], /line 2: winner "left" is not a, b, tie or both-bad/],
      [['weights', 'fit', s.results, '--pairs', strangers, '--out', out], /no judgement matches two pages/],
      [['weights', 'fit', s.results, '--ratings', oneReq, '--out', out], /judgements on 1 requirement only/],
      [['weights', 'fit', s.results, '--ratings', tied, '--out', out], /no two judged pages of one requirement differ/],
      [['weights', 'fit', s.results, '--ratings', s.ratings, '--out', out, '--ties', 'drop'], /--ties applies to --pairs only/],
      [['weights', 'fit', s.results, '--ratings', s.ratings, '--out', out, '--folds', '1'], /expected a whole number ≥ 2/],
      [['weights', 'fit', s.results, '--ratings', s.ratings, '--out', out, '--l2', '0'], /expected a positive number/],
      [['weights', 'fit', s.results, '--ratings', s.ratings, '--out', join(s.dir, 'no', 'such', 'dir.json'), '--bootstrap', '0'], /cannot write/],
      [['analyse', s.results, '--pairs', strangers], /no judgement matches two pages/],
      [['analyse', s.results, '--pairs', badPairs], /winner "left"/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, re);
    }
  });
});
