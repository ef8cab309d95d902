/**
 * `webgrade cdn prefetch <pages | runs dir | files...> [--cdn-cache <dir>]`: scan pages statically for CDN URLs,
 * answer each into the CDN cache (cdn/), follow what the answers reference (CSS url()s such as webfonts, ES
 * module imports), and print a summary: URLs served / not found / unavailable with reasons, packages, cache size.
 *
 * `webgrade cdn info [--cdn-cache <dir>]`: where the cache is, its size, packages and pins.
 *
 * Exit status: 0 when done (URLs not served are data, listed in the summary), 2 for bad input (no such path, no
 * pages), 1 for a failure of the tool itself.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { CdnCache } from '../../cdn/index.js';
import { findPages, prefetchUrls, scanPage, type UrlResult } from '../../cdn/prefetch.js';
import { defaultCacheDir } from '../../cdn/store.js';
import { InputError } from '../../core/errors.js';
import { action, parsePositiveInt, printJson, say, warn } from '../cli-support.js';

interface PrefetchFlags {
  cdnCache?: string;
  concurrency?: number;
  offline?: boolean;
  json?: boolean;
}

function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

function openCache(dir: string | undefined, registryAccess = true): CdnCache {
  const d = resolve(dir ?? defaultCacheDir());
  try {
    const st = statSync(d);
    if (!st.isDirectory()) throw new InputError(`${d}: not a folder`);
  } catch (err) {
    if (err instanceof InputError) throw err;
    /* absent: created */
  }
  try {
    return new CdnCache({ dir: d, registryAccess });
  } catch (err) {
    throw new InputError(`${d}: cannot use as a CDN cache (${(err as Error).message})`);
  }
}

export function cdnCommand(): Command {
  const cmd = new Command('cdn').description('the local CDN cache that answers pages’ CDN URLs from the npm registry');
  cmd.addCommand(
    new Command('prefetch')
      .description('fill the CDN cache with every CDN URL the pages reference (and what those files reference)')
      .argument('<inputs...>', 'HTML files, folders with index.html, folders of pages, or a runs folder (runs/<model>/<id>.html)')
      .option('--cdn-cache <dir>', 'cache folder (default: $XDG_CACHE_HOME/webgrade/cdn or ~/.cache/webgrade/cdn)')
      .option('--concurrency <n>', 'answers in flight at once (default 4)', parsePositiveInt)
      .option('--offline', 'no registry access: report what the cache already answers')
      .option('--json', 'print one JSON document instead of the summary')
      .action(
        action(async (inputs: string[], flags: PrefetchFlags) => {
          const pages = findPages(inputs);
          const cdn = openCache(flags.cdnCache, !flags.offline);
          const scans = pages.map(scanPage);
          const urls = [...new Set(scans.flatMap((s) => s.urls))].sort();
          const dynamic = [...new Set(scans.flatMap((s) => s.dynamic))].sort();
          const t0 = performance.now();
          const results = await prefetchUrls(cdn, urls, flags.concurrency ?? 4);
          const seconds = (performance.now() - t0) / 1000;
          const stats = cdn.store.stats();
          const pagesOf = (u: string) => scans.filter((s) => s.urls.includes(u)).map((s) => s.page);
          const all = [...results.values()];
          // a folder given to a library as baseURL/indexURL: never fetched as such by a browser; its package is cached
          const isBase = (r: UrlResult | undefined) => r?.answer.kind === 'unavailable' && /directory listings are not served/.test(r.answer.reason ?? '');
          const count = (k: string, followed: boolean) => all.filter((r) => r.answer.kind === k && Boolean(r.from) === followed && !isBase(r)).length;
          const withCdn = scans.filter((s) => s.urls.length > 0);
          const allServed = withCdn.filter((s) => s.urls.every((u) => results.get(u)?.answer.kind === 'served' || isBase(results.get(u))));
          if (flags.json) {
            printJson({
              cache: cdn.dir,
              pages: pages.length,
              pagesWithCdnUrls: withCdn.length,
              pagesFullyServed: allServed.length,
              urls: all.map((r) => ({ ...r, pages: r.from ? undefined : pagesOf(r.url) })),
              dynamic,
              cacheBytes: stats.bytes,
              packages: stats.packages.length,
              seconds,
            });
            return;
          }
          const lines: string[] = [];
          lines.push(`${pages.length} page(s) scanned, ${withCdn.length} with CDN URLs; ${allServed.length} of those fully served`);
          lines.push(
            `page URLs: ${urls.length} — served ${count('served', false)}, not found ${count('not-found', false)}, unavailable ${count('unavailable', false)}, base URLs ${all.filter((r) => !r.from && isBase(r)).length}; dynamic (not fetched) ${dynamic.length}`,
          );
          lines.push(
            `followed (webfonts, module imports): ${count('served', true)} served, ${count('not-found', true) + count('unavailable', true)} not served`,
          );
          lines.push(
            `cache ${cdn.dir}: ${mib(stats.bytes)}, ${stats.packages.length} package versions, ${cdn.store.pins().length} pins; ${seconds.toFixed(1)} s, ${cdn.registry.requests} registry requests`,
          );
          const problems = all.filter((r) => r.answer.kind !== 'served');
          const show = (r: UrlResult) => {
            const where = r.from
              ? `referenced by ${r.from}`
              : pagesOf(r.url)
                  .map((p) => p.split('/').pop())
                  .join(', ');
            return `  ${r.url}\n    ${r.answer.reason} [${where}]`;
          };
          for (const kind of ['not-found', 'unavailable'] as const) {
            const list = problems.filter((r) => r.answer.kind === kind && !isBase(r));
            if (list.length) lines.push(`${kind === 'not-found' ? 'not found (the page’s defect)' : 'unavailable (our limitation)'}:`, ...list.map(show));
          }
          const bases = problems.filter((r) => isBase(r));
          if (bases.length)
            lines.push('base URLs (a folder given to a library as baseURL/indexURL; its package is cached):', ...bases.map((r) => `  ${r.url}`));
          if (dynamic.length) lines.push('dynamic (built at run time, not fetched):', ...dynamic.map((d) => `  ${d}`));
          say(lines.join('\n') + '\n');
        }),
      ),
  );
  cmd.addCommand(
    new Command('info')
      .description('where the CDN cache is, its size, packages and pins')
      .option('--cdn-cache <dir>', 'cache folder (default: $XDG_CACHE_HOME/webgrade/cdn or ~/.cache/webgrade/cdn)')
      .option('--json', 'print one JSON document')
      .action(
        action(async (flags: { cdnCache?: string; json?: boolean }) => {
          const cdn = openCache(flags.cdnCache, false);
          const stats = cdn.store.stats();
          const pins = cdn.store.pins();
          if (flags.json) {
            printJson({
              cache: cdn.dir,
              registry: cdn.registryUrl,
              bytes: stats.bytes,
              maxBytes: cdn.store.maxBytes,
              blobs: stats.blobs,
              builds: stats.builds,
              packages: stats.packages,
              pins,
            });
            return;
          }
          const lines = [
            `cache: ${cdn.dir}`,
            `registry: ${cdn.registryUrl}`,
            `size: ${mib(stats.bytes)} of ${mib(cdn.store.maxBytes)} (${stats.blobs} files, ${stats.builds} builds)`,
            `packages: ${stats.packages.length}`,
            ...stats.packages.map((p) => `  ${p.name}@${p.version}  ${mib(p.bytes)}`),
            `pins: ${pins.length}`,
            ...pins
              .sort((a, b) => (a.name + a.range).localeCompare(b.name + b.range))
              .map((p) => `  ${p.name}@${p.range} → ${'version' in p ? p.version : `not found (${p.notFound})`}`),
          ];
          say(lines.join('\n') + '\n');
        }),
      ),
  );
  return cmd;
}
