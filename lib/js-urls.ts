/**
 * URLs referenced from JavaScript, found on the acorn tree of every JS block (lib/js-parse.ts), plus the
 * full reference list of an artifact (HTML/CSS references from lib/artifact/extract.ts and these).
 *
 * What counts as a reference (a string literal, or a template literal without `${}`):
 * - the first argument of `fetch(...)`, `window.fetch(...)`, `importScripts(...)`,
 *   `navigator.serviceWorker.register(...)`, `new Worker/SharedWorker/Audio/EventSource(...)`;
 * - the second argument of `x.open(method, url)` when the first is an HTTP method literal (XMLHttpRequest);
 * - the right-hand side of `x.src = ...`, `x.poster = ...`, `x.data = ...` (the last only for literal URLs
 *   that look like files, since `.data` is a common property name), and of `x.setAttribute('src'|'poster', ...)`;
 * - the source of `import()`, `import ... from`, `export ... from` when it is a path (`./`, `../`, `/`) or an
 *   absolute URL; bare specifiers (`"react"`) are package names, not URLs, and are skipped;
 * - any other string literal whose whole value is a path or URL of an asset file by its extension (images,
 *   media, fonts, `.json/.css/.js/.mjs/.svg/.csv/.txt/.xml/.webmanifest`), without spaces;
 * - `src="..."`/`poster="..."` values and `url(...)` values written inside string literals that hold HTML or
 *   CSS (`el.innerHTML = '<img src="a.png">'`), when the value has no `${`;
 * - string literals starting with `data:` followed by a media type (`data:image/png;base64,...`).
 * Dynamic values (variables, concatenations, templates with `${}`) cannot be resolved statically and are not
 * counted.
 *
 * Resolution: URLs used by the page at run time (fetch, XHR, src, workers, audio) resolve against the document,
 * i.e. the entry page, whichever file the script lives in; module specifiers (`import`) resolve against the
 * file that contains them. A JS file that is not loaded by the entry page is still treated as if it were.
 */
import { simple as walkSimple } from 'acorn-walk';
import type * as acorn from 'acorn';
import { classifyUrl } from './artifact/extract.js';
import type { Artifact, ResourceRef, SourceBlock } from '../core/artifact/model.js';
import { parseJs, fileLine } from './js-parse.js';

/** How a JS reference was written. */
export type JsUrlVia =
  | 'fetch'
  | 'xhr'
  | 'src-assignment'
  | 'set-attribute'
  | 'import'
  | 'worker'
  | 'audio'
  | 'event-source'
  | 'import-scripts'
  | 'service-worker'
  | 'asset-literal'
  | 'markup-literal'
  | 'data-literal';

export interface JsUrlRef extends ResourceRef {
  kind: 'js-url';
  via: JsUrlVia;
}

const ASSET_EXT =
  /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|mp4|webm|ogv|mov|mp3|wav|ogg|oga|m4a|flac|aac|woff2?|ttf|otf|eot|json|css|js|mjs|csv|txt|xml|webmanifest|vtt|glb|gltf|wasm)$/i;
const HTTP_METHODS = /^(get|post|put|patch|delete|head|options)$/i;
const PATH_LIKE = /^(\.{1,2}\/|\/(?!\/)|https?:\/\/|\/\/)/i;

/** The string value of a literal or an expression-free template literal, else null. */
function staticString(node: acorn.AnyNode | null | undefined): string | null {
  if (!node) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked ?? null;
  return null;
}

function calleeName(node: acorn.AnyNode): string | null {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') {
    const obj = calleeName(node.object);
    return obj ? `${obj}.${node.property.name}` : `?.${node.property.name}`;
  }
  return null;
}

function propName(node: acorn.AnyNode): string | null {
  if (node.type !== 'MemberExpression') return null;
  if (!node.computed && node.property.type === 'Identifier') return node.property.name;
  if (node.computed) return staticString(node.property);
  return null;
}

/** Does a string look like a path or URL of an asset file (whole value, no spaces)? */
export function looksLikeAssetPath(s: string): boolean {
  const v = s.trim();
  if (v.length < 4 || v.length > 2048 || /\s/.test(v) || v.includes('${') || /[<>"'`{}|\\^]/.test(v)) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(v) && !/^https?:/i.test(v)) return false;
  // "frame%05d.png", "img_%s.jpg": a printf-style pattern (ffmpeg, sprintf), not one file
  if (/%[-+ 0#]*\d*(?:\.\d+)?[sdiufxX]/.test(v.replace(/%[0-9a-f]{2}(?![0-9]*d)/gi, ''))) return false;
  const path = v.split('#')[0]!.split('?')[0]!;
  if (!ASSET_EXT.test(path)) return false;
  const base = path.slice(path.lastIndexOf('/') + 1);
  // "e.g.js", "Node.js", "Vue.js": a library name, not a file, unless written as a path
  if (!path.includes('/') && /^[A-Z]/.test(base)) return false;
  // a file name needs a non-empty stem: ".js" alone is an extension, not a file
  return base.lastIndexOf('.') > 0;
}

const MARKUP_SRC_RE = /\b(?:src|poster)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const MARKUP_URL_RE = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]+))\s*\)/gi;
const DATA_LITERAL = /^data:[a-z]+\/[a-z0-9.+-]+[;,]/i;

interface Found {
  url: string;
  via: JsUrlVia;
  line: number;
  documentRelative: boolean;
}

/** References written in one JS block. Lines are file lines. */
export function jsBlockUrls(block: SourceBlock): Found[] {
  const parsed = parseJs(block);
  const out: Found[] = [];
  const consumed = new Set<acorn.AnyNode>();
  const lineOf = (node: acorn.AnyNode) => fileLine(block, node.loc?.start.line ?? 1);
  const take = (arg: acorn.AnyNode | null | undefined, via: JsUrlVia, documentRelative = true, filter?: (s: string) => boolean) => {
    const s = staticString(arg);
    if (arg && s !== null && s.trim() !== '' && (!filter || filter(s))) {
      consumed.add(arg);
      out.push({ url: s.trim(), via, line: lineOf(arg), documentRelative });
    }
  };
  const isModulePath = (s: string) => PATH_LIKE.test(s.trim());

  try {
    walkSimple(parsed.ast, {
      CallExpression(node) {
        const name = calleeName(node.callee as acorn.AnyNode);
        const args = node.arguments as acorn.AnyNode[];
        if (!name) return;
        const last = name.slice(name.lastIndexOf('.') + 1);
        if (name === 'fetch' || name === 'window.fetch' || name === 'globalThis.fetch' || name === 'self.fetch') take(args[0], 'fetch');
        else if (name === 'importScripts') for (const a of args) take(a, 'import-scripts');
        else if (name.endsWith('serviceWorker.register')) take(args[0], 'service-worker');
        else if (last === 'open' && args.length >= 2 && HTTP_METHODS.test(staticString(args[0]) ?? '')) take(args[1], 'xhr');
        else if (last === 'setAttribute' && /^(src|poster)$/i.test(staticString(args[0]) ?? '')) take(args[1], 'set-attribute');
      },
      NewExpression(node) {
        const name = calleeName(node.callee as acorn.AnyNode);
        const arg = (node.arguments as acorn.AnyNode[])[0];
        if (name === 'Worker' || name === 'SharedWorker') take(arg, 'worker');
        else if (name === 'Audio') take(arg, 'audio');
        else if (name === 'EventSource') take(arg, 'event-source');
      },
      AssignmentExpression(node) {
        const p = propName(node.left as acorn.AnyNode);
        if (p === 'src' || p === 'poster') take(node.right as acorn.AnyNode, 'src-assignment');
        else if (p === 'data') take(node.right as acorn.AnyNode, 'src-assignment', true, looksLikeAssetPath);
      },
      ImportExpression(node) {
        take(node.source as acorn.AnyNode, 'import', false, isModulePath);
      },
      ImportDeclaration(node) {
        take(node.source as acorn.AnyNode, 'import', false, isModulePath);
      },
      ExportAllDeclaration(node) {
        take(node.source as acorn.AnyNode, 'import', false, isModulePath);
      },
      ExportNamedDeclaration(node) {
        if (node.source) take(node.source as acorn.AnyNode, 'import', false, isModulePath);
      },
    });
  } catch {
    /* a recovered (loose) tree with an unexpected shape: keep what was found */
  }

  const literal = (node: acorn.AnyNode, s: string) => {
    if (consumed.has(node)) return;
    const v = s.trim();
    if (DATA_LITERAL.test(v)) {
      out.push({ url: v, via: 'data-literal', line: lineOf(node), documentRelative: true });
      return;
    }
    if (looksLikeAssetPath(v)) {
      out.push({ url: v, via: 'asset-literal', line: lineOf(node), documentRelative: true });
      return;
    }
    if (s.includes('src') || s.includes('poster') || s.includes('url(')) {
      for (const m of s.matchAll(MARKUP_SRC_RE)) {
        const u = (m[1] ?? m[2] ?? '').trim();
        if (u && !u.includes('${')) out.push({ url: u, via: 'markup-literal', line: lineOf(node), documentRelative: true });
      }
      for (const m of s.matchAll(MARKUP_URL_RE)) {
        const u = (m[1] ?? m[2] ?? m[3] ?? '').trim();
        if (u && !u.includes('${') && !u.startsWith('#')) out.push({ url: u, via: 'markup-literal', line: lineOf(node), documentRelative: true });
      }
    }
  };
  try {
    walkSimple(parsed.ast, {
      Literal(node) {
        if (typeof node.value === 'string') literal(node, node.value);
      },
      TemplateLiteral(node) {
        if (node.expressions.length === 0) {
          literal(node, node.quasis[0]?.value.cooked ?? '');
          return;
        }
        // Templates with ${}: static markup pieces may still hold complete src="..." values.
        for (const q of node.quasis) {
          const s = q.value.cooked ?? '';
          for (const m of s.matchAll(MARKUP_SRC_RE)) {
            const u = (m[1] ?? m[2] ?? '').trim();
            if (u) out.push({ url: u, via: 'markup-literal', line: lineOf(q), documentRelative: true });
          }
        }
      },
    });
  } catch {
    /* see above */
  }
  return out;
}

/** Every URL referenced from the artifact's JS, classified like HTML/CSS references. Same (url, file, line) once. */
export function extractJsUrls(artifact: Artifact): JsUrlRef[] {
  const fileSet = new Set(artifact.files.map((f) => f.path));
  const seen = new Set<string>();
  const out: JsUrlRef[] = [];
  for (const block of artifact.sources) {
    if (block.language !== 'js') continue;
    for (const f of jsBlockUrls(block)) {
      const key = `${f.url}\u0000${block.file}\u0000${f.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const from = f.documentRelative ? artifact.entry : block.file;
      out.push({ kind: 'js-url', via: f.via, url: f.url, file: block.file, line: f.line, ...classifyUrl(f.url, from, fileSet) });
    }
  }
  return out;
}

/** All references of the artifact: HTML and CSS ones (artifact.resources), then JS ones. */
export function allReferences(artifact: Artifact): Array<ResourceRef | JsUrlRef> {
  return [...artifact.resources, ...extractJsUrls(artifact)];
}

/** The absolute URL a remote reference is checked at (`//host/x` becomes `https://host/x`; fragment dropped). */
export function remoteKey(url: string): string {
  let u = url.trim();
  if (u.startsWith('//')) u = 'https:' + u;
  const hash = u.indexOf('#');
  if (hash >= 0) u = u.slice(0, hash);
  try {
    return new URL(u).href;
  } catch {
    return u;
  }
}

/** Distinct remote URLs (as `remoteKey`s) the artifact references. */
export function remoteUrls(artifact: Artifact): string[] {
  return [
    ...new Set(
      allReferences(artifact)
        .filter((r) => r.location === 'remote')
        .map((r) => remoteKey(r.url)),
    ),
  ];
}
