/**
 * Chrome's own sandbox when webgrade runs as root: off (--no-sandbox, with a warning from score and batch)
 * unless WEBGRADE_CHROME_USER names a user to start Chrome as. The tests that start Chrome as another user need
 * root and a user to switch to: they create one (`useradd`) and skip, saying why, where that is not possible.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { InputError } from '../../core/errors.js';
import { chromeSandboxWarning, chromeUser, findChrome, userNamespacesAllowed } from '../../gather/chrome.js';
import { ChromeProcess, scoringChromeFlags } from '../../gather/chrome-process.js';
import { runCli, tempDir, withoutSandboxWarning, writeArtifact, writeSingleFile } from '../helpers.js';

const TEST_USER = 'webgrade-chrome-test';
const isRoot = process.getuid?.() === 0;

/** Make sure TEST_USER exists; the reason to skip when it cannot. */
function ensureTestUser(): string | undefined {
  if (!isRoot) return 'needs root (only root can start Chrome as another user)';
  if (!findChrome()) return 'no Chrome or Chromium installed';
  if (spawnSync('id', ['-u', TEST_USER]).status === 0) return undefined;
  const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', TEST_USER], { encoding: 'utf8' });
  return made.status === 0 ? undefined : `cannot create the test user ${TEST_USER} (useradd: ${(made.stderr || made.error?.message || '').trim()})`;
}

/** Run `fn` with WEBGRADE_CHROME_USER set to `value` (or unset), restoring it after. */
async function withChromeUser<T>(value: string | undefined, fn: () => Promise<T> | T): Promise<T> {
  const saved = process.env.WEBGRADE_CHROME_USER;
  if (value === undefined) delete process.env.WEBGRADE_CHROME_USER;
  else process.env.WEBGRADE_CHROME_USER = value;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.WEBGRADE_CHROME_USER;
    else process.env.WEBGRADE_CHROME_USER = saved;
  }
}

function statusField(pid: number, field: string): string {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return (line ?? '').slice(field.length + 1).trim();
}

/** Every live process below `root` (its children, their children ...). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, p] of parent) if (p === pid) (out.push(child), walk(child));
  };
  walk(root);
  return out;
}

/** A process's command line as one string (Chrome rewrites its children's titles into one space-separated line). */
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

describe("Chrome's sandbox as root", () => {
  it('as root without WEBGRADE_CHROME_USER the scoring Chrome gets --no-sandbox and the warning says so', { skip: isRoot ? false : 'needs root' }, async () => {
    await withChromeUser(undefined, () => {
      assert.ok(scoringChromeFlags().includes('--no-sandbox'));
      assert.match(chromeSandboxWarning() ?? '', /running as root, so Chrome runs with --no-sandbox.*WEBGRADE_CHROME_USER/);
    });
  });

  it('a WEBGRADE_CHROME_USER that does not exist, or that is root, is bad input', { skip: isRoot ? false : 'needs root' }, async () => {
    await withChromeUser('no-such-user-webgrade', () =>
      assert.throws(
        () => chromeUser(),
        (e: unknown) => e instanceof InputError && /no such user/.test(e.message),
      ),
    );
    await withChromeUser('root', () =>
      assert.throws(
        () => chromeUser(),
        (e: unknown) => e instanceof InputError && /is root/.test(e.message),
      ),
    );
  });
});

describe('Chrome started as WEBGRADE_CHROME_USER', () => {
  let skip: string | undefined;
  let uid = '';
  before(() => {
    skip = ensureTestUser();
    if (!skip) uid = execFileSync('id', ['-u', TEST_USER], { encoding: 'utf8' }).trim();
  });

  it('runs every Chrome process as that user, without --no-sandbox, its renderers in a user namespace of their own', async (t) => {
    if (skip) return t.skip(skip);
    if (!userNamespacesAllowed()) return t.skip('this kernel does not allow unprivileged user namespaces (Chrome then runs as the user with --no-sandbox)');
    await withChromeUser(TEST_USER, async () => {
      assert.equal(chromeSandboxWarning(), null);
      const chrome = new ChromeProcess();
      try {
        const browser = await chrome.browser();
        const pid = chrome.pid!;
        assert.deepEqual(statusField(pid, 'Uid').split(/\s+/), [uid, uid, uid, uid]);
        assert.doesNotMatch(cmdline(pid), /--no-sandbox/, 'Chrome keeps its sandbox');
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        await page.goto('data:text/html,<p id="x">sandboxed</p>');
        assert.equal(await page.$eval('#x', (e) => e.textContent), 'sandboxed');
        const below = descendants(pid);
        const renderers = below.filter((p) => cmdline(p).includes('--type=renderer'));
        assert.ok(renderers.length > 0, 'a renderer process runs');
        for (const p of below) assert.equal(statusField(p, 'Uid').split(/\s+/)[0], uid, `process ${p} (${cmdline(p).slice(0, 80)}) runs as the user`);
        const browserNs = readlinkSync(`/proc/${pid}/ns/user`);
        for (const r of renderers) assert.notEqual(readlinkSync(`/proc/${r}/ns/user`), browserNs, "the renderer is in the sandbox's own user namespace");
        await context.close();
      } finally {
        const dir = chrome.profileDir;
        await chrome.kill();
        if (dir) assert.equal(existsSync(dir), false, 'the profile is removed, though the user owned it');
      }
    });
  });
});

describe("score and batch warn about Chrome's sandbox", () => {
  let skip: string | undefined;
  let page = '';
  before(() => {
    skip = ensureTestUser();
    page = writeSingleFile('<!doctype html><html lang="en"><title>t</title><p>hello</p>');
  });

  const warning = /Chrome runs with --no-sandbox/;

  it('once on stderr as root, outside the --json document; not when Chrome runs as WEBGRADE_CHROME_USER', async (t) => {
    if (!isRoot) return t.skip('needs root');
    const root = await runCli(['score', page, '--json', '--only', 'console-errors', '--network', 'offline'], { env: { WEBGRADE_CHROME_USER: '' } });
    assert.equal(root.code, 0, root.stderr);
    assert.equal(root.stderr.split('\n').filter((l) => warning.test(l)).length, 1, root.stderr);
    assert.doesNotMatch(root.stdout, warning);
    assert.equal((JSON.parse(root.stdout) as { metrics: Array<{ id: string }> }).metrics[0]!.id, 'console-errors');
    if (skip) return t.skip(`the WEBGRADE_CHROME_USER half: ${skip}`);
    if (!userNamespacesAllowed()) return t.skip('the WEBGRADE_CHROME_USER half: no unprivileged user namespaces here');
    const asUser = await runCli(['score', page, '--json', '--only', 'console-errors', '--network', 'offline'], { env: { WEBGRADE_CHROME_USER: TEST_USER } });
    assert.equal(asUser.code, 0, asUser.stderr);
    assert.doesNotMatch(asUser.stderr, /sandbox/);
    const m = (JSON.parse(asUser.stdout) as { metrics: Array<{ id: string; score: number | null }> }).metrics[0]!;
    assert.equal(m.score, 100, 'the page is scored with Chrome running as the user');
  });

  it('not when the metrics run need no Chrome', async (t) => {
    if (!isRoot) return t.skip('needs root');
    const r = await runCli(['score', page, '--json', '--only', 'comment-rate'], { env: { WEBGRADE_CHROME_USER: '' } });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, warning);
  });

  it('batch warns once, though each of its workers starts a Chrome', async (t) => {
    if (!isRoot) return t.skip('needs root');
    const html = '<!doctype html><html lang="en"><title>t</title><p>hello</p>';
    const runs = writeArtifact({ 'm/a.html': html, 'm/b.html': html });
    const r = await runCli(['batch', runs, '--out', `${tempDir()}/results.jsonl`, '--only', 'console-errors', '--network', 'offline', '--concurrency', '2'], {
      env: { WEBGRADE_CHROME_USER: '' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.split('\n').filter((l) => warning.test(l)).length, 1, r.stderr);
    assert.doesNotMatch(withoutSandboxWarning(r.stderr), warning);
  });
});
