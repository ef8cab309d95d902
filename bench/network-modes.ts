/**
 * Network-modes benchmark (issue "Pages render as their authors meant"), over the llm-tools corpus pages:
 *
 * 1. coverage: among pages that request CDN files, the share whose CDN requests were all served in mode `cdn`
 *    (every CDN request of the visit and of Lighthouse's run, dynamic ones included), and every CDN URL that was
 *    not, with why (withheld: the cache could not serve it; not found: it does not exist on the registry);
 * 2. what changes: per metric, the mean under `offline` and under `cdn`, and the share of pages whose score
 *    changed;
 * 3. cost: seconds per page under `offline`, `cdn` with a warm cache and `cdn` with a cold cache (a fresh cache
 *    folder, first pass). The warm and offline runs alternate page by page (which one goes first alternates too)
 *    in two long-lived scorers, so that the machine's noise falls on both alike; the cold pass runs first.
 * 4. `--out DIR` writes both modes' results (results.jsonl rows, like `batch`) for `norms build` and `analyse`.
 *
 * `--cold N` limits the cold pass to the first N pages (default 5); the cache is then filled for the other pages
 * by `cdn prefetch`'s static scan (no browser), so that their paired runs start warm.
 *
 * Pages: without `--pages`, README's sample of 35: the first 30 by SHA-1 of the file name among the pages whose
 * static scan finds CDN URLs, then the first 5 among the others (about 20 minutes; all 226 corpus pages, three
 * runs each, would take hours). `--pages N` takes the first N in name order instead.
 *
 *   node dist/bench/network-modes.js [--pages N] [--cold N] [--dir DIR] [--out DIR] [--only ids] [--suite study|extended]
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CdnCache, isCdnHost } from '../cdn/index.js';
import { prefetchUrls, scanPage } from '../cdn/prefetch.js';
import type { SuiteId } from '../core/metric.js';
import type { NetworkEntry } from '../core/network.js';
import type { ResultRow } from '../core/results.js';
import { Scorer } from '../runner/score.js';
import { benchArgs, corpusDir, inputDir } from './common.js';

const { values: args } = benchArgs(
  'usage: node dist/bench/network-modes.js [--pages N] [--cold N] [--dir DIR] [--out DIR] [--only ids] [--suite study|extended]',
  {
    pages: { type: 'number' },
    cold: { type: 'number', default: 5 },
    dir: { type: 'string' },
    out: { type: 'string' },
    only: { type: 'string' },
    suite: { type: 'string', default: 'study' },
  },
);
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const limit = args.pages;
const out = args.out;
const only = args.only?.split(',');
const suite = args.suite as SuiteId;
const coldLimit = args.cold;

const names = readdirSync(dir)
  .filter((f) => f.endsWith('.html'))
  .sort();
const sha = (s: string) => createHash('sha1').update(s).digest('hex');
/** README's sample (see above): CDN pages first, so that the cold pass runs on pages that fill the cache. */
function defaultSample(): string[] {
  const bySha = [...names].sort((a, b) => sha(a).localeCompare(sha(b)));
  const withCdn = bySha.filter((f) => scanPage(join(dir, f)).urls.length > 0);
  const others = bySha.filter((f) => !withCdn.includes(f));
  return [...withCdn.slice(0, 30).sort(), ...others.slice(0, 5).sort()];
}
const pages = (limit === undefined ? defaultSample() : names.slice(0, limit)).map((f) => join(dir, f));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};
const isCdn = (e: NetworkEntry) => {
  try {
    return isCdnHost(new URL(e.url).host);
  } catch {
    return false;
  }
};

const coldCache = mkdtempSync(join(tmpdir(), 'webgrade-bench-cdn-cold-'));
const base = { budgetMs: 60_000, suite, ...(only ? { only } : {}) };
const cold = new Scorer({ ...base, network: { mode: 'cdn', cdnCache: coldCache } });
const warm = new Scorer({ ...base, network: { mode: 'cdn', cdnCache: coldCache } });
const offline = new Scorer({ ...base, network: { mode: 'offline' } });

interface Run {
  ms: number;
  scores: Record<string, number | null>;
  cdnEntries: NetworkEntry[];
  row: ResultRow;
}

async function run(scorer: Scorer, page: string): Promise<Run> {
  const t = performance.now();
  const { doc, evidence } = await scorer.scoreWithEvidence(page);
  const ms = performance.now() - t;
  const log = evidence.browser?.ok ? evidence.browser.value.network : [];
  const scores = Object.fromEntries(doc.metrics.map((m) => [m.id, m.score]));
  const row = {
    model: 'corpus',
    requirement: page
      .split('/')
      .pop()!
      .replace(/\.html$/, ''),
    status: 'ok',
    ...doc,
    ms,
    finishedAt: new Date().toISOString(),
  } as ResultRow;
  return { ms, scores, cdnEntries: log.filter(isCdn), row };
}

const coldMs: number[] = [];
const warmMs: number[] = [];
const offMs: number[] = [];
const results: Array<{ page: string; cdn: Run; off: Run }> = [];
try {
  // Cold pass: pages that reference a CDN host, each the first to fill the fresh cache with its libraries.
  for (const page of pages.slice(0, coldLimit)) {
    const r = await run(cold, page);
    if (r.cdnEntries.length) coldMs.push(r.ms);
    process.stderr.write(`cold ${results.length + coldMs.length}/${pages.length}\r`);
  }
  const rest = pages.slice(coldLimit);
  if (rest.length) {
    const urls = [...new Set(rest.flatMap((p) => scanPage(p).urls))];
    await prefetchUrls(new CdnCache({ dir: coldCache, registryAccess: true }), urls);
  }
  let i = 0;
  for (const page of pages) {
    const first = i++ % 2 === 0;
    const a = first ? await run(warm, page) : await run(offline, page);
    const b = first ? await run(offline, page) : await run(warm, page);
    const [cdn, off] = first ? [a, b] : [b, a];
    results.push({ page, cdn, off });
    if (cdn.cdnEntries.length) {
      warmMs.push(cdn.ms);
      offMs.push(off.ms);
    }
    process.stderr.write(`paired ${i}/${pages.length}\r`);
  }
} finally {
  await Promise.all([cold.close(), warm.close(), offline.close()]);
  rmSync(coldCache, { recursive: true, force: true });
}

const withCdn = results.filter((r) => r.cdn.cdnEntries.length > 0);
const allServed = withCdn.filter((r) => r.cdn.cdnEntries.every((e) => e.disposition === 'cdn' && (e.status ?? 0) < 400));
// Answered as the CDN would answer: served, or a 404 for a package, version or file that was never published.
const allAnswered = withCdn.filter((r) => r.cdn.cdnEntries.every((e) => e.disposition === 'cdn'));
const unserved = new Map<string, string>();
for (const r of withCdn)
  for (const e of r.cdn.cdnEntries)
    if (!(e.disposition === 'cdn' && (e.status ?? 0) < 400))
      unserved.set(e.url, `${e.disposition} ${e.status ?? ''}: ${e.reason ?? ''} [${r.page.split('/').pop()}]`);

const lines: string[] = [];
lines.push(`pages: ${results.length}; requesting CDN files: ${withCdn.length}`);
lines.push(
  `all CDN requests served (mode cdn): ${allServed.length} of ${withCdn.length} (${((100 * allServed.length) / Math.max(1, withCdn.length)).toFixed(1)}%, goal ≥ 90%)`,
);
lines.push(
  `all CDN requests answered as the CDN would (served, or a 404 for what was never published): ${allAnswered.length} of ${withCdn.length} (${((100 * allAnswered.length) / Math.max(1, withCdn.length)).toFixed(1)}%)`,
);
lines.push(`CDN URLs not served (${unserved.size}):`);
for (const [u, why] of unserved) lines.push(`  ${u.slice(0, 140)}\n    ${why}`);
lines.push('');
lines.push('metric                      mean offline   mean cdn   pages changed (of those scored in both)');
const ids = Object.keys(results[0]?.cdn.scores ?? {});
for (const id of ids) {
  const both = results.filter((r) => typeof r.cdn.scores[id] === 'number' && typeof r.off.scores[id] === 'number');
  const mean = (k: 'cdn' | 'off') => {
    const xs = results.map((r) => r[k].scores[id]).filter((x): x is number => typeof x === 'number');
    return xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1) : 'n/a';
  };
  const changed = both.filter((r) => Math.abs((r.cdn.scores[id] as number) - (r.off.scores[id] as number)) > 1e-9).length;
  const cdnPagesChanged = both.filter((r) => r.cdn.cdnEntries.length && Math.abs((r.cdn.scores[id] as number) - (r.off.scores[id] as number)) > 1e-9).length;
  lines.push(
    `${id.padEnd(27)} ${mean('off').padStart(12)} ${mean('cdn').padStart(10)}   ${changed}/${both.length} (${((100 * changed) / Math.max(1, both.length)).toFixed(0)}%; ${cdnPagesChanged} of them CDN pages)`,
  );
}
lines.push('');
lines.push(
  `seconds per CDN page (median): offline ${(median(offMs) / 1000).toFixed(2)}, cdn warm ${(median(warmMs) / 1000).toFixed(2)} (${(100 * (median(warmMs) / median(offMs) - 1)).toFixed(1)}% more; goal ≤ 5%), cdn cold ${(median(coldMs) / 1000).toFixed(2)}`,
);
const sandboxMs = withCdn.map((r) => r.cdn.cdnEntries.reduce((s, e) => s + (e.ms ?? 0), 0));
lines.push(
  `time the sandbox took to answer a CDN page's CDN requests (sum per page; median, max): ${median(sandboxMs).toFixed(1)} ms, ${Math.max(0, ...sandboxMs).toFixed(1)} ms`,
);
lines.push(
  `seconds per page, all pages (median): offline ${(median(results.map((r) => r.off.ms)) / 1000).toFixed(2)}, cdn warm ${(median(results.map((r) => r.cdn.ms)) / 1000).toFixed(2)}`,
);
process.stdout.write(lines.join('\n') + '\n');

if (out) {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'cdn.jsonl'), results.map((r) => JSON.stringify(r.cdn.row)).join('\n') + '\n');
  writeFileSync(join(out, 'offline.jsonl'), results.map((r) => JSON.stringify(r.off.row)).join('\n') + '\n');
  writeFileSync(join(out, 'report.txt'), lines.join('\n') + '\n');
  process.stdout.write(`results in ${out}/cdn.jsonl and ${out}/offline.jsonl\n`);
}
