/**
 * Pausing the other scoring processes while a page is measured (measure-alone.ts), on real processes: a member
 * (started through a shell that exits at once, so that it is not in this process's tree, as another worker is not)
 * joins a group in a temporary folder and starts a child and a guardian-marked child. A pause stops the member and
 * its child, never the guardian, and continues them on resume, at the cap, or, when the holder is killed in the
 * middle, through the holder's guardian. Files of dead or reused pids are never acted on.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ALONE_BUSY_SHARE, lowerOthers, measureAlone, otherMembers, pauseOthers, recordPath, startTimeOf } from '../../../runner/gather/measure-alone.js';
import { MEASURE_RAISE, processTree } from '../../../runner/gather/measure-priority.js';
import { processState, startGroupMember, until } from '../../group-member.js';

const linux = process.platform === 'linux';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const moduleUrl = new URL('../../../runner/gather/measure-alone.js', import.meta.url).href;
const dirs: string[] = [];
const killLater: number[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const pid of killLater) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const state = processState;
const member = startGroupMember;

function group(): string {
  const d = mkdtempSync(join(tmpdir(), 'webgrade-group-test-'));
  dirs.push(d);
  return d;
}

describe('which measurements stop the others', () => {
  it('only a page whose main thread stayed busy after its load (at least ALONE_BUSY_SHARE of the settle)', () => {
    const cases: Array<[number | undefined, boolean]> = [[undefined, false], [0, false], [0.13, false], [ALONE_BUSY_SHARE - 0.001, false], [ALONE_BUSY_SHARE, true], [1, true]];
    for (const [busy, alone] of cases) assert.equal(measureAlone(busy), alone, `busy ${busy}`);
  });
});

describe('pausing the other scoring processes during a measurement', { skip: !linux && 'Linux only (/proc)' }, () => {
  it('stops another member and what it started (not a guardian) and continues them all on resume', async () => {
    const dir = group();
    const m = await member(dir);
    assert.deepEqual(otherMembers(dir).map((x) => x.pid), [m.pid]);
    const pause = pauseOthers(30_000, dir);
    try {
      assert.equal(pause.stopped, 2, pause.reason);
      await until('member and child stopped', () => state(m.pid) === 'T' && state(m.child) === 'T');
      assert.notEqual(state(m.guardian), 'T', 'a guardian is never stopped');
      assert.ok(existsSync(recordPath(dir)), 'the pause is recorded before anyone is stopped');
    } finally {
      pause.resume();
    }
    await until('member and child running again', () => state(m.pid) !== 'T' && state(m.child) !== 'T');
    assert.ok(!existsSync(recordPath(dir)), 'the record is removed on resume');
  });

  it('tells a stopped member how long it was stopped, so that its time limits can leave the pause out', async () => {
    const dir = group();
    const m = await member(dir);
    await until('the member reports', () => m.seenPausedMs() === 0);
    const pause = pauseOthers(30_000, dir);
    await until('member stopped', () => state(m.pid) === 'T');
    await sleep(400);
    pause.resume();
    await until('the member saw its pause', () => (m.seenPausedMs() ?? 0) >= 400);
    const first = m.seenPausedMs()!;
    const again = pauseOthers(30_000, dir);
    await sleep(200);
    again.resume();
    await until('the pauses add up', () => (m.seenPausedMs() ?? 0) >= first + 200);
  });

  it('continues the stopped processes by itself when the cap runs out', async () => {
    const dir = group();
    const m = await member(dir);
    const pause = pauseOthers(300, dir);
    assert.equal(pause.stopped, 2, pause.reason);
    await until('member stopped', () => state(m.pid) === 'T');
    await until('member running again after the cap', () => state(m.pid) !== 'T', 3000);
    pause.resume(); // idempotent
  });

  it('has the holder\'s guardian continue them when the holder is killed in the middle of a pause', async () => {
    const dir = group();
    const m = await member(dir);
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `import { pauseOthers } from ${JSON.stringify(moduleUrl)};
const p = pauseOthers(60_000, process.argv[1]);
process.stdout.write(String(p.stopped) + '\\n');
setInterval(() => {}, 1000);`, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(holder);
    const stopped = await new Promise<string>((r) => holder.stdout!.once('data', (d: Buffer) => r(d.toString().trim())));
    assert.equal(stopped, '2');
    await until('member stopped', () => state(m.pid) === 'T');
    const guardians = processTree(holder.pid!).filter((p) => p !== holder.pid);
    assert.equal(guardians.length, 1, 'the holder started one guardian');
    killLater.push(guardians[0]!);
    holder.kill('SIGKILL');
    await until('member and child running again once the holder died', () => state(m.pid) !== 'T' && state(m.child) !== 'T', 3000);
    await until('record removed', () => !existsSync(recordPath(dir, holder.pid!)));
    await until('guardian gone with its holder', () => state(guardians[0]!) === undefined || state(guardians[0]!) === 'Z');
  });

  it('never acts on a member file of a dead process or of a reused pid, and removes it', async () => {
    const dir = group();
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(sleeper);
    await until('sleeper started', () => startTimeOf(sleeper.pid!) !== undefined);
    // A pid that is alive but started at another time than the file says: a reused pid.
    writeFileSync(join(dir, String(sleeper.pid)), JSON.stringify({ pid: sleeper.pid, start: '1' }));
    writeFileSync(join(dir, '999999999'), JSON.stringify({ pid: 999_999_999, start: '1' }));
    writeFileSync(join(dir, '999999998.paused'), '1200'); // a count written after its member ended
    assert.deepEqual(otherMembers(dir), []);
    assert.ok(!existsSync(join(dir, String(sleeper.pid))) && !existsSync(join(dir, '999999999')));
    assert.ok(!existsSync(join(dir, '999999998.paused')), 'the count of a member that is gone is removed');
    const pause = pauseOthers(1000, dir);
    assert.equal(pause.stopped, 0);
    assert.match(pause.reason ?? '', /no other scoring process/);
    assert.notEqual(state(sleeper.pid!), 'T');
  });

  it('lowers every other member\'s threads by the same steps for a page measured beside them, and puts them back', async () => {
    const dir = group();
    const m = await member(dir);
    const before = [m.pid, m.child, m.guardian].map((p) => getPriority(p));
    const lowered = lowerOthers(dir);
    try {
      if (lowered.reason) return assert.match(lowered.reason, /not permitted/); // without CAP_SYS_NICE: nothing changes
      assert.ok(lowered.raised >= 3, `lowered ${lowered.raised}`);
      assert.deepEqual([m.pid, m.child, m.guardian].map((p) => getPriority(p)), before.map((n) => Math.min(19, n + MEASURE_RAISE)));
      assert.notEqual(state(m.pid), 'T', 'lowered, not stopped');
    } finally {
      lowered.restore();
    }
    assert.deepEqual([m.pid, m.child, m.guardian].map((p) => getPriority(p)), before);
  });

  it('stops nobody when turned off', async () => {
    const dir = group();
    const m = await member(dir);
    process.env.WEBGRADE_MEASURE_ALONE = 'off';
    try {
      const pause = pauseOthers(1000, dir);
      assert.equal(pause.stopped, 0);
      assert.match(pause.reason ?? '', /turned off/);
      const lowered = lowerOthers(dir);
      assert.equal(lowered.raised, 0);
      assert.match(lowered.reason ?? '', /turned off/);
    } finally {
      delete process.env.WEBGRADE_MEASURE_ALONE;
    }
    await sleep(100);
    assert.notEqual(state(m.pid), 'T');
  });
});
