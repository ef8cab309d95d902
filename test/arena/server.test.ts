/** The arena server's care, without a browser: names, tokens, limits, bodies, stale pairs, undo, escaping. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCatalogue } from '../../arena/catalogue.js';
import { startArena, type ArenaServer } from '../../arena/server.js';
import { mulberry32 } from '../../weights/bootstrap.js';
import { goodPage, writeResults } from './fixtures.js';
import { raw } from './http.js';

describe('the arena server', () => {
  let server: ArenaServer;
  let out: string;
  let token: string;
  let clock = 0;
  before(async () => {
    const w = await writeResults({
      'secret-model-x': { r1: goodPage('x', 'r1'), r2: goodPage('x', 'r2') },
      'secret-model-y': { r1: goodPage('y', 'r1'), r2: goodPage('y', 'r2') },
    });
    out = join(w.dir, 'votes.jsonl');
    server = await startArena({
      catalogue: readCatalogue(w.results, w.requirements),
      out,
      raters: ['ann'],
      rand: mulberry32(9),
      voteLimit: { burst: 6, refillSeconds: 60 },
      now: () => clock,
    });
    token = new URL(server.links.get('ann')!).searchParams.get('t')!;
  });
  after(() => server.close());

  const page = () => raw(`${server.url}?t=${token}`);
  const post = (path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    raw(server.url + path.slice(1), { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const pairOf = (html: string) => /<meta name="arena-pair" content="([^"]+)">/.exec(html)![1]!;

  it('answers only requests that name it (DNS rebinding gets 421)', async () => {
    assert.equal((await raw(`${server.url}?t=${token}`, { headers: { host: 'evil.example' } })).status, 421);
    assert.equal((await raw(`${server.url}healthz`, { headers: { host: `localhost:${server.port}` } })).status, 200);
  });

  it('needs a rater token for everything but its health', async () => {
    assert.equal((await raw(server.url)).status, 403);
    assert.equal((await raw(`${server.url}?t=forged`)).status, 403);
    assert.equal((await post('/vote', { t: 'forged', pair: 'p', choice: 'left' })).status, 403);
    assert.equal((await raw(`${server.url}shot/abc/left?t=forged`)).status, 403);
    assert.equal((await raw(`${server.url}elsewhere?t=${token}`)).status, 404);
  });

  it('sends a page whose policy frames only its two artifact origins, escapes the requirement and never names a model', async () => {
    const r = await page();
    assert.equal(r.status, 200);
    const csp = String(r.headers['content-security-policy']);
    const frames = /frame-src ([^;]+)/.exec(csp)![1]!.split(' ');
    assert.equal(frames.length, 2);
    for (const f of frames) assert.match(f, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'nonce-[^']+'/);
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.ok(r.body.includes('Build the &lt;b&gt;r'), 'escaped');
    assert.ok(!r.body.includes('<b>r'));
    assert.ok(!r.body.includes('secret-model'), 'votes are blind');
    assert.ok(!/addEventListener\(['"]message/.test(r.body), 'the page takes no messages');
    assert.equal(pairOf((await page()).body), pairOf(r.body), 'a reload shows the same pair');
  });

  it('refuses bodies that are not small JSON objects, and votes on a pair that is not shown', async () => {
    const pair = pairOf((await page()).body);
    assert.equal((await post('/vote', { t: token, pair, choice: 'left' }, { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await post('/vote', 'x'.repeat(5000))).status, 413);
    assert.equal((await post('/vote', '{"t":')).status, 400);
    assert.equal((await post('/vote', { t: token, pair, choice: 'up' })).status, 400);
    assert.equal((await post('/vote', { t: token, pair: 'old-pair', choice: 'left' })).status, 409);
    assert.equal((await raw(`${server.url}vote`)).status, 405);
    assert.equal(readFileSync(out, 'utf8'), '', 'nothing refused was written');
  });

  it('writes a vote with the models the server showed, undoes it, and limits votes per address', async () => {
    clock += 3600_000; // the address's bucket full again (6 at once, one more a minute)
    const pair = pairOf((await page()).body);
    const v = await post('/vote', { t: token, pair, choice: 'right' });
    assert.equal(v.status, 201);
    assert.deepEqual(JSON.parse(v.body), { ok: true, votes: 1 });
    const line = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(line).sort(), ['id', 'model_a', 'model_b', 'position', 'rater', 'requirement', 'time', 'winner']);
    assert.equal(line.winner, line.position === 'right' ? 'a' : 'b', 'the right-hand page won');
    assert.equal(line.time, new Date(clock).toISOString(), "the server's clock");
    assert.equal((await post('/vote', { t: token, pair, choice: 'right' })).status, 409, 'the same vote twice');
    assert.equal((await post('/undo', { t: token })).status, 200);
    assert.equal(readFileSync(out, 'utf8'), '');
    assert.equal((await post('/undo', { t: token })).status, 409, 'nothing left to undo');
    // Four POSTs of the burst of 6 so far: two more, then refused until the bucket refills.
    for (let k = 0; k < 2; k++) assert.equal((await post('/undo', { t: token })).status, 409);
    const limited = await post('/undo', { t: token });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    clock += 60_000;
    assert.equal((await post('/undo', { t: token })).status, 409);
  });
});

describe('several raters on one arena at once', () => {
  it('gives each their own pair and token, writes their votes side by side, and undoes only their own', async () => {
    const pages: Record<string, Record<string, Record<string, string>>> = {};
    for (const m of ['m1', 'm2', 'm3']) pages[m] = { r1: goodPage(m, 'r1'), r2: goodPage(m, 'r2') };
    const w = await writeResults(pages);
    const out = join(w.dir, 'votes.jsonl');
    const raters = ['ann', 'bo', 'cy'];
    const server = await startArena({ catalogue: readCatalogue(w.results, w.requirements), out, raters, rand: mulberry32(5) });
    try {
      const tokens = raters.map((r) => new URL(server.links.get(r)!).searchParams.get('t')!);
      assert.equal(new Set(tokens).size, 3, 'a token each');
      const vote = (t: string, pair: string, choice: string) =>
        raw(`${server.url}vote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t, pair, choice }) });
      const undo = (t: string) => raw(`${server.url}undo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t }) });
      const pairOf = (html: string) => /<meta name="arena-pair" content="([^"]+)">/.exec(html)![1]!;

      // Three people open their links at the same moment, and vote at the same moment.
      const loaded = await Promise.all(tokens.map((t) => raw(`${server.url}?t=${t}`)));
      assert.deepEqual(
        loaded.map((r) => r.status),
        [200, 200, 200],
      );
      const shown = loaded.map((r) => pairOf(r.body));
      assert.equal(new Set(shown).size, 3, 'each their own pair');
      assert.equal((await vote(tokens[1]!, shown[0]!, 'left')).status, 409, "bo cannot vote on ann's pair");
      const voted = await Promise.all(tokens.map((t, i) => vote(t, shown[i]!, ['left', 'right', 'tie'][i]!)));
      assert.deepEqual(
        voted.map((r) => [r.status, JSON.parse(r.body)]),
        [0, 1, 2].map(() => [201, { ok: true, votes: 1 }]),
      );
      const lines = () =>
        readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, string>);
      assert.deepEqual(
        lines()
          .map((l) => l.rater)
          .sort(),
        raters,
        'three whole lines, one per rater',
      );
      assert.equal(lines().find((l) => l.rater === 'cy')!.winner, 'tie');

      // ann's undo takes back ann's vote only.
      assert.equal((await undo(tokens[0]!)).status, 200);
      assert.deepEqual(
        lines()
          .map((l) => l.rater)
          .sort(),
        ['bo', 'cy'],
      );
      assert.equal((await undo(tokens[0]!)).status, 409, 'nothing more of ann to undo');
      assert.equal(server.votes(), 2);
    } finally {
      await server.close();
    }
  });
});
