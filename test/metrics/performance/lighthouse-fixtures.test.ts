/**
 * Our `accessibility` and `best-practices` equal Lighthouse's own category scores for the same page, on
 * Lighthouse's own fixture pages (shared corpus; skipped when absent), and the audit results Lighthouse's smoke
 * tests expect for those pages mostly hold in our report. The reference is a bare Lighthouse run
 * (bench/bare-lighthouse.ts): same server, same Chrome flags and settings, without our session.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Scorer } from '../../../runner/score.js';
import { bareLighthouse, launchBareChrome, type BareChrome } from '../../../bench/bare-lighthouse.js';
import { corpusDir } from '../../helpers.js';

const root = join(corpusDir, 'lighthouse-fixtures');
const present = existsSync(join(root, 'expectations_index.json'));
const PAGES: Array<[smoke: string, page: string]> = [
  ['a11y.js', 'a11y/a11y_tester.html'],
  ['seo-failing.js', 'seo/seo-failure-cases.html'],
  ['seo-passing.js', 'seo/seo-tester.html'],
];

describe("Lighthouse-based metrics on Lighthouse's fixture pages", { skip: present ? false : 'shared corpus absent' }, () => {
  let scorer: Scorer;
  let chrome: BareChrome;
  before(async () => {
    scorer = new Scorer({ only: ['accessibility', 'best-practices'], budgetMs: 90_000 });
    chrome = await launchBareChrome();
  });
  after(async () => {
    await scorer.close();
    await chrome.close();
  });

  for (const [smoke, page] of PAGES) {
    it(`${page}: accessibility and best-practices equal Lighthouse's category scores`, async () => {
      const file = join(root, 'fixtures', page);
      const { doc, evidence } = await scorer.scoreWithEvidence(file);
      const bare = await bareLighthouse(file, chrome);
      for (const [metric, category] of [
        ['accessibility', 'accessibility'],
        ['best-practices', 'best-practices'],
      ] as const) {
        const ours = doc.metrics.find((m) => m.id === metric)!;
        const theirs = bare.categories[category]!.score;
        assert.notEqual(ours.score, null, `${metric}: ${ours.reason}`);
        assert.equal(ours.score, Math.round(theirs! * 10000) / 100, `${metric} on ${page}`);
      }
      // The audits Lighthouse's smoke test expects for this page (0 = fails, 1 = passes; others skipped).
      const expected = (JSON.parse(readFileSync(join(root, 'expectations_index.json'), 'utf8')) as Record<string, { expected_scores: Record<string, string> }>)[
        smoke
      ]!.expected_scores;
      assert.ok(evidence.lighthouse?.ok);
      const audits = evidence.lighthouse.value.audits;
      const checked = Object.entries(expected).filter(([id, v]) => (v === '0' || v === '1') && audits[id] && audits[id]!.score !== null);
      const agree = checked.filter(([id, v]) => (audits[id]!.score! >= 0.9 ? '1' : '0') === v || (v === '0' && audits[id]!.score! < 1));
      if (checked.length)
        assert.ok(
          agree.length / checked.length >= 0.9,
          `${agree.length} of ${checked.length} expected audit results hold: ${checked
            .filter((c) => !agree.includes(c))
            .map(([id, v]) => `${id} expected ${v} got ${audits[id]!.score}`)
            .join('; ')}`,
        );
    });
  }
});
