/** Synthetic browser and Lighthouse evidence for metric tests (no browser). */
import type { BrowserEvidence } from '../../core/browser-evidence.js';
import { gathered, type Gathered, type LighthouseEvidence } from '../../core/evidence.js';

export function browserEvidence(over: Partial<BrowserEvidence> = {}): Gathered<BrowserEvidence> {
  return gathered({
    url: 'http://127.0.0.1:1/index.html',
    finalUrl: 'http://127.0.0.1:1/index.html',
    timings: {},
    console: [],
    pageErrors: [],
    network: [],
    domHtml: '<html></html>',
    domNodeCount: 3,
    screenshots: {},
    faults: [],
    loaded: true,
    ...over,
  });
}

export function lighthouseEvidence(categories: Record<string, number | null>, over: Partial<LighthouseEvidence> = {}): Gathered<LighthouseEvidence> {
  return gathered({
    lighthouseVersion: '12.8.2',
    categories: Object.fromEntries(Object.entries(categories).map(([id, score]) => [id, { score, title: id }])),
    audits: {},
    runWarnings: [],
    ...over,
  });
}

/** `n` physical lines of HTML. */
export function htmlOfLines(n: number): string {
  return Array.from({ length: n }, (_, i) => (i === 0 ? '<!doctype html>' : `<p>line ${i}</p>`)).join('\n') + '\n';
}
