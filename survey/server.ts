/**
 * The survey server (`webgrade survey serve`): node:http on 127.0.0.1 only.
 *
 * - Every request must name the server in its `Host` header (survey/guards.ts), else 421.
 * - `GET /` → the questionnaire page (survey/page.ts) with a fresh survey token. `GET /healthz` → 200 "ok".
 * - `POST /responses` with a JSON body `{token, persona, seconds, perspectives, metrics}` → rate-limited per
 *   remote address (429 with `Retry-After`), the token verified and the rest checked strictly
 *   (`checkSubmission`); on success one line `{"respondent": <random UUID>, ..., "seconds": <server's measure>,
 *   "clientSeconds": <the page's own figure>}` is appended to the responses file and the answer is 201
 *   `{"ok": true, "respondent": ..., "seconds": ...}`. `seconds` is what `survey weights` compares with the
 *   minimum time; the page's figure is kept for information only (a script can send any number).
 * - Errors write nothing: 400 bad JSON, a failed check or a missing, forged, expired or used token
 *   (`{"error": ...}`), 413 a body over 64 KiB, 415 a content type other than JSON, 404 unknown path, 405 wrong
 *   method (with `Allow`).
 * - Appends are serialised through one queue (p-queue, concurrency 1), and each response is one `appendFile`
 *   of one complete line on a file opened with O_APPEND: concurrent submissions can neither interleave nor be
 *   lost. If the file does not end with a newline (a torn line from an earlier crash), a newline is written
 *   first so the new response starts on its own line.
 */
import { readBody } from '../lib/http-body.js';
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import PQueue from 'p-queue';
import { surveyPage } from './page.js';
import type { SuiteId } from '../core/metric.js';
import { InputError, errorMessage } from '../core/errors.js';
import { checkSubmission } from './response.js';
import { allowedHosts, hostAllowed, RateLimiter, SurveyTokens, type RateLimit } from './guards.js';

export const MAX_BODY_BYTES = 64 * 1024;

export interface SurveyServer {
  url: string;
  server: Server;
  /** Responses written since start. */
  written(): number;
  close(): Promise<void>;
}

async function endsWithNewline(path: string): Promise<boolean> {
  try {
    const fh = await open(path, 'r');
    try {
      const { size } = await fh.stat();
      if (size === 0) return true;
      const buf = Buffer.alloc(1);
      await fh.read(buf, 0, 1, size - 1);
      return buf[0] === 0x0a;
    } finally {
      await fh.close();
    }
  } catch {
    return true; // no file yet
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

export interface SurveyServerOptions {
  port?: number;
  responses: string;
  suite?: SuiteId;
  /** More `Host` values to answer (`--allow-host`; survey/guards.ts). */
  allowHosts?: readonly string[];
  /** Submissions per remote address (default RATE_LIMIT). */
  rateLimit?: RateLimit;
  /** The server's clock, in ms (tests move it forward instead of waiting). */
  now?: () => number;
}

export async function startSurveyServer(opts: SurveyServerOptions): Promise<SurveyServer> {
  // The responses file must be appendable before anyone fills in the questionnaire (and a bad path must not be
  // reported as a port that cannot be listened on).
  try {
    await mkdir(dirname(opts.responses), { recursive: true });
    await (await open(opts.responses, 'a')).close();
  } catch (err) {
    throw new InputError(`survey serve: cannot append responses to ${opts.responses} (${errorMessage(err)})`);
  }
  const queue = new PQueue({ concurrency: 1 });
  const tokens = new SurveyTokens(opts.now);
  const limiter = new RateLimiter(opts.rateLimit, opts.now);
  let hosts = new Set<string>();
  let port = 0;
  let count = 0;

  const append = (line: string) =>
    queue.add(async () => {
      const prefix = (await endsWithNewline(opts.responses)) ? '' : '\n';
      await appendFile(opts.responses, prefix + line + '\n', { flag: 'a' });
      count++;
    });

  const server = createServer((req, res) => {
    if (!hostAllowed(req.headers.host, hosts, port)) {
      return send(res, 421, { error: `this survey answers only as ${[...hosts].join(', ')} (use --allow-host to add a name)` });
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/' || path === '/index.html') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : surveyPage(opts.suite, tokens.issue()));
      return;
    }
    if (path === '/healthz') return send(res, 200, { ok: true });
    if (path !== '/responses') return send(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return send(res, 405, { error: 'use POST' }, { allow: 'POST' });
    const wait = limiter.take(req.socket.remoteAddress ?? '');
    if (wait > 0) {
      req.resume(); // the body is not read, but must not hold the connection
      return send(res, 429, { error: `too many submissions from this address; try again in ${wait} s` }, { 'retry-after': String(wait) });
    }
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return send(res, 415, { error: 'send JSON (content-type: application/json)' });
    readBody(req, MAX_BODY_BYTES)
      .then(async (body) => {
        if (body === 'too-large') return send(res, 413, { error: `body over ${MAX_BODY_BYTES} bytes` });
        let value: unknown;
        try {
          value = JSON.parse(body.toString('utf8'));
        } catch {
          return send(res, 400, { error: 'body is not valid JSON' });
        }
        const { token, ...submission } = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { token: undefined }) as Record<
          string,
          unknown
        >;
        const verified = tokens.verify(token);
        if (!verified.ok) return send(res, 400, { error: verified.error });
        const checked = checkSubmission(submission);
        if (!checked.ok) return send(res, 400, { error: checked.error });
        if (!tokens.redeem(verified)) return send(res, 400, { error: 'this page was already submitted: reload the survey page to answer again' });
        const respondent = randomUUID();
        const seconds = verified.seconds;
        await append(JSON.stringify({ respondent, ...checked.value, seconds, clientSeconds: checked.value.seconds }));
        send(res, 201, { ok: true, respondent, seconds });
      })
      .catch((err: unknown) => send(res, 500, { error: `could not save the response: ${(err as Error).message}` }));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(port, opts.allowHosts);
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    written: () => count,
    close: async () => {
      await queue.onIdle();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
