import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timingSummary } from '../../weights/timings.js';
import { populationFromRows } from '../../weights/aggregate.js';
import { analyse } from '../../weights/analyse.js';
import { analysisTable } from '../../report/analyse-format.js';
import { presetWeights } from '../../weights/personas.js';
import { DEFAULT_NOISE_GUARD_K } from '../../weights/noise.js';
import { Scorer } from '../../runner/score.js';
import { loadArtifact } from '../../lib/artifact/load.js';
import { staticEvidence } from '../../core/evidence.js';
import { writeSingleFile } from '../helpers.js';
import { browserEvidence } from '../metrics/synthetic-browser.js';
import { row } from './synthetic.js';

/** Rows of two models whose visit set-up took 100–1000 ms (model a) and 2000 ms (model b). */
function rows() {
  const out = [];
  for (let i = 0; i < 10; i++) {
    const r = row('a', `r${i}`, { lint: 50 });
    r.timings = { 'visit.setup': 100 * (i + 1), 'gather.visit': 3000, loads: 2, 'loads.visit': 1, busyAfterLoadPct: 40 };
    out.push(r);
  }
  const b = row('b', 'r0', { lint: 60 });
  b.timings = { 'visit.setup': 2000, 'gather.visit': 5000 };
  out.push(b);
  return out;
}

describe('where the time goes (analyse)', () => {
  it('summarises every duration of the rows, slowest median first, with its p90, max and median per model', () => {
    const s = timingSummary(rows());
    assert.deepEqual(
      s.map((k) => k.key),
      ['gather.visit', 'visit.setup'],
      'counts (loads) and shares (…Pct) are not durations',
    );
    const setup = s.find((k) => k.key === 'visit.setup')!;
    assert.equal(setup.rows, 11);
    assert.equal(setup.median, 600);
    assert.equal(setup.max, 2000);
    assert.ok(setup.p90 >= 1000 && setup.p90 <= 2000, String(setup.p90));
    assert.deepEqual({ ...setup.byModel }, { a: 550, b: 2000 });
  });

  it('ignores values a results file should not hold (negative, not finite)', () => {
    const r = row('a', 'r0', { lint: 1 });
    r.timings = { 'visit.load': -5, 'visit.settle': Number.NaN, 'visit.setup': 10 };
    assert.deepEqual(
      timingSummary([r]).map((k) => k.key),
      ['visit.setup'],
    );
  });

  it('shows the slowest timings in the analysis table', () => {
    const rs = rows();
    const doc = analyse(populationFromRows(rs), presetWeights('all'), {
      results: 'results.jsonl',
      iterations: 0,
      noiseGuard: { enabled: false, k: DEFAULT_NOISE_GUARD_K },
    });
    doc.timings = timingSummary(rs);
    const text = analysisTable(doc);
    assert.match(text, /Where the time goes/);
    assert.match(text, /visit\.setup\s*│\s*11\s*│\s*600/);
  });

  it("puts the visit's phases in the score document's timings as visit.<phase>", async () => {
    const evidence = staticEvidence(loadArtifact(writeSingleFile('<!doctype html><title>t</title><p>hi</p>')));
    const b = browserEvidence({});
    if (!b.ok) throw new Error('synthetic evidence is gathered');
    b.value.timings = { setup: 450, load: 120, settle: 300, 'pause clock': 5, total: 900, lighthouse: 4000, loads: 2 };
    evidence.browser = b;
    const scorer = new Scorer({ only: ['console-errors'], gatherers: [] });
    try {
      const doc = await scorer.scoreEvidence(evidence);
      assert.equal(doc.timings['visit.setup'], 450);
      assert.equal(doc.timings['visit.pause-clock'], 5);
      assert.equal(doc.timings.visit, 900);
      assert.equal(doc.timings['visit.total'], undefined);
      assert.equal(doc.timings['visit.lighthouse'], undefined);
    } finally {
      await scorer.close();
    }
  });
});
