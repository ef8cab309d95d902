/**
 * Asking a judge one question: cache lookup, the call, tolerant parse, strict validation, a retry on a malformed
 * or invalid answer (the rejected answer and the reason are shown to the model), and finally "unscorable" with
 * the reason. Never a guessed value. `askRepeated` asks N times (repeat index in the cache key) for
 * `--judge-repeats`.
 */
import { JudgeCallError, costUsd, type ChatResult, type JudgeClient } from './client.js';
import { cacheKey, type JudgeCache } from './cache.js';
import { extractJson, type Validation } from './parse.js';
import type { ChatMessage, PromptSpec } from './prompts/common.js';
import type { JudgeSettings } from './settings.js';
import type { JudgeLedger } from './ledger.js';

export interface JudgeContext {
  client: JudgeClient;
  cache: JudgeCache;
  settings: JudgeSettings;
  /** The judge deadline of this artifact (or command). */
  signal?: AbortSignal;
  /** The run's cost ledger and budget (judges/ledger.ts); without one, calls are neither counted nor capped. */
  ledger?: JudgeLedger;
}

/** Token, cost and call accounting of one judge question (all its repeats and retries). */
export interface JudgeUsage {
  /** Calls that reached the endpoint and got an answer. */
  calls: number;
  cacheHits: number;
  invalidAnswers: number;
  promptTokens: number;
  completionTokens: number;
  /** Null when the model has no price in the config's price table. */
  costUsd: number | null;
  /** Wall-clock ms of answered calls, summed. */
  callMs: number;
  responseFormats: string[];
  /** The models the provider says answered (`model` of each response; the cache keeps it for hits). */
  servedModels: string[];
  /** The providers' `system_fingerprint`s, when given. */
  systemFingerprints: string[];
}

export function emptyUsage(): JudgeUsage {
  return {
    calls: 0,
    cacheHits: 0,
    invalidAnswers: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    callMs: 0,
    responseFormats: [],
    servedModels: [],
    systemFingerprints: [],
  };
}

function served(usage: JudgeUsage, model: string | undefined, fingerprint: string | undefined): void {
  if (model && !usage.servedModels.includes(model)) usage.servedModels.push(model);
  if (fingerprint && !usage.systemFingerprints.includes(fingerprint)) usage.systemFingerprints.push(fingerprint);
}

function account(ctx: JudgeContext, usage: JudgeUsage, model: string, r: ChatResult): void {
  const { settings } = ctx;
  usage.calls++;
  usage.promptTokens += r.usage.promptTokens;
  usage.completionTokens += r.usage.completionTokens;
  usage.callMs += r.ms;
  const c = costUsd(settings, model, r.usage);
  ctx.ledger?.record(r.usage.promptTokens, r.usage.completionTokens, c);
  served(usage, r.model, r.systemFingerprint);
  usage.costUsd = c === null || usage.costUsd === null ? null : usage.costUsd + c;
  if (!usage.responseFormats.includes(r.responseFormat)) usage.responseFormats.push(r.responseFormat);
}

export function checkAnswer<T>(spec: Pick<PromptSpec<T>, 'validate'>, text: string): Validation<T> {
  const json = extractJson(text);
  if (!json.ok) return json;
  return spec.validate(json.value);
}

export type AskOutcome<T> = { ok: true; value: T; cached: boolean } | { ok: false; reason: string };

/** Ask once (repeat index `repeat`), with the cache and invalid-answer retries. */
export async function askOnce<T>(ctx: JudgeContext, spec: PromptSpec<T>, model: string, repeat: number, usage: JudgeUsage): Promise<AskOutcome<T>> {
  const { settings } = ctx;
  const key = cacheKey({
    model,
    promptVersion: spec.promptVersion,
    messages: spec.messages,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    repeat,
  });
  const hit = ctx.cache.get(key);
  if (hit) {
    const v = checkAnswer(spec, hit.text);
    if (v.ok) {
      usage.cacheHits++;
      served(usage, hit.servedModel ?? hit.model, hit.systemFingerprint);
      return { ok: true, value: v.value, cached: true };
    }
  }
  let messages: ChatMessage[] = spec.messages;
  let lastError = '';
  const attempts = settings.invalidRetries + 1;
  for (let attempt = 0; attempt < attempts; attempt++) {
    let r: ChatResult;
    const refused = ctx.ledger?.refusal();
    if (refused) return { ok: false, reason: attempt > 0 ? `${refused} (after an invalid answer: ${lastError})` : refused };
    try {
      r = await ctx.client.chat({ model, messages, schema: spec.schema, signal: ctx.signal });
    } catch (err) {
      const msg = err instanceof JudgeCallError ? err.message : `judge call failed: ${err instanceof Error ? err.message : String(err)}`;
      return { ok: false, reason: attempt > 0 ? `${msg} (after an invalid answer: ${lastError})` : msg };
    }
    account(ctx, usage, model, r);
    const v = checkAnswer(spec, r.text);
    if (v.ok) {
      ctx.cache.put({
        version: 1,
        key,
        model,
        promptVersion: spec.promptVersion,
        repeat,
        createdAt: new Date().toISOString(),
        text: r.text,
        usage: r.usage,
        servedModel: r.model,
        ...(r.systemFingerprint ? { systemFingerprint: r.systemFingerprint } : {}),
      });
      return { ok: true, value: v.value, cached: false };
    }
    usage.invalidAnswers++;
    lastError = v.error + (r.finishReason === 'length' ? ' (the answer was cut off at the token limit)' : '');
    messages = [
      ...spec.messages,
      { role: 'assistant', content: r.text.slice(0, 4000) },
      { role: 'user', content: `That answer was rejected: ${lastError}. Answer again with only the JSON object in the requested format.` },
    ];
  }
  return { ok: false, reason: `judge answer invalid after ${attempts} attempt${attempts > 1 ? 's' : ''}: ${lastError}` };
}

export interface RepeatedAnswer<T> {
  /** Valid answers, in repeat order (failed repeats left out). */
  values: T[];
  /** Reasons of the repeats that failed. */
  failures: string[];
  usage: JudgeUsage;
}

/** Ask `repeats` times; ok when at least one repeat gave a valid answer. */
export async function askRepeated<T>(
  ctx: JudgeContext,
  spec: PromptSpec<T>,
  model: string,
  repeats: number,
): Promise<{ ok: true; answer: RepeatedAnswer<T> } | { ok: false; reason: string; usage: JudgeUsage }> {
  const usage = emptyUsage();
  const outcomes = await Promise.all(Array.from({ length: repeats }, (_, r) => askOnce(ctx, spec, model, r, usage)));
  const values = outcomes.flatMap((o) => (o.ok ? [o.value] : []));
  const failures = outcomes.flatMap((o) => (o.ok ? [] : [o.reason]));
  if (values.length === 0) {
    const reason = failures[0] ?? 'no answer';
    return { ok: false, reason: repeats > 1 ? `${reason} (all ${repeats} repeats failed)` : reason, usage };
  }
  return { ok: true, answer: { values, failures, usage } };
}
