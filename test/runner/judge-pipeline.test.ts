/**
 * `batch` with judges as a two-stage pipeline (distribute/worker-pool.ts, distribute/judge-stage.ts): real browser
 * workers, judges answered by a real local chat-completions server (test/judges/protocol-judge.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runBatch, type BatchJob } from '../../distribute/batch.js';
import { Scorer } from '../../runner/score.js';
import { parseResults } from '../../store/results-file.js';
import type { ResultRow } from '../../core/results.js';
import type { Requirement } from '../../core/requirements.js';
import { cliPath, fixture, killOwnChildren, ownChild, tempDir } from '../helpers.js';
import { testSettings } from '../judges/answers.js';
import { startProtocolJudge } from '../judges/protocol-judge.js';
import type { ChatServer } from '../judges/chat-server.js';

const JUDGES = ['functionality-correctness', 'visual-experience', 'functional-alignment', 'visual-alignment', 'content-alignment'];
const PAGES = ['icons-consistent', 'no-dead-css', 'hover-css'];

const servers: ChatServer[] = [];
after(async () => {
  killOwnChildren();
  await Promise.all(servers.map((s) => s.close()));
});

async function judge(opts: Parameters<typeof startProtocolJudge>[0] = {}): Promise<ChatServer> {
  const s = await startProtocolJudge(opts);
  servers.push(s);
  return s;
}

function runsOf(pages: readonly string[]): { dir: string; jobs: BatchJob[]; reqs: Requirement[] } {
  const dir = tempDir('webgrade-pipeline-');
  mkdirSync(join(dir, 'm'));
  const jobs: BatchJob[] = [];
  for (const p of pages) {
    copyFileSync(fixture('browser', `${p}.html`), join(dir, 'm', `${p}.html`));
    jobs.push({ model: 'm', requirement: p, path: join(dir, 'm', `${p}.html`) });
  }
  const reqs = pages.map((id) => ({
    id,
    requirement: `A page called ${id}`,
    checklist: { functional: ['It shows icons', 'It reacts'], visual: ['A tidy layout'], content: ['A heading'] },
  }));
  return { dir, jobs, reqs };
}

const rowsOf = (out: string): ResultRow[] => parseResults(readFileSync(out)).rows;
const judgeScores = (rows: ResultRow[]) => rows.map((r) => r.metrics.filter((m) => m.kind === 'judge').map((m) => [r.requirement, m.id, m.score]));

describe('batch: browser and judge stages as a pipeline', () => {
  it('the browser never waits for judges: every page reaches the judges before any judge answers', async () => {
    // The server answers nothing until it holds all 15 calls (3 pages × 5 judges): a batch whose browser waited
    // for a page's judges before the next page would never get there.
    const server = await judge({ holdUntilRequests: PAGES.length * JUDGES.length });
    const { jobs, reqs } = runsOf(PAGES);
    const out = join(tempDir(), 'r.jsonl');
    const s = await runBatch(jobs, {
      out,
      concurrency: 1,
      budgetMs: 60_000,
      only: JUDGES,
      requirements: reqs,
      judge: testSettings(server.url, { concurrency: 16, timeoutMs: 120_000 }),
    });
    assert.equal(s.scored, 3);
    assert.equal(server.requests.length, 15);
    assert.ok(server.maxInFlight >= 15, `all calls were in flight together (max ${server.maxInFlight})`);
    const rows = rowsOf(out);
    for (const r of rows) {
      for (const m of r.metrics) assert.notEqual(m.score, null, `${r.requirement} ${m.id}: ${m.reason}`);
      assert.deepEqual(r.judgeCost, { calls: 5, cacheHits: 0, promptTokens: 5000, completionTokens: 1000, costUsd: null });
      const pin = (r.metrics[0]!.details as { pin: Record<string, unknown> }).pin;
      assert.deepEqual(pin.served, ['judge-test']);
      assert.equal(pin.asked, 'judge-test');
      assert.match(String(pin.host), /^127\.0\.0\.1:\d+$/);
      assert.equal(pin.promptVersion, 'functionality-correctness/1');
    }
    assert.equal(existsSync(`${out}.pending`), false, 'the pending-evidence folder is gone once every row is written');
    assert.deepEqual(s.judgeWarnings, []);
  });

  it('warns when the provider serves another model; a second run is served from the cache with identical scores', async () => {
    const server = await judge({ served: 'judge-test-2026-01', systemFingerprint: 'fp_1' });
    const cacheDir = tempDir();
    const { jobs, reqs } = runsOf(PAGES.slice(0, 2));
    const settings = testSettings(server.url, { concurrency: 16, cacheDir });
    const out1 = join(tempDir(), 'a.jsonl');
    const s1 = await runBatch(jobs, { out: out1, concurrency: 1, budgetMs: 60_000, only: JUDGES, requirements: reqs, judge: settings });
    assert.equal(s1.scored, 2);
    assert.deepEqual(
      s1.judgeWarnings.map((w) => w.split(' (')[0]).sort(),
      JUDGES.map((id) => `judge model: ${id} asked for judge-test, the provider served judge-test-2026-01`).sort(),
    );
    const asked = server.requests.length;
    const out2 = join(tempDir(), 'b.jsonl');
    const s2 = await runBatch(jobs, { out: out2, concurrency: 1, budgetMs: 60_000, only: JUDGES, requirements: reqs, judge: settings });
    assert.equal(server.requests.length, asked, 'no judge call on the second run');
    assert.deepEqual(judgeScores(rowsOf(out2)), judgeScores(rowsOf(out1)));
    const r = rowsOf(out2)[0]!;
    assert.deepEqual({ calls: r.judgeCost!.calls, cacheHits: r.judgeCost!.cacheHits }, { calls: 0, cacheHits: 5 });
    const pin = (r.metrics[0]!.details as { pin: { served: string[]; systemFingerprints: string[] } }).pin;
    assert.deepEqual([pin.served, pin.systemFingerprints], [['judge-test-2026-01'], ['fp_1']], 'a cached answer still says what served it');
    assert.equal(s2.judgeWarnings.length, JUDGES.length);
  });

  it('the judge budget stops new calls: later judge metrics are unscorable saying so, the rest is scored', async () => {
    const server = await judge();
    const { jobs, reqs } = runsOf(PAGES.slice(0, 2));
    const out = join(tempDir(), 'r.jsonl');
    // 1000 prompt + 200 completion tokens a call at $1/$1 per million: $0.0012 a call; the budget is reached by the first.
    const settings = testSettings(server.url, { concurrency: 16, prices: { 'judge-test': { input: 1, output: 1 } } });
    const s = await runBatch(jobs, {
      out,
      concurrency: 1,
      budgetMs: 60_000,
      only: [...JUDGES, 'comment-rate'],
      requirements: reqs,
      judge: settings,
      judgeBudgetUsd: 0.001,
    });
    assert.equal(s.scored, 2);
    const last = rowsOf(out).find((r) => r.requirement === jobs[1]!.requirement)!;
    for (const m of last.metrics.filter((x) => x.kind === 'judge')) assert.match(m.reason ?? '', /judge budget of \$0\.001 reached/);
    assert.notEqual(last.metrics.find((m) => m.id === 'comment-rate')!.score, null, 'the rule metrics are scored as always');
    assert.ok(s.stages!.judges!.refusedCalls >= 5);
    assert.ok(s.stages!.judges!.costUsd > 0.001 - 1e-9);
  });

  it('a run killed while judges were in flight redoes only the judges, from the saved evidence', async () => {
    const hanging = await judge({ holdUntilRequests: 1_000_000 });
    const { dir, jobs, reqs } = runsOf(PAGES.slice(0, 1));
    const work = tempDir();
    const out = join(work, 'r.jsonl');
    const reqFile = join(work, 'reqs.jsonl');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(reqFile, reqs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const env = { ...process.env, OPENAI_BASE_URL: hanging.url, OPENAI_API_KEY: 'k', WEBGRADE_JUDGE_MODEL: 'judge-test', WEBGRADE_CACHE_DIR: tempDir() };
    const child = ownChild(
      spawn(process.execPath, [cliPath, 'batch', dir, '--out', out, '--requirements', reqFile, '--only', JUDGES.join(',')], { env, stdio: 'ignore' }),
    );
    const pending = `${out}.pending`;
    const deadline = Date.now() + 120_000;
    while (!(existsSync(pending) && readdirSync(pending).some((f) => f.endsWith('.json')))) {
      assert.ok(Date.now() < deadline, 'the browser work was saved as pending evidence');
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.equal(existsSync(out) ? rowsOf(out).length : 0, 0, 'no row yet: its judges were in flight');
    const server = await judge();
    let chromes = 0;
    const s = await runBatch(jobs, {
      out,
      concurrency: 1,
      budgetMs: 60_000,
      only: JUDGES,
      requirements: reqs,
      judge: testSettings(server.url),
      onChromeLaunch: () => chromes++,
    });
    assert.equal(s.scored, 1);
    assert.equal(chromes, 0, 'no browser work was redone');
    const [row] = rowsOf(out);
    for (const m of row!.metrics) assert.notEqual(m.score, null, `${m.id}: ${m.reason}`);
    assert.ok(
      server.requests.some((r) => JSON.stringify(r.body).includes('image_url')),
      'the visual judges saw the saved screenshot',
    );
    assert.equal(existsSync(pending), false);
  });
});

describe('score: the source-only judges start before the browser', () => {
  it('with room for three calls, the three judges that read only the source are the first asked', async () => {
    const server = await judge();
    const { jobs, reqs } = runsOf(PAGES.slice(0, 1));
    const scorer = new Scorer({ only: JUDGES, judge: testSettings(server.url, { concurrency: 3, timeoutMs: 120_000 }) });
    try {
      const doc = await scorer.score(jobs[0]!.path, { requirement: reqs[0]! });
      for (const m of doc.metrics) assert.notEqual(m.score, null, `${m.id}: ${m.reason}`);
      assert.equal(doc.judgeCost?.calls, 5);
    } finally {
      await scorer.close();
    }
    const names = server.requests.map((r) => r.body.response_format?.json_schema?.name as string);
    assert.deepEqual(names.slice(0, 3).sort(), ['content_verdicts', 'functional_verdicts', 'functionality_ratings']);
    assert.deepEqual(names.slice(3).sort(), ['visual_rating', 'visual_verdicts']);
  });
});
