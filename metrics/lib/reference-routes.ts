/**
 * Routes: the pages of an app as UI2App counts them (issue 36), shared by navigation-reachability (its
 * denominator, with a reference) and visual-fidelity (its coverage status).
 *
 * A route is named by its address, so that the reference's and the page's can be compared whatever the files are
 * called: a hash route (`#/about`, `#!/about`) by what follows `#/` or `#!`; any other address by its path without
 * the leading `/`, an `.html`/`.htm` extension or a trailing `index`, lower-cased (`/About.html` → `about`,
 * `/docs/` and `/docs/index.html` → `docs`). The entry page is the route `''` (the start). A fragment that is not
 * a hash route (`#pricing`) is a place on the same page, not a route.
 *
 * The routes a reference expects are read from its source, without running it: breadth first from its entry over
 * its `<a href>` links, every link to an HTML file of the reference that exists and every hash-route link is a
 * route, and the HTML files reached are searched in turn. Routes a reference creates only from script (a router
 * table, `history.pushState`) are not seen; a picture reference has none.
 */
import { posix } from 'node:path';
import { JSDOM } from 'jsdom';
import { classifyUrl } from '../../lib/artifact/extract.js';
import { loadArtifact } from '../../lib/artifact/load.js';
import type { ReferenceInput } from '../../core/fidelity.js';

/** The route an address (path and fragment) names (module comment). */
export function routeName(path: string, hash = ''): string {
  const h = /^#!?\/?(.*)$/.exec(hash);
  if (h && (hash.startsWith('#/') || hash.startsWith('#!'))) return normalise(h[1]!);
  let p = path;
  try {
    p = decodeURIComponent(p);
  } catch {
    /* keep as written */
  }
  return normalise(p);
}

function normalise(p: string): string {
  let s = p.split('?')[0]!.toLowerCase().replace(/^\/+/, '').replace(/\/+$/, '');
  s = s.replace(/\.html?$/, '');
  s = s.replace(/(^|\/)index$/, '');
  return s.replace(/\/+$/, '');
}

export interface ReferenceRoutes {
  /** Every route of the reference, the entry's `''` first, then in the order found. */
  routes: string[];
  /** How they were found. */
  basis: string;
}

const cache = new Map<string, ReferenceRoutes | null>();

/** The routes a reference expects (module comment); null for a picture reference or one that cannot be read. */
export function referenceRoutes(ref: ReferenceInput): ReferenceRoutes | null {
  if (ref.kind !== 'artifact') return null;
  const hit = cache.get(ref.path);
  if (hit !== undefined) return hit;
  let out: ReferenceRoutes | null = null;
  try {
    const artifact = loadArtifact(ref.path);
    const files = new Set(artifact.files.map((f) => f.path));
    const routes = [''];
    const seenFiles = new Set([artifact.entry]);
    const queue = [artifact.entry];
    while (queue.length && seenFiles.size <= 200) {
      const file = queue.shift()!;
      const text = file === artifact.entry ? artifact.html : artifact.files.find((f) => f.path === file)?.text;
      if (text === undefined) continue;
      const doc = new JSDOM(text).window.document;
      for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
        const href = (a.getAttribute('href') ?? '').trim();
        const hashAt = href.indexOf('#');
        const hash = hashAt >= 0 ? href.slice(hashAt) : '';
        let route: string | null = null;
        if (hash.startsWith('#/') || hash.startsWith('#!')) route = routeName('', hash);
        else {
          const c = classifyUrl(href, file, files);
          if (c.location !== 'local' || !c.exists || !c.path) continue;
          const target = c.path.endsWith('/') || c.path === '' ? posix.join(c.path, 'index.html') : c.path;
          if (!/\.html?$/i.test(target)) continue;
          route = routeName(target);
          if (!seenFiles.has(target)) {
            seenFiles.add(target);
            queue.push(target);
          }
        }
        if (!routes.includes(route)) routes.push(route);
      }
    }
    out = { routes, basis: `links in the reference's source (${seenFiles.size} HTML file${seenFiles.size === 1 ? '' : 's'} read)` };
  } catch {
    out = null;
  }
  cache.set(ref.path, out);
  return out;
}
