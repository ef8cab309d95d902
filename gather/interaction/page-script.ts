/**
 * The interaction probe's in-page script: the modules of page/ (page/index.ts says what they install) bundled
 * into one script for `Page.addScriptToEvaluateOnNewDocument`, after the seeded randomness. The bundle is made
 * from the compiled modules beside this file, so it works the same in the dev tree and in a fresh build, once
 * per process.
 */
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { seedRandomness } from '../seeded-random.js';
import type { ProbeConfig } from './page/config.js';

export type { ProbeConfig } from './page/config.js';

/** The name the bundle's exports are bound to, inside a function scope so that the page never sees it. */
const BUNDLE_NAME = '__wgProbePage';
let bundled: string | undefined;

/** The bundled page modules (an IIFE assigning `probeInit` to a local), made once per process. */
export function pageBundle(): string {
  if (bundled !== undefined) return bundled;
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL('./page/index.js', import.meta.url))],
    bundle: true,
    format: 'iife',
    globalName: BUNDLE_NAME,
    target: 'chrome120',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  bundled = result.outputFiles[0]!.text;
  return bundled;
}

/** The script text for `Page.addScriptToEvaluateOnNewDocument`. */
export function probeScript(cfg: ProbeConfig): string {
  return `(${seedRandomness.toString()})(${JSON.stringify(cfg.seed)});\n(() => {\n${pageBundle()}\n${BUNDLE_NAME}.probeInit(${JSON.stringify(cfg)});\n})();`;
}
