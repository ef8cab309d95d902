/**
 * lint on pages with thousands of blocks. Event-handler attributes are linted together (one ESLint run per
 * HTML file, each handler in a function of its own): one run per handler made 2 000 `onclick`s take half a
 * minute and a page with as many ids quadratic. The batch must report exactly what linting each alone reports,
 * at the same lines and columns; a handler that would not stay inside its wrapper is linted alone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import lint from '../../../metrics/code/lint.js';
import { MAX_ESLINT_RUNS } from '../../../metrics/lib/lint/eslint.js';
import type { LintFinding } from '../../../metrics/lib/lint/findings.js';
import { buildEvidence } from '../../metric-tester.js';

async function findings(html: string): Promise<{ found: LintFinding[]; details: Record<string, unknown>; ms: number }> {
  const evidence = buildEvidence({ html });
  const t = performance.now();
  const outcome = await lint.score(evidence);
  const ms = performance.now() - t;
  assert.notEqual(outcome.score, null);
  const found = ((outcome.details.findings ?? []) as LintFinding[]).filter((f) => f.tool === 'eslint');
  return { found, details: outcome.details, ms };
}

describe('lint: event-handler attributes in one run', () => {
  it("reports each handler's findings at its own line and column, as linting it alone did", async () => {
    const html = [
      '<!doctype html><html><head><title>t</title></head><body>', // 1
      '<button id="ok" onclick="greet(event); return false;">a</button>', // 2
      '<button onclick="nope1()">b</button>', // 3
      '<button onclick="if (x) {', // 4
      '  nope2(); }">c</button>', // 5
      '<button onclick="ok.focus(); const a = 1; a = 2;">d</button>', // 6
      '<script>function greet() {}</script>', // 7
      '</body></html>',
    ].join('\n');
    const { found } = await findings(html);
    const at = found.map((f) => `${f.rule}@${f.line}:${f.column}`);
    assert.deepEqual(at, ['no-undef@3:18', 'no-undef@4:22', 'no-undef@5:3', 'no-const-assign@6:43']);
  });

  it('a handler that would break out of its wrapper is linted alone, with the same findings', async () => {
    const html = '<button onclick="}); nope3(">a</button>\n<button onclick="nope4()">b</button>';
    const { found } = await findings(html);
    assert.deepEqual(
      found.map((f) => `${f.rule}@${f.line}`),
      ['parsing-error@1', 'no-undef@2'],
    );
  });

  it('4 000 handlers and 4 000 ids lint in seconds, not minutes', async () => {
    const n = 4000;
    const rows = Array.from({ length: n }, (_, i) => `<div class="card" id="c${i}"><h3>T</h3><button onclick="go(${i}); c${i}.focus()">Go</button></div>`).join(
      '\n',
    );
    const { found, ms } = await findings(`<!doctype html><html><head><title>t</title></head><body>\n${rows}\n<script>function go() {}</script></body></html>`);
    assert.equal(found.length, 0, JSON.stringify(found.slice(0, 3)));
    assert.ok(ms < 30_000, `took ${Math.round(ms)} ms`);
  });

  it(`more than ${MAX_ESLINT_RUNS} separate scripts: the rest are listed as not linted`, async () => {
    const scripts = Array.from({ length: MAX_ESLINT_RUNS + 5 }, (_, i) => `<script>var v${i} = ${i};</script>`).join('\n');
    const { details } = await findings(`<!doctype html><html><head><title>t</title></head><body>\n${scripts}\n</body></html>`);
    const skipped = (details.skipped ?? []) as Array<{ reason: string }>;
    assert.equal(skipped.length, 5);
    assert.match(skipped[0]!.reason, /not linted: more than 500 separate JavaScript blocks/);
  });
});
