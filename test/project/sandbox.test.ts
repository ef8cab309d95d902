/**
 * Each claim of project/sandbox.ts and project/install.ts, tested with a hostile project (fixtures/projects/hostile/):
 * the build reaches no network, reads nothing of the system's, the user's, webgrade's or another artifact's, writes
 * nothing outside its copy (not the shared store either), and is stopped by its process, time, CPU and memory
 * limits; the install runs no hook and fetches nothing that is not on the npm registry.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Projects, type PreparedProject } from '../../project/build.js';
import { BUILD_UID_BASE } from '../../project/sandbox.js';
import { repoRoot, tempDir } from '../helpers.js';
import { projectCopy, sandboxSkip, TEST_STORE } from './tools.js';

const skip = sandboxSkip();

/** The pids of live processes that run as a build user (as root: ids above BUILD_UID_BASE; otherwise none to tell). */
function buildProcesses(): Set<number> {
  const out = new Set<number>();
  if (process.getuid?.() !== 0) return out;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      // A zombie holds no resource, only its pid until its new parent (here the host's pid 1) reaps it.
      if (uid > BUILD_UID_BASE && !/^State:\s+Z/m.test(status)) out.add(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** What the hostile build wrote into its page. */
function report(p: PreparedProject): Record<string, string> {
  assert.equal(p.evidence.status, 'built', p.evidence.reason);
  const html = readFileSync(join(p.outputDir!, 'index.html'), 'utf8');
  return JSON.parse(/<pre id="out">(.*)<\/pre>/s.exec(html)![1]!) as Record<string, string>;
}

describe('a project build in the sandbox', { skip }, () => {
  let projects: Projects;
  let server: Server;
  let port = 0;
  const secretDir = tempDir('webgrade-secret-');
  const secret = join(secretDir, 'other-artifact.html');
  before(async () => {
    projects = new Projects({ storeDir: TEST_STORE, limits: { wallMs: 60_000 } });
    writeFileSync(secret, 'another model’s page');
    server = createServer((s) => s.end('hello from the host'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    await projects.close();
    server.close();
  });

  it('reaches no network: no DNS, no registry, no public address, not the host’s loopback servers', async () => {
    const p = await projects.prepare(projectCopy('hostile/network', { ports: [port] }));
    try {
      const out = report(p);
      assert.match(out.dns!, /^error/);
      assert.match(out.https!, /^error/);
      assert.match(out.public!, /^error/);
      assert.match(out[`loopback:${port}`]!, /^error ECONNREFUSED/);
    } finally {
      p.cleanup();
    }
  });

  it('reads nothing of the system, the user, webgrade or another artifact', async () => {
    const webgrade = join(repoRoot, 'package.json');
    const home = join(homedir(), '.ssh');
    const p = await projects.prepare(projectCopy('hostile/read-secrets', { paths: [secret, secretDir, webgrade, home, TEST_STORE] }));
    try {
      const out = report(p);
      for (const t of [
        '/etc/shadow',
        '/etc/hostname',
        '/root/.ssh/id_rsa',
        '/root/.ssh',
        '/home',
        '/work',
        '/var/log',
        secret,
        secretDir,
        webgrade,
        home,
        TEST_STORE,
      ])
        assert.match(out[t]!, /^error ENOENT/, t);
      // /etc is ours: a passwd naming only the build user.
      assert.equal(out['/etc/passwd'], 'read build:x:1000:1000:build:/tmp:/bin/sh\n');
      // /proc is the sandbox's own: its pid 1 is the sandbox's, with the environment we gave it.
      assert.doesNotMatch(out['/proc/1/environ'] ?? '', /NODE_EXTRA_CA_CERTS|SSH_|npm_config/);
    } finally {
      p.cleanup();
    }
  });

  it('writes only inside its copy: not above it, not the system, not the shared store, not a folder of the host', async () => {
    const outside = join(tempDir('webgrade-outside-'), 'planted.txt');
    const p = await projects.prepare(projectCopy('hostile/write-outside', { paths: [outside, join(TEST_STORE, 'planted.txt')] }));
    try {
      const out = report(p);
      assert.match(out['../escape.txt']!, /^error E(ACCES|ROFS)/);
      for (const t of ['/usr/escape.txt', '/etc/escape.txt', '/escape.txt']) assert.match(out[t]!, /^error E(ACCES|ROFS|NOENT)/, t);
      assert.match(out['node_modules/picocolors/picocolors.js']!, /^error EROFS/);
      assert.match(out[outside]!, /^error ENOENT/);
      assert.equal(existsSync(outside), false);
      assert.equal(existsSync(join(TEST_STORE, 'planted.txt')), false);
    } finally {
      p.cleanup();
    }
  });

  it('holds a fork bomb to its process limit, ends it long before its time limit, and leaves no process behind', async () => {
    // Each bomb waits for its children, so the tree holds every process it got. Either the watch sees the tree
    // reach the limit and kills the sandbox (limit `processes`), or RLIMIT_NPROC (a margin above) makes forks
    // fail first and the bombs end; both end the build long before its time limit.
    const before = buildProcesses();
    const bomb = new Projects({ storeDir: TEST_STORE, limits: { processes: 64, wallMs: 60_000 } });
    const p = await bomb.prepare(projectCopy('hostile/fork-bomb'));
    await bomb.close();
    p.cleanup();
    assert.equal(p.evidence.status, 'failed');
    // Stopped by the watch, or held by RLIMIT_NPROC: then forks failed (dash's "Cannot fork" in the log) and the
    // build ended failed or without output, as a real build whose forks fail does.
    assert.ok(p.evidence.build?.limit === 'processes' || /Cannot fork/.test(p.evidence.build!.logTail), p.evidence.reason);
    if (p.evidence.build?.limit === 'processes') assert.match(p.evidence.reason!, /over its process limit/);
    assert.ok(p.evidence.build!.ms < 20_000, String(p.evidence.build!.ms));
    const left = () => [...buildProcesses()].filter((pid) => !before.has(pid));
    for (let i = 0; i < 20 && left().length; i++) await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(left(), []);
  });

  it('stops a build that never ends at its time limit, and one that spins at its CPU limit', async () => {
    const timed = new Projects({ storeDir: TEST_STORE, limits: { wallMs: 4000 } });
    const p = await timed.prepare(projectCopy('hostile/endless-build'));
    await timed.close();
    p.cleanup();
    assert.equal(p.evidence.build?.limit, 'time');
    assert.match(p.evidence.reason!, /build stopped: over its time limit/);
    assert.ok(p.evidence.build!.ms < 8000, String(p.evidence.build!.ms));
    const cpu = new Projects({ storeDir: TEST_STORE, limits: { cpuSeconds: 2, wallMs: 60_000 } });
    const q = await cpu.prepare(projectCopy('hostile/endless-build'));
    await cpu.close();
    q.cleanup();
    assert.equal(q.evidence.build?.limit, 'cpu', q.evidence.reason);
    assert.ok(q.evidence.build!.ms < 30_000);
  });

  it('holds a build to its memory limit', async () => {
    const small = new Projects({ storeDir: TEST_STORE, limits: { memoryBytes: 512 * 1024 ** 2, wallMs: 60_000 } });
    const p = await small.prepare(projectCopy('hostile/memory-hog'));
    await small.close();
    p.cleanup();
    assert.equal(p.evidence.status, 'failed');
    const got = Number(/<pre id="out">(\d+)/.exec(p.evidence.build!.logTail)?.[1] ?? 0);
    assert.ok(got <= 512, `held ${got} MB`);
  });
});

describe('a project install', { skip }, () => {
  let projects: Projects;
  before(() => {
    projects = new Projects({ storeDir: TEST_STORE });
  });
  after(async () => {
    await projects.close();
  });

  it("runs no lifecycle script, no .pnpmfile.cjs, and ignores the project's .npmrc and pnpm overrides", async () => {
    const marker = join(tmpdir(), 'webgrade-hook-ran');
    rmSync(marker, { force: true });
    const p = await projects.prepare(projectCopy('hostile/install-hooks'));
    p.cleanup();
    assert.equal(p.evidence.status, 'built', p.evidence.reason);
    assert.equal(existsSync(marker), false, existsSync(marker) ? readFileSync(marker, 'utf8') : '');
  });

  it('refuses git, URL and file dependencies before fetching anything, naming them', async () => {
    const p = await projects.prepare(projectCopy('hostile/git-dependency'));
    p.cleanup();
    assert.equal(p.evidence.status, 'refused');
    assert.equal(p.evidence.phase, 'install');
    assert.match(p.evidence.reason!, /react: "github:facebook\/react" is not on the npm registry \(a git repository\)/);
    assert.match(p.evidence.reason!, /left-pad: .* \(a URL\)/);
    assert.match(p.evidence.reason!, /secrets: .* \(a path\)|\(a local or workspace specifier\)/);
    assert.equal(p.evidence.install?.downloads, 0);
  });

  it('refuses a lockfile that resolves a package at another registry', async () => {
    const p = await projects.prepare(projectCopy('hostile/foreign-lockfile'));
    p.cleanup();
    assert.equal(p.evidence.status, 'refused');
    assert.match(p.evidence.reason!, /registry\.evil\.example/);
  });

  it('fails (the project’s defect) on a dependency the registry does not have', async () => {
    const dir = projectCopy('hostile/foreign-lockfile');
    rmSync(join(dir, 'package-lock.json'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { build: 'true' }, dependencies: { 'webgrade-no-such-package-3f9a1c': '1.0.0' } }));
    const p = await projects.prepare(dir);
    p.cleanup();
    assert.equal(p.evidence.status, 'failed');
    assert.match(p.evidence.reason!, /not in the npm registry: webgrade-no-such-package-3f9a1c/);
  });
});

describe('the install caps', { skip }, () => {
  const pkg = (deps: Record<string, string>) =>
    JSON.stringify({ scripts: { build: 'mkdir -p dist && echo "<p>x</p>" > dist/index.html' }, dependencies: deps });
  const project = (deps: Record<string, string>) => {
    const dir = tempDir('webgrade-caps-');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), pkg(deps));
    return dir;
  };

  it('counts downloads into a cold store and refuses past the cap of package downloads, naming it', async () => {
    const cold = new Projects({ storeDir: tempDir('webgrade-cold-store-'), caps: { packages: 2 } });
    const p = await cold.prepare(project({ react: '19.3.1', 'react-dom': '19.3.1' }));
    await cold.close();
    p.cleanup();
    assert.equal(p.evidence.status, 'refused');
    assert.match(p.evidence.reason!, /over the project's budget of 2 package downloads/);
  });

  it('refuses a tarball that inflates past its cap', async () => {
    const cold = new Projects({ storeDir: tempDir('webgrade-cold-store-'), caps: { tarballInflatedBytes: 4096 } });
    const p = await cold.prepare(project({ react: '19.3.1' }));
    await cold.close();
    p.cleanup();
    assert.equal(p.evidence.status, 'refused');
    assert.match(p.evidence.reason!, /inflates past the cap of/);
  });

  it('stops an install past its time', async () => {
    const cold = new Projects({ storeDir: tempDir('webgrade-cold-store-'), caps: { timeMs: 1500 } });
    const p = await cold.prepare(project({ react: '19.3.1', 'react-dom': '19.3.1', vue: '3.5.45' }));
    await cold.close();
    p.cleanup();
    assert.equal(p.evidence.status, 'refused');
    assert.match(p.evidence.reason!, /install stopped: it took longer than 2 s/);
  });

  it('installs from a warm store with no download, and respects the lockfile', async () => {
    const projects = new Projects({ storeDir: TEST_STORE });
    const dir = project({ picocolors: '^1.0.0' });
    writeFileSync(
      join(dir, 'package-lock.json'),
      JSON.stringify({
        name: 'x',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { dependencies: { picocolors: '^1.0.0' } },
          'node_modules/picocolors': {
            version: '1.0.0',
            resolved: 'https://registry.npmjs.org/picocolors/-/picocolors-1.0.0.tgz',
            integrity: 'sha512-1fygroTLlHu66zi26VoTDv8yRgm0Fccecssto+MhsZ0D/DGW2sm8E8AjW7NU5VVTRt5GxbeZ5qBuJr+HyLYkjQ==',
          },
        },
      }),
    );
    const first = await projects.prepare(dir);
    first.cleanup();
    const second = await projects.prepare(dir);
    second.cleanup();
    await projects.close();
    assert.equal(second.evidence.status, 'built', second.evidence.reason);
    assert.equal(second.evidence.install?.downloads, 0);
    assert.equal(second.evidence.install?.lockfile, 'package-lock.json');
    assert.equal(second.evidence.install?.packages, 1);
  });
});
