/**
 * The survey server (`webgrade survey serve`): node:http on 127.0.0.1 only.
 *
 * - `GET /` → the questionnaire page (survey/page.ts). `GET /healthz` → 200 "ok".
 * - `POST /responses` with a JSON body `{persona, seconds, perspectives, metrics}` → checked strictly
 *   (`checkSubmission`); on success one line `{"respondent": <random UUID>, ...}` is appended to the responses
 *   file and the answer is 201 `{"ok": true, "respondent": ...}`.
 * - Errors write nothing: 400 bad JSON or a failed check (`{"error": ...}`), 413 a body over 64 KiB, 415 a
 *   content type other than JSON, 404 unknown path, 405 wrong method (with `Allow`).
 * - Appends are serialised through one queue (p-queue, concurrency 1), and each response is one `appendFile`
 *   of one complete line on a file opened with O_APPEND: concurrent submissions can neither interleave nor be
 *   lost. If the file does not end with a newline (a torn line from an earlier crash), a newline is written
 *   first so the new response starts on its own line.
 */
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

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startSurveyServer(opts: { port?: number; responses: string; suite?: SuiteId }): Promise<SurveyServer> {
  // The responses file must be appendable before anyone fills in the questionnaire (and a bad path must not be
  // reported as a port that cannot be listened on).
  try {
    await mkdir(dirname(opts.responses), { recursive: true });
    await (await open(opts.responses, 'a')).close();
  } catch (err) {
    throw new InputError(`survey serve: cannot append responses to ${opts.responses} (${errorMessage(err)})`);
  }
  const queue = new PQueue({ concurrency: 1 });
  const page = surveyPage(opts.suite);
  let count = 0;

  const append = (line: string) =>
    queue.add(async () => {
      const prefix = (await endsWithNewline(opts.responses)) ? '' : '\n';
      await appendFile(opts.responses, prefix + line + '\n', { flag: 'a' });
      count++;
    });

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/' || path === '/index.html') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : page);
      return;
    }
    if (path === '/healthz') return send(res, 200, { ok: true });
    if (path !== '/responses') return send(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return send(res, 405, { error: 'use POST' }, { allow: 'POST' });
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return send(res, 415, { error: 'send JSON (content-type: application/json)' });
    readBody(req)
      .then(async (body) => {
        if (body === 'too-large') return send(res, 413, { error: `body over ${MAX_BODY_BYTES} bytes` });
        let value: unknown;
        try {
          value = JSON.parse(body.toString('utf8'));
        } catch {
          return send(res, 400, { error: 'body is not valid JSON' });
        }
        const checked = checkSubmission(value);
        if (!checked.ok) return send(res, 400, { error: checked.error });
        const respondent = randomUUID();
        await append(JSON.stringify({ respondent, ...checked.value }));
        send(res, 201, { ok: true, respondent });
      })
      .catch((err: unknown) => send(res, 500, { error: `could not save the response: ${(err as Error).message}` }));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
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
