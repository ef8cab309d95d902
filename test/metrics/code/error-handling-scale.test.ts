/**
 * error-handling at scale and the protection-by-callers rule. The rule used to be a fixpoint loop over every
 * function until nothing changed, and the uses of a name were collected by copying arrays: 20 000 calls of one
 * function took seconds, a long chain of callers in reverse order quadratic. The worklist must find exactly the
 * same protected set.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import errorHandling from '../../../metrics/code/error-handling.js';
import type { FunctionReport } from '../../../metrics/lib/error-handling/units.js';
import { buildEvidence } from '../../metric-tester.js';

async function analyse(html: string): Promise<{ functions: FunctionReport[]; ms: number }> {
  const evidence = buildEvidence({ html });
  const t = performance.now();
  const outcome = await errorHandling.score(evidence);
  return { functions: (outcome.details.functions ?? []) as FunctionReport[], ms: performance.now() - t };
}

describe('error-handling: protection by callers', () => {
  it('a chain of callers written in reverse order is protected all along, from the one caught call at its end', async () => {
    const n = 300;
    // f0 is called inside try/catch; f(i) is awaited only by f(i-1). Declared last-first, so a single pass in
    // declaration order finds one more protected function per pass.
    const fns = Array.from({ length: n }, (_, k) => {
      const i = n - 1 - k;
      return i === n - 1 ? `async function f${i}() { return fetch('/x'); }` : `async function f${i}() { return await f${i + 1}(); }`;
    }).join('\n');
    const { functions } = await analyse(`<script>\n${fns}\nasync function main() { try { await f0(); } catch (e) { console.error(e); } }\nmain();\n</script>`);
    const chain = functions.filter((f) => /^f\d+$/.test(f.name));
    assert.equal(chain.length, n);
    assert.ok(
      chain.every((f) => f.protected),
      JSON.stringify(chain.filter((f) => !f.protected).slice(0, 3)),
    );
  });

  it('one unprotected caller leaves the chain unprotected', async () => {
    const { functions } = await analyse(`<script>
async function load() { return fetch('/x'); }
async function a() { try { await load(); } catch (e) {} }
async function b() { await load(); }
</script>`);
    assert.equal(functions.find((f) => f.name === 'load')?.protected, false);
  });

  it('40 000 calls of one function are analysed in linear time', async () => {
    const n = 40_000;
    const buttons = Array.from({ length: n }, () => '<button onclick="go()">x</button>').join('\n');
    const { functions, ms } = await analyse(`<script>async function go() { return fetch('/x'); }</script>\n${buttons}`);
    assert.equal(functions.find((f) => f.name === 'go')?.protected, false);
    assert.ok(ms < 20_000, `took ${Math.round(ms)} ms`);
  });
});
