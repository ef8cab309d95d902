/**
 * Google Fonts CSS (`fonts.googleapis.com/css2` and the older `/css`) generated from Fontsource packages.
 *
 * - A family name maps to `@fontsource/<slug>` (slug: lower case, spaces → `-`: "Source Serif 4" →
 *   `source-serif-4`), whose `metadata.json` lists weights, styles and subsets and `unicode.json` the
 *   unicode-range of each subset. A weight range (`wght@100..900`), or a weight the static package lacks, uses
 *   `@fontsource-variable/<slug>` (its `wght` axis files) when that exists.
 * - Output like Google's: one `@font-face` per (style, weight, subset), subsets in Google's order (the order of
 *   `unicode.json`), `font-display` only when the URL asks for it, `src` the woff2 file, as a jsDelivr URL of the
 *   file inside the Fontsource package (so the proxy serves the font through this module too).
 * - `text=` (subsetting to given characters) and `subset=` are ignored: the full subsets are served (a note).
 * - A family without a Fontsource package, or a weight/style it does not have, is left out with a note naming it;
 *   the other families are still served. No family at all → `not-found`.
 */

export interface FontRequest {
  family: string;
  /** Requested (italic, weight) pairs; weight is a number or a [min, max] range. */
  styles: Array<{ ital: 0 | 1; wght: number | [number, number] }>;
}

export interface GoogleFontsQuery {
  families: FontRequest[];
  display: string | null;
  notes: string[];
}

const DISPLAY = new Set(['auto', 'block', 'swap', 'fallback', 'optional']);

function parseWeight(s: string): number | [number, number] | null {
  const r = /^(\d{1,3})\.\.(\d{1,3})$/.exec(s);
  if (r) return [Number(r[1]), Number(r[2])];
  if (/^\d{1,3}$/.test(s)) return Number(s);
  return null;
}

/** Parse a css2 or css query. Throws an Error with a user-facing message for malformed families. */
export function parseGoogleFontsUrl(url: URL): GoogleFontsQuery {
  const api = url.pathname.replace(/\/+$/, '');
  const notes: string[] = [];
  const families: FontRequest[] = [];
  const displayRaw = url.searchParams.get('display');
  const display = displayRaw && DISPLAY.has(displayRaw) ? displayRaw : null;
  if (url.searchParams.has('text')) notes.push('text= is ignored: full subsets are served');
  if (url.searchParams.has('subset')) notes.push('subset= is ignored: every subset is served with its unicode-range');
  if (api === '/css2') {
    for (const f of url.searchParams.getAll('family')) {
      const [name, axes] = f.split(':', 2) as [string, string | undefined];
      const family = name.trim();
      if (!family) continue;
      const styles: FontRequest['styles'] = [];
      if (!axes) styles.push({ ital: 0, wght: 400 });
      else {
        const m = /^([a-zA-Z,]+)@(.+)$/.exec(axes);
        if (!m) throw new Error(`malformed axes "${axes}" for ${family}`);
        const names = m[1]!.split(',');
        const ii = names.indexOf('ital');
        const wi = names.indexOf('wght');
        for (const tuple of m[2]!.split(';')) {
          const vals = tuple.split(',');
          if (vals.length !== names.length) throw new Error(`malformed axis values "${tuple}" for ${family}`);
          const ital = ii >= 0 ? (vals[ii] === '1' ? 1 : 0) : 0;
          const w = wi >= 0 ? parseWeight(vals[wi]!) : 400;
          if (w === null) throw new Error(`malformed weight "${vals[wi]}" for ${family}`);
          styles.push({ ital, wght: w });
        }
        const other = names.filter((n) => n !== 'ital' && n !== 'wght');
        if (other.length) notes.push(`${family}: axes ${other.join(',')} are ignored`);
      }
      families.push({ family, styles });
    }
  } else {
    // css v1: family=Roboto:400,700italic|Open+Sans
    for (const group of url.searchParams.getAll('family')) {
      for (const f of group.split('|')) {
        const [name, variants] = f.split(':', 2) as [string, string | undefined];
        const family = name.trim();
        if (!family) continue;
        const styles: FontRequest['styles'] = [];
        for (const v of (variants ?? '400').split(',')) {
          const t = v.trim().toLowerCase();
          const ital = /(italic|i)$/.test(t) && t !== '' ? 1 : 0;
          const base = t.replace(/italic$|i$/, '');
          const wght = base === '' || base === 'r' || base === 'regular' ? 400 : base === 'b' || base === 'bold' ? 700 : Number(base);
          if (!Number.isFinite(wght) || wght < 1 || wght > 1000) throw new Error(`malformed variant "${v}" for ${family}`);
          styles.push({ ital: ital as 0 | 1, wght });
        }
        families.push({ family, styles });
      }
    }
  }
  return { families, display, notes };
}

export function fontSlug(family: string): string {
  return family
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export interface FontsourceData {
  /** The package (`@fontsource/inter` or `@fontsource-variable/inter`), its version and metadata. */
  name: string;
  version: string;
  id: string;
  family: string;
  weights: number[];
  styles: string[];
  /** subset → unicode-range, in Google's order. */
  unicode: Array<[string, string]>;
  /** wght axis range of a variable package. */
  axis: [number, number] | null;
  has(path: string): boolean;
}

export interface FaceBlock {
  css: string;
}

/**
 * The @font-face blocks for one family. `stat` and `variable` are the family's Fontsource packages (either may
 * be null). Returns the CSS and notes for what was left out.
 */
export function familyCss(
  req: FontRequest,
  stat: FontsourceData | null,
  variable: FontsourceData | null,
  display: string | null,
  fileUrl: (pkg: FontsourceData, file: string) => string,
): { css: string; notes: string[] } {
  const notes: string[] = [];
  const blocks: string[] = [];
  const seen = new Set<string>();
  const sorted = [...req.styles].sort((a, b) => a.ital - b.ital || (Array.isArray(a.wght) ? a.wght[0] : a.wght) - (Array.isArray(b.wght) ? b.wght[0] : b.wght));
  for (const s of sorted) {
    const style = s.ital ? 'italic' : 'normal';
    const key = `${style}/${String(s.wght)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let pkg: FontsourceData | null = null;
    let fileFor: ((subset: string) => string) | null = null;
    let weightCss = '';
    if (!Array.isArray(s.wght) && stat && stat.weights.includes(s.wght) && stat.styles.includes(style)) {
      pkg = stat;
      fileFor = (subset) => `files/${stat.id}-${subset}-${s.wght}-${style}.woff2`;
      weightCss = String(s.wght);
    } else if (variable && variable.axis && variable.styles.includes(style)) {
      const [lo, hi] = Array.isArray(s.wght) ? s.wght : [s.wght, s.wght];
      if (lo >= variable.axis[0] && hi <= variable.axis[1]) {
        pkg = variable;
        fileFor = (subset) => `files/${variable.id}-${subset}-wght-${style}.woff2`;
        weightCss = lo === hi ? String(lo) : `${lo} ${hi}`;
      }
    }
    if (!pkg || !fileFor) {
      notes.push(`${req.family}: no ${style} ${Array.isArray(s.wght) ? s.wght.join('..') : s.wght} in Fontsource`);
      continue;
    }
    for (const [subset, range] of pkg.unicode) {
      const file = fileFor(subset);
      if (!pkg.has(file)) continue;
      blocks.push(
        [
          `/* ${subset} */`,
          '@font-face {',
          `  font-family: '${req.family.replace(/'/g, "\\'")}';`,
          `  font-style: ${style};`,
          `  font-weight: ${weightCss};`,
          ...(display ? [`  font-display: ${display};`] : []),
          `  src: url(${fileUrl(pkg, file)}) format('woff2');`,
          `  unicode-range: ${range
            .split(',')
            .map((r) => r.trim())
            .join(', ')};`,
          '}',
        ].join('\n'),
      );
    }
  }
  return { css: blocks.join('\n'), notes };
}
