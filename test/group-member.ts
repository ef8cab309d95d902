/**
 * A stand-in for another scoring process (measure-alone.ts): a Node process outside this process's tree (started
 * through a shell that exits at once, as another worker is not our child), joined to a measurement group, with a
 * child (`sleep`) and a guardian-marked child. It writes how long it was kept stopped (its `pausedMs`) into
 * `<dir>/seen-<pid>` every 50 ms. Killed with its children when the test process ends.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { GUARDIAN_MARK, groupDir } from '../runner/gather/measure-alone.js';
import { processTree } from '../runner/gather/measure-priority.js';

const moduleUrl = new URL('../runner/gather/measure-alone.js', import.meta.url).href;
const started: number[] = [];
process.once('exit', () => {
  for (const p of started) {
    try {
      process.kill(p, 'SIGCONT');
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

export interface GroupMember {
  pid: number;
  child: number;
  guardian: number;
  /** The member's own `pausedMs()` as it last wrote it (undefined before its first write). */
  seenPausedMs(): number | undefined;
}

/** A process's state letter from /proc (T: stopped), or undefined when it is gone. */
export function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

export async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Start a member of the group in `dir` (default: the machine's real group). */
export async function startGroupMember(dir = groupDir()): Promise<GroupMember> {
  const code = `import { joinMeasureGroup, pausedMs } from ${JSON.stringify(moduleUrl)};
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
spawn('sleep', ['120'], { stdio: 'ignore' });
spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ${JSON.stringify(GUARDIAN_MARK)}], { stdio: 'ignore' });
joinMeasureGroup(process.argv[1]);
setInterval(() => writeFileSync(process.argv[1] + '/seen-' + process.pid, String(pausedMs())), 50);`;
  const pid = Number(execFileSync('sh', ['-c', `"${process.execPath}" --input-type=module -e "$1" "$2" >/dev/null 2>&1 & echo $!`, 'sh', code, dir], { encoding: 'utf8' }).trim());
  started.push(pid);
  await until('the member joined with its two children', () => existsSync(join(dir, String(pid))) && processTree(pid).length === 3);
  const kids = processTree(pid).slice(1);
  const guardian = kids.find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes(GUARDIAN_MARK))!;
  started.push(...kids);
  const seen = join(dir, `seen-${pid}`);
  process.once('exit', () => rmSync(seen, { force: true }));
  return {
    pid,
    child: kids.find((p) => p !== guardian)!,
    guardian,
    seenPausedMs() {
      try {
        return Number(readFileSync(seen, 'utf8'));
      } catch {
        return undefined;
      }
    },
  };
}
