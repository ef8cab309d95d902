/**
 * The warning `score` and `batch` print when they start a Chrome that runs without its own sandbox (as root;
 * gather/chrome.ts). Printed when the first Chrome starts, so runs that need no browser, and input errors found
 * before one starts, stay quiet; once per process, on stderr, so `--json` output stays a document.
 */
import { chromeSandboxWarning } from '../gather/chrome.js';
import { warn } from './cli-support.js';

let warned = false;

export function warnChromeSandboxOnce(): void {
  if (warned) return;
  warned = true;
  const text = chromeSandboxWarning();
  if (text) warn(`webgrade: ${text}\n`);
}
