#!/usr/bin/env node
// Installs whatever is missing before the example or the tests run, on a fresh machine with only Node:
//   1. npm packages (npm ci when the lockfile changed since the last install),
//   2. the TypeScript build (incremental: a no-op when nothing changed),
//   3. a Chrome/Chromium for the browser metrics: Debian's `chromium` through apt when none is found, and the
//      fonts a desktop browser has (Debian's colour emoji font and a CJK font; Liberation comes with chromium) so
//      that emoji and CJK text render instead of empty boxes.
// Plain JavaScript with no dependencies, because it runs before any package is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const log = (msg) => {
  if (!quiet) process.stderr.write(`[setup] ${msg}\n`);
};

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  return r.status === 0;
}

function mtime(p) {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}

// 1. npm packages
const lock = join(root, 'package-lock.json');
const installedMarker = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(installedMarker) || mtime(lock) > mtime(installedMarker)) {
  log('installing npm packages (npm ci)');
  let ok = existsSync(lock) && run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts']);
  if (!ok) {
    // npm ci refuses a lockfile that lacks optional platform packages the registry in use does not serve (for
    // example msgpackr-extract's macOS and Windows builds behind a Linux-only mirror); npm install keeps every
    // pinned version of the lockfile and resolves only what is missing.
    if (existsSync(lock)) log('npm ci could not use the lockfile as it is: installing with npm install (pinned versions kept)');
    ok = run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts']);
  }
  if (!ok) {
    console.error('webgrade setup: npm install failed');
    process.exit(1);
  }
  // sharp ships its native binary as an npm package; nothing else here needs install scripts.
}

// 2. build
log('building (tsc)');
if (!run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'])) {
  console.error('webgrade setup: TypeScript build failed');
  process.exit(1);
}

// 3. a browser, and fonts
const candidates = [
  process.env.CHROME_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
].filter(Boolean);
const executable = (p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
/** Font families fontconfig knows (empty when fc-list is missing). */
function fontFamilies() {
  const r = spawnSync('fc-list', [':', 'family'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : '';
}
const packages = [];
if (!candidates.some(executable)) packages.push('chromium');
const families = fontFamilies();
if (!/Noto Color Emoji/i.test(families)) packages.push('fonts-noto-color-emoji');
if (!/CJK/i.test(families)) packages.push('fonts-noto-cjk');
if (packages.length) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (existsSync('/usr/bin/apt-get')) {
    log(`installing Debian packages through apt: ${packages.join(' ')}`);
    const prefix = isRoot ? [] : ['sudo', '-n'];
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const apt = (args) => (prefix.length ? run(prefix[0], [...prefix.slice(1), 'apt-get', ...args], { env }) : run('apt-get', args, { env }));
    // The package lists are fetched only when an install without them fails (a fresh machine has none).
    const ok = apt(['install', '-y', '-qq', ...packages]) || (apt(['update', '-qq']) && apt(['install', '-y', '-qq', ...packages]));
    if (!ok) log(`could not install ${packages.join(' ')}: browser metrics may be unscorable, and emoji or CJK text may render as boxes`);
  } else if (packages.includes('chromium')) {
    log('no Chrome found and no apt-get: set CHROME_PATH; browser metrics will be unscorable');
  } else {
    log(`no apt-get: install ${packages.join(' ')} (or equivalent fonts) yourself, or emoji and CJK text render as boxes`);
  }
}
