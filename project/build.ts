/**
 * Preparing a project for scoring: copy, install, build in the sandbox, find the output (core/project.ts says
 * what the outcomes mean). One `Projects` per scorer holds the registry proxy and the store.
 *
 * The work folder (in the system temp folder, removed by `cleanup`) holds three things: `src/`, the copy the
 * build runs in (the project's files, without `node_modules`, `.git` and its old output folders, so that a stale
 * `dist/` cannot stand in for a build that made none); `install/`, where pnpm makes `node_modules` (install.ts);
 * and `etc/`, the sandbox's `/etc`. The copy takes regular files only, and a link only when its target is a file
 * inside the project (the artifact rule of lib/artifact/load.ts); at most MAX_COPY_FILES files and
 * MAX_COPY_BYTES. The copy's `node_modules` holds the install's top-level links and `.bin`; its `.pnpm` (the
 * packages, hard links into the store) is bound read-only over it in the sandbox.
 *
 * Time: the install and the build have their own caps (DEFAULT_INSTALL_CAPS.timeMs, DEFAULT_BUILD_LIMITS.wallMs),
 * not the page's budget, which is spent on the built page as for any artifact (`PROJECT_EXTRA_MS` is what a
 * batch adds to a project's hard limit).
 */
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { ProjectEvidence } from '../core/project.js';
import { findLockfile, LOCKFILES } from './lockfile.js';
import { projectManifest, type ProjectManifest } from './manifest.js';
import { installDependencies } from './install.js';
import { findOutput, outputSizes, USUAL_OUTPUTS } from './output.js';
import { DEFAULT_INSTALL_CAPS, RegistryProxy, type ProjectInstallCaps } from './registry-proxy.js';
import { buildUser, DEFAULT_BUILD_LIMITS, handOver, runSandboxed, sandboxTools, type SandboxLimits } from './sandbox.js';
import { openStore, type ProjectStore } from './store.js';

export const MAX_COPY_FILES = 20_000;
export const MAX_COPY_BYTES = 256 * 1024 ** 2;
/** What a batch adds to a project's hard time limit: the install's and the build's caps, and a minute for the rest. */
export const PROJECT_EXTRA_MS = DEFAULT_INSTALL_CAPS.timeMs + DEFAULT_BUILD_LIMITS.wallMs + 60_000;

export interface ProjectsOptions {
  /** The store folder (store.ts: default `$WEBGRADE_PROJECT_STORE` or the user's cache). */
  storeDir?: string;
  caps?: Partial<ProjectInstallCaps>;
  limits?: Partial<SandboxLimits>;
  /** The registry the proxy forwards to (default: npm's configured registry). */
  registry?: string;
}

export interface PreparedProject {
  evidence: ProjectEvidence;
  manifest: ProjectManifest;
  /** The built output folder (inside the work folder), when the build succeeded. */
  outputDir?: string;
  /** Remove the work folder (after scoring: the output is served from it). */
  cleanup(): void;
}

/** Control characters out (a build log is printed in a terminal), colour codes first. */
export function plainText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

function copySource(from: string, to: string): void {
  const root = realpathSync(from);
  let files = 0;
  let bytes = 0;
  const skipTop = new Set(['node_modules', '.git', ...USUAL_OUTPUTS]);
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === '' && skipTop.has(name)) continue;
      if (name === 'node_modules' || name === '.git') continue;
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      let st = lstatSync(abs);
      let real = abs;
      if (st.isSymbolicLink()) {
        try {
          real = realpathSync(abs);
          st = statSync(real);
        } catch {
          continue;
        }
        if (real !== root && !real.startsWith(root + sep)) continue; // a link out of the project is not part of it
        if (!st.isFile()) continue;
      }
      if (st.isDirectory()) {
        mkdirSync(join(to, r), { recursive: true });
        walk(abs, r);
      } else if (st.isFile()) {
        files++;
        bytes += st.size;
        if (files > MAX_COPY_FILES) throw new Error(`more than ${MAX_COPY_FILES} files (without node_modules)`);
        if (bytes > MAX_COPY_BYTES) throw new Error(`more than ${MAX_COPY_BYTES / 1024 ** 2} MiB of files (without node_modules)`);
        copyFileSync(real, join(to, r));
      }
    }
  };
  walk(root, '');
}

/** The install's `node_modules` as the build sees it: its links and `.bin` copied, `.pnpm` a mount point. */
function linkModules(installDir: string, srcDir: string): void {
  const from = join(installDir, 'node_modules');
  mkdirSync(join(from, '.pnpm'), { recursive: true }); // a project without dependencies has none
  const to = join(srcDir, 'node_modules');
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to);
  for (const name of readdirSync(from)) {
    if (name === '.pnpm') continue;
    cpSync(join(from, name), join(to, name), { recursive: true, verbatimSymlinks: true });
  }
  mkdirSync(join(to, '.pnpm'));
}

function writeEtc(dir: string): void {
  mkdirSync(dir);
  writeFileSync(join(dir, 'passwd'), 'build:x:1000:1000:build:/tmp:/bin/sh\n');
  writeFileSync(join(dir, 'group'), 'build:x:1000:\n');
  writeFileSync(join(dir, 'hosts'), '127.0.0.1 localhost\n::1 localhost\n');
}

/** Warning lines of a build's output (at most 50, each cut to 300 characters). */
export function buildWarnings(log: string): string[] {
  return log
    .split('\n')
    .filter((l) => /\bwarn(ing)?\b|⚠/i.test(l))
    .slice(0, 50)
    .map((l) => l.trim().slice(0, 300));
}

/** The first error line of a failed build (one with a message first), with the line after it when it ends in a colon (or its last line). */
export function failureLine(log: string): string {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const notStack = (l: string) => !/^at\s/.test(l);
  // An error with its message ("[UNRESOLVED_IMPORT] Could not resolve ...", "Error: ...") beats a summary
  // ("Build failed in 61ms", "error during build:").
  let i = lines.findIndex((l) => /\[[A-Z][A-Z_]{2,}\]|\b\w*Error\b:\s*\S|could not|cannot find|not found|ERR!/i.test(l) && notStack(l));
  if (i < 0) i = lines.findIndex((l) => /error|cannot|could not|failed|not found|ERR!/i.test(l) && notStack(l));
  if (i < 0) return (lines.pop() ?? 'no output').slice(0, 300);
  const line = lines[i]!.endsWith(':') && lines[i + 1] ? `${lines[i]} ${lines[i + 1]}` : lines[i]!;
  return line.slice(0, 300);
}

const LIMIT_WORDS: Record<string, string> = {
  time: 'its time limit',
  cpu: 'its CPU time limit',
  memory: 'its memory limit',
  processes: 'its process limit',
  'file size': 'its file size limit',
};

export class Projects {
  private readonly proxy: RegistryProxy;
  private store?: ProjectStore;
  private readonly caps: ProjectInstallCaps;
  private readonly limits: SandboxLimits;

  constructor(private readonly opts: ProjectsOptions = {}) {
    this.proxy = new RegistryProxy(opts.registry);
    this.caps = { ...DEFAULT_INSTALL_CAPS, ...opts.caps };
    this.limits = { ...DEFAULT_BUILD_LIMITS, ...opts.limits };
  }

  /** Copy, install and build the project in `dir` (module comment); never throws for what the project does. */
  async prepare(dir: string): Promise<PreparedProject> {
    const manifest = projectManifest(dir);
    const work = mkdtempSync(join(tmpdir(), 'webgrade-project-'));
    chmodSync(work, 0o711); // the build user must reach src/, etc/ and install/node_modules/.pnpm, and list nothing
    const cleanup = () => rmSync(work, { recursive: true, force: true });
    const stop = (evidence: ProjectEvidence): PreparedProject => ({ evidence: { ...evidence, reason: plainText(evidence.reason ?? '') }, manifest, cleanup });
    try {
      const src = join(work, 'src');
      const installDir = join(work, 'install');
      mkdirSync(src);
      mkdirSync(installDir);
      try {
        copySource(dir, src);
      } catch (err) {
        return stop({ status: 'refused', phase: 'install', reason: `project not copied: ${(err as Error).message}` });
      }
      const tools = sandboxTools();
      if (!tools.ok) return stop({ status: 'refused', phase: 'build', reason: tools.reason });
      this.store ??= openStore(this.opts.storeDir);
      await this.proxy.start();
      const lockfile = findLockfile(dir);
      const installed = await installDependencies({
        sourceDir: dir,
        installDir,
        manifest,
        ...(lockfile ? { lockfile } : {}),
        proxy: this.proxy,
        store: this.store,
        caps: this.caps,
      });
      if (!installed.ok) return stop({ status: installed.status, phase: 'install', reason: installed.reason, install: installed.install });
      for (const l of LOCKFILES) rmSync(join(src, l), { force: true });
      linkModules(installDir, src);
      const etc = join(work, 'etc');
      writeEtc(etc);
      const before = new Set(readdirSync(src));
      const uid = buildUser();
      handOver(src, uid);
      const r = await runSandboxed({
        projectDir: src,
        etcDir: etc,
        readOnly: [{ host: join(installDir, 'node_modules', '.pnpm'), inside: '/project/node_modules/.pnpm' }],
        command: manifest.build,
        limits: this.limits,
        uid,
      });
      const log = plainText(r.output);
      const build = {
        command: manifest.build,
        ms: r.ms,
        exitCode: r.exitCode,
        ...(r.limit ? { limit: r.limit } : {}),
        warnings: buildWarnings(log),
        logTail: log.slice(-4096),
      };
      const base = { install: installed.install, build };
      if (r.limit) return stop({ status: 'failed', phase: 'build', reason: `build stopped: over ${LIMIT_WORDS[r.limit] ?? r.limit}`, ...base });
      if (r.exitCode !== 0)
        return stop({ status: 'failed', phase: 'build', reason: `build failed (exit ${r.exitCode ?? r.signal}): ${failureLine(log)}`, ...base });
      const found = findOutput(src, before, manifest.output);
      if ('reason' in found) return stop({ status: 'failed', phase: 'output', reason: found.reason, ...base });
      const output = outputSizes(src, found.folder);
      return { evidence: { status: 'built', ...base, output }, manifest, outputDir: join(src, found.folder), cleanup };
    } catch (err) {
      cleanup();
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.proxy.close();
  }
}
