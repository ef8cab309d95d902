/**
 * Google Fonts: the CSS of `fonts.googleapis.com` built from Fontsource packages (see cdn/fonts.ts for the
 * rules); the font files it names are jsDelivr URLs of those packages. `fonts.gstatic.com` is not answered.
 */
import type { CdnBudget } from '../budget.js';
import { familyCss, fontSlug, parseGoogleFontsUrl, type FontsourceData } from '../fonts.js';
import { CSS_TYPE, ONE_DAY } from '../mime.js';
import { NotFoundError } from '../registry.js';
import { UnsupportedError, type Body, type CdnContext } from './context.js';

/** The metadata of a Fontsource package at its newest version, or null when there is no such package. */
async function fontsource(ctx: CdnContext, name: string, budget: CdnBudget): Promise<FontsourceData | null> {
  let version: string;
  try {
    version = await ctx.packages.resolve(name, 'latest', budget);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
  const pkg = await ctx.packages.open(name, version, budget);
  const metaRaw = await pkg.read('metadata.json');
  const uniRaw = await pkg.read('unicode.json');
  if (!metaRaw || !uniRaw) return null;
  const meta = JSON.parse(metaRaw.toString('utf8')) as {
    id: string;
    family: string;
    weights?: number[];
    styles?: string[];
    variable?: { wght?: { min: string; max: string } } | false;
  };
  const uni = JSON.parse(uniRaw.toString('utf8')) as Record<string, string>;
  const w = meta.variable && meta.variable.wght ? ([Number(meta.variable.wght.min), Number(meta.variable.wght.max)] as [number, number]) : null;
  return {
    name,
    version,
    id: meta.id,
    family: meta.family,
    weights: meta.weights ?? [],
    styles: meta.styles ?? ['normal'],
    unicode: Object.entries(uni).map(([k, v]) => [k.replace(/^\[(\d+)\]$/, '$1'), v] as [string, string]),
    axis: w,
    has: (f) => pkg.has(f),
  };
}

/** Google Fonts CSS (`/css`, `/css2`) from Fontsource. */
export async function googleFonts(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const api = url.pathname.replace(/\/+$/, '');
  if (api !== '/css' && api !== '/css2') throw new UnsupportedError(`unsupported google-fonts URL form ${url.pathname}`);
  let q;
  try {
    q = parseGoogleFontsUrl(url);
  } catch (err) {
    throw new NotFoundError(`malformed font request: ${(err as Error).message}`);
  }
  if (q.families.length === 0) throw new NotFoundError('no family= in the request');
  const notes = [...q.notes];
  const parts: string[] = [];
  const used: string[] = [];
  const fileUrl = (pkg: FontsourceData, file: string) => `https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/${file}`;
  for (const fam of q.families) {
    const slug = fontSlug(fam.family);
    // the variable package only when the static one cannot serve every requested style (fewer downloads)
    const stat = await fontsource(ctx, `@fontsource/${slug}`, budget);
    const needsVariable =
      !stat || fam.styles.some((s) => Array.isArray(s.wght) || !stat.weights.includes(s.wght) || !stat.styles.includes(s.ital ? 'italic' : 'normal'));
    const variable = needsVariable ? await fontsource(ctx, `@fontsource-variable/${slug}`, budget) : null;
    if (!stat && !variable) {
      notes.push(`not-found: family "${fam.family}": no @fontsource/${slug} package`);
      continue;
    }
    const r = familyCss(fam, stat, variable, q.display, fileUrl);
    notes.push(...r.notes);
    if (r.css) {
      parts.push(r.css);
      for (const p of [stat, variable]) if (p && r.css.includes(`/${p.name}@`)) used.push(`${p.name}@${p.version}`);
    }
  }
  if (parts.length === 0) throw new NotFoundError(notes.filter((n) => n.startsWith('not-found') || n.includes('no ')).join('; ') || 'no font faces');
  const header = notes.length ? `/* webgrade cdn: ${notes.join('; ').replace(/\*\//g, '* /')} */\n` : '';
  const body = Buffer.from(header + parts.join('\n') + '\n');
  const first = used[0] ?? '';
  const at = first.lastIndexOf('@');
  return { body, type: CSS_TYPE, cache: ONE_DAY, package: first.slice(0, at), version: first.slice(at + 1), file: 'google-fonts-css', notes };
}

/** `fonts.gstatic.com`: never answered (see the error). */
export function googleFontFiles(): Promise<Body> {
  throw new UnsupportedError(
    'font files on fonts.gstatic.com are named by Google’s hashes and cannot be mapped; the CSS from fonts.googleapis.com points at files this cache serves',
  );
}
