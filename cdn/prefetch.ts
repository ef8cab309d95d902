/**
 * Static scan of pages for CDN URLs, and prefetching them (with what they reference) into the cache. Used by
 * `webgrade cdn prefetch` and the coverage benchmark.
 *
 * Scan: every file of the artifact that is text (HTML, CSS, JS, JSON, SVG…) is searched for absolute or
 * protocol-relative URLs on a CDN host (in attributes, inline CSS/JS, `import` statements, import maps, strings);
 * HTML entities (`&amp;`) are decoded, and so are JS escapes of `/`. A URL that continues with a `${`
 * placeholder, or ends at a `' +` concatenation, is dynamic: reported, not fetched. A bare origin
 * (`https://fonts.googleapis.com` in a preconnect link) is not a request and is skipped, except the Tailwind
 * Play CDN, whose root is the script.
 * (The scorer's extractor, lib/js-urls.ts `remoteUrls`, was compared on the 226 corpus pages: it found no CDN
 * URL this scan misses, and it cuts a quoted CSS `@import` URL at its first `;` — `css2?family=A:wght@400;700`
 * becomes `…wght@400` — so it is not used here; jsdom parsing also cost most of the scan time.)
 *
 * Prefetch: each URL is answered into the cache; then what an answer references is followed, when it is on a CDN
 * host: `url()` and `@import` of CSS (webfonts, images), and the static `import`/`export … from`/`import()` of ES
 * modules (stubs and builds), so the cache is complete for those pages.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InputError } from '../core/errors.js';
import type { CdnAnswer, CdnCache } from './cdn-cache.js';
import { CDN_HOSTS, isCdnHost } from './hosts.js';

export interface PageScan {
  page: string;
  urls: string[];
  /** URLs with `${...}` placeholders or concatenations, as written (up to the placeholder). */
  dynamic: string[];
}

const TEXT_EXT = /\.(html?|css|m?js|cjs|jsx|ts|tsx|json|svg|xml|txt|md|webmanifest)$/i;
const HOST_RE = CDN_HOSTS.map((h) => h.replace(/\./g, '\\.')).join('|');
const URL_RE = new RegExp(`(?:https?:)?//(?:${HOST_RE})(?::\\d+)?(?:[/?][^\\s"'\`<>()\\\\]*)?`, 'gi');

/** The pages named by the inputs: HTML files, folders with index.html, folders of those, runs/<model>/<id>.html. */
export function findPages(inputs: string[]): string[] {
  const pages: string[] = [];
  const visit = (p: string, depth: number) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new InputError(`${p}: no such file or folder`);
    }
    if (st.isFile()) {
      if (depth === 0 && !/\.html?$/i.test(p)) throw new InputError(`${p}: not an HTML file`);
      if (/\.html?$/i.test(p)) pages.push(p);
      return;
    }
    if (!st.isDirectory()) return;
    let hasIndex = false;
    try {
      hasIndex = statSync(join(p, 'index.html')).isFile();
    } catch {
      /* none */
    }
    if (hasIndex) {
      pages.push(p);
      return;
    }
    if (depth >= 2) return;
    for (const n of readdirSync(p)
      .filter((n) => !n.startsWith('.'))
      .sort()) {
      const c = join(p, n);
      const cs = statSync(c);
      if (cs.isFile() && /\.html?$/i.test(n)) pages.push(c);
      else if (cs.isDirectory()) visit(c, depth + 1);
    }
  };
  for (const i of inputs) visit(i, 0);
  if (pages.length === 0) throw new InputError(`${inputs.join(' ')}: no .html pages or folders with index.html`);
  return [...new Set(pages.map((p) => resolve(p)))];
}

function decodeText(s: string): string {
  return s
    .replace(/&amp;/gi, '&')
    .replace(/&#x2F;|&#47;/gi, '/')
    .replace(/\\\//g, '/')
    .replace(/\\u002[fF]/g, '/');
}

/** Clean a URL found in text: trailing punctuation, fragments; protocol-relative → https. */
function cleanUrl(raw: string): string | null {
  let u = raw.replace(/[.,;:!?\]}]+$/, '');
  if (u.startsWith('//')) u = 'https:' + u;
  try {
    const url = new URL(u);
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** The CDN URLs of one page (file or folder with index.html). */
export function scanPage(page: string): PageScan {
  const urls = new Set<string>();
  const dynamic = new Set<string>();
  const files: string[] = [];
  const st = statSync(page);
  if (st.isFile()) files.push(page);
  else {
    const walk = (d: string, depth: number) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        const s = statSync(p);
        if (s.isDirectory() && depth < 6 && n !== 'node_modules') walk(p, depth + 1);
        else if (s.isFile() && TEXT_EXT.test(n) && s.size < 5_000_000) files.push(p);
      }
    };
    walk(page, 0);
  }
  for (const f of files) {
    const text = decodeText(readFileSync(f, 'utf8'));
    for (const m of text.matchAll(URL_RE)) {
      const raw = m[0];
      const after = text.slice(m.index! + raw.length, m.index! + raw.length + 4);
      if (raw.includes('${') || after.startsWith('${') || /^['"`]\s*\+/.test(after)) {
        dynamic.add(raw.replace(/\$\{.*$/, '') + '${…}');
        continue;
      }
      const u = cleanUrl(raw);
      if (!u) continue;
      const parsed = new URL(u);
      if (parsed.pathname === '/' && parsed.search === '' && parsed.host !== 'cdn.tailwindcss.com') continue; // preconnect
      urls.add(u);
    }
  }
  return { page, urls: [...urls].sort(), dynamic: [...dynamic].sort() };
}

export interface UrlResult {
  url: string;
  answer: { kind: CdnAnswer['kind']; status: number; reason?: string; package?: string; version?: string; file?: string; bytes?: number; notes?: string[] };
  /** The URL that referenced this one (for followed URLs). */
  from?: string;
}

/** URLs an answer references on CDN hosts: CSS url()/@import, ES module imports. */
export function referencedUrls(url: string, a: CdnAnswer): string[] {
  if (a.kind !== 'served') return [];
  const type = a.headers['content-type'] ?? '';
  const text = a.body.toString('utf8');
  const found: string[] = [];
  if (type.startsWith('text/css')) {
    for (const m of text.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]+))\s*\)/gi)) found.push((m[1] ?? m[2] ?? m[3] ?? '').trim());
    for (const m of text.matchAll(/@import\s+(?:url\()?\s*["']([^"']+)["']/gi)) found.push(m[1]!);
  } else if (type.startsWith('application/javascript') && (/stub|\+esm|module/.test(a.file) || /\.mjs$/.test(a.file))) {
    for (const m of text.matchAll(/(?:^|[;}\s)])(?:import|export)\s*(?:[\w$*{},\s]+?\s*from\s*)?["']([^"']+)["']/g)) found.push(m[1]!);
    for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1]!);
  }
  const out = new Set<string>();
  for (const f of found) {
    // bare specifiers ("fs", "react") resolve only through an import map, never against the module's URL
    if (!/^(\.{1,2}\/|\/|https?:\/\/)/.test(f) || f.includes('${')) continue;
    try {
      const u = new URL(f, url);
      u.hash = '';
      if (isCdnHost(u.host)) out.add(u.href);
    } catch {
      /* not a URL */
    }
  }
  return [...out];
}

/** Answer every URL (and what the answers reference) into the cache, a few at a time. */
export async function prefetchUrls(cdn: CdnCache, urls: string[], concurrency = 4, onResult?: (r: UrlResult) => void): Promise<Map<string, UrlResult>> {
  const results = new Map<string, UrlResult>();
  const queue: Array<{ url: string; from?: string }> = urls.map((url) => ({ url }));
  const seen = new Set(urls);
  const worker = async () => {
    for (;;) {
      const job = queue.shift();
      if (!job) return;
      let a: CdnAnswer;
      try {
        a = await cdn.answer(new URL(job.url), { method: 'GET', headers: {} });
      } catch (err) {
        a = { kind: 'unavailable', status: 503, reason: `internal error (${(err as Error).message})` };
      }
      const r: UrlResult = {
        url: job.url,
        answer:
          a.kind === 'served'
            ? {
                kind: a.kind,
                status: a.status,
                package: a.package,
                version: a.version,
                file: a.file,
                bytes: a.body.length,
                ...(a.notes ? { notes: a.notes } : {}),
              }
            : { kind: a.kind, status: a.status, reason: a.reason },
      };
      if (job.from) r.from = job.from;
      results.set(job.url, r);
      onResult?.(r);
      for (const next of referencedUrls(job.url, a)) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push({ url: next, from: job.url });
      }
    }
  };
  // workers may find the queue empty while another is still adding follow-ups: loop until all are idle
  let active: Array<Promise<void>> = [];
  do {
    active = Array.from({ length: Math.min(concurrency, Math.max(1, queue.length)) }, () => worker());
    await Promise.all(active);
  } while (queue.length > 0);
  return results;
}

export function pageLabel(page: string): string {
  return basename(page);
}
