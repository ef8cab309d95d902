/** `webgrade analyse` and the noise-guard flags of `leaderboard`, through the built CLI (no browser). */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AnalysisDoc } from '../../weights/analyse.js';
import type { LeaderboardDoc } from '../../weights/leaderboard.js';
import { parseCsv } from '../../weights/csv.js';
import { runCli, tempDir } from '../helpers.js';
import { repeatRow } from '../weights/synthetic.js';

function setup() {
  const dir = tempDir();
  const results = join(dir, 'results.jsonl');
  const rows = [];
  for (const [mi, model] of ['a', 'b', 'c'].entries()) {
    for (let r = 0; r < 5; r++) {
      for (const rep of [1, 2]) {
        rows.push(repeatRow(model, `r${r}`, rep, { 'comment-rate': 20 * mi + 3 * r, performance: 95 + mi + ((mi + r + rep) % 2) }));
      }
    }
  }
  writeFileSync(results, rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
  const ratings = join(dir, 'ratings.csv');
  const lines = ['model,requirement,rating'];
  for (const [mi, model] of ['a', 'b', 'c'].entries()) for (let r = 0; r < 5; r++) lines.push(`${model},r${r},${mi + r / 10}`);
  writeFileSync(ratings, lines.join('\n') + '\n');
  return { dir, results, ratings };
}

describe('webgrade analyse (CLI)', () => {
  const { dir, results, ratings } = setup();

  it('prints the distribution, noise and agreement tables', async () => {
    const r = await runCli(['analyse', results, '--ratings', ratings, '--bootstrap', '100']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /15 artifacts \(0 failed\) from 3 models, 5 requirements, 2 metrics with results; scored up to 2 times \(30 rows, 15 artifacts with repeats\)/,
    );
    assert.match(r.stdout, /Distribution and noise per metric/);
    assert.match(
      r.stdout,
      /Agreement with human ratings \(.*ratings\.csv: 15 rated pages of 5 requirements, 5 with ≥ 3 rated pages; 95% CI: 100 bootstrap resamples of the requirements \(seed 1\)\)/,
    );
    assert.match(r.stdout, /comment-rate +│ 15 +│ 1\.00 \[1\.00, 1\.00\]/);
    assert.match(r.stdout, /noise guard \(σ ≥ k × test–retest sd, k = 3\) raised σ of 1 metric: performance/);
  });

  it('writes JSON and CSV with --out, and --no-noise-guard leaves σ alone', async () => {
    const json = join(dir, 'a.json');
    const r = await runCli(['analyse', results, '--ratings', ratings, '--json', '--out', json, '--bootstrap', '50', '--no-noise-guard']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /wrote json analysis of 2 metrics/);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as AnalysisDoc;
    assert.equal(doc.kind, 'webgrade-analysis');
    assert.equal(doc.noiseGuard.enabled, false);
    assert.deepEqual(doc.noiseGuard.changed, []);
    assert.equal(doc.overall.id, 'overall');
    assert.equal(doc.ratings!.pages, 15);
    assert.ok(doc.metrics.find((m) => m.id === 'performance')!.retest!.ratio! > 0.5);
    const csv = await runCli(['analyse', results, '--format', 'csv', '--bootstrap', '0']);
    assert.equal(csv.code, 0, csv.stderr);
    const table = parseCsv(csv.stdout).map((x) => x.fields);
    assert.deepEqual(
      table.map((x) => x[0]),
      ['metric', 'performance', 'comment-rate', 'overall'],
    );
    assert.equal(table[2]![table[0]!.indexOf('spearman')], '', 'no ratings: empty rating columns');
  });

  it('rejects bad input with one line and exit 2', async () => {
    const noRating = join(dir, 'bad1.csv');
    writeFileSync(noRating, 'model,requirement,score\na,r0,1\n');
    const badNumber = join(dir, 'bad2.csv');
    writeFileSync(badNumber, 'model,requirement,rating\na,r0,1\na,r1,great\n');
    const nothing = join(dir, 'bad3.jsonl');
    writeFileSync(nothing, '{"model":"zz","requirement":"r0","rating":1}\n');
    const binary = join(dir, 'bad4.csv');
    writeFileSync(binary, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]));
    const cases: Array<[string[], RegExp]> = [
      [['analyse', join(dir, 'missing.jsonl')], /missing\.jsonl: no such file/],
      [['analyse', results, '--ratings', join(dir, 'nope.csv')], /nope\.csv: no such file/],
      [['analyse', results, '--ratings', noRating], /line 1: no "rating" column/],
      [['analyse', results, '--ratings', badNumber], /line 3: rating "great" is not a number/],
      [['analyse', results, '--ratings', nothing], /no rating matches a page/],
      [['analyse', results, '--ratings', binary], /a binary file/],
      [['analyse', results, '--json', '--format', 'csv'], /give --json or --format, not both/],
      [['analyse', results, '--format', 'html'], /expected one of table, json, csv/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, re);
    }
  });
});

describe('webgrade leaderboard: noise guard flags (CLI)', () => {
  const { dir, results } = setup();

  it("applies the guard by default, says so, and --no-noise-guard gives the study's numbers", async () => {
    const on = await runCli(['leaderboard', results, '--json', '--bootstrap', '0']);
    const off = await runCli(['leaderboard', results, '--json', '--bootstrap', '0', '--no-noise-guard']);
    assert.equal(on.code, 0, on.stderr);
    assert.equal(off.code, 0, off.stderr);
    const a = JSON.parse(on.stdout) as LeaderboardDoc;
    const b = JSON.parse(off.stdout) as LeaderboardDoc;
    assert.deepEqual(
      a.noiseGuard.changed.map((c) => c.metric),
      ['performance'],
    );
    assert.deepEqual(b.noiseGuard.changed, []);
    assert.notEqual(a.models[0]!.perspectives.performance, b.models[0]!.perspectives.performance);
    assert.equal(a.population.artifacts, 15);
    assert.equal(a.population.rows, 30);
  });

  it('takes test–retest sds from --norms when the results have no repeats, and rejects a bad norms file', async () => {
    const single = join(dir, 'single.jsonl');
    writeFileSync(
      single,
      readFileSync(results, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"repeat":1'))
        .join('\n') + '\n',
    );
    const norms = join(dir, 'norms.json');
    const b = await runCli(['norms', 'build', results, '--out', norms]);
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stdout, /test–retest sd \(from up to 2 repeats\): performance 0\.71, comment-rate 0\.00/);
    const r = await runCli(['leaderboard', single, '--norms', norms, '--bootstrap', '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /raised σ of 1 metric: performance: σ [\d.]+ → [\d.]+ \(k 3 × retest sd [\d.]+, from the norms, 15 pairs\)/);
    const bad = join(dir, 'bad-norms.json');
    writeFileSync(bad, '{"kind":"webgrade-norms","metrics":{"performance":{"mean":1,"sd":1,"retestSd":"x"}}}');
    const e = await runCli(['leaderboard', single, '--norms', bad]);
    assert.equal(e.code, 2);
    assert.match(e.stderr, /"retestSd" must be a number ≥ 0/);
  });
});
