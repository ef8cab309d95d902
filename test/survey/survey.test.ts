import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STUDY_PERSPECTIVES as PERSPECTIVES } from '../../core/metric.js';
import { bordaPoints, bordaWeights, toPercent1 } from '../../weights/borda.js';
import { loadWeightsFile } from '../../weights/weights-file.js';
import { metricsOf, rankedMetricPerspectives } from '../../survey/catalogue.js';

const RANKED_METRIC_PERSPECTIVES = rankedMetricPerspectives();
import { parseResponses, surveyWeights } from '../../survey/weights.js';
import { startSurveyServer, type SurveyServer } from '../../survey/server.js';
import { launchBrowser } from '../../gather/chrome.js';
import { runCli, tempDir } from '../helpers.js';
import { surveyToken } from './survey-helpers.js';

/** Two rankings that reproduce SPEC's Designer column exactly (found by exhaustive search over permutations). */
const DESIGNER_A = [
  'visual-alignment',
  'visual',
  'functional-alignment',
  'content-alignment',
  'maintainability',
  'performance',
  'content',
  'accessibility',
  'code',
];
const DESIGNER_B = [
  'visual',
  'accessibility',
  'functional-alignment',
  'visual-alignment',
  'code',
  'content',
  'content-alignment',
  'performance',
  'maintainability',
];
const SPEC_DESIGNER: Record<string, number> = {
  code: 5.6,
  visual: 20.8,
  content: 6.9,
  performance: 5.6,
  accessibility: 11.1,
  maintainability: 5.6,
  'functional-alignment': 16.7,
  'visual-alignment': 18.1,
  'content-alignment': 9.7,
};

function metricRankings(reverse = false): Record<string, string[]> {
  return Object.fromEntries(
    RANKED_METRIC_PERSPECTIVES.map((p) => {
      const ids = metricsOf(p).map((m) => m.id);
      return [p, reverse ? ids.reverse() : ids];
    }),
  );
}
const submission = (persona: string, perspectives: string[], seconds = 300, reverse = false) => ({
  persona,
  seconds,
  perspectives,
  metrics: metricRankings(reverse),
});
const line = (respondent: string, s: object) => JSON.stringify({ respondent, ...s });

describe('Borda count', () => {
  it('gives place p of n the points n − p: first n − 1, last 0', () => {
    assert.deepEqual(
      [...bordaPoints(['a', 'b', 'c'])],
      [
        ['a', 2],
        ['b', 1],
        ['c', 0],
      ],
    );
  });

  it('weights = points ÷ all points: [a,b,c] and [b,a,c] give a 3/6, b 3/6, c 0', () => {
    assert.deepEqual(
      bordaWeights(
        ['a', 'b', 'c'],
        [
          ['a', 'b', 'c'],
          ['b', 'a', 'c'],
        ],
      ),
      { a: 0.5, b: 0.5, c: 0 },
    );
  });

  it('three rankings of four items, by hand: points a 3+0+2, b 2+3+3, c 1+2+0, d 0+1+1 over 18', () => {
    const w = bordaWeights(
      ['a', 'b', 'c', 'd'],
      [
        ['a', 'b', 'c', 'd'],
        ['b', 'c', 'd', 'a'],
        ['b', 'a', 'd', 'c'],
      ],
    )!;
    assert.deepEqual(w, { a: 5 / 18, b: 8 / 18, c: 3 / 18, d: 2 / 18 });
  });

  it('gives no weights without points (no rankings, or one-item rankings)', () => {
    assert.equal(bordaWeights(['a'], [['a']]), null);
    assert.equal(bordaWeights(['a', 'b'], []), null);
  });

  it("reproduces SPEC's Designer column from two rankings", () => {
    const w = bordaWeights(PERSPECTIVES, [DESIGNER_A, DESIGNER_B])!;
    for (const p of PERSPECTIVES) assert.equal(toPercent1(w[p]!), SPEC_DESIGNER[p], p);
  });
});

describe('survey weights from responses', () => {
  it('drops responses under the minimum time and invalid lines, counting both and naming the lines', () => {
    const text = [
      line('r1', submission('designer', DESIGNER_A)),
      line('r2', submission('designer', DESIGNER_B)),
      line('r3', submission('dev', [...PERSPECTIVES], 30)),
      '{not json',
      line('r5', { ...submission('dev', [...PERSPECTIVES]), persona: 'all' }),
      '',
      line('r6', { ...submission('qa', [...PERSPECTIVES]), perspectives: PERSPECTIVES.slice(1) }),
    ].join('\n');
    const report = surveyWeights(parseResponses(text), 120);
    assert.deepEqual(report.dropped, { too_fast: 1, invalid: 3 });
    assert.deepEqual(
      report.invalidLines.map((l) => l.line),
      [4, 5, 7],
    );
    assert.deepEqual(Object.keys(report.personas).sort(), ['all', 'designer']);
    assert.equal(report.personas.designer!.respondents, 2);
    for (const p of PERSPECTIVES) assert.equal(toPercent1(report.personas.designer!.perspectives[p]!), SPEC_DESIGNER[p]);
  });

  it('metric shares come from the metric rankings; one-metric perspectives give their metric 1', () => {
    const text = [line('a', submission('dev', [...PERSPECTIVES])), line('b', submission('dev', [...PERSPECTIVES]))].join('\n');
    const w = surveyWeights(parseResponses(text)).personas.dev!;
    // code has 5 metrics ranked in catalogue order by both: points 4,3,2,1,0 → shares 0.4, 0.3, 0.2, 0.1, 0
    const code = metricsOf('code').map((m) => m.id);
    assert.deepEqual(
      code.map((id) => w.shares![id]),
      [0.4, 0.3, 0.2, 0.1, 0],
    );
    assert.equal(w.shares!['performance'], 1);
    assert.equal(w.shares!['functional-alignment'], 1);
  });

  it('metrics holds the final weights (perspective weight × share), summing to 1 over the 24 (SPEC)', () => {
    const text = [line('a', submission('dev', [...PERSPECTIVES])), line('b', submission('dev', [...PERSPECTIVES]))].join('\n');
    const w = surveyWeights(parseResponses(text)).personas.dev!;
    assert.equal(Object.keys(w.metrics).length, 24);
    assert.ok(Math.abs(Object.values(w.metrics).reduce((a, b) => a + b, 0) - 1) < 1e-12);
    for (const id of metricsOf('code').map((m) => m.id)) assert.ok(Math.abs(w.metrics[id]! - w.perspectives.code! * w.shares![id]!) < 1e-12, id);
    assert.equal(w.metrics.performance, w.perspectives.performance);
  });

  it('a response without a metric ranking for a perspective leaves its shares out (equal for readers)', () => {
    const s = submission('pm', [...PERSPECTIVES]);
    const { visual: _drop, ...metrics } = s.metrics;
    const w = surveyWeights(parseResponses(line('x', { ...s, metrics }))).personas.pm!;
    assert.equal(w.shares!['layout-sparsity'], undefined);
    assert.ok(w.shares!['lint'] !== undefined);
    // Its final weight splits the perspective equally (6 visual metrics).
    assert.ok(Math.abs(w.metrics['layout-sparsity']! - w.perspectives.visual! / 6) < 1e-12);
  });
});

describe('webgrade survey weights (CLI)', () => {
  it("prints a persona table, writes a weights file the leaderboard reads, and --json prints SPEC's document", async () => {
    const dir = tempDir();
    const responses = join(dir, 'responses.jsonl');
    writeFileSync(
      responses,
      [line('a', submission('designer', DESIGNER_A)), line('b', submission('designer', DESIGNER_B)), line('c', submission('dev', [...PERSPECTIVES], 10))].join(
        '\n',
      ) + '\n',
    );
    const out = join(dir, 'weights.json');
    const r = await runCli(['survey', 'weights', responses, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /designer \(n=2\)/);
    assert.match(r.stdout, /visual\s*│\s*20\.8/);
    assert.match(r.stdout, /dropped 1 faster than 120 s and 0 invalid/);
    const loaded = loadWeightsFile(out);
    assert.ok(Math.abs(loaded.personas.designer!.perspectives.visual! - 15 / 72) < 1e-12);
    const j = await runCli(['survey', 'weights', responses, '--json', '--min-seconds', '5']);
    const doc = JSON.parse(j.stdout);
    assert.deepEqual(Object.keys(doc).sort(), ['dropped', 'personas']);
    assert.deepEqual(doc.dropped, { too_fast: 0, invalid: 0 });
    assert.equal(doc.personas.all.respondents, 3);
  });

  it('a file with no usable response is bad input: one line, exit 2', async () => {
    const responses = join(tempDir(), 'r.jsonl');
    writeFileSync(responses, '{oops\n');
    const r = await runCli(['survey', 'weights', responses]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no usable response.*line 1: not valid JSON/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });
});

describe('survey server', () => {
  let server: SurveyServer;
  let file: string;
  let clock = Date.now();
  before(async () => {
    file = join(tempDir(), 'responses.jsonl');
    // 50 concurrent submissions from one address: a burst that large is allowed here (the limit has tests of its own)
    server = await startSurveyServer({ port: 0, responses: file, rateLimit: { burst: 100, refillSeconds: 30 }, now: () => clock });
  });
  after(async () => server.close());

  const post = (body: string, type = 'application/json') =>
    fetch(new URL('responses', server.url), { method: 'POST', headers: { 'content-type': type }, body });
  const withToken = async (s: object) => JSON.stringify({ token: await surveyToken(server.url), ...s });
  const lines = () => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };

  it('rejects malformed requests and writes nothing', async () => {
    const cases: Array<[Promise<Response>, number]> = [
      [post('{nope'), 400],
      [post(await withToken({ ...submission('dev', [...PERSPECTIVES]), extra: 1 })), 400],
      [post(await withToken(submission('ceo', [...PERSPECTIVES]))), 400],
      [post(await withToken({ ...submission('dev', [...PERSPECTIVES]), perspectives: ['code', 'code'] })), 400],
      [post(JSON.stringify(submission('dev', [...PERSPECTIVES]))), 400],
      [post('x'.repeat(70 * 1024)), 413],
      [post(await withToken(submission('dev', [...PERSPECTIVES])), 'text/plain'), 415],
      [fetch(new URL('responses', server.url)), 405],
      [fetch(new URL('nothing', server.url)), 404],
    ];
    for (const [res, status] of cases) assert.equal((await res).status, status);
    assert.deepEqual(lines(), []);
  });

  it('stores 50 concurrent submissions intact, one line each with a distinct respondent', async () => {
    const sent = Array.from({ length: 50 }, (_, i) => submission(i % 2 ? 'qa' : 'ops', [...PERSPECTIVES].reverse(), 200 + i, i % 3 === 0));
    const bodies = await Promise.all(sent.map((s) => withToken(s)));
    clock += 150_000; // the respondents took 150 s by the server's clock
    const res = await Promise.all(bodies.map((b) => post(b)));
    assert.deepEqual(
      res.map((r) => r.status),
      Array(50).fill(201),
    );
    const stored = lines().map((l) => JSON.parse(l));
    assert.equal(stored.length, 50);
    assert.equal(new Set(stored.map((s) => s.respondent)).size, 50);
    assert.deepEqual(
      stored.map((s) => s.seconds),
      Array(50).fill(150),
    );
    assert.deepEqual(
      stored.map((s) => s.clientSeconds).sort((a, b) => a - b),
      sent.map((s) => s.seconds),
    );
    const report = surveyWeights(parseResponses(readFileSync(file, 'utf8')));
    assert.deepEqual(report.dropped, { too_fast: 0, invalid: 0 });
  });
});

describe('survey page in real headless Chromium', () => {
  it('is filled by keyboard only, submitted, stored, and turned into weights', async () => {
    const file = join(tempDir(), 'responses.jsonl');
    const server = await startSurveyServer({ port: 0, responses: file });
    const chrome = await launchBrowser();
    try {
      const page = await chrome.browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(server.url);
      // Role: Tab to the first radio, arrow keys to "Designer" (7th role).
      await page.keyboard.press('Tab');
      const focusedRole = await page.evaluate(() => (document.activeElement as HTMLInputElement).value);
      assert.equal(focusedRole, 'dev');
      for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => (document.querySelector('input[name=role]:checked') as HTMLInputElement).value), 'designer');
      // Perspectives: Tab moves from the radio group into the list.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.parentElement?.id), 'perspectives');
      const start = await page.evaluate(() => [...document.querySelectorAll('#perspectives li')].map((li) => (li as HTMLElement).dataset.id));
      // Tab order: the focused first item, its two move buttons, then the next item; move the last item to the top.
      const last = start[8]!;
      await page.focus(`#perspectives li[data-id="${last}"]`);
      for (let i = 0; i < 8; i++) (await page.keyboard.down('Alt'), await page.keyboard.press('ArrowUp'), await page.keyboard.up('Alt'));
      const order = await page.evaluate(() => [...document.querySelectorAll('#perspectives li')].map((li) => (li as HTMLElement).dataset.id));
      assert.equal(order[0], last);
      assert.deepEqual(order.slice(1), start.slice(0, 8));
      assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.id), last, 'focus follows the moved item');
      assert.match(await page.$eval('#announce', (e) => e.textContent ?? ''), /moved to position 1 of 9/);
      // Submit with Enter on the submit button, reached by keyboard focus.
      await page.focus('button[type=submit]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#thanks:not([hidden])', { timeout: 10_000 });
      const stored = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(stored.length, 1);
      assert.equal(stored[0].persona, 'designer');
      assert.equal(stored[0].perspectives[0], last);
      assert.deepEqual(Object.keys(stored[0].metrics).sort(), [...RANKED_METRIC_PERSPECTIVES].sort());
      assert.deepEqual(errors, []);
      // The page's lists start shuffled: a second load differs in some order (9! orders; retry a few times).
      let differs = false;
      for (let i = 0; i < 5 && !differs; i++) {
        await page.reload();
        const again = await page.evaluate(() => [...document.querySelectorAll('#perspectives li')].map((li) => (li as HTMLElement).dataset.id).join());
        differs = again !== start.join();
      }
      assert.ok(differs);
      const report = surveyWeights(parseResponses(readFileSync(file, 'utf8')), 0);
      assert.equal(report.personas.designer!.respondents, 1);
      assert.equal(report.personas.designer!.perspectives[last], 8 / 36);
    } finally {
      await chrome.close();
      await server.close();
    }
  });
});
