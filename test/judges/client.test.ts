/** The judge client and runner against a real local chat-completions server (no mocked functions). */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { JudgeCache } from '../../judges/cache.js';
import { JudgeClient } from '../../judges/client.js';
import { askRepeated, type JudgeContext } from '../../judges/run.js';
import { checklistPrompt } from '../../judges/prompts/checklist.js';
import type { JudgeSettings } from '../../judges/settings.js';
import { tempDir } from '../helpers.js';
import { promptText, refusedPort, startChatServer, type ChatServer, type Script } from './chat-server.js';
import { testSettings } from './answers.js';

const req = { id: 'r', requirement: 'A counter with + and − buttons.' };
const good = JSON.stringify({ functional: ['Clicking + adds one'], visual: [], content: ['Shows the count'] });

const servers: ChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function setup(script: Script, overrides: Partial<JudgeSettings> = {}): Promise<{ server: ChatServer; ctx: JudgeContext }> {
  const server = await startChatServer(script);
  servers.push(server);
  const settings = testSettings(server.url, overrides);
  return { server, ctx: { client: new JudgeClient(settings), cache: new JudgeCache(settings.cacheDir), settings } };
}

describe('judge client and runner (local chat-completions server)', () => {
  it('accepts a good answer and accounts tokens and cost from the price table', async () => {
    const { server, ctx } = await setup([{ content: good, usage: { prompt_tokens: 2000, completion_tokens: 500 } }], {
      prices: { 'judge-test': { input: 1, output: 4 } },
    });
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.ok(r.ok);
    assert.deepEqual(r.answer.values[0], { functional: ['Clicking + adds one'], visual: [], content: ['Shows the count'] });
    assert.equal(r.answer.usage.promptTokens, 2000);
    assert.equal(r.answer.usage.completionTokens, 500);
    assert.equal(r.answer.usage.costUsd, (2000 * 1 + 500 * 4) / 1e6);
    assert.equal(server.requests.length, 1);
    const body = server.requests[0]!.body;
    assert.equal(body.model, 'judge-test');
    assert.equal(body.response_format.type, 'json_schema');
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer test-key');
  });

  it('reads JSON inside a fenced block with prose around it', async () => {
    const { ctx } = await setup([{ content: 'Sure! Here it is:\n```json\n' + good + '\n```\nLet me know.' }]);
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.ok(r.ok);
  });

  it('retries a malformed answer, showing the model why it was rejected, and accepts the corrected one', async () => {
    const { server, ctx } = await setup([{ content: 'I would say it is fine.' }, { content: good }]);
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.ok(r.ok);
    assert.equal(r.answer.usage.invalidAnswers, 1);
    assert.equal(server.requests.length, 2);
    const msgs = server.requests[1]!.body.messages;
    assert.equal(msgs.at(-2).role, 'assistant');
    assert.match(msgs.at(-1).content, /rejected: the answer holds no JSON object/);
  });

  it('makes an answer that stays invalid unscorable, never a guess', async () => {
    const bad = JSON.stringify({ functional: 'everything', visual: [], content: [] });
    const { server, ctx } = await setup([{ content: bad }, { content: bad }]);
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /judge answer invalid after 2 attempts: "functional" must be a list/);
    assert.equal(server.requests.length, 2);
  });

  it('retries after 429 with backoff (honouring retry-after-ms) and then succeeds', async () => {
    const { server, ctx } = await setup(
      [
        { status: 429, error: 'slow down', headers: { 'retry-after-ms': '20' } },
        { status: 503, error: 'busy', headers: { 'retry-after-ms': '20' } },
        { content: good },
      ],
      { maxRetries: 2 },
    );
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.ok(r.ok, (r as { reason?: string }).reason);
    assert.equal(server.requests.length, 3);
  });

  it('gives up after the retries on a persistent 500 with the HTTP status as the reason', async () => {
    const { server, ctx } = await setup(() => ({ status: 500, error: 'model crashed', headers: { 'retry-after-ms': '10' } }), { maxRetries: 1 });
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /HTTP 500/);
    assert.equal(server.requests.length, 2);
  });

  it('does not hang on an endpoint that never answers: times out per request', async () => {
    const { ctx } = await setup(() => ({ hang: true }), { timeoutMs: 300, maxRetries: 1 });
    const t0 = Date.now();
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    const ms = Date.now() - t0;
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /timed out after 0.3 s \(2 attempts\)/);
    assert.ok(ms < 5000, `took ${ms} ms`);
  });

  it('stops at the deadline even when requests would be retried for longer', async () => {
    const { ctx } = await setup(() => ({ hang: true }), { timeoutMs: 10_000, maxRetries: 3 });
    const t0 = Date.now();
    const r = await askRepeated({ ...ctx, signal: AbortSignal.timeout(400) }, checklistPrompt(req), 'judge-test', 1);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /deadline/);
    assert.ok(Date.now() - t0 < 3000);
  });

  it('reports a refused connection as an unreachable endpoint', async () => {
    const port = await refusedPort();
    const settings = testSettings(`http://127.0.0.1:${port}/v1`, { maxRetries: 1 });
    const ctx = { client: new JudgeClient(settings), cache: new JudgeCache(null), settings };
    const t0 = Date.now();
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /cannot reach judge endpoint http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED/);
    assert.ok(Date.now() - t0 < 5000);
  });

  it('falls back from json_schema to json_object when the server rejects the response format', async () => {
    const { server, ctx } = await setup((rec) =>
      rec.body.response_format?.type === 'json_schema' ? { status: 400, error: 'response_format json_schema not supported' } : { content: good },
    );
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.ok(r.ok);
    assert.deepEqual(r.answer.usage.responseFormats, ['json_object']);
    const again = await askRepeated(ctx, checklistPrompt({ id: 'q', requirement: 'A clock.' }), 'judge-test', 1);
    assert.ok(again.ok);
    assert.deepEqual(
      server.requests.map((q) => q.body.response_format?.type),
      ['json_schema', 'json_object', 'json_object'],
      'the fallback is remembered',
    );
  });

  it('never has more requests in flight than the concurrency limit', async () => {
    const { server, ctx } = await setup(() => ({ content: good, delayMs: 50 }), { concurrency: 2 });
    const r = await askRepeated(ctx, checklistPrompt(req), 'judge-test', 6);
    assert.ok(r.ok);
    assert.equal(r.answer.values.length, 6);
    assert.equal(server.requests.length, 6);
    assert.equal(server.maxInFlight, 2);
  });

  it('caches answers on disk by model, prompt version and input: a rerun sends nothing and gives the same answer', async () => {
    const dir = tempDir();
    let n = 0;
    const { server, settings } = await (async () => {
      const server = await startChatServer(() => ({ content: JSON.stringify({ functional: [`item ${n++}`], visual: [], content: [] }) }));
      servers.push(server);
      return { server, settings: testSettings(server.url, { cacheDir: dir }) };
    })();
    const ctx = () => ({ client: new JudgeClient(settings), cache: new JudgeCache(dir), settings });
    const a = await askRepeated(ctx(), checklistPrompt(req), 'judge-test', 2);
    const b = await askRepeated(ctx(), checklistPrompt(req), 'judge-test', 2);
    assert.ok(a.ok && b.ok);
    assert.deepEqual(b.answer.values, a.answer.values);
    assert.equal(b.answer.usage.cacheHits, 2);
    assert.equal(b.answer.usage.calls, 0);
    assert.equal(server.requests.length, 2, 'two repeats asked once each, none on the rerun');
    const other = await askRepeated(ctx(), checklistPrompt(req), 'other-model', 1);
    assert.ok(other.ok);
    assert.equal(server.requests.length, 3, 'another model is another cache key');
    const entries = readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.json'));
    assert.equal(entries.length, 3);
    assert.ok(!readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.tmp')));
  });

  it('sends the prompt text the prompt builder made', async () => {
    const { server, ctx } = await setup([{ content: good }]);
    await askRepeated(ctx, checklistPrompt(req), 'judge-test', 1);
    assert.match(promptText(server.requests[0]!), /A counter with \+ and − buttons\./);
  });
});
