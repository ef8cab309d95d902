import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { STUDY_PERSPECTIVES } from '../../core/metric.js';
import { metricsOf, rankedMetricPerspectives } from '../../survey/catalogue.js';
import { parseResponses, surveyWeights } from '../../survey/weights.js';
import { startSurveyServer, type SurveyServer, type SurveyServerOptions } from '../../survey/server.js';
import { runCli, tempDir } from '../helpers.js';
import { surveyToken } from './survey-helpers.js';

const answers = (seconds = 300) => ({
  persona: 'dev',
  seconds,
  perspectives: [...STUDY_PERSPECTIVES],
  metrics: Object.fromEntries(rankedMetricPerspectives().map((p) => [p, metricsOf(p).map((m) => m.id)])),
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request, so the Host header and the source address can be chosen (fetch sets Host itself). */
function raw(url: string, opts: { method?: string; host?: string; body?: string; localAddress?: string } = {}): Promise<Reply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: opts.method ?? 'GET',
        headers: { host: opts.host ?? u.host, ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

let server: SurveyServer | undefined;
let file = '';
let clock = 0;

async function start(opts: Partial<SurveyServerOptions> = {}): Promise<SurveyServer> {
  file = join(tempDir(), 'responses.jsonl');
  clock = Date.now();
  server = await startSurveyServer({ port: 0, responses: file, now: () => clock, ...opts });
  return server;
}

const stored = () =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('survey server: Host header', () => {
  it('answers only requests that name it (127.0.0.1, localhost, [::1] on its port), else 421', async () => {
    const s = await start();
    const port = new URL(s.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      assert.equal((await raw(s.url, { host })).status, 200, host);
    }
    for (const host of [`evil.example:${port}`, 'localhost', `localhost:${Number(port) + 1}`, `127.0.0.1.nip.io:${port}`]) {
      const r = await raw(s.url, { host });
      assert.equal(r.status, 421, host);
      assert.doesNotMatch(r.body, /survey-token/, 'a refused request gets no page and no token');
    }
    // a rebinding page cannot submit either
    const body = JSON.stringify({ token: await surveyToken(s.url), ...answers() });
    assert.equal((await raw(new URL('responses', s.url).href, { method: 'POST', host: `evil.example:${port}`, body })).status, 421);
    assert.deepEqual(stored(), []);
  });

  it('--allow-host names are answered too: with their port, or on the bound port when given without one', async () => {
    const s = await start({ allowHosts: ['survey.example.org', 'proxy.example:8443'] });
    const port = new URL(s.url).port;
    assert.equal((await raw(s.url, { host: `survey.example.org:${port}` })).status, 200);
    assert.equal((await raw(s.url, { host: 'proxy.example:8443' })).status, 200);
    assert.equal((await raw(s.url, { host: 'survey.example.org:8443' })).status, 421);
    assert.equal((await raw(s.url, { host: `proxy.example:${port}` })).status, 421);
  });

  it('the CLI refuses an --allow-host value that is not a host name (exit 2)', async () => {
    const r = await runCli(['survey', 'serve', '--port', '0', '--responses', join(tempDir(), 'r.jsonl'), '--allow-host', 'http://x/']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--allow-host/);
  });
});

describe('survey server: rate limit per address', () => {
  it('allows a burst of submissions, then answers 429 with Retry-After until the bucket refills', async () => {
    const s = await start({ rateLimit: { burst: 3, refillSeconds: 60 } });
    const responses = new URL('responses', s.url).href;
    const post = async (localAddress?: string) =>
      raw(responses, { method: 'POST', body: JSON.stringify({ token: await surveyToken(s.url), ...answers() }), ...(localAddress ? { localAddress } : {}) });
    clock += 200_000;
    for (let i = 0; i < 3; i++) assert.equal((await post()).status, 201);
    const over = await post();
    assert.equal(over.status, 429);
    assert.equal(over.headers['retry-after'], '60');
    assert.equal(stored().length, 3, 'a refused submission writes nothing');
    // another address has a bucket of its own
    assert.equal((await post('127.0.0.2')).status, 201);
    clock += 30_000;
    assert.equal((await post()).headers['retry-after'], '30');
    clock += 30_000;
    assert.equal((await post()).status, 201, 'one submission more after one refill period');
    assert.equal((await post()).status, 429);
  });

  it('malformed submissions use up the bucket too (a flood of junk is limited like a flood of answers)', async () => {
    const s = await start({ rateLimit: { burst: 2, refillSeconds: 30 } });
    const responses = new URL('responses', s.url).href;
    assert.equal((await raw(responses, { method: 'POST', body: '{nope' })).status, 400);
    assert.equal((await raw(responses, { method: 'POST', body: '{nope' })).status, 400);
    assert.equal((await raw(responses, { method: 'POST', body: '{nope' })).status, 429);
  });
});

describe('survey server: time measured on the server', () => {
  it("stores the seconds between the page load and the submission by the server clock, the page's own figure apart", async () => {
    const s = await start();
    const token = await surveyToken(s.url);
    clock += 42_900;
    const r = await fetch(new URL('responses', s.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, ...answers(9999) }),
    });
    assert.equal(r.status, 201);
    assert.equal(((await r.json()) as { seconds: number }).seconds, 42);
    const [line] = stored();
    assert.equal(line!.seconds, 42, 'rounded down, so the minimum is never reached early');
    assert.equal(line!.clientSeconds, 9999);
  });

  it('a scripted response claiming a long time but sent 5 s after the page load is dropped as too fast by survey weights', async () => {
    const s = await start();
    const slow = await surveyToken(s.url);
    const fast = await surveyToken(s.url);
    clock += 5_000;
    const send = (token: string) =>
      fetch(new URL('responses', s.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, ...answers(600) }) });
    assert.equal((await send(fast)).status, 201);
    clock += 150_000;
    assert.equal((await send(slow)).status, 201);
    const report = surveyWeights(parseResponses(readFileSync(file, 'utf8')));
    assert.deepEqual(report.dropped, { too_fast: 1, invalid: 0 });
    assert.equal(report.personas.all!.respondents, 1);
  });

  it("refuses a missing, forged, reused, expired or another server's token, writing nothing for them", async () => {
    const s = await start();
    const other = await startSurveyServer({ port: 0, responses: join(tempDir(), 'other.jsonl') });
    const otherToken = await surveyToken(other.url);
    await other.close();
    const send = (body: object) =>
      fetch(new URL('responses', s.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const token = await surveyToken(s.url);
    const [id, issued, mac] = token.split('.') as [string, string, string];
    clock += 200_000;
    const refused = async (body: object, why: RegExp) => {
      const r = await send(body);
      assert.equal(r.status, 400);
      assert.match(((await r.json()) as { error: string }).error, why);
    };
    await refused(answers(), /no survey token/);
    await refused({ token: `${id}.${Number(issued) - 3_600_000}.${mac}`, ...answers() }, /not issued by this server/);
    await refused({ token: otherToken, ...answers() }, /not issued by this server/);
    // a submission refused for its answers leaves the token usable: the respondent corrects and sends again
    await refused({ token, ...answers(), persona: 'ceo' }, /persona/);
    assert.equal((await send({ token, ...answers() })).status, 201);
    await refused({ token, ...answers() }, /already submitted/);
    const late = await surveyToken(s.url);
    clock += 25 * 3600 * 1000;
    await refused({ token: late, ...answers() }, /expired/);
    assert.equal(stored().length, 1);
  });
});
