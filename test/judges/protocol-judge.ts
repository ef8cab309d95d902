/**
 * A judge that answers every judge prompt of webgrade validly over the real chat-completions protocol (the local
 * server of chat-server.ts): ratings for functionality, one verdict per checklist id for alignment (the ids are
 * read from the request's JSON schema), a rating for visual experience. Scores are a hash of the prompt, so they
 * differ between pages and are the same for the same prompt. For pipeline tests and bench/judge-pipeline.ts.
 */
import { createHash } from 'node:crypto';
import { startChatServer, type ChatServer, type RecordedRequest, type Reply } from './chat-server.js';
import { criteriaJson, verdictsJson, visualJson } from './answers.js';

function seed(req: RecordedRequest): number {
  return createHash('sha256').update(JSON.stringify(req.body.messages)).digest()[0]!;
}

/** The valid answer text for one recorded judge request. */
export function protocolAnswer(req: RecordedRequest): string {
  const rf = req.body.response_format;
  const schema = rf?.json_schema;
  const n = seed(req);
  const name: string = schema?.name ?? '';
  if (name === 'functionality_ratings') return criteriaJson(Array.from({ length: 10 }, (_, i) => (n + i) % 11));
  if (name.endsWith('_verdicts')) {
    const ids: string[] = schema.schema.properties.verdicts.items.properties.item.enum;
    return verdictsJson(
      ids,
      ids.map((_, i) => ((n >> i) & 1) === 1),
    );
  }
  if (name === 'visual_rating') return visualJson(n % 5);
  throw new Error(`protocol judge: unknown request (response format ${JSON.stringify(rf)?.slice(0, 80)})`);
}

export interface ProtocolJudgeOptions {
  /** Answer after this many ms. */
  delayMs?: number;
  /** Say that this model served every answer (another than asked: the served-model warning). */
  served?: string;
  systemFingerprint?: string;
  /** Hold every answer until this many requests have arrived (a pipeline test: nobody waits for judges). */
  holdUntilRequests?: number;
  /** Answer the first n requests with 429 and this `retry-after` (seconds). */
  rateLimitFirst?: { n: number; retryAfterSeconds: number };
}

export function startProtocolJudge(opts: ProtocolJudgeOptions = {}): Promise<ChatServer> {
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  return startChatServer((req, index): Reply => {
    if (opts.holdUntilRequests !== undefined && index + 1 >= opts.holdUntilRequests) release();
    if (opts.rateLimitFirst && index < opts.rateLimitFirst.n) {
      return { status: 429, error: 'rate limited', headers: { 'retry-after': String(opts.rateLimitFirst.retryAfterSeconds) } };
    }
    return {
      content: protocolAnswer(req),
      ...(opts.delayMs ? { delayMs: opts.delayMs } : {}),
      ...(opts.holdUntilRequests !== undefined ? { until: all } : {}),
      ...(opts.served ? { model: opts.served } : {}),
      ...(opts.systemFingerprint ? { systemFingerprint: opts.systemFingerprint } : {}),
    };
  });
}
