/**
 * CDN coverage benchmark: over a folder of pages (default: the shared corpus, ../shared/corpus/llm-tools/pages
 * beside the repository), extract every CDN URL statically (cdn/prefetch.ts), answer each against the real npm
 * registry into a cache (a temp folder, or --cache DIR), follow what the answers reference, and print:
 * - pages with CDN URLs, and the share of those whose CDN URLs were all served (goal ≥ 90%);
 * - every URL not served, with its reason (base URLs — a library's baseURL/indexURL folder, which a browser
 *   never fetches as such — and dynamic `${…}` URLs are listed apart and do not count against a page);
 * - time cold (empty cache), warm (a second pass, new process state, same cache: no registry request expected)
 *   and offline (registry access off), and the cache size.
 *
 *   node dist/bench/cdn-coverage.js [DIR] [--cache DIR] [--concurrency N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CdnCache } from '../cdn/index.js';
import { findPages, prefetchUrls, scanPage, type UrlResult } from '../cdn/prefetch.js';
import { benchArgs, corpusDir, inputDir, usageError } from './common.js';

const USAGE = 'usage: node dist/bench/cdn-coverage.js [DIR] [--cache DIR] [--concurrency N]';
const { values: args, positionals } = benchArgs(USAGE, { cache: { type: 'string' }, concurrency: { type: 'number', default: 4 } }, { positionals: true });
if (positionals.length > 1) usageError(USAGE, `one pages folder at most, got ${positionals.length}`);
const dir = inputDir(positionals[0] ?? join(corpusDir, 'llm-tools', 'pages'));
const given = args.cache;
const concurrency = args.concurrency;

const isBase = (r: UrlResult | undefined) => r?.answer.kind === 'unavailable' && /directory listings are not served/.test(r.answer.reason ?? '');

async function pass(
  label: string,
  cacheDir: string,
  urls: string[],
  registryAccess = true,
): Promise<{ results: Map<string, UrlResult>; seconds: number; requests: number }> {
  const cdn = new CdnCache({ dir: cacheDir, registryAccess });
  const t = performance.now();
  const results = await prefetchUrls(cdn, urls, concurrency);
  const seconds = (performance.now() - t) / 1000;
  process.stderr.write(`${label}: ${results.size} answers in ${seconds.toFixed(1)} s, ${cdn.registry.requests} registry requests\n`);
  return { results, seconds, requests: cdn.registry.requests };
}

async function main(): Promise<void> {
  const pages = findPages([dir]);
  const t0 = performance.now();
  const scans = pages.map(scanPage);
  const scanSeconds = (performance.now() - t0) / 1000;
  const urls = [...new Set(scans.flatMap((s) => s.urls))].sort();
  const cacheDir = given ?? mkdtempSync(join(tmpdir(), 'webgrade-cdn-bench-'));
  try {
    const cold = await pass('cold', cacheDir, urls);
    const warm = await pass('warm', cacheDir, urls);
    const offline = await pass('offline', cacheDir, urls, false);
    const same = [...cold.results.values()].every(
      (r) =>
        JSON.stringify(warm.results.get(r.url)?.answer) === JSON.stringify(r.answer) &&
        JSON.stringify(offline.results.get(r.url)?.answer) === JSON.stringify(r.answer),
    );
    const res = cold.results;
    const withCdn = scans.filter((s) => s.urls.length > 0);
    const dynamicOnly = scans.filter((s) => s.urls.length === 0 && s.dynamic.length > 0);
    const counted = (s: (typeof scans)[number]) => s.urls.filter((u) => !isBase(res.get(u)));
    const full = withCdn.filter((s) => counted(s).every((u) => res.get(u)?.answer.kind === 'served'));
    const cdn = new CdnCache({ dir: cacheDir, registryAccess: false });
    const stats = cdn.store.stats();
    const pagesOf = (u: string) => scans.filter((s) => s.urls.includes(u)).map((s) => basename(s.page));
    const out: string[] = [];
    out.push(`CDN coverage over ${dir}`);
    out.push(
      `pages: ${pages.length} scanned in ${scanSeconds.toFixed(1)} s; ${withCdn.length} with CDN URLs (${urls.length} distinct URLs), ${dynamicOnly.length} more with only dynamic ones (${new Set(scans.flatMap((s) => s.dynamic)).size} dynamic URLs)`,
    );
    out.push(
      `pages whose CDN URLs were all served: ${full.length}/${withCdn.length} = ${((100 * full.length) / Math.max(1, withCdn.length)).toFixed(1)}% (goal ≥ 90%)`,
    );
    const pageRes = urls.map((u) => res.get(u)!);
    const k = (kind: string, list: UrlResult[]) => list.filter((r) => r.answer.kind === kind && !isBase(r)).length;
    out.push(
      `page URLs: served ${k('served', pageRes)}, not found ${k('not-found', pageRes)}, unavailable ${k('unavailable', pageRes)}, base URLs ${pageRes.filter(isBase).length}`,
    );
    const followed = [...res.values()].filter((r) => r.from);
    out.push(
      `followed URLs (webfonts, module imports): served ${k('served', followed)}, not found ${k('not-found', followed)}, unavailable ${k('unavailable', followed)}`,
    );
    out.push(
      `time: cold ${cold.seconds.toFixed(1)} s (${cold.requests} registry requests), warm ${warm.seconds.toFixed(1)} s (${warm.requests} requests), offline ${offline.seconds.toFixed(1)} s; answers identical across passes: ${same}`,
    );
    out.push(
      `cache: ${(stats.bytes / 1048576).toFixed(1)} MiB, ${stats.packages.length} package versions, ${stats.builds} builds, ${cdn.store.pins().length} pins (${cacheDir})`,
    );
    const list = (title: string, rs: UrlResult[]) => {
      if (!rs.length) return;
      out.push(title);
      for (const r of rs) out.push(`  ${r.url}\n    ${r.answer.kind}: ${r.answer.reason} [${r.from ? `from ${r.from}` : pagesOf(r.url).join(', ')}]`);
    };
    list(
      'page URLs not served:',
      pageRes.filter((r) => r.answer.kind !== 'served' && !isBase(r)),
    );
    list(
      'followed URLs not served:',
      followed.filter((r) => r.answer.kind !== 'served'),
    );
    list('base URLs (a folder given to a library as baseURL/indexURL; its package is cached):', pageRes.filter(isBase));
    const dyn = [...new Set(scans.flatMap((s) => s.dynamic.map((d) => `${d} [${basename(s.page)}]`)))];
    if (dyn.length) out.push('dynamic URLs (built at run time; not fetched):', ...dyn.map((d) => `  ${d}`));
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    if (!given) rmSync(cacheDir, { recursive: true, force: true });
  }
}

await main();
