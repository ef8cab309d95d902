/**
 * A real local HTTP server that speaks the OpenAI chat-completions protocol (POST /v1/chat/completions), with
 * scripted replies per test: answer text, HTTP errors with headers, hanging requests. It records every request
 * body so tests can inspect prompts, images and response formats.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Reply {
  /** Assistant message content (a 200 answer). */
  content?: string;
  /** HTTP status for an error reply (with `error` as the message). */
  status?: number;
  error?: string;
  headers?: Record<string, string>;
  /** Never answer. */
  hang?: boolean;
  /** Delay before answering, ms. */
  delayMs?: number;
  /** Answer only once this settles (then after `delayMs`). */
  until?: Promise<unknown>;
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** The model the answer says served it (default: the one asked). */
  model?: string;
  /** A `system_fingerprint` to send. */
  systemFingerprint?: string;
}

export type Script = Reply[] | ((req: RecordedRequest, index: number) => Reply);

export interface ChatServer {
  /** Base URL to give the client, ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  /** Most requests in flight at the same time. */
  maxInFlight: number;
  /** Requests in flight now. */
  inFlight: number;
  close(): Promise<void>;
}

export function completion(model: string, content: string, finishReason = 'stop', usage = { prompt_tokens: 1000, completion_tokens: 200 }) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason, logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export async function startChatServer(script: Script): Promise<ChatServer> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('{"error":{"message":"bad json"}}');
        return;
      }
      const rec: RecordedRequest = { path: req.url, headers: req.headers, body };
      const index = requests.length;
      requests.push(rec);
      const reply: Reply = typeof script === 'function' ? script(rec, index) : (script[index] ?? { status: 500, error: 'test script exhausted' });
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      res.on('close', () => inFlight--);
      if (reply.hang) return;
      const send = () => {
        if (reply.status && reply.status !== 200) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(JSON.stringify({ error: { message: reply.error ?? `status ${reply.status}`, type: 'test', code: null } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
        const answer = {
          ...completion(reply.model ?? (body as { model: string }).model, reply.content ?? '', reply.finishReason, reply.usage),
          ...(reply.systemFingerprint ? { system_fingerprint: reply.systemFingerprint } : {}),
        };
        res.end(JSON.stringify(answer));
      };
      const later = () => (reply.delayMs ? setTimeout(send, reply.delayMs) : send());
      if (reply.until) void reply.until.then(later);
      else later();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return state.maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on which nothing listens (bound, then released). */
export async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The text of every message of a recorded request, joined. */
export function promptText(req: RecordedRequest): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (req.body.messages as any[])
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : m.content.map((p: { type: string; text?: string }) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n'),
    )
    .join('\n');
}
