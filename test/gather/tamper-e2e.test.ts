/**
 * A page cannot grade itself (SPEC "Behaviour users expect"): fixtures/hostile/tamper/tamper.js, written as an
 * attacker who has read webgrade's source, replaces every probe object, prototype method, getter and global it can
 * reach with one that answers the page's own scripts truthfully and lies to everyone else. The same page with the
 * script armed (`data-mode="armed"`) and quiet (`data-mode="quiet"`, the same number of bytes) must score the same
 * on every metric of the extended suite that reads the browser, and its requirement tests must fail where the page
 * does not do what they ask.
 *
 * Left out of the comparison, with the reason: the metrics whose subject is the code the browser runs. dead-code
 * and code-redundancy measure which bytes ran (the armed script runs, the quiet one stops at its first lines), and
 * performance times the page's main thread (the armed script's patching is work the page does).
 */
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadRequirements } from '../../core/requirements.js';
import type { ScoreDocument } from '../../core/results.js';
import { Scorer } from '../../runner/score.js';
import { fixture, tempDir } from '../helpers.js';

const req = loadRequirements(fixture('requirement-tests', 'reqs.jsonl'))[0]!;
const scorer = new Scorer({ suite: 'extended', network: { mode: 'offline' }, judge: undefined });
after(() => scorer.close());

type Mode = 'quiet' | 'armed';

/** The shopping-list app (index.html, app.js) or a page of one heading, with the tamper script in `mode`. */
function artifact(page: 'app' | 'empty', mode: Mode): string {
  const dir = tempDir('webgrade-tamper-');
  const src = fixture('hostile', 'tamper');
  const html = readFileSync(join(src, page === 'app' ? 'index.html' : 'empty.html'), 'utf8');
  assert.ok(html.includes('data-mode="quiet"'));
  writeFileSync(join(dir, 'index.html'), html.replace('data-mode="quiet"', `data-mode="${mode}"`));
  copyFileSync(join(src, 'tamper.js'), join(dir, 'tamper.js'));
  if (page === 'app') copyFileSync(join(src, 'app.js'), join(dir, 'app.js'));
  return dir;
}

const scored = new Map<string, Promise<ScoreDocument>>();
/** Each page scored once in each mode (the families below share the scores). */
function score(page: 'app' | 'empty', mode: Mode): Promise<ScoreDocument> {
  const key = `${page}:${mode}`;
  let p = scored.get(key);
  if (!p) {
    // One at a time: the page pairs are compared, not run against each other.
    const before = [...scored.values()];
    p = Promise.allSettled(before).then(async () => (await scorer.scoreWithEvidence(artifact(page, mode), { requirement: req })).doc);
    scored.set(key, p);
  }
  return p;
}

const FAMILIES: Record<string, string[]> = {
  'interaction (the probe and the requirement tests)': [
    'render-validity',
    'control-liveness',
    'interaction-errors',
    'navigation-reachability',
    'requirement-tests',
  ],
  'the visit (DOM, screenshots, console, phone check)': [
    'console-errors',
    'component-consistency',
    'icon-consistency',
    'layout-consistency',
    'layout-sparsity',
    'color-harmony',
    'copywriting',
    'media-quality',
    'placeholder-quality',
    'resource-validity',
    'cross-browser',
    'mobile-compat',
  ],
  "Lighthouse's audits of the page": ['accessibility', 'best-practices'],
  'the source': ['lint', 'comment-rate', 'error-handling'],
};

const view = (d: ScoreDocument, id: string) => {
  const m = d.metrics.find((x) => x.id === id);
  assert.ok(m, `${id} was not scored`);
  return { score: m.score, reason: m.reason ?? null };
};

for (const page of ['empty', 'app'] as const) {
  describe(`a page that tampers with everything it can reach scores as it would without (${page === 'app' ? 'a working app' : 'a page of one heading'})`, () => {
    for (const [family, ids] of Object.entries(FAMILIES)) {
      it(`${family}: the same scores and reasons`, async () => {
        const [quiet, armed] = [await score(page, 'quiet'), await score(page, 'armed')];
        for (const id of ids) assert.deepEqual(view(armed, id), view(quiet, id), `${id} differs: armed ${JSON.stringify(view(armed, id))}`);
      });
    }
    it(page === 'app' ? 'its requirement tests pass (the app does what they ask)' : 'its requirement tests fail (the page does nothing they ask)', async () => {
      const armed = await score(page, 'armed');
      assert.equal(view(armed, 'requirement-tests').score, page === 'app' ? 100 : 0);
    });
  });
}
