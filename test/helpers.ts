/** Shared test helpers: paths, temporary artifacts, running the built CLI. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('repository root not found');
    dir = up;
  }
  return dir;
}

export const repoRoot = findRoot();
export const fixturesDir = join(repoRoot, 'fixtures');
export const cliPath = join(repoRoot, 'dist', 'bin', 'webgrade.js');
/** The shared corpus, beside the repository; tests that use it skip when it is absent. */
export const corpusDir = join(repoRoot, '..', 'shared', 'corpus');
export const requirementsDir = join(repoRoot, '..', 'shared', 'requirements');

export function fixture(...parts: string[]): string {
  return join(fixturesDir, ...parts);
}

/** A fresh temporary folder, removed at process exit. */
export function tempDir(prefix = 'webgrade-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Write files into a fresh folder and return its path. Keys are relative paths; a single `index.html` gives a
 * folder artifact. Use `writeSingleFile` for a one-file artifact.
 */
export function writeArtifact(files: Record<string, string | Buffer>): string {
  const dir = tempDir();
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return dir;
}

export function writeSingleFile(html: string | Buffer, name = 'page.html'): string {
  const dir = tempDir();
  const p = join(dir, name);
  writeFileSync(p, html);
  return p;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** stderr without the warning `score` and `batch` print when Chrome runs without its own sandbox (as root). */
export function withoutSandboxWarning(stderr: string): string {
  return stderr.replace(/^webgrade: .*--no-sandbox.*\n/gm, '');
}

/** Run the built CLI (dist/bin/webgrade.js) with arguments; resolves when it exits. */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {}): Promise<CliResult> {
  return runScript(cliPath, args, opts);
}

/** Run a built script (e.g. dist/bench/<name>.js) with Node and arguments; resolves when it exits. */
export function runScript(
  script: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<CliResult> {
  const name = script === cliPath ? 'webgrade' : script;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} ${args.join(' ')} timed out`));
    }, opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

const ownChildren = new Set<import('node:child_process').ChildProcess>();
/**
 * Registers a long-lived child (a queue worker) to be killed by `killOwnChildren`, which a test file's `after`
 * calls: a child left running after a failed assertion would keep the file's process, and the whole run, alive.
 */
export function ownChild<T extends import('node:child_process').ChildProcess>(child: T): T {
  ownChildren.add(child);
  child.once('exit', () => ownChildren.delete(child));
  return child;
}

/** SIGKILL every child registered with `ownChild` that is still running. */
export function killOwnChildren(): void {
  for (const c of ownChildren) c.kill('SIGKILL');
  ownChildren.clear();
}

/** `n` processes that spin a core each until killed (a loaded machine, for tests of load-independent measures). */
export function cpuHogs(n = 4): import('node:child_process').ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}
