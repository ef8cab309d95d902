/**
 * The interaction probe's in-page scripts, each installed in every document of the probe's page before any
 * page script (`Page.addScriptToEvaluateOnNewDocument`):
 * - the readers (page/index.ts and what it imports), in an isolated world of the probe's own (`WORLD_NAME`),
 *   which the page's scripts cannot reach: everything read and decided in the page happens there;
 * - the main-world agent (page/main/), after the seeded randomness: the clock and the recorders that must replace
 *   the page's own functions, answering only through a secret-guarded function (page/main/index.ts).
 * The bundles are made from the compiled modules beside this file, so they work the same in the dev tree and in a
 * fresh build, once per process.
 */
import { buildSync } from 'esbuild';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { seedRandomness } from '../seeded-random.js';
import type { AgentInit } from './page/main/index.js';
import type { ReaderConfig } from './page/config.js';

export type { ReaderConfig } from './page/config.js';
export type { AgentInit } from './page/main/index.js';

/** The isolated world the probe's readers live in (one per document of the probe's page). */
export const WORLD_NAME = 'webgrade-probe';

/** The name each bundle's exports are bound to, inside a function scope so that no world's globals see it. */
const BUNDLE_NAME = '__wgBundle';
const bundles = new Map<string, string>();

/** The bundled modules of `entry` (an IIFE assigning its exports to a local), made once per process. */
function bundle(entry: string): string {
  const done = bundles.get(entry);
  if (done !== undefined) return done;
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    format: 'iife',
    globalName: BUNDLE_NAME,
    target: 'chrome120',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  bundles.set(entry, text);
  return text;
}

/** The readers' script, for the isolated world. */
export function readerScript(cfg: ReaderConfig): string {
  return `(() => {\n'use strict';\n${bundle('./page/index.js')}\n${BUNDLE_NAME}.probeInit(${JSON.stringify(cfg)});\n})();`;
}

/** A fresh name and secret for one page's agent (random, so that no page can know them in advance). */
export function agentKeys(): Pick<AgentInit, 'name' | 'secret'> {
  return { name: `_${randomBytes(9).toString('hex')}`, secret: randomBytes(24).toString('hex') };
}

/**
 * The main-world script: seeded randomness, then the agent. Strict throughout, so that a stack trace taken by the
 * page while one of the agent's functions is on the stack never hands it a function of ours.
 */
export function agentScript(init: AgentInit, seed: number): string {
  return `(${seedRandomness.toString()})(${JSON.stringify(seed)});\n(() => {\n'use strict';\n${bundle('./page/main/index.js')}\n${BUNDLE_NAME}.agentInit(${JSON.stringify(init)});\n})();`;
}
