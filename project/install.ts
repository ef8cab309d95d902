/**
 * Installing a project's dependencies: pnpm (the `pnpm` npm package, pinned) into a folder of ours, through one
 * shared content-addressed store.
 *
 * Why pnpm's store rather than npm's cache (bench/projects.ts measures both; docs/projects.md has the figures):
 * both keep each tarball once, but npm extracts a full copy of every package into every project's `node_modules`, while pnpm hard-links the
 * store's files, so a hundred apps with the same React share one copy on disk and a warm install only makes
 * links (for the React fixture on 2026-11-27 at load 21–34: 6.0 s against 17.8 s for `npm install
 * --prefer-offline` from a warm cache, and 0.1 MB per project against 42.9 MB). The links are shared files: the
 * build sees them read-only (sandbox.ts).
 *
 * How the install is kept to the npm registry and to its caps: it runs in a folder of ours with a manifest we
 * write (manifest.ts: dependencies only) and the project's lockfile when it has one (lockfile.ts: checked first);
 * lifecycle scripts are off (`--ignore-scripts`, so no `preinstall`/`postinstall` of the project or of any
 * package runs), `.pnpmfile.cjs` is ignored, and pnpm's configuration comes only from the environment we give it
 * (an empty user and global npmrc, no project `.npmrc`). Its HTTP and HTTPS proxy is the counting proxy
 * (registry-proxy.ts), which answers only the registry's own requests: a request to any other host fails. The install's
 * time is capped (`caps.timeMs`): past it pnpm and its children are killed.
 */
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ProjectInstall } from '../core/project.js';
import { lockfileProblems, type LockfileName } from './lockfile.js';
import { installManifest, manifestProblems, type ProjectManifest } from './manifest.js';
import type { InstallTraffic, ProjectInstallCaps, RegistryProxy } from './registry-proxy.js';
import type { ProjectStore } from './store.js';

const require = createRequire(import.meta.url);
/** pnpm's own entry point (a bundled CommonJS file run with this Node; its package exports only `package.json`, as `.`). */
export const PNPM = join(dirname(require.resolve('pnpm')), 'bin', 'pnpm.cjs');

export type InstallOutcome = { ok: true; install: ProjectInstall } | { ok: false; status: 'failed' | 'refused'; reason: string; install: ProjectInstall };

export interface InstallRequest {
  /** The project as given (its lockfile is read from here). */
  sourceDir: string;
  /** A fresh folder of ours where `node_modules` is made. */
  installDir: string;
  manifest: ProjectManifest;
  lockfile?: LockfileName;
  proxy: RegistryProxy;
  store: ProjectStore;
  caps: ProjectInstallCaps;
}

/** The environment pnpm runs with: nothing of ours or of the project's beyond what is set here. */
function pnpmEnv(registry: string, proxy: string, store: ProjectStore): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: store.home,
    CI: 'true',
    npm_config_userconfig: store.npmrc,
    npm_config_globalconfig: store.npmrc,
    npm_config_registry: registry,
    npm_config_store_dir: store.storeDir,
    npm_config_cache_dir: store.cacheDir,
    npm_config_state_dir: store.stateDir,
    npm_config_proxy: proxy,
    npm_config_https_proxy: proxy,
    npm_config_noproxy: '',
    npm_config_ignore_scripts: 'true',
    npm_config_side_effects_cache: 'false',
    npm_config_node_linker: 'isolated',
    npm_config_package_import_method: 'hardlink',
    npm_config_strict_peer_dependencies: 'false',
    npm_config_engine_strict: 'false',
    npm_config_update_notifier: 'false',
    npm_config_manage_package_manager_versions: 'false',
    npm_config_confirm_modules_purge: 'false',
    npm_config_fetch_retries: '1',
  };
}

function runPnpm(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeMs: number,
  onTimeout: () => void,
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PNPM, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString('utf8')).slice(-64 * 1024);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      onTimeout();
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeMs);
    child.on('error', (err) => {
      output += `\npnpm could not start: ${err.message}`;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/** pnpm's first error line (`ERR_PNPM_...`), without colour codes. */
function pnpmError(output: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const line = plain.split('\n').find((l) => /ERR_PNPM_|ERROR/.test(l));
  return (line ?? plain.trim().split('\n').pop() ?? 'no output').trim().slice(0, 300);
}

/** What a failed pnpm run means: the project's defect (`failed`) or our limit (`refused`), and why. */
function classify(output: string, traffic: InstallTraffic, timedOut: boolean, caps: ProjectInstallCaps): { status: 'failed' | 'refused'; reason: string } {
  if (traffic.refusal) return { status: 'refused', reason: `install refused: ${traffic.refusal}` };
  if (timedOut) return { status: 'refused', reason: `install stopped: it took longer than ${Math.round(caps.timeMs / 1000)} s` };
  if (traffic.notFound.length) return { status: 'failed', reason: `install failed: not in the npm registry: ${traffic.notFound.slice(0, 3).join(', ')}` };
  if (traffic.unreachable) return { status: 'refused', reason: `install refused: ${traffic.unreachable}` };
  const err = pnpmError(output);
  if (/OUTDATED_LOCKFILE|LOCKFILE_CONFIG_MISMATCH|lockfile.*not up to date/i.test(err))
    return { status: 'failed', reason: `install failed: the lockfile does not match package.json (${err})` };
  return { status: 'failed', reason: `install failed: ${err}` };
}

/** Install the project's dependencies into `installDir/node_modules` (module comment). */
export async function installDependencies(req: InstallRequest): Promise<InstallOutcome> {
  const start = performance.now();
  const install: ProjectInstall = { ms: 0, downloads: 0, registryBytes: 0, ...(req.lockfile ? { lockfile: req.lockfile } : {}) };
  const done = (o: { status: 'failed' | 'refused'; reason: string }): InstallOutcome => {
    install.ms = Math.round(performance.now() - start);
    return { ok: false, ...o, install };
  };
  const problems = manifestProblems(req.manifest);
  if (problems.length) return done({ status: 'refused', reason: `install refused: ${problems.slice(0, 3).join('; ')}` });
  if (req.lockfile) {
    const bad = lockfileProblems(req.sourceDir, req.lockfile, req.proxy.upstream);
    if (bad.length) return done({ status: 'refused', reason: `install refused: ${bad.join('; ')}` });
  }
  writeFileSync(join(req.installDir, 'package.json'), JSON.stringify(installManifest(req.manifest), null, 2));
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per request in flight, hundreds at once
  const session = req.proxy.open(req.caps, abort.signal);
  try {
    const env = pnpmEnv(session.registry, session.proxy, req.store);
    const deadline = start + req.caps.timeMs;
    const left = () => Math.max(1000, deadline - performance.now());
    const flags = ['--ignore-scripts', '--ignore-pnpmfile', '--prefer-offline', '--reporter=append-only'];
    if (req.lockfile && req.lockfile !== 'pnpm-lock.yaml') {
      copyFileSync(join(req.sourceDir, req.lockfile), join(req.installDir, req.lockfile));
      const imported = await runPnpm(['import'], req.installDir, env, left(), () => abort.abort());
      rmSync(join(req.installDir, req.lockfile), { force: true });
      if (imported.code !== 0) return done(classify(imported.output, session.traffic, imported.timedOut, req.caps));
    } else if (req.lockfile) copyFileSync(join(req.sourceDir, req.lockfile), join(req.installDir, req.lockfile));
    const args = ['install', req.lockfile ? '--frozen-lockfile' : '--no-frozen-lockfile', ...flags];
    const r = await runPnpm(args, req.installDir, env, left(), () => abort.abort());
    install.downloads = session.traffic.downloads;
    install.registryBytes = session.traffic.registryBytes;
    if (r.code !== 0) return done(classify(r.output, session.traffic, r.timedOut, req.caps));
    const packages = countPackages(join(req.installDir, 'pnpm-lock.yaml'));
    if (packages !== undefined) install.packages = packages;
    install.ms = Math.round(performance.now() - start);
    return { ok: true, install };
  } finally {
    session.end();
  }
}

function countPackages(lockfile: string): number | undefined {
  if (!existsSync(lockfile)) return undefined;
  try {
    const doc = parseYaml(readFileSync(lockfile, 'utf8')) as { packages?: Record<string, unknown> };
    return Object.keys(doc?.packages ?? {}).length;
  } catch {
    return undefined;
  }
}
