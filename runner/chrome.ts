/**
 * Finding and launching the system Chrome/Chromium (never a downloaded one). Everything that drives a browser
 * (the evidence session, Lighthouse, end-to-end tests of the report and survey pages) uses these flags.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

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

/** Headless flags from DEVELOPERS.md (plus --no-sandbox when running as root). */
export function chromeFlags(): string[] {
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
  ];
  if (process.getuid?.() === 0) flags.push('--no-sandbox');
  return flags;
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Closes the browser and removes its profile; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Launch a headless Chrome with a fresh profile through puppeteer-core. For tests and small tools; the scoring
 * session manages its own Chrome (see runner/gather/).
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
