/**
 * The judge parts of the batch pipeline (issue 32) against a real local chat-completions server: one shared
 * queue paused by a 429's retry-after, the pinned served model, the cost ledger and its budget, and the
 * served-model warnings of batch, leaderboard and merge.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { JudgeCache } from '../../judges/cache.js';
import { JudgeClient, retryAfterMs } from '../../judges/client.js';
import { JudgeLedger } from '../../judges/ledger.js';
import { askOnce, askRepeated, emptyUsage, type JudgeContext } from '../../judges/run.js';
import { checklistPrompt } from '../../judges/prompts/checklist.js';
import type { JudgeSettings } from '../../judges/settings.js';
import { mixedServedWarnings, servedNotAskedWarnings } from '../../distribute/judge-pins.js';
import type { ResultRow } from '../../core/results.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers.js';
import { startChatServer, type ChatServer, type Script } from './chat-server.js';
import { testSettings } from './answers.js';

const good = JSON.stringify({ functional: ['Clicking + adds one'], visual: [], content: ['Shows the count'] });
const prompt = (n: number) => checklistPrompt({ id: `r${n}`, requirement: `A counter number ${n}.` });

const servers: ChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function setup(script: Script, overrides: Partial<JudgeSettings> = {}, ledger?: JudgeLedger): Promise<{ server: ChatServer; ctx: JudgeContext }> {
  const server = await startChatServer(script);
  servers.push(server);
  const settings = testSettings(server.url, overrides);
  return { server, ctx: { client: new JudgeClient(settings), cache: new JudgeCache(settings.cacheDir), settings, ...(ledger ? { ledger } : {}) } };
}

function row(requirement: string, asked: string, served: string[]): ResultRow {
  const pin = { asked, served, systemFingerprints: [], host: 'h', promptVersion: 'p/1' };
  return {
    model: 'm',
    requirement,
    status: 'ok',
    artifact: 'a',
    metrics: [{ id: 'visual-experience', perspective: 'visual', kind: 'judge', title: 't', score: 50, details: { pin }, ms: 1 }],
  } as ResultRow;
}

describe('judge pipeline parts', () => {
  it('a 429 pauses the whole call queue for its retry-after: calls waiting for a slot wait too', async () => {
    // Calls 1 and 2 go out together (concurrency 2); call 1 is refused at once with retry-after: 1 s; call 2
    // answers after 200 ms and frees its slot, which call 3 would take at once without the pause.
    const script: Script = (_req, i) =>
      i === 0 ? { status: 429, error: 'slow down', headers: { 'retry-after': '1' } } : i === 1 ? { content: good, delayMs: 200 } : { content: good };
    const { server, ctx } = await setup(script, { concurrency: 2, maxRetries: 2 });
    const arrivals: number[] = [];
    const t0 = Date.now();
    const orig = server.requests.push.bind(server.requests);
    server.requests.push = (...xs) => {
      arrivals.push(Date.now() - t0);
      return orig(...xs);
    };
    const rs = await Promise.all([1, 2, 3].map((n) => askRepeated(ctx, prompt(n), 'judge-test', 1)));
    assert.ok(rs.every((r) => r.ok));
    assert.equal(ctx.client.rateLimited, 1);
    assert.equal(server.requests.length, 4);
    assert.ok(arrivals[2]! >= 950 && arrivals[3]! >= 950, `after the 429, calls came at ${arrivals.slice(2).join(', ')} ms, not before its retry-after`);
  });

  it('reads retry-after as seconds, as a date, and retry-after-ms first; 1 s when absent', () => {
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '3' })), 3000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' })), 250);
    assert.equal(retryAfterMs(new Headers()), 1000);
    const d = retryAfterMs(new Headers({ 'retry-after': new Date(Date.now() + 5000).toUTCString() }));
    assert.ok(d > 3000 && d <= 5000, String(d));
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '100000' })), 60_000);
  });

  it('records the served model and fingerprint; a cached answer keeps them', async () => {
    const cacheDir = (await import('../helpers.js')).tempDir();
    const { ctx } = await setup(() => ({ content: good, model: 'judge-test-0613', systemFingerprint: 'fp_9' }), { cacheDir });
    const u1 = emptyUsage();
    assert.ok((await askOnce(ctx, prompt(1), 'judge-test', 0, u1)).ok);
    assert.deepEqual([u1.servedModels, u1.systemFingerprints], [['judge-test-0613'], ['fp_9']]);
    const u2 = emptyUsage();
    const again = await askOnce(ctx, prompt(1), 'judge-test', 0, u2);
    assert.ok(again.ok && again.cached);
    assert.deepEqual([u2.servedModels, u2.systemFingerprints], [['judge-test-0613'], ['fp_9']]);
  });

  it('the budget stops new calls once reached and says so; cached answers are still served', async () => {
    const ledger = new JudgeLedger(0.001);
    const cacheDir = (await import('../helpers.js')).tempDir();
    const { server, ctx } = await setup(
      () => ({ content: good, usage: { prompt_tokens: 1000, completion_tokens: 200 } }),
      { prices: { 'judge-test': { input: 1, output: 1 } }, cacheDir },
      ledger,
    );
    assert.ok((await askOnce(ctx, prompt(1), 'judge-test', 0, emptyUsage())).ok);
    assert.equal(ledger.totals.costUsd, 0.0012);
    const refused = await askOnce(ctx, prompt(2), 'judge-test', 0, emptyUsage());
    assert.deepEqual(refused, { ok: false, reason: 'judge budget of $0.001 reached ($0.0012 spent): no new judge calls' });
    assert.equal(server.requests.length, 1);
    assert.ok((await askOnce(ctx, prompt(1), 'judge-test', 0, emptyUsage())).ok, 'the cached answer costs nothing');
    assert.deepEqual(ledger.totals, { calls: 1, promptTokens: 1000, completionTokens: 200, costUsd: 0.0012, unpricedCalls: 0, refusedCalls: 1 });
  });

  it('counts tokens of unpriced models, with their money unknown', async () => {
    const ledger = new JudgeLedger();
    const { ctx } = await setup(() => ({ content: good }), {}, ledger);
    assert.ok((await askOnce(ctx, prompt(1), 'judge-test', 0, emptyUsage())).ok);
    assert.deepEqual(ledger.totals, { calls: 1, promptTokens: 1000, completionTokens: 200, costUsd: 0, unpricedCalls: 1, refusedCalls: 0 });
  });

  it('warns of a served model other than the one asked, and of rows that mix served models', () => {
    const rows = [row('a', 'gpt-x', ['gpt-x']), row('b', 'gpt-x', ['gpt-x-0613']), row('c', 'gpt-x', ['gpt-x-0613'])];
    assert.deepEqual(servedNotAskedWarnings(rows), ['judge model: visual-experience asked for gpt-x, the provider served gpt-x-0613 (2 rows)']);
    assert.deepEqual(mixedServedWarnings(rows), [
      "judge model: the rows' visual-experience scores come from different served models: gpt-x-0613 (2 rows), gpt-x (1 row); they are not comparable",
    ]);
    assert.deepEqual(mixedServedWarnings(rows.slice(1)), []);
    assert.deepEqual(servedNotAskedWarnings(rows.slice(0, 1)), []);
  });

  it('merge warns when the merged rows mix served models for one judge metric', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    writeFileSync(a, JSON.stringify(row('r1', 'gpt-x', ['gpt-x'])) + '\n');
    writeFileSync(b, JSON.stringify(row('r2', 'gpt-x', ['gpt-y'])) + '\n');
    const r = await runCli(['merge', a, b, '--out', join(dir, 'all.jsonl')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: judge model: the rows' visual-experience scores come from different served models: gpt-x \(1 row\), gpt-y \(1 row\)/);
    const same = await runCli(['merge', a, '--out', join(dir, 'one.jsonl')]);
    assert.doesNotMatch(same.stderr, /judge model/);
  });
});
