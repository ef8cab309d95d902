/**
 * Requirement tests in the real browser on fixtures/requirement-tests/: the working shopping list passes every
 * test, and each copy broken one way fails exactly the tests its defect touches, with the failing step or
 * expectation named (a locator that finds nothing names the nearest texts on the page).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadRequirements } from '../../../core/requirements.js';
import type { RequirementTestResult, RequirementTestsEvidence } from '../../../core/requirement-tests.js';
import { Scorer } from '../../../runner/score.js';
import { saveEvidence } from '../../../store/evidence-files.js';
import { savedEvidenceGatherers } from '../../../runner/gatherers.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, runCli, tempDir } from '../../helpers.js';

const req = loadRequirements(fixture('requirement-tests', 'reqs.jsonl'))[0]!;
const scorer = new Scorer({ suite: 'extended', only: ['requirement-tests'], budgetMs: 90_000, network: { mode: 'offline' }, judge: undefined });
after(() => scorer.close());

async function run(variant: string): Promise<{ score: number | null; results: RequirementTestResult[] }> {
  const { doc, evidence } = await scorer.scoreWithEvidence(fixture('requirement-tests', 'runs', variant, 'shopping-list'), { requirement: req });
  const m = doc.metrics.find((x) => x.id === 'requirement-tests')!;
  assert.ok(evidence.requirementTests?.ok, JSON.stringify(evidence.requirementTests));
  return { score: m.score, results: (evidence.requirementTests as { value: RequirementTestsEvidence }).value.results };
}

const failing = (rs: RequirementTestResult[]) =>
  rs
    .filter((r) => r.passed === false)
    .map((r) => r.id)
    .sort();
const byId = (rs: RequirementTestResult[], id: string) => rs.find((r) => r.id === id)!;

describe('requirement tests on the shopping-list fixtures', () => {
  it('the working app passes every test, each with an after-screenshot and the acted-on elements boxed', async () => {
    const { score, results } = await run('working');
    assert.equal(score, 100, JSON.stringify(results.map((r) => ({ id: r.id, reason: r.reason, steps: r.steps, ex: r.expectations }))));
    for (const r of results) {
      assert.ok(r.screenshot && r.screenshot.png.length > 1000, r.id);
      assert.ok((r.boxes ?? []).length > 0, r.id);
    }
  });

  it('--save-evidence keeps the results and after-screenshots; --from-evidence scores them again without a browser', async () => {
    const page = fixture('requirement-tests', 'runs', 'wrong-count', 'shopping-list');
    const { doc, evidence } = await scorer.scoreWithEvidence(page, { requirement: req });
    const dir = tempDir();
    saveEvidence(dir, evidence);
    const again = new Scorer({
      suite: 'extended',
      only: ['requirement-tests'],
      budgetMs: 10_000,
      gatherers: savedEvidenceGatherers(dir, { checkNetwork: false, budgetMs: 10_000 }),
    });
    try {
      const second = await again.scoreWithEvidence(page, { requirement: req });
      const m = (d: typeof doc) => d.metrics.find((x) => x.id === 'requirement-tests')!;
      assert.equal(m(second.doc).score, m(doc).score);
      assert.deepEqual(m(second.doc).details, m(doc).details);
      const shot = (second.evidence.requirementTests as { value: RequirementTestsEvidence }).value.results[0]!.screenshot!;
      assert.ok(
        Buffer.isBuffer(shot.png) && shot.png.equals((evidence.requirementTests as { value: RequirementTestsEvidence }).value.results[0]!.screenshot!.png),
      );
    } finally {
      await again.close();
    }
  });

  it('a handler that does nothing fails the tests that add items, and Remove is not found, with the nearest texts', async () => {
    const { score, results } = await run('noop-handler');
    assert.deepEqual(failing(results), ['add-item', 'count', 'persist', 'remove']);
    assert.equal(score, 20);
    const remove = byId(results, 'remove');
    assert.match(remove.reason!, /step 3 \(click role "button" "Remove"\): role "button" "Remove" found nothing; the page offers "Add", "Send"$/);
  });

  it('a wrong count fails only the count test', async () => {
    const { results } = await run('wrong-count');
    assert.deepEqual(failing(results), ['count']);
    assert.match(byId(results, 'count').reason!, /expected "2 items" visible; found not shown/);
  });

  it('a missing control fails only the test that uses it, naming the locator', async () => {
    const { results } = await run('missing-control');
    assert.deepEqual(failing(results), ['contact']);
    assert.match(byId(results, 'contact').reason!, /"Send" found nothing; the page offers/);
  });

  it('an error thrown on submit fails only the contact test, by its noErrors expectation', async () => {
    const { results } = await run('throws-on-submit');
    assert.deepEqual(failing(results), ['contact']);
    const c = byId(results, 'contact');
    assert.deepEqual(
      c.expectations.map((e) => e.ok),
      [true, true, false],
    );
    assert.match(c.expectations[2]!.found!, /reading 'track'/);
  });

  it('a page that hangs in one test fails that test within the per-action time; the next test runs on a new page', async () => {
    const tests = [{ id: 'freeze', steps: [{ click: 'Freeze' }], expect: [{ noErrors: true as const }] }, req.tests![0]!];
    const { evidence } = await scorer.scoreWithEvidence(fixture('requirement-tests', 'hung'), { requirement: { ...req, tests } });
    const rs = (evidence.requirementTests as { value: RequirementTestsEvidence }).value.results;
    assert.deepEqual(
      rs.map((r) => [r.id, r.passed]),
      [
        ['freeze', false],
        ['add-item', true],
      ],
    );
    assert.match(rs[0]!.reason!, /the page stopped responding during the test \(click "Freeze" timed out after 4000 ms\)/);
  });

  it('a page busy for 4 s with start-up work off the page clock is waited for, not taken as stopped responding', async () => {
    const tests = [
      { id: 'ready', steps: [], expect: [{ visible: 'Ready' }, { noErrors: true as const }] },
      // A restore of its own (a step): the wait holds on every load, not only the first.
      { id: 'again', steps: [{ click: 'Slow start' }], expect: [{ visible: 'Ready' }] },
    ];
    const { evidence } = await scorer.scoreWithEvidence(fixture('requirement-tests', 'slow-start'), { requirement: { ...req, tests } });
    const rs = (evidence.requirementTests as { value: RequirementTestsEvidence }).value.results;
    assert.deepEqual(
      rs.map((r) => [r.id, r.passed, r.reason ?? null]),
      [
        ['ready', true, null],
        ['again', true, null],
      ],
    );
  });

  it('batch --requirements runs the tests of every requirement: one score per broken copy', async () => {
    const out = join(tempDir(), 'results.jsonl');
    const r = await runCli(
      [
        'batch',
        fixture('requirement-tests', 'runs'),
        '--out',
        out,
        '--requirements',
        fixture('requirement-tests', 'reqs.jsonl'),
        '--suite',
        'extended',
        '--only',
        'requirement-tests',
        '--network',
        'offline',
        '--concurrency',
        '1',
      ],
      { timeoutMs: 240_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { model: string; metrics: Array<{ id: string; score: number }> });
    const scores = Object.fromEntries(rows.map((row) => [row.model, row.metrics.find((m) => m.id === 'requirement-tests')!.score]));
    assert.deepEqual(scores, { 'missing-control': 80, 'noop-handler': 20, 'throws-on-submit': 80, working: 100, 'wrong-count': 80 });
  });
});
