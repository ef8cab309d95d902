/**
 * Reaping the Chrome and profile of a run that died (SIGKILL, OOM killer): only folders with our owner marker,
 * only when the owner is dead (or is the exited process named), and only processes that are Chrome and name the
 * folder as their profile. The processes here are stand-ins: Node started under the name "fake-chromium" with
 * a `--user-data-dir` argument, so no real browser is needed.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OWNER_MARKER, PROFILE_PREFIX, markProfile, processesUsing, reapDeadProfiles, reapOwnedBy } from '../../gather/chrome-reaper.js';
import { tempDir } from '../helpers.js';

/** A process that looks like a Chrome using `dir`; resolves with its pid once it runs. */
function fakeChrome(dir: string, argv0 = 'fake-chromium'): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', `--user-data-dir=${dir}`], { argv0, detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid!;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

/** The pid of a process that has exited (its pid is not reused within the test). */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

function profile(root: string, owner: number | 'self' | 'none'): string {
  const dir = join(root, `${PROFILE_PREFIX}${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir);
  if (owner === 'self') markProfile(dir);
  else if (owner !== 'none') writeFileSync(join(dir, OWNER_MARKER), JSON.stringify({ pid: Number(owner) }));
  return dir;
}

describe('chrome reaper', () => {
  it('kills the Chrome of a dead owner and removes its profile; leaves live owners, unmarked folders and non-Chrome processes alone', async () => {
    const root = tempDir();
    const dead = profile(root, deadPid());
    const live = profile(root, 'self');
    const unmarked = profile(root, 'none');
    const deadChrome = fakeChrome(dead);
    const liveChrome = fakeChrome(live);
    const unmarkedChrome = fakeChrome(unmarked);
    const notChrome = fakeChrome(dead, 'grep');
    try {
      assert.ok(await until(() => processesUsing(dead).length === 1 && processesUsing(live).length === 1), 'stand-ins did not start');
      const reaped = reapDeadProfiles(root);
      assert.deepEqual(reaped.profiles, [dead]);
      assert.deepEqual(reaped.pids, [deadChrome]);
      assert.ok(await until(() => !alive(deadChrome)), "the dead run's Chrome is still alive");
      assert.equal(existsSync(dead), false);
      assert.ok(alive(liveChrome) && existsSync(live), "a live run's profile was touched");
      assert.ok(alive(unmarkedChrome) && existsSync(unmarked), 'an unmarked folder was touched');
      assert.ok(alive(notChrome), 'a process that is not Chrome was killed');
    } finally {
      for (const pid of [deadChrome, liveChrome, unmarkedChrome, notChrome]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('reapOwnedBy takes the profiles of the exited process named, whatever its marker says about liveness', async () => {
    const root = tempDir();
    const owner = deadPid();
    const mine = profile(root, owner);
    const other = profile(root, deadPid());
    const chrome = fakeChrome(mine);
    try {
      assert.ok(await until(() => processesUsing(mine).length === 1));
      const reaped = reapOwnedBy(owner, root);
      assert.deepEqual(reaped.profiles, [mine]);
      assert.ok(await until(() => !alive(chrome)));
      assert.ok(existsSync(other), "another owner's profile was taken");
    } finally {
      if (alive(chrome)) process.kill(chrome, 'SIGKILL');
    }
  });
});
