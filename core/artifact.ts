/**
 * The artifact model: one HTML file, or a folder with `index.html` plus local files, loaded and parsed once and
 * shared by every metric.
 *
 * Choices (SPEC leaves them open):
 * - A single file is an artifact of exactly one file: its siblings on disk are not part of it, are not served
 *   and count as missing when referenced. A folder artifact holds every file below it except hidden entries
 *   and `node_modules` (at most MAX_FILES files).
 * - Text is decoded as UTF-8 (BOM stripped); a file that is not valid UTF-8 is decoded with the charset its
 *   `<meta charset>`/`@charset` names, else windows-1252; UTF-16 with a BOM is honoured. The encoding used is
 *   recorded per file.
 * - Physical lines (L of SPEC #4 and #5) = lines of every HTML, CSS and JS file of the artifact; inline blocks
 *   are already inside their HTML file and are not counted twice.
 * - JS blocks: `<script>` without `src` whose `type` is empty, a JavaScript MIME type or `module`, every `.js`
 *   /`.mjs` file, and event-handler attributes (`onclick` ...). CSS blocks: `<style>`, every `.css` file and
 *   `style` attributes. `<script type="text/babel">`, templates and JSON blocks are not JS.
 *
 * What belongs to an artifact (a security rule: a page must never read a file the user did not give it). The
 * root is taken by its real path. A file is part of the artifact only when it is a regular file whose real path
 * lies inside the real root: a symbolic link is followed only when its target is such a file (or a folder inside
 * the root, each real folder walked once, so link loops end); links that leave the root, device files, FIFOs,
 * sockets and anything under /proc, /sys or /dev are left out and listed in `refused` with the reason. A
 * single-file artifact whose entry is a link is followed only to an .html/.htm file (a folder of links to pages
 * is a common way to take a sample); a link to anything else is bad input. Files are read with
 * `readArtifactFile`, which opens the verified real path without following links and checks again that it is a
 * regular file, so a file swapped for a link after loading is not read either. The loopback server and the
 * metrics that read bytes (media) use the same function.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join, posix, relative, resolve, sep } from 'node:path';
import { JSDOM } from 'jsdom';
import { InputError, errorMessage } from './errors.js';
import { LineIndex, countLines } from './text.js';

export type FileKind = 'html' | 'css' | 'js' | 'svg' | 'image' | 'video' | 'audio' | 'font' | 'data' | 'other';

export interface ArtifactFile {
  /** Path relative to the artifact root, with forward slashes. */
  path: string;
  /** The file's verified real path (inside the artifact's real root). */
  absPath: string;
  size: number;
  kind: FileKind;
  /** Decoded text for text kinds (html, css, js, svg, data). */
  text?: string;
  encoding?: string;
}

export type SourceLanguage = 'css' | 'js';
export type SourceOrigin = 'file' | 'inline' | 'attribute';

export interface SourceBlock {
  language: SourceLanguage;
  origin: SourceOrigin;
  /** The artifact file that contains the block. */
  file: string;
  /** 1-based line and column in `file` where `text` begins. */
  line: number;
  column: number;
  text: string;
  /** JS only: parsed as an ES module (`type="module"` or `.mjs`). */
  module?: boolean;
  /** For attribute blocks: the attribute name (`style`, `onclick`, ...). */
  attribute?: string;
}

export type ResourceKind =
  | 'image'
  | 'video'
  | 'audio'
  | 'track'
  | 'script'
  | 'stylesheet'
  | 'font'
  | 'icon'
  | 'iframe'
  | 'object'
  | 'manifest'
  | 'preload'
  | 'css-url'
  | 'css-import'
  | 'js-url';

export type ResourceLocation = 'local' | 'remote' | 'data' | 'special';

export interface ResourceRef {
  kind: ResourceKind;
  /** The URL exactly as written. */
  url: string;
  /** Where it is written: artifact file and 1-based line. */
  file: string;
  line: number;
  location: ResourceLocation;
  /** Local only: the artifact-relative path it resolves to (null when it escapes the artifact root). */
  path?: string | null;
  /** Local only: whether that file is part of the artifact. */
  exists?: boolean;
}

export interface Artifact {
  /** The path the user gave. */
  input: string;
  /** Absolute directory the artifact is served from. */
  root: string;
  /** Artifact-relative path of the entry page. */
  entry: string;
  kind: 'file' | 'folder';
  files: ArtifactFile[];
  /** Text of the entry page. */
  html: string;
  sources: SourceBlock[];
  physicalLines: number;
  resources: ResourceRef[];
  /** Static DOM of the entry page (jsdom, scripts not run, node locations recorded). */
  dom: JSDOM;
  /** Entries under the root left out of the artifact by the rule of the module comment, with why. */
  refused: Array<{ path: string; reason: string }>;
}

const MAX_FILES = 5000;
const MAX_TEXT_BYTES = 20 * 1024 * 1024;

const KIND_BY_EXT: Record<string, FileKind> = {
  '.html': 'html', '.htm': 'html', '.xhtml': 'html',
  '.css': 'css',
  '.js': 'js', '.mjs': 'js', '.cjs': 'js',
  '.svg': 'svg',
  '.png': 'image', '.jpg': 'image', '.jpeg': 'image', '.gif': 'image', '.webp': 'image', '.avif': 'image',
  '.ico': 'image', '.bmp': 'image',
  '.mp4': 'video', '.webm': 'video', '.ogv': 'video', '.mov': 'video',
  '.mp3': 'audio', '.wav': 'audio', '.ogg': 'audio', '.m4a': 'audio', '.flac': 'audio',
  '.woff': 'font', '.woff2': 'font', '.ttf': 'font', '.otf': 'font', '.eot': 'font',
  '.json': 'data', '.txt': 'data', '.md': 'data', '.csv': 'data', '.xml': 'data', '.webmanifest': 'data',
};

const TEXT_KINDS = new Set<FileKind>(['html', 'css', 'js', 'svg', 'data']);

export function fileKind(path: string): FileKind {
  return KIND_BY_EXT[extname(path).toLowerCase()] ?? 'other';
}

/** Decode bytes as text; see the module comment for the policy. */
export function decodeText(buf: Buffer): { text: string; encoding: string } {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(buf.subarray(2)), encoding: 'utf-16le' };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(buf.subarray(2)), encoding: 'utf-16be' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf), encoding: 'utf-8' };
  } catch {
    const head = buf.subarray(0, 2048).toString('latin1');
    const m = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head) ?? /@charset\s+["']([\w-]+)["']/i.exec(head);
    const label = m?.[1]?.toLowerCase();
    if (label && label !== 'utf-8' && label !== 'utf8') {
      try {
        return { text: new TextDecoder(label).decode(buf), encoding: label };
      } catch {
        /* unknown label: fall through */
      }
    }
    return { text: new TextDecoder('windows-1252').decode(buf), encoding: 'windows-1252' };
  }
}

function looksBinary(buf: Buffer): boolean {
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) return false;
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

function statOrFail(p: string): Stats {
  try {
    return statSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new InputError(`${p}: no such file or folder`);
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`${p}: permission denied`);
    throw new InputError(`${p}: cannot read (${errorMessage(err)})`);
  }
}

function readOrFail(p: string): Buffer {
  try {
    return readArtifactFile({ absPath: p });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`${p}: permission denied`);
    if (code === 'EISDIR') throw new InputError(`${p}: is a folder, expected a file`);
    throw new InputError(`${p}: cannot read (${errorMessage(err)})`);
  }
}

const SYSTEM_TREES = ['/proc', '/sys', '/dev'];

function insideTree(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Why `real` (a real path) may not be part of an artifact rooted at the real path `root`, or null. */
export function outsideReason(real: string, root: string): string | null {
  if (SYSTEM_TREES.some((t) => insideTree(real, t))) return `a link into ${real.split(sep).slice(0, 2).join(sep)} (system files are never served)`;
  if (!insideTree(real, root)) return 'a link to a file outside the artifact folder';
  return null;
}

interface Listed {
  /** Artifact-relative path. */
  rel: string;
  /** Verified real path. */
  real: string;
}

function listFolder(root: string, refused: Artifact['refused']): Listed[] {
  const out: Listed[] = [];
  const seenDirs = new Set<string>([root]);
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (err) {
      if (rel === '') throw new InputError(`${dir}: cannot list folder (${errorMessage(err)})`);
      return;
    }
    for (const name of names.sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      let lst: Stats;
      try {
        lst = lstatSync(abs);
      } catch {
        continue;
      }
      let real = abs;
      let st = lst;
      if (lst.isSymbolicLink()) {
        try {
          real = realpathSync(abs);
          st = statSync(real);
        } catch (err) {
          refused.push({ path: r, reason: `a dangling or looping link (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})` });
          continue;
        }
        const why = outsideReason(real, root);
        if (why) {
          refused.push({ path: r, reason: why });
          continue;
        }
      }
      if (st.isDirectory()) {
        if (seenDirs.has(real)) continue; // a link back to a folder already walked
        seenDirs.add(real);
        walk(real, r);
      } else if (st.isFile()) {
        out.push({ rel: r, real });
        if (out.length > MAX_FILES) throw new InputError(`${root}: more than ${MAX_FILES} files; is this really one web app?`);
      } else refused.push({ path: r, reason: 'not a regular file (device, FIFO or socket)' });
    }
  };
  walk(root, '');
  return out;
}

/**
 * Read an artifact file's bytes: its verified real path, opened without following a link, and only when it is
 * still a regular file (see the module comment). Throws like readFileSync when it cannot.
 */
export function readArtifactFile(file: Pick<ArtifactFile, 'absPath'>): Buffer {
  const fd = openSync(file.absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(`${file.absPath}: not a regular file`), { code: 'EINVAL' });
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === st.size ? buf : buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

function loadFile(listed: Listed, isEntry: boolean): ArtifactFile {
  const rel = listed.rel;
  const absPath = listed.real;
  const kind = fileKind(rel);
  const st = statOrFail(absPath);
  const file: ArtifactFile = { path: rel, absPath, size: st.size, kind };
  if (TEXT_KINDS.has(kind) || isEntry) {
    if (st.size > MAX_TEXT_BYTES) {
      if (isEntry) throw new InputError(`${absPath}: larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB`);
      return file;
    }
    let buf: Buffer;
    try {
      buf = readOrFail(absPath);
    } catch (err) {
      if (isEntry) throw err;
      return file; // an unreadable side file is reported by the metrics that reference it
    }
    if (isEntry) {
      if (buf.length === 0 || buf.toString('latin1').trim() === '') throw new InputError(`${absPath}: file is empty`);
      if (looksBinary(buf)) throw new InputError(`${absPath}: is a binary file, not HTML`);
    } else if (looksBinary(buf)) {
      return file;
    }
    const { text, encoding } = decodeText(buf);
    file.text = text;
    file.encoding = encoding;
  }
  return file;
}

/** Load an artifact from a path; throws InputError with one clear line for bad input. */
export function loadArtifact(input: string): Artifact {
  const abs = resolve(input);
  const st = statOrFail(abs);
  let root: string;
  let entry: string;
  let listed: Listed[];
  let kind: Artifact['kind'];
  const refused: Artifact['refused'] = [];
  if (st.isDirectory()) {
    root = realpathSync(abs);
    if (SYSTEM_TREES.some((t) => insideTree(root, t))) throw new InputError(`${input}: is a system folder, not a web app`);
    listed = listFolder(root, refused);
    if (!listed.some((l) => l.rel === 'index.html')) {
      const why = refused.find((r) => r.path === 'index.html');
      throw new InputError(`${input}: folder has no index.html${why ? ` (index.html is ${why.reason})` : ''}`);
    }
    entry = 'index.html';
    kind = 'folder';
  } else if (st.isFile()) {
    const real = realpathSync(abs);
    const why = outsideReason(real, realpathSync(dirname(abs)));
    // A link to an HTML file elsewhere is followed (folders of links to pages are a common way to pick a
    // sample); a link to anything else (/proc/self/environ, a key file) is refused. Only that one file is served.
    if (why && (!/\.html?$/i.test(real) || SYSTEM_TREES.some((t) => insideTree(real, t)))) throw new InputError(`${input}: is ${why}, and not to an HTML file; give the file itself`);
    root = dirname(real);
    entry = basename(abs);
    listed = [{ rel: entry, real }];
    kind = 'file';
  } else {
    throw new InputError(`${input}: not a regular file or folder`);
  }

  const files = listed.map((l) => loadFile(l, l.rel === entry));
  const entryFile = files.find((f) => f.path === entry)!;
  const html = entryFile.text ?? '';

  const dom = new JSDOM(html, { includeNodeLocations: true, url: 'http://artifact.invalid/' + encodeURI(entry) });
  const sources: SourceBlock[] = [];
  const resources: ResourceRef[] = [];
  const fileSet = new Set(files.map((f) => f.path));

  for (const f of files) {
    if (f.text === undefined) continue;
    if (f.kind === 'html') {
      const fileDom = f.path === entry ? dom : new JSDOM(f.text, { includeNodeLocations: true });
      extractFromHtml(f, fileDom, fileSet, sources, resources);
    } else if (f.kind === 'css') {
      sources.push({ language: 'css', origin: 'file', file: f.path, line: 1, column: 1, text: f.text });
    } else if (f.kind === 'js') {
      sources.push({ language: 'js', origin: 'file', file: f.path, line: 1, column: 1, text: f.text, module: f.path.endsWith('.mjs') });
    }
  }
  for (const block of sources) {
    if (block.language === 'css') extractCssUrls(block, fileSet, resources);
  }

  const physicalLines = files
    .filter((f) => f.text !== undefined && (f.kind === 'html' || f.kind === 'css' || f.kind === 'js'))
    .reduce((sum, f) => sum + countLines(f.text!), 0);

  return { input, root, entry, kind, files, html, sources, physicalLines, resources, dom, refused };
}

const JS_TYPES = new Set([
  '', 'text/javascript', 'application/javascript', 'application/ecmascript', 'text/ecmascript', 'module',
  'text/jsx', 'application/x-javascript', 'text/x-javascript',
]);

/** Is a `<script type=...>` value JavaScript we should analyse? (`text/jsx` is not: see module comment.) */
export function isJsScriptType(type: string | null): boolean {
  const t = (type ?? '').trim().toLowerCase().split(';')[0]!.trim();
  return JS_TYPES.has(t) && t !== 'text/jsx';
}

interface Parse5Location {
  startLine: number;
  startCol: number;
  startOffset: number;
  endOffset: number;
  startTag?: { endOffset: number; startLine: number; startCol: number };
  endTag?: { startOffset: number };
  attrs?: Record<string, { startLine: number; startCol: number; startOffset: number; endOffset: number }>;
}

function nodeLoc(dom: JSDOM, el: Element): Parse5Location | null {
  try {
    return (dom.nodeLocation(el) as unknown as Parse5Location) ?? null;
  } catch {
    return null;
  }
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
  stylesheet: 'stylesheet', icon: 'icon', 'shortcut icon': 'icon', 'apple-touch-icon': 'icon', manifest: 'manifest',
  preload: 'preload', modulepreload: 'script', prefetch: 'preload',
};

function extractFromHtml(f: ArtifactFile, dom: JSDOM, fileSet: ReadonlySet<string>, sources: SourceBlock[], resources: ResourceRef[]): void {
  const html = f.text!;
  const idx = new LineIndex(html);
  const doc = dom.window.document;
  const attrLine = (el: Element, name: string): number => {
    const loc = nodeLoc(dom, el);
    return loc?.attrs?.[name]?.startLine ?? loc?.startLine ?? 1;
  };

  for (const el of Array.from(doc.querySelectorAll('*'))) {
    const tag = el.localName;
    // Inline script / style blocks
    if ((tag === 'script' && !el.hasAttribute('src') && isJsScriptType(el.getAttribute('type'))) || tag === 'style') {
      const loc = nodeLoc(dom, el);
      let text = el.textContent ?? '';
      let start = loc?.startTag?.endOffset;
      if (loc?.startTag && loc.endTag) text = html.slice(loc.startTag.endOffset, loc.endTag.startOffset);
      if (start === undefined) start = loc?.startOffset ?? 0;
      const pos = idx.position(start);
      const language: SourceLanguage = tag === 'style' ? 'css' : 'js';
      const block: SourceBlock = { language, origin: 'inline', file: f.path, line: pos.line, column: pos.column, text };
      if (language === 'js') block.module = (el.getAttribute('type') ?? '').trim().toLowerCase() === 'module';
      sources.push(block);
    }
    // Attribute blocks
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (name === 'style' || (name.startsWith('on') && name.length > 2)) {
        const loc = nodeLoc(dom, el)?.attrs?.[name];
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
      const v = el.getAttribute(attrName);
      if (v !== null) pushRef(resources, fileSet, kind, v, f.path, attrLine(el, attrName));
    };
    switch (tag) {
      case 'img':
        ref('image', 'src');
        for (const u of srcsetUrls(el.getAttribute('srcset') ?? '')) pushRef(resources, fileSet, 'image', u, f.path, attrLine(el, 'srcset'));
        break;
      case 'source': {
        const parent = el.parentElement?.localName;
        const kind: ResourceKind = parent === 'video' ? 'video' : parent === 'audio' ? 'audio' : 'image';
        ref(kind, 'src');
        for (const u of srcsetUrls(el.getAttribute('srcset') ?? '')) pushRef(resources, fileSet, 'image', u, f.path, attrLine(el, 'srcset'));
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
        if ((el.getAttribute('type') ?? '').toLowerCase() === 'image') ref('image', 'src');
        break;
      case 'link': {
        const rel = (el.getAttribute('rel') ?? '').toLowerCase().trim();
        const kind = LINK_KINDS[rel] ?? (rel.split(/\s+/).includes('icon') ? 'icon' : rel.split(/\s+/).includes('stylesheet') ? 'stylesheet' : undefined);
        if (kind) ref(kind, 'href');
        break;
      }
      default:
        break;
    }
  }
}

const CSS_URL_RE = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]+))\s*\)/gi;
/** `@import "x"`, `@import 'x'`, `@import url(x)`, `@import url("x")`: a quoted URL may hold `;` (Google Fonts `wght@400;700`). */
const CSS_IMPORT_RE = /@import\s+(?:url\(\s*)?(?:"([^"]*)"|'([^']*)'|([^"')\s;]+))/gi;

function extractCssUrls(block: SourceBlock, fileSet: ReadonlySet<string>, resources: ResourceRef[]): void {
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
  for (const m of text.matchAll(CSS_URL_RE)) {
    const at = m.index!;
    if (importSpans.some(([a, b]) => at >= a && at < b)) continue;
    const url = m[1] ?? m[2] ?? m[3] ?? '';
    const kind: ResourceKind = fontSpans.some(([a, b]) => at >= a && at < b) ? 'font' : 'css-url';
    pushRef(resources, fileSet, kind, url, block.file, lineOf(at));
  }
}

/** Files of the artifact that are HTML, CSS or JS with text. */
export function codeFiles(artifact: Artifact): ArtifactFile[] {
  return artifact.files.filter((f) => f.text !== undefined && (f.kind === 'html' || f.kind === 'css' || f.kind === 'js'));
}
