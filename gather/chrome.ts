/**
 * Finding and launching the system Chrome/Chromium (never a downloaded one). Everything that drives a browser
 * (the evidence session, Lighthouse, end-to-end tests of the report and survey pages) uses these flags.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { InputError } from '../core/errors.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/lib/chromium/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Path of the Chrome to use: `CHROME_PATH`, else Debian's chromium and common locations; null if none. */
export function findChrome(): string | null {
  const env = process.env.CHROME_PATH;
  if (env && isExecutable(env)) return env;
  return CANDIDATES.find(isExecutable) ?? null;
}

let version: string | null | undefined;
/**
 * The browser's name and version as it reports them (`Chromium 150.0.7871.100`), or null when there is none:
 * recorded with every score, since a Chrome release can change what a page shows and what it asks for. Asked
 * once per process from the binary itself (Debian's /usr/bin/chromium is a wrapper script).
 */
export function browserVersion(): string | null {
  if (version !== undefined) return version;
  let bin = findChrome();
  if (bin === '/usr/bin/chromium' && existsSync('/usr/lib/chromium/chromium')) bin = '/usr/lib/chromium/chromium';
  const r = bin ? spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 }) : null;
  const line = r?.status === 0 ? r.stdout.split('\n').find((l) => /\d+\.\d+/.test(l)) : undefined;
  version = line ? line.replace(/\s+built on .*$/, '').trim() : null;
  return version;
}

/** A non-root user the scoring Chrome runs as (`WEBGRADE_CHROME_USER`). */
export interface ChromeUser {
  name: string;
  uid: number;
  gid: number;
}

const resolvedUsers = new Map<string, ChromeUser>();

/**
 * The user named by `WEBGRADE_CHROME_USER` (a name or a numeric id), when webgrade runs as root; null when unset or
 * when not root (only root can start a process as another user). Looked up with `id`, so users from any name
 * service count. A name that does not exist, or that is root, is bad input.
 */
export function chromeUser(): ChromeUser | null {
  const name = process.env.WEBGRADE_CHROME_USER?.trim();
  if (!name || process.getuid?.() !== 0) return null;
  const known = resolvedUsers.get(name);
  if (known) return known;
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    throw new InputError(`WEBGRADE_CHROME_USER=${name}: no such user`);
  }
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new InputError(`WEBGRADE_CHROME_USER=${name}: no such user`);
  if (uid === 0) throw new InputError(`WEBGRADE_CHROME_USER=${name} is root: name a user without privileges`);
  const user = { name, uid, gid };
  resolvedUsers.set(name, user);
  return user;
}

function readSysctl(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Does this kernel let an unprivileged process create user namespaces? Chrome's sandbox needs them (Debian's
 * chromium ships no setuid helper); where they are forbidden, Chrome as a plain user must also run with
 * --no-sandbox.
 */
export function userNamespacesAllowed(): boolean {
  return readSysctl('/proc/sys/kernel/unprivileged_userns_clone') !== '0' && readSysctl('/proc/sys/user/max_user_namespaces') !== '0';
}

/**
 * Does the scoring Chrome keep its own sandbox? Not as root (Chrome refuses to start sandboxed as root, so it
 * gets --no-sandbox), unless it runs as `WEBGRADE_CHROME_USER` on a kernel that allows user namespaces.
 */
export function scoringChromeSandboxed(user: ChromeUser | null = chromeUser()): boolean {
  if (user) return userNamespacesAllowed();
  return process.getuid?.() !== 0;
}

/**
 * The one-line warning `score` and `batch` print when the scoring Chrome runs without its own sandbox; null when
 * it keeps it.
 */
export function chromeSandboxWarning(): string | null {
  const user = chromeUser();
  if (scoringChromeSandboxed(user)) return null;
  if (user) return `Chrome runs as ${user.name} but with --no-sandbox: this kernel does not allow unprivileged user namespaces (docs/security.md)`;
  return 'running as root, so Chrome runs with --no-sandbox (its own sandbox is off); set WEBGRADE_CHROME_USER to a non-root user, or run webgrade as one (docs/security.md)';
}

/**
 * Chromium 156's features that build the address bar's popup as a WebUI page (chrome://omnibox-popup.top-chrome),
 * which headless Chrome does for every tab it opens, although no window ever shows it: two `browser_ui` targets
 * per tab, each a page with its own renderer work, which Chromium 150 does not make. Found by listing the targets at
 * each visit (issue 45, "the Chromium 156 stalls", 2026-11-27): on 156 opening the visit's tab took 0.4–1.9 s
 * (12 corpus pages, concurrency 1, quiet machine) against 0.2–0.4 s on 150, and light pages scored at 11.3
 * pages/min against 16.6 (60 pages, concurrency 2). Switched off, 156 opens no such target. Unknown feature names
 * are ignored by a Chromium that does not have them. Every Chrome webgrade starts has them off (chromeFlags).
 */
export const NO_OMNIBOX_WEBUI = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'] as const;

/**
 * Headless flags from DEVELOPERS.md, plus --no-sandbox unless `sandboxed` (by default: unless running as root,
 * where Chrome will not start with its sandbox).
 *
 * The three `--disable-background*` / `--disable-renderer-backgrounding` flags are the ones Lighthouse's own
 * launcher sets: one browser holds several pages at once (the visit, the probe, Lighthouse's run, a test's other
 * pages), and without them a page Chrome takes for hidden or occluded has its timers throttled to once a second
 * and its renderer lowered in priority. A CI run on Chromium 156 measured a page that computes without pause as
 * 49 % busy (99–100 % here, alone or loaded): a throttled page looks idle and is measured as another page.
 */
export function chromeFlags(sandboxed = process.getuid?.() !== 0): string[] {
  const flags = [
    '--headless=new',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-extensions',
    '--mute-audio',
    '--hide-scrollbars',
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    `--disable-features=${NO_OMNIBOX_WEBUI.join(',')}`,
  ];
  if (!sandboxed) flags.push('--no-sandbox');
  return flags;
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Closes the browser and removes its profile; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Launch a headless Chrome with a fresh profile through puppeteer-core. For tests and small tools; the scoring
 * session manages its own Chrome (see gather/). This one runs as the current user (WEBGRADE_CHROME_USER
 * applies to the scoring Chrome only).
 */
export async function launchBrowser(extraFlags: string[] = []): Promise<LaunchedBrowser> {
  const executablePath = findChrome();
  if (!executablePath) throw new Error('no Chrome or Chromium found (install Debian chromium or set CHROME_PATH)');
  const userDataDir = mkdtempSync(join(tmpdir(), 'webgrade-chrome-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir,
    args: [...chromeFlags(), ...extraFlags],
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const proc = browser.process();
    await browser.close().catch(() => undefined);
    if (proc && proc.exitCode === null) proc.kill('SIGKILL');
    rmSync(userDataDir, { recursive: true, force: true });
  };
  return { browser, close };
}
