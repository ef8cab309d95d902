/**
 * A bare Lighthouse run, as a reference: the page served by the same loopback artifact server, the same Chrome
 * binary started by chrome-launcher with the same flags as the scoring session (DEVELOPERS.md headless flags and the same
 * isolation flags), one Lighthouse run with the same settings and categories, and nothing else: no puppeteer
 * session, no collectors, no screenshots. Used by the benchmark (suite cost / bare Lighthouse cost) and by the
 * test that our Lighthouse-based metrics equal Lighthouse's own category scores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import { loadArtifact } from '../core/artifact.js';
import { chromeBinary, scoringChromeFlags } from '../runner/gather/chrome-process.js';
import { runLighthouse } from '../runner/gather/lighthouse.js';
import { startArtifactServer } from '../runner/gather/server.js';
import type { LighthouseEvidence } from '../core/evidence.js';

export interface BareChrome {
  port: number;
  pid: number;
  close(): Promise<void>;
}

export async function launchBareChrome(): Promise<BareChrome> {
  const chromePath = chromeBinary();
  const userDataDir = mkdtempSync(join(tmpdir(), 'webgrade-bare-'));
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: scoringChromeFlags(), userDataDir, logLevel: 'silent' });
  return {
    port: chrome.port,
    pid: chrome.pid,
    close: async () => {
      try {
        chrome.kill();
      } catch {
        /* gone */
      }
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Serve `input` (file or folder) and run Lighthouse once on it with the given Chrome. */
export async function bareLighthouse(input: string, chrome: BareChrome, timeoutMs = 60_000): Promise<LighthouseEvidence> {
  const server = await startArtifactServer(loadArtifact(input));
  try {
    return await runLighthouse(server.entryUrl, { port: chrome.port, timeoutMs });
  } finally {
    await server.close();
  }
}
