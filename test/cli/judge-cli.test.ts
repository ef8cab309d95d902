/** CLI: judge metrics in `webgrade score`, `webgrade checklist`, `webgrade judge-stability` (real local judge server). */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { findChrome } from '../../gather/chrome.js';
import { loadRequirements } from '../../core/requirements.js';
import { fixture, runCli, tempDir } from '../helpers.js';
import { refusedPort, startChatServer, type ChatServer, type Script } from '../judges/chat-server.js';
import { criteriaJson, verdictsJson } from '../judges/answers.js';

/** No judge in the environment, and a private answer cache. */
function env(): NodeJS.ProcessEnv {
  return {
    OPENAI_BASE_URL: undefined,
    OPENAI_API_KEY: undefined,
    WEBGRADE_JUDGE_MODEL: undefined,
    WEBGRADE_JUDGE_CONFIG: undefined,
    WEBGRADE_CACHE_DIR: tempDir(),
  };
}

const servers: ChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
async function server(script: Script): Promise<ChatServer> {
  const s = await startChatServer(script);
  servers.push(s);
  return s;
}

function reqFile(lines: unknown[]): string {
  const p = join(tempDir(), 'reqs.jsonl');
  writeFileSync(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return p;
}

const REQ = {
  id: 'ex',
  requirement: 'A small page with a greeting and a button.',
  checklist: { functional: ['The button does something on click', 'It shows a greeting'], visual: [], content: ['A heading'] },
};

/** Scripted judge: answers by what the prompt asks for. */
function judge(rec: { body: { messages: Array<{ content: unknown }> } }): { content: string } {
  const text = JSON.stringify(rec.body.messages);
  if (text.includes('functional checklist item')) return { content: verdictsJson(['F1', 'F2'], [true, false]) };
  if (text.includes('content checklist item')) return { content: verdictsJson(['C1'], [true]) };
  return { content: criteriaJson([7, 7, 7, 7, 7, 7, 7, 7, 7, 7]) };
}

describe('judge metrics through the CLI', () => {
  it('without any judge configured: exits 0 quickly with the metric n/a and a reason', async () => {
    const t0 = Date.now();
    const r = await runCli(['score', fixture('example'), '--only', 'functional-alignment', '--requirement-text', 'A page with a greeting', '--json'], {
      env: env(),
    });
    const ms = Date.now() - t0;
    assert.equal(r.code, 0, r.stderr);
    const m = JSON.parse(r.stdout).metrics[0];
    assert.equal(m.id, 'functional-alignment');
    assert.equal(m.score, null);
    assert.match(m.reason, /no functional checklist items/);
    assert.ok(ms < 15_000, `took ${ms} ms`);

    const r2 = await runCli(
      ['score', fixture('example'), '--only', 'functional-alignment,functionality-correctness', '--requirement', `${reqFile([REQ])}#ex`, '--json'],
      { env: env() },
    );
    assert.equal(r2.code, 0, r2.stderr);
    for (const m of JSON.parse(r2.stdout).metrics) {
      assert.equal(m.score, null);
      assert.match(m.reason, /^no judge configured/);
    }
  });

  it('scores with a judge endpoint from the flags, and a rerun is answered from the cache with the same scores', async () => {
    const s = await server(judge);
    const e = env();
    const args = [
      'score',
      fixture('example'),
      '--only',
      'functionality-correctness,functional-alignment,content-alignment',
      '--requirement',
      `${reqFile([REQ])}#ex`,
      '--judge-base-url',
      s.url,
      '--judge-model',
      'm1',
      '--json',
    ];
    const a = await runCli(args, { env: e });
    assert.equal(a.code, 0, a.stderr);
    const scores = (out: string) => Object.fromEntries(JSON.parse(out).metrics.map((m: { id: string; score: number | null }) => [m.id, m.score]));
    assert.deepEqual(scores(a.stdout), { 'functionality-correctness': 70, 'functional-alignment': 50, 'content-alignment': 100 });
    assert.equal(s.requests.length, 3);
    const b = await runCli(args, { env: e });
    assert.deepEqual(scores(b.stdout), scores(a.stdout));
    assert.equal(s.requests.length, 3, 'the rerun sent nothing');
    const usage = JSON.parse(b.stdout).metrics[0].details.usage;
    assert.equal(usage.cacheHits, 1);
  });

  it('visual judges receive the real desktop screenshot from the browser session', { skip: findChrome() ? false : 'no Chrome/Chromium' }, async () => {
    const s = await server((rec) =>
      JSON.stringify(rec.body.messages).includes('visual checklist item')
        ? { content: verdictsJson(['V1'], [true]) }
        : { content: JSON.stringify({ aesthetics: 2, hierarchy: 2, consistency: 2, fit: 2, score: 2, reason: 'plain' }) },
    );
    const reqs = reqFile([{ id: 'v', requirement: 'A styled page', checklist: { visual: ['Text is styled'] } }]);
    const r = await runCli(
      [
        'score',
        fixture('example'),
        '--only',
        'visual-experience,visual-alignment',
        '--requirement',
        `${reqs}#v`,
        '--judge-base-url',
        s.url,
        '--judge-model',
        'vision',
        '--json',
      ],
      { env: env() },
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.ok(Math.abs(doc.metrics.find((m: { id: string }) => m.id === 'visual-experience').score - 76.57) < 0.01);
    assert.equal(s.requests.length, 2);
    for (const q of s.requests) {
      const image = (q.body.messages[1].content as Array<{ type: string; image_url?: { url: string } }>).find((p) => p.type === 'image_url');
      assert.ok(image, 'the request carries an image');
      const png = Buffer.from(image.image_url!.url.replace(/^data:image\/png;base64,/, ''), 'base64');
      assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
      assert.ok(png.readUInt32BE(16) >= 800, `screenshot width ${png.readUInt32BE(16)}`);
    }
    assert.equal(doc.metrics.find((m: { id: string }) => m.id === 'visual-alignment').details.sourceOnly, false);
  });

  it('--judge-repeats 2 asks twice and reports both scores in details.repeats', async () => {
    const s = await server(judge);
    const r = await runCli(
      [
        'score',
        fixture('example'),
        '--only',
        'content-alignment',
        '--requirement',
        `${reqFile([REQ])}#ex`,
        '--judge-base-url',
        s.url,
        '--judge-model',
        'm1',
        '--judge-repeats',
        '2',
        '--json',
      ],
      { env: env() },
    );
    assert.equal(r.code, 0, r.stderr);
    const m = JSON.parse(r.stdout).metrics[0];
    assert.deepEqual(m.details.repeats, [100, 100]);
    assert.equal(s.requests.length, 2);
  });

  it('an unreachable judge makes the metric n/a with the reason and the run still exits 0', async () => {
    const port = await refusedPort();
    const r = await runCli(
      [
        'score',
        fixture('example'),
        '--only',
        'content-alignment',
        '--requirement',
        `${reqFile([REQ])}#ex`,
        '--judge-base-url',
        `http://127.0.0.1:${port}/v1`,
        '--judge-model',
        'm',
        '--json',
      ],
      { env: env() },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(JSON.parse(r.stdout).metrics[0].reason, /cannot reach judge endpoint/);
  });

  it('--alignment strict on score and on batch (passed to its workers) asks the strict prompt, and every output names the stance', async () => {
    const s = await server(judge);
    const e = { ...env(), OPENAI_BASE_URL: s.url, WEBGRADE_JUDGE_MODEL: 'm1', OPENAI_API_KEY: 'k' };
    const reqs = reqFile([{ ...REQ, labels: { style: 'plain' } }]);
    const stanceOf = (rec: { body: unknown }) => (/early stage of development/.test(JSON.stringify(rec.body)) ? 'study' : 'strict');
    // score: the study's stance by default, strict with the flag
    const byDefault = await runCli(['score', fixture('example'), '--only', 'functional-alignment', '--requirement', `${reqs}#ex`, '--json'], { env: e });
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.equal(JSON.parse(byDefault.stdout).metrics[0].details.stance, 'study');
    const strict = await runCli(['score', fixture('example'), '--only', 'functional-alignment', '--requirement', `${reqs}#ex`, '--alignment', 'strict'], {
      env: e,
    });
    assert.equal(strict.code, 0, strict.stderr);
    assert.match(strict.stdout.replace(/[\s│]+/g, ' '), /\[stance: strict\]/, 'the table says which stance');
    assert.deepEqual(s.requests.map(stanceOf), ['study', 'strict']);
    // batch: the workers take the stance from the parent's flag
    const runs = tempDir();
    for (const model of ['m-a', 'm-b']) {
      mkdirSync(join(runs, model));
      writeFileSync(join(runs, model, 'ex.html'), `${readFileSync(join(fixture('example'), 'index.html'), 'utf8')}\n<!-- ${model} -->\n`);
    }
    const out = join(tempDir(), 'results.jsonl');
    const b = await runCli(['batch', runs, '--requirements', reqs, '--only', 'functional-alignment', '--alignment', 'strict', '--out', out], { env: e });
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual(s.requests.slice(2).map(stanceOf), ['strict', 'strict']);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      rows.map((r) => r.metrics[0].details.stance),
      ['strict', 'strict'],
    );
    const lb = await runCli(['leaderboard', out, '--json'], { env: e });
    assert.equal(lb.code, 0, lb.stderr);
    const doc = JSON.parse(lb.stdout);
    assert.deepEqual(doc.alignmentStances, { strict: 2 });
    assert.ok(
      doc.notes.some((n: string) => /alignment judged under the strict stance \(2 results\)/.test(n)),
      doc.notes.join('\n'),
    );
  });

  it('a broken judge config file is bad input: one line, exit 2', async () => {
    const cfg = join(tempDir(), 'j.json');
    writeFileSync(cfg, '{"baseURL": "http://x/v1", "timeoutSecs": 3}');
    const r = await runCli(['score', fixture('example'), '--only', 'content-alignment', '--judge-config', cfg], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown key "timeoutSecs"/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });
});

describe('webgrade checklist', () => {
  it('derives checklists for requirements without one and keeps the others unchanged', async () => {
    const s = await server(() => ({
      content: JSON.stringify({ functional: ['Adding a task appends it to the list'], visual: ['Dark background'], content: [] }),
    }));
    const input = reqFile([{ id: 'a', requirement: 'A todo app with a dark theme', labels: { category: 'tools' } }, REQ]);
    const out = join(tempDir(), 'out.jsonl');
    const r = await runCli(['checklist', input, '--out', out, '--judge-base-url', s.url, '--judge-model', 'm1'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /1 derived, 1 kept, 0 failed/);
    const reqs = loadRequirements(out);
    assert.deepEqual(reqs[0]!.checklist, { functional: ['Adding a task appends it to the list'], visual: ['Dark background'], content: [] });
    assert.equal(reqs[0]!.labels?.category, 'tools');
    assert.deepEqual(reqs[1], { ...REQ });
    assert.equal(JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!).checklistSource.model, 'm1');
    assert.equal(s.requests.length, 1);
  });

  it('without a judge configured it is bad input (exit 2, one line)', async () => {
    const r = await runCli(['checklist', reqFile([{ id: 'a', requirement: 'x' }])], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no judge configured/);
  });
});

describe('webgrade judge-stability', () => {
  it('prints the per-metric test and the verdict', async () => {
    const rows: unknown[] = [];
    for (const [model, level] of [
      ['a', 20],
      ['b', 60],
      ['c', 90],
    ] as const) {
      for (let q = 0; q < 5; q++) {
        const base = level + q;
        rows.push({ model, requirement: `q${q}`, metrics: [{ id: 'content-alignment', score: base, details: { repeats: [base - 1, base, base + 1] } }] });
      }
    }
    const p = join(tempDir(), 'results.jsonl');
    writeFileSync(p, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = await runCli(['judge-stability', p], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /content-alignment/);
    assert.match(r.stdout, /verdict: stable/);
    const j = await runCli(['judge-stability', p, '--json'], { env: env() });
    const doc = JSON.parse(j.stdout);
    assert.equal(doc.verdict, 'stable');
    assert.equal(doc.metrics[0].runToRun.n, 15);
    assert.equal(doc.metrics[0].acrossModel.n, 5);
  });

  it('names the bad line of a results file', async () => {
    const p = join(tempDir(), 'results.jsonl');
    writeFileSync(p, '{"model":"a","requirement":"q","metrics":[]}\nnot json\n');
    const r = await runCli(['judge-stability', p], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /results\.jsonl:2: not valid JSON/);
  });
});
