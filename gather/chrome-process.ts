/**
 * The one Chrome of a scoring process: started with chrome-launcher (fresh `--user-data-dir`, the flags of
 * gather/chrome.ts plus isolation flags), driven with puppeteer-core over the same debugging port that
 * Lighthouse uses, killed by pid on every exit path (close, process exit, SIGINT, SIGTERM) and restarted when
 * it dies.
 *
 * Isolation (the sandbox proxy, sandbox/sandbox.ts, is the enforcement point; these settings make sure nothing
 * goes around it):
 * - every browser context that loads a page is created with the sandbox proxy (`sandboxContext`); the default
 *   context's proxy is a closed loopback port (`--proxy-server=127.0.0.1:9`) with no bypass, loopback included
 *   (`--proxy-bypass-list=<-loopback>`), so a tab there reaches nothing;
 * - `--host-resolver-rules` makes every host name fail to resolve (only the proxy's IP literal is used);
 * - WebRTC may not send UDP that does not go through the proxy (profile preference `webrtc.ip_handling_policy`
 *   = `disable_non_proxied_udp`, written into the fresh profile before start: the command-line switch was
 *   measured not to apply to the contexts we create);
 * - downloads are denied in every context we create, and in the default context (`Browser.setDownloadBehavior`);
 *   the profile's download folder is inside the profile, deleted with it;
 * - the sandbox's TLS key is the only certificate key Chrome accepts beyond the system's
 *   (`--ignore-certificate-errors-spki-list`), so the proxy can answer https CDN URLs;
 * - when webgrade runs as root and `WEBGRADE_CHROME_USER` names a user, Chrome is started as that user (its uid
 *   and gid, its HOME inside the profile, the profile handed to it), so Chrome's own sandbox stays on; as root
 *   otherwise, Chrome runs with --no-sandbox (gather/chrome.ts).
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import puppeteer, { type Browser, type BrowserContext } from 'puppeteer-core';
import { NO_OMNIBOX_WEBUI, chromeFlags, chromeUser, findChrome, scoringChromeSandboxed, type ChromeUser } from './chrome.js';
import { PROFILE_PREFIX, killTree, markProfile, reapDeadProfiles, reapProfile } from './chrome-reaper.js';
import { RequestWatch } from './page-requests.js';

export const ISOLATION_FLAGS = [
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--proxy-server=127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--disable-domain-reliability',
  '--no-pings',
  '--disable-client-side-phishing-detection',
];

/** Profile preferences written before Chrome starts (see the module comment). */
export function profilePreferences(downloadDir: string): Record<string, unknown> {
  return {
    webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false },
    download: { default_directory: downloadDir, prompt_for_download: false, directory_upgrade: true },
    savefile: { default_directory: downloadDir },
  };
}

/**
 * A fresh browser context whose every request goes to the sandbox proxy at `proxyServer`; downloads denied. With
 * `requests`, every request its targets make is recorded there (page-requests.ts: the page's requests told apart
 * from the browser's own), from before the first page opens.
 */
export async function sandboxContext(browser: Browser, proxyServer: string, requests?: Set<string>): Promise<BrowserContext> {
  const context = await browser.createBrowserContext({ proxyServer, proxyBypassList: ['<-loopback>'], downloadBehavior: { policy: 'deny' } });
  if (requests) await new RequestWatch(context, requests).ready();
  return context;
}

/** Pids of every Chrome this process started and has not yet killed. */
const livePids = new Map<number, string>();
/** Profile folders this process made and has not yet removed (a Chrome may be starting in one). */
const ownDirs = new Set<string>();
let hooksInstalled = false;
let reapedDead = false;

/** Called with every Chrome this process starts (a batch worker tells its parent, which reaps it if we die). */
const launchListeners: Array<(chrome: { pid: number; profile: string }) => void> = [];
export function onChromeLaunch(listener: (chrome: { pid: number; profile: string }) => void): void {
  launchListeners.push(listener);
}

function killAllOwn(): void {
  for (const [pid, dir] of livePids) {
    killTree(pid);
    rmSync(dir, { recursive: true, force: true });
  }
  livePids.clear();
  // A Chrome still starting (launched, port not yet open) is not in livePids: find it by its profile.
  for (const dir of ownDirs) reapProfile(dir);
  ownDirs.clear();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllOwn);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      killAllOwn();
      // Re-raise with the default handler so the exit status says which signal ended us.
      process.removeAllListeners(sig);
      process.kill(process.pid, sig);
    });
  }
}

/**
 * The real binary behind Debian's /usr/bin/chromium wrapper script (so that the pid we kill is Chrome's, and
 * the wrapper's /etc/chromium.d default flags do not creep in).
 */
export function chromeBinary(): string {
  const p = findChrome();
  if (!p) throw new Error('no Chrome or Chromium found (install Debian chromium or set CHROME_PATH)');
  if (p === '/usr/bin/chromium' && existsSync('/usr/lib/chromium/chromium')) return '/usr/lib/chromium/chromium';
  return p;
}

/**
 * Every flag of the scoring Chrome: the headless flags, the isolation flags, no background features, and the
 * sandbox's TLS key (`spki`: base64 SHA-256 of its SubjectPublicKeyInfo) when given. `user`: the user Chrome is
 * started as (its sandbox then stays on where the kernel allows it).
 */
export function scoringChromeFlags(spki?: string, user: ChromeUser | null = chromeUser()): string[] {
  // No background features: they make requests of their own through the page's context (the autofill server
  // was seen asking content-autofill.googleapis.com from every page's context). Chrome reads one
  // --disable-features: this list replaces chromeFlags' and keeps its features.
  const off = ['Translate', 'OptimizationHints', 'MediaRouter', 'AutofillServerCommunication', 'InterestFeedContentSuggestions', 'PrivacySandboxSettings4'];
  const flags = [
    ...chromeFlags(scoringChromeSandboxed(user)).filter((f) => !f.startsWith('--disable-features=')),
    ...ISOLATION_FLAGS,
    `--disable-features=${[...off, ...NO_OMNIBOX_WEBUI].join(',')}`,
  ];
  if (spki) flags.push(`--ignore-certificate-errors-spki-list=${spki}`);
  return flags;
}

/** Hand a fresh profile folder (and what is in it) to the user Chrome runs as. */
function chownTree(path: string, user: ChromeUser): void {
  chownSync(path, user.uid, user.gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    if (entry.isDirectory()) chownTree(p, user);
    else chownSync(p, user.uid, user.gid);
  }
}

/**
 * chrome-launcher's `launch`, with Chrome started as `user` when given: chrome-launcher takes a replacement
 * `spawn` (its ModuleOverrides), which adds the uid and gid. HOME, the XDG folders and TMPDIR point into the
 * profile: the user cannot write root's, and the temporary folders Chrome makes (left behind when it is killed)
 * go with the profile.
 */
async function launchChrome(options: chromeLauncher.Options, user: ChromeUser | null): Promise<chromeLauncher.LaunchedChrome> {
  if (!user) return chromeLauncher.launch(options);
  const home = options.userDataDir as string;
  const spawnAs = ((command: string, args: readonly string[], opts: SpawnOptions) =>
    spawn(command, args, { ...opts, uid: user.uid, gid: user.gid })) as typeof spawn;
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), TMPDIR: join(home, 'tmp') };
  const launcher = new chromeLauncher.Launcher({ ...options, envVars: env }, { spawn: spawnAs });
  await launcher.launch();
  if (launcher.pid === undefined || launcher.port === undefined || !launcher.chromeProcess) throw new Error(`Chrome did not start as ${user.name}`);
  return {
    pid: launcher.pid,
    port: launcher.port,
    process: launcher.chromeProcess,
    remoteDebuggingPipes: launcher.remoteDebuggingPipes,
    kill: () => launcher.kill(),
  };
}

export interface ChromeProcessOptions {
  /** The sandbox's TLS key hash (scoringChromeFlags); asked for before every start. */
  spki?: () => Promise<string>;
}

export class ChromeProcess {
  private launched?: chromeLauncher.LaunchedChrome;
  private userDataDir?: string;
  private _browser?: Browser;
  private starting?: Promise<Browser>;
  /** How many times Chrome was (re)started. */
  starts = 0;
  /** How many times a running Chrome was killed (`kill`). */
  kills = 0;
  /** Bumped by `kill`: a start that was under way then gives up. */
  private generation = 0;

  constructor(private readonly options: ChromeProcessOptions = {}) {}

  get port(): number | undefined {
    return this.launched?.port;
  }

  get pid(): number | undefined {
    return this.launched?.pid;
  }

  /** The running Chrome's profile folder (removed when Chrome is killed). */
  get profileDir(): string | undefined {
    return this.userDataDir;
  }

  /** True when a started Chrome is still connected. */
  get alive(): boolean {
    return !!this._browser && this._browser.connected && this.launched?.process.exitCode === null;
  }

  /** The connected browser, starting (or restarting) Chrome when needed. */
  async browser(): Promise<Browser> {
    if (this.alive) return this._browser!;
    if (this.starting) return this.starting;
    this.starting = (async () => {
      if (this.launched) await this.kill();
      return this.start();
    })().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<Browser> {
    installExitHooks();
    if (!reapedDead) {
      reapedDead = true;
      reapDeadProfiles(); // profiles (and Chromes) of earlier runs that died without cleaning up
    }
    const spki = this.options.spki ? await this.options.spki() : undefined;
    const userDataDir = mkdtempSync(join(tmpdir(), PROFILE_PREFIX));
    ownDirs.add(userDataDir);
    markProfile(userDataDir);
    this.userDataDir = userDataDir;
    const generation = this.generation;
    let launched: chromeLauncher.LaunchedChrome;
    try {
      const downloads = join(userDataDir, 'downloads');
      mkdirSync(join(userDataDir, 'Default'), { recursive: true });
      writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(profilePreferences(downloads)));
      const user = chromeUser();
      if (user) {
        mkdirSync(join(userDataDir, 'tmp'));
        chownTree(userDataDir, user);
      }
      launched = await launchChrome(
        {
          chromePath: chromeBinary(),
          chromeFlags: scoringChromeFlags(spki, user),
          userDataDir,
          handleSIGINT: false,
          logLevel: 'silent',
        },
        user,
      );
    } catch (err) {
      reapProfile(userDataDir); // a Chrome that started but never opened its port, and the profile
      ownDirs.delete(userDataDir);
      this.userDataDir = undefined;
      throw err;
    }
    if (generation !== this.generation) {
      // killed while it started (the scorer is closing): do not keep it
      killTree(launched.pid);
      reapProfile(userDataDir);
      ownDirs.delete(userDataDir);
      throw new Error('Chrome was stopped while it was starting');
    }
    this.launched = launched;
    livePids.set(launched.pid, userDataDir);
    for (const listener of launchListeners) listener({ pid: launched.pid, profile: userDataDir });
    this.starts++;
    try {
      this._browser = await puppeteer.connect({
        browserURL: `http://127.0.0.1:${launched.port}`,
        defaultViewport: null,
        protocolTimeout: 60_000,
        // Attach only to targets of the browser contexts this connection creates: puppeteer files a target of a
        // context it did not create under the default context, so this also leaves out Lighthouse's contexts
        // (made by the Lighthouse thread's own connection); attaching to them (and pausing each of their new
        // targets until resumed) slowed every Lighthouse run by 0.3–0.6 s (bench/browser-suite.ts).
        targetFilter: (target) => target.type() === 'browser' || target.browserContext() !== target.browser().defaultBrowserContext(),
      });
      await this._browser
        .target()
        .createCDPSession()
        .then((s) => s.send('Browser.setDownloadBehavior', { behavior: 'deny' }));
    } catch (err) {
      await this.kill();
      throw err;
    }
    return this._browser;
  }

  /**
   * Kill Chrome by pid and remove its profile; safe to call twice. The next `browser()` starts a new one. A
   * Chrome still starting is killed by its profile (and its start fails).
   */
  async kill(): Promise<void> {
    this.generation++;
    const launched = this.launched;
    const browser = this._browser;
    const dir = this.userDataDir;
    this.launched = undefined;
    this._browser = undefined;
    this.userDataDir = undefined;
    if (browser) {
      try {
        await browser.disconnect();
      } catch {
        /* already gone */
      }
    }
    if (launched) {
      this.kills++;
      killTree(launched.pid);
      livePids.delete(launched.pid);
      await new Promise<void>((resolve) => {
        if (launched.process.exitCode !== null || launched.process.signalCode !== null) return resolve();
        const t = setTimeout(resolve, 2000);
        launched.process.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    if (dir) {
      reapProfile(dir);
      ownDirs.delete(dir);
    }
  }
}
