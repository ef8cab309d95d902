/**
 * The judge client: OpenAI-compatible chat completions through the `openai` package.
 *
 * - Endpoint, key and timeout come from JudgeSettings. Retries with backoff on 408/409/429/5xx, connection errors
 *   and timeouts are the openai client's own (`maxRetries`; exponential backoff from 0.5 s to 8 s with jitter, or
 *   the server's `retry-after`/`retry-after-ms`).
 * - A p-queue limits the requests in flight (`concurrency`), shared by every judge call of one client. A 429 answer
 *   pauses the whole queue for its `retry-after` (`retry-after-ms`, or 1 s when absent, at most 60 s): the other
 *   calls of a highly concurrent pipeline wait too, instead of each meeting the limit in turn; the refused call
 *   itself is retried by the openai client after the same wait.
 * - Pinning: every answer says which model the server says it served (`model`), its `system_fingerprint` when
 *   given, and the client knows the provider's host (`host`), so rows can record what really judged them.
 * - Structured output: asks for a JSON-schema response format first (or what `responseFormat` says); when the
 *   server rejects the request with 400/422, it asks again with `json_object`, then with no response format, and
 *   remembers per model what worked. The answer is parsed tolerantly either way (parse.ts).
 * - Accounting: prompt and completion tokens of every answered call, and cost from the `prices` table (USD per
 *   million tokens; cost is null when the model has no price).
 * - Cancellation: every call takes an AbortSignal (the per-artifact judge deadline), so no run hangs on a judge.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import PQueue from 'p-queue';
import type { ChatMessage, JsonSchemaSpec } from './prompts/common.js';
import type { JudgeSettings, ResponseFormatMode } from './settings.js';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResult {
  text: string;
  /** The model the server says answered. */
  model: string;
  usage: TokenUsage;
  finishReason: string | null;
  responseFormat: ResponseFormatMode;
  ms: number;
  /** The provider's `system_fingerprint`, when it sends one. */
  systemFingerprint?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  schema?: JsonSchemaSpec;
  signal?: AbortSignal;
}

/** A judge call that failed for good (after the client's retries). */
export class JudgeCallError extends Error {
  constructor(
    message: string,
    readonly kind: 'endpoint' | 'timeout' | 'unreachable' | 'aborted',
  ) {
    super(message);
    this.name = 'JudgeCallError';
  }
}

const FORMAT_ORDER: ResponseFormatMode[] = ['json_schema', 'json_object', 'none'];

export function costUsd(settings: JudgeSettings, model: string, usage: TokenUsage): number | null {
  const p = settings.prices[model];
  if (!p) return null;
  return (usage.promptTokens * p.input + usage.completionTokens * p.output) / 1e6;
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** How long a 429 answer asks us to wait, in ms (headers as the openai client reads them; 1 s when absent). */
export function retryAfterMs(headers: Headers): number {
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, 60_000);
  const raw = headers.get('retry-after');
  const s = Number(raw);
  if (raw && Number.isFinite(s) && s >= 0) return Math.min(s * 1000, 60_000);
  const date = raw ? Date.parse(raw) - Date.now() : NaN;
  return Number.isFinite(date) && date > 0 ? Math.min(date, 60_000) : 1000;
}

export class JudgeClient {
  private readonly openai: OpenAI;
  private readonly queue: PQueue;
  private readonly formatByModel = new Map<string, ResponseFormatMode>();
  private resumeAt = 0;
  /** 429 answers met (each paused the queue). */
  rateLimited = 0;

  constructor(readonly settings: JudgeSettings) {
    this.openai = new OpenAI({
      baseURL: settings.baseURL ?? DEFAULT_BASE_URL,
      apiKey: settings.apiKey ?? 'none',
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      fetch: (url, init) => this.fetchWatching(url, init),
    });
    this.queue = new PQueue({ concurrency: settings.concurrency });
  }

  /** The provider's host (recorded in rows). */
  get host(): string {
    try {
      return new URL(this.settings.baseURL ?? DEFAULT_BASE_URL).host;
    } catch {
      return this.settings.baseURL ?? '';
    }
  }

  /** Requests waiting for a slot plus those in flight. */
  get pending(): number {
    return this.queue.size + this.queue.pending;
  }

  /** Requests in flight (holding a slot). */
  get inFlight(): number {
    return this.queue.pending;
  }

  /** Requests waiting for a slot (or for a rate-limit pause to end). */
  get waiting(): number {
    return this.queue.size;
  }

  private async fetchWatching(url: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): Promise<Response> {
    const res = await fetch(url, init);
    if (res.status === 429) this.pauseFor(retryAfterMs(res.headers));
    return res;
  }

  private pauseFor(ms: number): void {
    this.rateLimited++;
    const until = Date.now() + ms;
    if (until <= this.resumeAt) return;
    this.resumeAt = until;
    this.queue.pause();
    const t = setTimeout(() => {
      if (Date.now() >= this.resumeAt - 5) this.queue.start();
    }, ms);
    void t;
  }

  chat(req: ChatRequest): Promise<ChatResult> {
    if (req.signal?.aborted) return Promise.reject(new JudgeCallError('judge deadline reached before the call', 'aborted'));
    return this.queue
      .add(() => this.chatNow(req), { signal: req.signal })
      .catch((err: unknown) => {
        if (err instanceof JudgeCallError) throw err;
        throw new JudgeCallError(`judge deadline reached while waiting for a slot`, 'aborted');
      });
  }

  private async chatNow(req: ChatRequest): Promise<ChatResult> {
    let mode = this.formatByModel.get(req.model) ?? this.settings.responseFormat;
    if (!req.schema && mode === 'json_schema') mode = 'json_object';
    for (;;) {
      const t0 = performance.now();
      try {
        const params: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
          model: req.model,
          messages: req.messages,
          temperature: this.settings.temperature,
          max_tokens: this.settings.maxTokens,
        };
        if (mode === 'json_schema' && req.schema) {
          params.response_format = { type: 'json_schema', json_schema: { name: req.schema.name, schema: req.schema.schema, strict: true } };
        } else if (mode === 'json_object') params.response_format = { type: 'json_object' };
        const completion = await this.openai.chat.completions.create(params, { signal: req.signal });
        this.formatByModel.set(req.model, mode);
        const choice = completion.choices?.[0];
        return {
          text: choice?.message?.content ?? '',
          model: completion.model ?? req.model,
          usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
          finishReason: choice?.finish_reason ?? null,
          responseFormat: mode,
          ms: Math.round(performance.now() - t0),
          ...(completion.system_fingerprint ? { systemFingerprint: completion.system_fingerprint } : {}),
        };
      } catch (err) {
        const status = err instanceof APIError ? err.status : undefined;
        if ((status === 400 || status === 422) && mode !== 'none') {
          // The server may not support this response format: step down and ask again.
          mode = FORMAT_ORDER[FORMAT_ORDER.indexOf(mode) + 1]!;
          continue;
        }
        throw this.describe(err);
      }
    }
  }

  private describe(err: unknown): JudgeCallError {
    const attempts = this.settings.maxRetries + 1;
    if (err instanceof APIUserAbortError) return new JudgeCallError('judge deadline reached during the call', 'aborted');
    if (err instanceof APIConnectionTimeoutError) {
      return new JudgeCallError(`judge request timed out after ${this.settings.timeoutMs / 1000} s (${attempts} attempt${attempts > 1 ? 's' : ''})`, 'timeout');
    }
    if (err instanceof APIConnectionError) {
      const cause = (err as { cause?: { message?: string; code?: string; cause?: { code?: string } } }).cause;
      const code = cause?.cause?.code ?? cause?.code ?? cause?.message ?? err.message;
      return new JudgeCallError(
        `cannot reach judge endpoint ${this.settings.baseURL ?? ''} (${code}; ${attempts} attempt${attempts > 1 ? 's' : ''})`,
        'unreachable',
      );
    }
    if (err instanceof APIError && err.status !== undefined) {
      const msg = String(err.message ?? '')
        .split('\n')[0]!
        .slice(0, 200);
      return new JudgeCallError(`judge endpoint answered HTTP ${err.status}: ${msg}`, 'endpoint');
    }
    if (err instanceof Error && err.name === 'AbortError') return new JudgeCallError('judge deadline reached', 'aborted');
    return new JudgeCallError(`judge call failed: ${err instanceof Error ? err.message : String(err)}`, 'endpoint');
  }
}
