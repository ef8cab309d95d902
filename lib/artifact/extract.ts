/**
 * Extracting what the metrics read from the parse: source blocks and resource references.
 *
 * JS blocks: `<script>` without `src` whose `type` is empty, a JavaScript MIME type or `module`, every `.js`/`.mjs`
 * file, and event-handler attributes (`onclick` ...). CSS blocks: `<style>`, every `.css` file and `style`
 * attributes. `<script type="text/babel">`, templates and JSON blocks are not JS.
 */
import { posix } from 'node:path';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { LineIndex } from '../text.js';
import type { ArtifactFile, ResourceKind, ResourceRef, SourceBlock, SourceLanguage } from '../../core/artifact/model.js';
import { forEachElement, isElement, p5Attr, p5Loc, p5Text, type P5Element } from './parse.js';

const JS_TYPES = new Set([
  '',
  'text/javascript',
  'application/javascript',
  'application/ecmascript',
  'text/ecmascript',
  'module',
  'text/jsx',
  'application/x-javascript',
  'text/x-javascript',
]);

/** Is a `<script type=...>` value JavaScript we should analyse? (`text/jsx` is not: see module comment.) */
export function isJsScriptType(type: string | null): boolean {
  const t = (type ?? '').trim().toLowerCase().split(';')[0]!.trim();
  return JS_TYPES.has(t) && t !== 'text/jsx';
}

/** Classify a URL as written in the artifact file `fromFile`, resolving local ones against that file. */
export function classifyUrl(url: string, fromFile: string, fileSet: ReadonlySet<string>): Pick<ResourceRef, 'location' | 'path' | 'exists'> {
  const u = url.trim();
  if (/^data:/i.test(u)) return { location: 'data' };
  if (u === '' || u.startsWith('#') || /^(blob|javascript|mailto|tel|about|chrome|sms):/i.test(u)) return { location: 'special' };
  if (/^(https?:)?\/\//i.test(u)) return { location: 'remote' };
  if (/^[a-z][a-z0-9+.-]*:/i.test(u)) return { location: 'special' }; // other schemes (file:, ws:, ...) handled by callers
  let p = u.split('#')[0]!.split('?')[0]!;
  try {
    p = decodeURIComponent(p);
  } catch {
    /* keep as written */
  }
  const base = p.startsWith('/') ? '' : posix.dirname(fromFile);
  const joined = posix.normalize(posix.join(base === '.' ? '' : base, p.replace(/^\/+/, '')));
  if (joined === '..' || joined.startsWith('../')) return { location: 'local', path: null, exists: false };
  const path = joined === '.' ? '' : joined.replace(/^\.\//, '');
  const exists = fileSet.has(path) || (path.endsWith('/') ? fileSet.has(path + 'index.html') : false);
  return { location: 'local', path, exists };
}

function pushRef(resources: ResourceRef[], fileSet: ReadonlySet<string>, kind: ResourceKind, url: string, file: string, line: number): void {
  if (!url.trim()) return;
  resources.push({ kind, url, file, line, ...classifyUrl(url, file, fileSet) });
}

function srcsetUrls(srcset: string): string[] {
  return srcset
    .split(/,\s+/)
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter((u) => u.length > 0);
}

const LINK_KINDS: Record<string, ResourceKind> = {
  stylesheet: 'stylesheet',
  icon: 'icon',
  'shortcut icon': 'icon',
  'apple-touch-icon': 'icon',
  manifest: 'manifest',
  preload: 'preload',
  modulepreload: 'script',
  prefetch: 'preload',
};

/** Blocks and references of one HTML file, from its parse (elements in document order, templates excluded). */
export function extractFromHtml(
  f: ArtifactFile,
  tree: DefaultTreeAdapterTypes.Document,
  fileSet: ReadonlySet<string>,
  sources: SourceBlock[],
  resources: ResourceRef[],
): void {
  const html = f.text!;
  const idx = new LineIndex(html);
  const attrLine = (el: P5Element, name: string): number => {
    const loc = p5Loc(el);
    return loc?.attrs?.[name]?.startLine ?? loc?.startLine ?? 1;
  };

  forEachElement(tree, (el) => {
    const tag = el.tagName;
    // Inline script / style blocks
    if ((tag === 'script' && p5Attr(el, 'src') === null && isJsScriptType(p5Attr(el, 'type'))) || tag === 'style') {
      const loc = p5Loc(el);
      let text = p5Text(el);
      let start = loc?.startTag?.endOffset;
      if (loc?.startTag && loc.endTag) text = html.slice(loc.startTag.endOffset, loc.endTag.startOffset);
      if (start === undefined) start = loc?.startOffset ?? 0;
      const pos = idx.position(start);
      const language: SourceLanguage = tag === 'style' ? 'css' : 'js';
      const block: SourceBlock = { language, origin: 'inline', file: f.path, line: pos.line, column: pos.column, text };
      if (language === 'js') block.module = (p5Attr(el, 'type') ?? '').trim().toLowerCase() === 'module';
      sources.push(block);
    }
    // Attribute blocks
    for (const attr of el.attrs) {
      const name = (attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name).toLowerCase();
      if (name === 'style' || (name.startsWith('on') && name.length > 2)) {
        const loc = p5Loc(el)?.attrs?.[name];
        let line = loc?.startLine ?? 1;
        let column = loc?.startCol ?? 1;
        if (loc) {
          // Point at the value, not the attribute name: find the first quote after `name=`.
          const raw = html.slice(loc.startOffset, loc.endOffset);
          const eq = raw.indexOf('=');
          if (eq >= 0) {
            let off = eq + 1;
            while (off < raw.length && /\s/.test(raw[off]!)) off++;
            if (raw[off] === '"' || raw[off] === "'") off++;
            const p = idx.position(loc.startOffset + off);
            line = p.line;
            column = p.column;
          }
        }
        sources.push({
          language: name === 'style' ? 'css' : 'js',
          origin: 'attribute',
          file: f.path,
          line,
          column,
          text: attr.value,
          attribute: name,
        });
      }
    }
    // Resource references
    const ref = (kind: ResourceKind, attrName: string) => {
      const v = p5Attr(el, attrName);
      if (v !== null) pushRef(resources, fileSet, kind, v, f.path, attrLine(el, attrName));
    };
    switch (tag) {
      case 'img':
        ref('image', 'src');
        for (const u of srcsetUrls(p5Attr(el, 'srcset') ?? '')) pushRef(resources, fileSet, 'image', u, f.path, attrLine(el, 'srcset'));
        break;
      case 'source': {
        const parent = el.parentNode && isElement(el.parentNode) ? el.parentNode.tagName : undefined;
        const kind: ResourceKind = parent === 'video' ? 'video' : parent === 'audio' ? 'audio' : 'image';
        ref(kind, 'src');
        for (const u of srcsetUrls(p5Attr(el, 'srcset') ?? '')) pushRef(resources, fileSet, 'image', u, f.path, attrLine(el, 'srcset'));
        break;
      }
      case 'video':
        ref('video', 'src');
        ref('image', 'poster');
        break;
      case 'audio':
        ref('audio', 'src');
        break;
      case 'track':
        ref('track', 'src');
        break;
      case 'script':
        ref('script', 'src');
        break;
      case 'iframe':
      case 'frame':
        ref('iframe', 'src');
        break;
      case 'embed':
        ref('object', 'src');
        break;
      case 'object':
        ref('object', 'data');
        break;
      case 'input':
        if ((p5Attr(el, 'type') ?? '').toLowerCase() === 'image') ref('image', 'src');
        break;
      case 'link': {
        const rel = (p5Attr(el, 'rel') ?? '').toLowerCase().trim();
        const kind = LINK_KINDS[rel] ?? (rel.split(/\s+/).includes('icon') ? 'icon' : rel.split(/\s+/).includes('stylesheet') ? 'stylesheet' : undefined);
        if (kind) ref(kind, 'href');
        break;
      }
      default:
        break;
    }
  });
}

const CSS_URL_RE = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]+))\s*\)/gi;
/** `@import "x"`, `@import 'x'`, `@import url(x)`, `@import url("x")`: a quoted URL may hold `;` (Google Fonts `wght@400;700`). */
const CSS_IMPORT_RE = /@import\s+(?:url\(\s*)?(?:"([^"]*)"|'([^']*)'|([^"')\s;]+))/gi;

export function extractCssUrls(block: SourceBlock, fileSet: ReadonlySet<string>, resources: ResourceRef[]): void {
  const text = block.text;
  const idx = new LineIndex(text);
  const lineOf = (offset: number) => block.line + idx.position(offset).line - 1;
  // Track @font-face spans so their url()s are fonts.
  const fontSpans: Array<[number, number]> = [];
  for (const m of text.matchAll(/@font-face\s*\{[^}]*\}/gi)) fontSpans.push([m.index!, m.index! + m[0].length]);
  const importSpans: Array<[number, number]> = [];
  for (const m of text.matchAll(CSS_IMPORT_RE)) {
    importSpans.push([m.index!, m.index! + m[0].length]);
    pushRef(resources, fileSet, 'css-import', (m[1] ?? m[2] ?? m[3])!, block.file, lineOf(m.index!));
  }
  // Both span lists are in text order and do not overlap, and so are the matches: one pointer per list keeps
  // this linear in the number of url()s (a sheet with 20 000 @font-face rules is no worse than one).
  const inSpan = (spans: Array<[number, number]>) => {
    let i = 0;
    return (at: number) => {
      while (i < spans.length && spans[i]![1] <= at) i++;
      return i < spans.length && at >= spans[i]![0];
    };
  };
  const inImport = inSpan(importSpans);
  const inFontFace = inSpan(fontSpans);
  for (const m of text.matchAll(CSS_URL_RE)) {
    const at = m.index!;
    if (inImport(at)) continue;
    const url = m[1] ?? m[2] ?? m[3] ?? '';
    const kind: ResourceKind = inFontFace(at) ? 'font' : 'css-url';
    pushRef(resources, fileSet, kind, url, block.file, lineOf(at));
  }
}
