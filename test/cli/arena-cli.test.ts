/**
 * `webgrade arena` through the built CLI (no browser: the page and votes over HTTP), and its votes file read as
 * it is by `leaderboard --pairs`, `analyse --pairs` and `weights fit --pairs`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { LeaderboardDoc } from '../../weights/leaderboard.js';
import { cliPath, runCli, tempDir } from '../helpers.js';
import { LOCK_STALE_MS } from '../../arena/votes.js';
import { goodPage, writeResults } from '../arena/fixtures.js';
import { row } from '../weights/synthetic.js';

/** Pages of three models of increasing lint on twelve requirements, and an arena's votes that follow lint. */
function rankedSet(): { results: string; votes: string } {
  const dir = tempDir();
  const lint: Record<string, number> = { good: 80, mid: 60, poor: 40 };
  const rows = Object.entries(lint).flatMap(([m, l]) =>
    Array.from({ length: 12 }, (_, r) => row(m, `r${r}`, { lint: l + (r % 5), 'comment-rate': 50 + ((r * 7) % 11) })),
  );
  const results = join(dir, 'results.jsonl');
  writeFileSync(results, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const names = Object.keys(lint);
  const lines: string[] = [];
  for (let r = 0; r < 12; r++)
    for (let i = 0; i < 3; i++)
      for (let j = i + 1; j < 3; j++) {
        const [a, b] = (r + i) % 2 ? [names[i]!, names[j]!] : [names[j]!, names[i]!];
        const winner = r === 11 ? 'both-bad' : lint[a]! > lint[b]! ? 'a' : 'b';
        lines.push(
          JSON.stringify({
            requirement: `r${r}`,
            model_a: a,
            model_b: b,
            winner,
            rater: 'ann',
            time: '2026-11-27T10:00:00.000Z',
            position: r % 2 ? 'left' : 'right',
            id: `v${r}${i}${j}`,
          }),
        );
      }
  const votes = join(dir, 'votes.jsonl');
  // As a running (or killed) arena leaves it: the last vote torn.
  writeFileSync(votes, lines.join('\n') + '\n' + lines[0]!.slice(0, 30));
  return { results, votes };
}

/** `webgrade arena` as a child process, once it has printed `count` rater links. */
async function startArena(args: string[], count: number) {
  const child = spawn(process.execPath, [cliPath, 'arena', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stderr.on('data', (d) => (out.stderr += d));
  const links = await new Promise<Map<string, string>>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out.stdout += d;
      const found = [...out.stdout.matchAll(/^ {2}(.+): (http:\/\/127\.0\.0\.1:\d+\/\?t=\S+)$/gm)];
      if (found.length === count) resolve(new Map(found.map((m) => [m[1]!, m[2]!])));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out.stderr}`)));
  });
  return { child, links, out };
}

/** One vote through the page's own route: the pair the rater is shown, and `choice`. */
async function voteOn(link: string, choice: string): Promise<number> {
  const html = await (await fetch(link)).text();
  const pair = /name="arena-pair" content="([^"]+)"/.exec(html)![1]!;
  const t = new URL(link).searchParams.get('t');
  const v = await fetch(new URL('/vote', link), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t, pair, choice }) });
  return v.status;
}

describe('webgrade arena (CLI)', () => {
  it('serves a page per rater, writes a vote, and says how many there are when stopped', async () => {
    const w = await writeResults({ m1: { r1: goodPage('m1', 'r1') }, m2: { r1: goodPage('m2', 'r1') } });
    const out = join(w.dir, 'votes.jsonl');
    const child = spawn(
      process.execPath,
      [cliPath, 'arena', w.results, '--out', out, '--port', '0', '--rater', 'ann', '--rater', 'bo b', '--network', 'offline'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const links = await new Promise<Map<string, string>>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        const found = [...stdout.matchAll(/^ {2}(.+): (http:\/\/127\.0\.0\.1:\d+\/\?t=\S+)$/gm)];
        if (found.length === 2) resolve(new Map(found.map((m) => [m[1]!, m[2]!])));
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    assert.match(stdout, /^arena at http:\/\/127\.0\.0\.1:\d+\/ — 2 pages, 1 pairs; 0 votes already in .*votes\.jsonl/m);
    assert.deepEqual([...links.keys()], ['ann', 'bo b']);
    const html = await (await fetch(links.get('bo b')!)).text();
    const pair = /name="arena-pair" content="([^"]+)"/.exec(html)![1]!;
    const t = new URL(links.get('bo b')!).searchParams.get('t');
    const v = await fetch(new URL('/vote', links.get('bo b')!), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ t, pair, choice: 'tie' }),
    });
    assert.equal(v.status, 201);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, /stopped; 1 votes in /);
    const line = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
    assert.deepEqual([line.rater, line.winner, line.requirement], ['bo b', 'tie', 'r1']);
  });

  it('keeps every vote through a crash (SIGKILL), and continues on the same file once the lock is stale', async () => {
    const pages: Record<string, Record<string, Record<string, string>>> = {};
    for (const m of ['m1', 'm2', 'm3']) pages[m] = { r1: goodPage(m, 'r1') };
    const w = await writeResults(pages);
    const out = join(w.dir, 'votes.jsonl');
    const args = [w.results, '--out', out, '--port', '0', '--rater', 'ann', '--network', 'offline'];
    const first = await startArena(args, 1);
    assert.equal(await voteOn(first.links.get('ann')!, 'left'), 201);
    assert.equal(await voteOn(first.links.get('ann')!, 'right'), 201);
    const killed = new Promise<NodeJS.Signals | null>((resolve) => first.child.on('exit', (_code, signal) => resolve(signal)));
    first.child.kill('SIGKILL');
    assert.equal(await killed, 'SIGKILL');
    const kept = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    assert.equal(kept.length, 2, 'both votes were on disk when the page heard they were kept');

    // Right after the crash its lock is still fresh: a second arena says why it cannot start.
    const refused = await runCli(['arena', ...args]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /another webgrade arena is writing this file \(one that crashed leaves its lock for 30 s at most\)/);
    // Once the lock is as old as a crashed arena's becomes (not refreshed for 30 s), a restart takes it over.
    const old = Date.now() / 1000 - LOCK_STALE_MS / 1000 - 1;
    utimesSync(`${out}.lock`, old, old);
    const second = await startArena(args, 1);
    try {
      assert.match(second.out.stdout, / 2 votes already in /);
      const html = await (await fetch(second.links.get('ann')!)).text();
      assert.match(html, /<b>2<\/b> votes given · 2 of 3 pairs judged/);
      assert.equal(await voteOn(second.links.get('ann')!, 'tie'), 201);
      const html2 = await (await fetch(second.links.get('ann')!)).text();
      assert.doesNotMatch(html2, /<meta name="arena-pair"/, 'every pair judged: none shown again');
    } finally {
      second.child.kill('SIGINT');
      await new Promise((r) => second.child.on('exit', r));
    }
    assert.equal(readFileSync(out, 'utf8').split('\n').filter(Boolean).length, 3);
  });

  it('refuses bad usage with one line and exit 2', async () => {
    const w = await writeResults({ m1: { r1: goodPage('m1', 'r1') } });
    const empty = join(tempDir(), 'results.jsonl');
    writeFileSync(empty, JSON.stringify({ ...row('m1', 'r1', { lint: 1 }), artifact: '/nowhere/at/all' }) + '\n');
    const cases: Array<[string[], RegExp]> = [
      [['arena', w.results], /give --out <votes\.jsonl>/],
      [['arena', empty, '--out', join(tempDir(), 'v.jsonl')], /no page the arena can serve \(m1\/r1: .*no such file or folder\)/],
      [['arena', w.results, '--out', w.results], /line 1 is not a vote of webgrade arena/],
      [['arena', w.results, '--out', join(tempDir(), 'v.jsonl'), '--network', 'live'], /the arena takes cdn or offline/],
      [['arena', w.results, '--out', join(tempDir(), 'v.jsonl'), '--listen', '0.0.0.0'], /name the host raters use with --allow-host/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
});

describe('an arena votes file, as it is', () => {
  const s = rankedSet();

  it("leaderboard --pairs shows the people's Bradley–Terry ranking beside webgrade's, with intervals and agreement", async () => {
    const r = await runCli(['leaderboard', s.results, '--pairs', s.votes, '--bootstrap', '200']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /People's ranking beside webgrade's: Bradley–Terry on 36 votes of .*votes\.jsonl \(3 ties, 3 of them both-bad; 1 rater; 12 requirements\); 95% CI: 200 bootstrap resamples of the requirements/,
    );
    assert.match(r.stdout, /│ 1 +│ good +│ \d\.\d\d \[\d\.\d\d, \d\.\d\d\] +│ 1–1 +│ 24 \(22–0–2\) +│ 1 +│/);
    assert.match(r.stdout, /Agreement, model order: Spearman ρ 1\.00 \[1\.00, 1\.00\] between the people's strengths and webgrade's overalls over 3 models/);
    assert.match(r.stdout, /Agreement, pages: webgrade's overall picks the people's winner in 1\.00 \[1\.00, 1\.00\] of 33 decisive votes of 11 requirements/);
    assert.match(r.stdout, /ends with a torn line .*left out/);
    const doc = JSON.parse((await runCli(['leaderboard', s.results, '--pairs', s.votes, '--bootstrap', '50', '--json'])).stdout) as LeaderboardDoc;
    assert.deepEqual(
      doc.people!.models.map((m) => [m.model, m.rank, m.webgradeRank]),
      [
        ['good', 1, 1],
        ['mid', 2, 2],
        ['poor', 3, 3],
      ],
    );
    const csv = (await runCli(['leaderboard', s.results, '--pairs', s.votes, '--bootstrap', '0', '--format', 'csv'])).stdout.split('\n');
    const head = csv[0]!.split(',');
    const good = csv.find((l) => l.split(',')[1] === 'good')!.split(',');
    assert.equal(good[head.indexOf('people_rank')], '1');
    assert.equal(good[head.indexOf('people_votes')], '24');
  });

  it('analyse --pairs and weights fit --pairs read it, both-bad votes as ties and the torn line left out', async () => {
    const a = await runCli(['analyse', s.results, '--pairs', s.votes, '--bootstrap', '0', '--json']);
    assert.equal(a.code, 0, a.stderr);
    const doc = JSON.parse(a.stdout) as { pairs: { matched: number; ties: number }; notes: string[] };
    assert.deepEqual([doc.pairs.matched, doc.pairs.ties], [36, 3]);
    assert.ok(doc.notes.some((n) => /3 both-bad votes count as ties/.test(n)));
    const out = join(tempDir(), 'fitted.json');
    const f = await runCli(['weights', 'fit', s.results, '--pairs', s.votes, '--out', out, '--bootstrap', '0']);
    assert.equal(f.code, 0, f.stderr);
    assert.match(f.stdout, /│ lint +│ code +│ \d+\.\d%/);
    appendFileSync(s.votes, '\n');
    assert.equal((await runCli(['analyse', s.results, '--pairs', s.votes, '--bootstrap', '0'])).code, 2, 'a torn line before the end is bad input');
  });
});
