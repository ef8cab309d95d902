/**
 * SIGTERM and SIGINT stop `score` and `batch` promptly at any moment and leave no Chrome behind; a batch worker
 * killed with SIGKILL (the parent's hard limit, the OOM killer) does not leave its Chrome either: the parent
 * reaps it, records the artifact as failed and goes on. Real Chromium, real signals. A Chrome belongs to a
 * process when its profile's owner marker names that process (gather/chrome-reaper.ts).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OWNER_MARKER, PROFILE_PREFIX, processesUsing } from '../../gather/chrome-reaper.js';
import { parseResults } from '../../store/results-file.js';
import { cliPath, fixture, tempDir } from '../helpers.js';

/** Generous: a loaded two-core machine. The fixed code exits in well under a second for `score`. */
const PROMPT_MS = 10_000;

interface Run {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  stderr: () => string;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal, at: performance.now() })),
  );
  return { child, exited, stderr: () => err };
}

/** Profile folders whose owner marker names one of `pids`. */
function profilesOf(pids: number[]): string[] {
  const out: string[] = [];
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PROFILE_PREFIX)) continue;
    try {
      const owner = JSON.parse(readFileSync(join(tmpdir(), name, OWNER_MARKER), 'utf8')) as { pid: number };
      if (pids.includes(owner.pid)) out.push(join(tmpdir(), name));
    } catch {
      /* no marker (yet), or not ours */
    }
  }
  return out;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function until<T>(get: () => T | undefined | false, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Wait until a Chrome runs in a profile owned by one of `owners()`; returns those profiles. */
function chromeUp(owners: () => number[]): Promise<string[]> {
  return until(
    () => {
      const profiles = profilesOf(owners());
      return profiles.some((p) => processesUsing(p).length > 0) && profiles;
    },
    120_000,
    'a Chrome of the run',
  );
}

/**
 * Wait until a page whose address contains `name` is open in the Chrome of one of `profiles` (its DevTools port, from
 * its command line): the artifact is being scored, not only Chrome started (a batch worker starts its Chrome in its
 * warm-up, before it takes a job).
 */
async function pageOpen(profiles: string[], name: string): Promise<void> {
  const end = Date.now() + 120_000;
  for (;;) {
    for (const p of profiles) {
      try {
        const port = processesUsing(p)
          .map((pid) => /--remote-debugging-port=(\d+)/.exec(cmdline(pid))?.[1])
          .find((x) => x !== undefined);
        if (port === undefined) continue;
        const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ url?: string }>;
        if (targets.some((t) => (t.url ?? '').includes(name))) return;
      } catch {
        /* no port yet, or Chrome not answering yet */
      }
    }
    if (Date.now() > end) throw new Error(`timed out waiting for a page of ${name}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function describeProcs(profiles: string[]): string {
  return profiles
    .flatMap((p) => processesUsing(p))
    .map((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const field = (k: string) => new RegExp(`^${k}:\\s*(.*)$`, 'm').exec(status)?.[1] ?? '?';
        return `${pid} ${field('State')} ppid ${field('PPid')} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ').slice(0, 120)}`;
      } catch {
        return `${pid} gone`;
      }
    })
    .join('; ');
}

async function assertNoChrome(profiles: string[]): Promise<void> {
  try {
    await until(() => profiles.every((p) => processesUsing(p).length === 0) || undefined, 5_000, `no Chrome in ${profiles.join(', ')}`);
  } catch (err) {
    throw new Error(`${(err as Error).message}: ${describeProcs(profiles)}`);
  }
  // The reaper removes a profile once its Chrome is gone (gather/chrome-reaper.ts): give it the moment.
  await until(() => profiles.every((p) => !readdirSync(tmpdir()).includes(p.slice(tmpdir().length + 1))) || undefined, 5_000, 'profiles removed').catch(
    () => undefined,
  );
  for (const p of profiles) assert.equal(readdirSync(tmpdir()).includes(p.slice(tmpdir().length + 1)), false, `profile ${p} left behind`);
}

describe('signals stop a run promptly and leave no Chrome', () => {
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    it(`score, ${sig} while a page loops forever (browser and Lighthouse busy)`, async () => {
      const run = start(['score', fixture('hostile', 'endless-loop.html'), '--only', 'console-errors,lint,comment-rate,accessibility', '--budget', '60']);
      const profiles = await chromeUp(() => [run.child.pid!]);
      await new Promise((r) => setTimeout(r, 1500));
      const t = performance.now();
      run.child.kill(sig);
      const end = await run.exited;
      assert.ok(end.at - t < PROMPT_MS, `exited ${Math.round(end.at - t)} ms after ${sig}`);
      assert.ok(end.signal === sig || end.code === 130 || end.code === 143, `exit ${end.code} ${end.signal}`);
      await assertNoChrome(profiles);
    });
  }

  it('score, SIGINT while the static thread parses a 13 MB page', async () => {
    const dir = tempDir();
    const page = join(dir, 'big.html');
    writeFileSync(
      page,
      `<!doctype html><html><body>\n${Array.from({ length: 300_000 }, (_, i) => `<div class="c"><b>${i}</b><i>x</i></div>`).join('\n')}\n</body></html>`,
    );
    const run = start(['score', page, '--only', 'lint,comment-rate,copywriting,component-consistency']);
    await new Promise((r) => setTimeout(r, 5_000));
    const t = performance.now();
    run.child.kill('SIGINT');
    const end = await run.exited;
    assert.ok(end.at - t < PROMPT_MS, `exited ${Math.round(end.at - t)} ms after SIGINT`);
  });

  it('batch, SIGTERM to the parent while its worker scores a looping page: exit 130, its Chrome gone (even one still starting), nothing recorded', async () => {
    const runs = tempDir();
    mkdirSync(join(runs, 'm'));
    writeFileSync(join(runs, 'm', 'loop.html'), readFileSync(fixture('hostile', 'endless-loop.html')));
    const out = join(tempDir(), 'results.jsonl');
    const run = start(['batch', runs, '--out', out, '--only', 'console-errors,comment-rate,accessibility', '--budget', '60']);
    const profiles = await chromeUp(() => childrenOf(run.child.pid!));
    const t = performance.now();
    run.child.kill('SIGTERM');
    const end = await run.exited;
    assert.ok(end.at - t < PROMPT_MS, `exited ${Math.round(end.at - t)} ms after SIGTERM`);
    assert.equal(end.code, 130, run.stderr());
    await assertNoChrome(profiles);
    // The artifact in flight is not a failure: it is left for the resumed run.
    let rows: unknown[] = [];
    try {
      rows = parseResults(readFileSync(out)).rows;
    } catch {
      /* no file: nothing recorded */
    }
    assert.equal(rows.length, 0, JSON.stringify(rows));
  });
});

describe('a batch worker killed with SIGKILL', () => {
  it('its Chrome is reaped by the parent, the artifact is a failed row, and the batch goes on', async () => {
    const runs = tempDir();
    mkdirSync(join(runs, 'm'));
    writeFileSync(join(runs, 'm', 'a-loop.html'), readFileSync(fixture('hostile', 'endless-loop.html')));
    writeFileSync(join(runs, 'm', 'b-clean.html'), readFileSync(fixture('browser', 'clean-1000.html')));
    const out = join(tempDir(), 'results.jsonl');
    const run = start(['batch', runs, '--out', out, '--only', 'console-errors,comment-rate', '--budget', '60']);
    // The batch worker, not a short-lived child of the parent (it asks the Chrome binary its version).
    const worker = await until(() => childrenOf(run.child.pid!).find((pid) => cmdline(pid).includes('batch-worker')), 60_000, 'the worker');
    const profiles = await chromeUp(() => [worker]);
    // The artifact in flight: its page open (Chrome alone is up before the first job, in the worker's warm-up).
    await pageOpen(profiles, 'a-loop');
    process.kill(worker, 'SIGKILL');
    // The parent reaps the dead worker's Chrome (reparented to PID 1) at once, while the batch goes on.
    await assertNoChrome(profiles);
    const end = await run.exited;
    assert.equal(end.code, 0, run.stderr());
    const rows = parseResults(readFileSync(out)).rows;
    const a = rows.find((r) => r.requirement === 'a-loop')!;
    assert.equal(a.status, 'failed');
    assert.match(a.error ?? '', /worker crashed \(SIGKILL\)/);
    assert.equal(rows.find((r) => r.requirement === 'b-clean')?.status, 'ok');
  });
});
