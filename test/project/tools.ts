/**
 * What the project tests need: bubblewrap (installed through apt when missing, as test/queue/redis-server.ts
 * installs redis-server; the tests that build are skipped with the reason when that is impossible), one store
 * shared by the test files of a run (warm after the first install), and copies of fixtures with a `probe.json`.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxTools } from '../../project/sandbox.js';
import { fixture, tempDir } from '../helpers.js';

let tried = false;

/** Why the sandbox tests cannot run here, or undefined when they can (installing bubblewrap when missing). */
export function sandboxSkip(): string | undefined {
  const have = () => spawnSync('sh', ['-c', 'command -v bwrap && command -v prlimit'], { stdio: 'ignore' }).status === 0;
  if (!have() && !tried) {
    tried = true;
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const apt = (args: string[]) => {
      const [cmd, ...rest] = isRoot ? ['apt-get', ...args] : ['sudo', '-n', 'apt-get', ...args];
      return spawnSync(cmd!, rest, { env, stdio: 'ignore' }).status === 0;
    };
    process.stderr.write("[project tests] bubblewrap missing: installing Debian's bubblewrap through apt\n");
    if (!apt(['install', '-y', '-qq', 'bubblewrap'])) if (apt(['update', '-qq'])) apt(['install', '-y', '-qq', 'bubblewrap']);
  }
  const tools = sandboxTools();
  return tools.ok ? undefined : `${tools.reason} (install Debian's bubblewrap): project build tests skipped`;
}

/** The store the project tests share (kept across runs in the temp folder, so that reruns install warm). */
export const TEST_STORE = join(tmpdir(), 'webgrade-test-project-store');

/** A copy of a project fixture in a fresh temp folder, with `probe.json` when given. */
export function projectCopy(name: string, probe?: unknown): string {
  const dir = join(tempDir('webgrade-project-test-'), name.replace(/\//g, '-'));
  mkdirSync(dir, { recursive: true });
  cpSync(fixture('projects', name), dir, { recursive: true });
  if (probe !== undefined) writeFileSync(join(dir, 'probe.json'), JSON.stringify(probe));
  return dir;
}

/** A project made of `files` (package.json included) in a fresh temp folder. */
export function writeProject(files: Record<string, string>): string {
  const dir = tempDir('webgrade-project-test-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}
